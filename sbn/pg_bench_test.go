package sbn

import (
	"testing"

	"github.com/logz-ml/logz/internal/kernel"
)

// BenchmarkPGSweep times one sweep of pg-gibbs on an SBN 784-200 over
// 3,000 MNIST-like examples (15% of the pixels on; a twentieth of MNIST's
// training set: a sweep of its 50,000 takes about 17 times as long), from N(0,
// 0.01²) weights after one warm-up sweep (the latents then about half on:
// the pair sums' work grows with the square of the fraction on).
// BenchmarkPGDraw times one PG(1, c) draw at c = 1.5.
func BenchmarkPGSweep(b *testing.B) {
	x := mnistLikeSet(3000)
	n := New([]int{784, 200}, false)
	InitNormal(n, 0.01, 1)
	o := TrainOptions{Prior: "student-t", PriorSigma: 0.09, PriorNu: 2.2, Seed: 1, Precision: kernel.Float32, Epochs: 1 << 30}
	tr, err := NewPGTrainer(n, x.N, o)
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

func BenchmarkPGDraw(b *testing.B) {
	rng := pgRand()
	s := 0.0
	for b.Loop() {
		s += drawPG(rng, 1.5)
	}
	_ = s
}
