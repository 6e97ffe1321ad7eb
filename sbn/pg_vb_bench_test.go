package sbn

import (
	"testing"

	"github.com/logz-ml/logz/data"

	"github.com/logz-ml/logz/internal/kernel"
)

// BenchmarkVBEpoch times one epoch of pg-vb on an SBN 784-200 over 512
// MNIST-like examples (15% of the pixels on; one block, of the 98 of an
// epoch over MNIST's 50,000, whose cost grows in proportion but for the
// rows' inversions once per epoch), from N(0, 0.01²) weights
// after one warm-up epoch; cpu-ms/op is the process's CPU time per epoch
// (a figure that a shared machine's load does not inflate). The three products of 2·N·784·20,301 flops
// (K-block GEMMs over the packed 201×201 covariances) are the bulk.
func BenchmarkVBEpoch(b *testing.B) {
	x := mnistLikeSet(512)
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
	c0, k := cpuTime(), 0
	for b.Loop() {
		if _, err := tr.TrainEpoch(x); err != nil {
			b.Fatal(err)
		}
		k++
	}
	b.ReportMetric(float64(cpuTime()-c0)/1e6/float64(k), "cpu-ms/op")
}

// mnistLikeSet returns N examples of 784 units, 15% of them on (a fixed
// pattern), for the batch trainers' benchmarks.
func mnistLikeSet(N int) *data.Set {
	x := pgData(N, 784, 1)
	for i := range x.X {
		x.X[i] = 0
		if (i*2654435761)%100 < 15 {
			x.X[i] = 1
		}
	}
	return x
}
