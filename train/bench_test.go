package train

import (
	"math/rand/v2"
	"testing"

	"github.com/logz-ml/logz/models"
)

// mnistLike returns n random binary 784-pixel examples with about 13% of the
// pixels on (MNIST's mean), so the row sums touch as many rows as on MNIST.
func mnistLike(n int) rows {
	rng := rand.New(rand.NewPCG(1, 2))
	out := make(rows, n)
	for i := range out {
		x := make([]uint8, 784)
		for j := range x {
			if rng.Float64() < 0.13 {
				x[j] = 1
			}
		}
		out[i] = x
	}
	return out
}

func benchUpdate(b *testing.B, persistent bool, k int) {
	data := mnistLike(100)
	m := models.NewRBM(784, 500)
	tr, err := NewRBMTrainer(m, RBMOptions{
		Persistent: persistent, BatchSize: 100, WeightDecay: 2e-4,
		Schedule: constSchedule{k: k, lr: 0.05, mom: 0.5},
	}, 1)
	if err != nil {
		b.Fatal(err)
	}
	tr.InitParams(0.01, make([]float64, 784))
	for i := range m.VBias {
		m.VBias[i] = -1.9 // about 13% on, like MNIST's base rate
	}
	tr.setup()
	idx := make([]int, 100)
	for i := range idx {
		idx[i] = i
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		tr.batch(data, idx, k, 0.05, 0.5)
	}
}

// BenchmarkCD1Update784x500 is one CD-1 minibatch update (100 examples) of a
// 784×500 RBM: the unit of an MNIST training epoch (600 per epoch).
func BenchmarkCD1Update784x500(b *testing.B) { benchUpdate(b, false, 1) }

// BenchmarkPCD1Update784x500 is the same with 100 persistent chains.
func BenchmarkPCD1Update784x500(b *testing.B) { benchUpdate(b, true, 1) }
