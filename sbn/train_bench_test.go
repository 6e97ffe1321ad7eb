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
	benchMinibatchOf(b, New([]int{784, 200}, false), sampler, precision)
}

// benchMinibatchOf is benchMinibatch on the net n (of 784 visible units).
func benchMinibatchOf(b *testing.B, n *Net, sampler, precision string) {
	data := mnistLike()
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

// BenchmarkMinibatchGibbsShapes times the Gibbs sampler's minibatch (the
// settings of benchMinibatch, default precision) on each shape of the
// paper's Table 2 Gibbs rows, for their cost relative to SBN 200.
func BenchmarkMinibatchGibbsShapes(b *testing.B) {
	for _, c := range []struct {
		name  string
		sizes []int
		ar    bool
	}{
		{"sbn200", []int{784, 200}, false},
		{"sbn200-200", []int{784, 200, 200}, false},
		{"sbn200-200-200", []int{784, 200, 200, 200}, false},
		{"arsbn200", []int{784, 200}, true},
		{"arsbn200-200", []int{784, 200, 200}, true},
	} {
		b.Run(c.name, func(b *testing.B) { benchMinibatchOf(b, New(c.sizes, c.ar), "gibbs", "") })
	}
}
