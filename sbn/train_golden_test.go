package sbn

import (
	"hash/fnv"
	"math"
	"testing"
)

// TestISFloat32Golden pins the float32 adaptive importance sampler's
// numbers: two epochs of a plain and of an autoregressive two-layer net
// (with SGHMC and Adam on φ), hashed over every generative and
// recognition parameter's bits and the epochs' signals. The hashes were
// taken from the float32 engine before it became generic over its
// precision (train_is32.go), and retaken when its products with the
// latent states became float32 GEMMs, and again when they became binary
// products (train_is_dense.go: each another summation order, checked
// against the float64 formulas by TestISGradients and, paired by seed, in
// docs/runs/paired-sbn-precision/gemm and …/binary); a change to its
// arithmetic, however small, changes them.
func TestISFloat32Golden(t *testing.T) {
	for _, c := range []struct {
		ar   bool
		want uint64
	}{{false, goldenPlain}, {true, goldenAR}} {
		n := randomNet([]int{12, 6, 3}, c.ar, 1, 91)
		data := plantedData(n, 60, 92)
		InitNormal(n, 0.1, 93)
		o := DefaultTrainOptions()
		o.BatchSize, o.Steps, o.Samples, o.Workers, o.Seed = 20, 3, 4, 2, 94
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
		put(tr.phi)
		if got := h.Sum64(); got != c.want {
			t.Errorf("ar %v: hash %#x, want %#x", c.ar, got, c.want)
		}
	}
}

const goldenPlain, goldenAR = 0x3249f1d2fd7d8bd3, 0xc2b5bc6e139f6b48
