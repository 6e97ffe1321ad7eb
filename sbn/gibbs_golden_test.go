package sbn

import (
	"hash"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/logz-ml/logz/internal/kernel"
)

// putBits writes the bits of x to h, little-endian.
func putBits(h hash.Hash64, x float64) {
	b := math.Float64bits(x)
	h.Write([]byte{byte(b), byte(b >> 8), byte(b >> 16), byte(b >> 24), byte(b >> 32), byte(b >> 40), byte(b >> 48), byte(b >> 56)})
}

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
			putBits(h, x)
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

// TestGibbsChains32Golden pins the float32 chains' arithmetic itself
// (the trainer's hashes above see it only through the draws): 13 chains
// of a 70-40-9 net with weights of scale 3 (activations beyond Extreme8
// too), plain and autoregressive, hashed over every unit's log-odds, the
// visible Σ softplus(a) and odds and the latent states, activations and σ
// pairs after each of four sweeps. The hashes were taken from the float32
// chains of sampler32.go.
func TestGibbsChains32Golden(t *testing.T) {
	for _, c := range []struct {
		ar   bool
		want uint64
	}{{false, 0x20fbb53604eeb294}, {true, 0xf8c08998676401ef}} {
		n := randomNet([]int{70, 40, 9}, c.ar, 3, 5)
		g := n.newGibbsTables(true)
		g.refresh(n)
		const active = 13
		lc := newGibbsChains[float32](n, active)
		h := n.States()
		rng := rand.New(rand.NewPCG(1, 2))
		rngs := make([]*rand.Rand, active)
		for k := range active {
			randomState(h, rng)
			lc.load(k, h)
			rngs[k] = rand.New(rand.NewPCG(uint64(k), 3))
		}
		lc.refresh(active, g)
		hs := fnv.New64a()
		put := func(x float64) { putBits(hs, x) }
		for range 4 {
			lc.sweep(g, rngs)
			lc.flush(g)
			for l := 1; l <= n.Layers(); l++ {
				for j := range n.Sizes[l] {
					lc.logOdds(g, l, j)
					lc.penJ = -1 // logOdds again next round: no update waits
					for k := range active {
						put(lc.lo[k])
					}
				}
			}
			for k := range active {
				put(lc.sp0[k])
			}
			for _, x := range lc.r0 {
				put(float64(x))
			}
			for l := 1; l <= n.Layers(); l++ {
				for i := range lc.s[l] {
					put(float64(lc.h[l][i]))
					put(float64(lc.a[l][i]))
					put(float64(lc.s[l][i]))
					put(float64(lc.t[l][i]))
				}
			}
		}
		if got := hs.Sum64(); got != c.want {
			t.Errorf("ar %v: hash %#x, want %#x", c.ar, got, c.want)
		}
	}
}

const goldenGibbsPlain, goldenGibbsAR = 0x11373ff888d03ab6, 0xacaccba367e4fb12
