package sbn

import (
	"hash/fnv"
	"math"
	"math/rand/v2"
	"testing"
)

// TestISFloat32GoldenWide pins the float32 adaptive importance sampler's
// numbers at the benchmark's width (784-200, minibatch 100, 5 samples),
// where every kernel runs its vector body over many rows (the 12-6-3 nets
// of TestISFloat32Golden hardly leave the tails): two minibatches of three
// dynamics steps on MNIST-like rows, hashed over every parameter's bits
// and the signals. The hash was taken before the kernels of the sampler's
// hot loops were rewritten, and retaken when the products with the latent
// states became float32 GEMMs, and again when they became binary products
// (each another summation order); the kernels must keep the same
// operations in the same order.
func TestISFloat32GoldenWide(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	data := make(rows, 200)
	for k := range data {
		data[k] = make([]uint8, 784)
		for i := range data[k] {
			if rng.Float64() < 0.15 {
				data[k][i] = 1
			}
		}
	}
	n := New([]int{784, 200}, false)
	InitNormal(n, 0.1, 7)
	o := DefaultTrainOptions()
	o.Steps, o.Workers, o.Seed = 3, 2, 8
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
	st, err := tr.TrainEpoch(data)
	if err != nil {
		t.Fatal(err)
	}
	put([]float64{st.ReconError})
	put(tr.theta)
	put(tr.phi)
	if got := h.Sum64(); got != goldenWide {
		t.Errorf("hash %#x, want %#x", got, goldenWide)
	}
}

const goldenWide uint64 = 0xe0e09193f5e2b995
