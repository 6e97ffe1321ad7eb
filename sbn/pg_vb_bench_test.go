package sbn

import (
	"testing"

	"github.com/logz-ml/logz/internal/kernel"
)

// BenchmarkVBEpoch times one epoch of pg-vb on an SBN 784-200 over 512
// MNIST-like examples (15% of the pixels on; four blocks: an epoch over
// MNIST's 50,000 takes about 98 times as long), from N(0, 0.01²) weights
// after one warm-up epoch. The three products of 2·N·784·20,301 flops
// (K-block GEMMs over the packed 201×201 covariances) are the bulk.
func BenchmarkVBEpoch(b *testing.B) {
	x := pgData(512, 784, 1)
	for i := range x.X { // 15% on
		x.X[i] = 0
		if (i*2654435761)%100 < 15 {
			x.X[i] = 1
		}
	}
	n := New([]int{784, 200}, false)
	InitNormal(n, 0.01, 1)
	o := TrainOptions{Prior: "student-t", PriorSigma: 0.09, PriorNu: 2.2, Seed: 1, Precision: kernel.Float64, Epochs: 1 << 30}
	tr, err := NewVBTrainer(n, x.N, o)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := tr.TrainEpoch(x); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := tr.TrainEpoch(x); err != nil {
			b.Fatal(err)
		}
	}
}
