package sbn

import (
	"testing"

	"github.com/logz-ml/logz/internal/kernel"
)

// benchMinibatch times one DSGHMC minibatch update of an SBN 784-200:
// batch 100, L = 5 latent samples, 10 dynamics steps (App. C), on
// MNIST-like rows (15% of the pixels on), with the default precision
// unless precision is set.
func benchMinibatch(b *testing.B, sampler, precision string) {
	data := mnistLike()
	n := New([]int{784, 200}, false)
	InitNormal(n, 0.1, 1)
	o := DefaultTrainOptions()
	o.Sampler = sampler
	if precision != "" {
		o.Precision = kernel.Precision(precision)
	}
	tr, err := NewTrainer(n, 60000, o)
	if err != nil {
		b.Fatal(err)
	}
	idx := make([]int, 100)
	for i := range idx {
		idx[i] = i
	}
	tr.minibatch(data, idx, 1, 0) // setup
	b.ReportAllocs()
	b.ResetTimer()
	for k := 0; b.Loop(); k++ {
		tr.minibatch(data, idx, 1, k+1)
	}
}

func BenchmarkMinibatchAdaptiveIS(b *testing.B) { benchMinibatch(b, "adaptive-is", "") }
func BenchmarkMinibatchAdaptiveISFloat64(b *testing.B) {
	benchMinibatch(b, "adaptive-is", "float64")
}
func BenchmarkMinibatchAdaptiveISFloat32(b *testing.B) {
	benchMinibatch(b, "adaptive-is", "float32")
}
func BenchmarkMinibatchGibbs(b *testing.B)        { benchMinibatch(b, "gibbs", "") }
func BenchmarkMinibatchGibbsFloat64(b *testing.B) { benchMinibatch(b, "gibbs", "float64") }
func BenchmarkMinibatchGibbsFloat32(b *testing.B) { benchMinibatch(b, "gibbs", "float32") }
