package vae

import (
	"math/rand/v2"
	"testing"

	"github.com/logz-ml/logz/models"
)

type benchRows [][]uint8

func (r benchRows) Len() int          { return len(r) }
func (r benchRows) Row(n int) []uint8 { return r[n] }

// BenchmarkISPerExample times the importance-sampling estimate of one
// example with 5,000 proposals (the is estimator's default) on a
// 784-500-64 VAE with an RBM(64,64) prior: one op = one example.
func BenchmarkISPerExample(b *testing.B) {
	m, err := models.NewVAE(784, 64, []int{500}, 64)
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	m.Dec.Init(rng)
	m.Enc.Init(rng)
	x := make([]uint8, 784)
	for i := range x {
		if rng.Float64() < 0.13 {
			x[i] = 1
		}
	}
	data := benchRows{x}
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		if _, err := SampleWeights(m, data, 5000, uint64(i), nil); err != nil {
			b.Fatal(err)
		}
	}
}
