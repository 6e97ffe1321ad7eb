package sbn

import (
	"hash/fnv"
	"math"
	"testing"

	"github.com/logz-ml/logz/internal/kernel"
)

// gibbsHash trains a two-layer net (plain, or autoregressive with
// persistent chains) for two epochs with the Gibbs sampler in precision p
// and hashes the epochs' signals and every parameter's bits.
func gibbsHash(t *testing.T, ar bool, p kernel.Precision, seed uint64) uint64 {
	t.Helper()
	n := randomNet([]int{40, 8, 4}, ar, 1, seed)
	data := plantedData(n, 60, seed+1)
	InitNormal(n, 0.3, seed+2)
	o := DefaultTrainOptions()
	o.Sampler, o.Precision, o.Persistent = "gibbs", p, ar
	o.BatchSize, o.Steps, o.Samples, o.Workers, o.Seed = 20, 3, 4, 2, seed+3
	tr, err := NewTrainer(n, len(data), o)
	if err != nil {
		t.Fatal(err)
	}
	h := fnv.New64a()
	put := func(xs []float64) {
		for _, x := range xs {
			b := math.Float64bits(x)
			h.Write([]byte{byte(b), byte(b >> 8), byte(b >> 16), byte(b >> 24), byte(b >> 32), byte(b >> 40), byte(b >> 48), byte(b >> 56)})
		}
	}
	for range 2 {
		st, err := tr.TrainEpoch(data)
		if err != nil {
			t.Fatal(err)
		}
		put([]float64{st.ReconError})
	}
	put(tr.theta)
	return h.Sum64()
}

// TestGibbsFloat32Golden pins the float32 Gibbs sampler's numbers: two
// epochs of a plain and of an autoregressive (persistent) two-layer net
// with 40 visible units (two blocks of the products, and a group of eight
// lanes beside a partial one). The hashes were taken from the float32
// chains before they became one engine generic over the precision
// (sampler32.go); a change to their arithmetic, however small, changes
// them.
func TestGibbsFloat32Golden(t *testing.T) {
	for _, c := range []struct {
		ar   bool
		want uint64
	}{{false, goldenGibbsPlain}, {true, goldenGibbsAR}} {
		if got := gibbsHash(t, c.ar, kernel.Float32, 71); got != c.want {
			t.Errorf("ar %v: hash %#x, want %#x", c.ar, got, c.want)
		}
	}
}

const goldenGibbsPlain, goldenGibbsAR = 0x11373ff888d03ab6, 0xacaccba367e4fb12
