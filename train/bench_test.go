package train

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/logz-ml/logz/models"
)

// mnistLike returns n random binary 784-pixel examples with about 13% of the
// pixels on (MNIST's mean), so the row sums touch as many rows as on MNIST.
func mnistLike(n int) rows { return bernoulliRows(n, 784, 0.13, rand.New(rand.NewPCG(1, 2))) }

// bernoulliRows returns n random binary examples of d units, each on with
// probability p.
func bernoulliRows(n, d int, p float64, rng *rand.Rand) rows {
	out := make(rows, n)
	for i := range out {
		x := make([]uint8, d)
		for j := range x {
			if rng.Float64() < p {
				x[j] = 1
			}
		}
		out[i] = x
	}
	return out
}

func benchUpdate(b *testing.B, persistent bool, k int) {
	benchUpdateImpl(b, persistent, k, false, false)
}

// benchUpdateImpl times the fast update (with f32, in float32), or with ref
// the reference (the update before issue 15's rewrite, rbm_ref_test.go),
// from weights W_ij ~ N(0, 0.01²).
func benchUpdateImpl(b *testing.B, persistent bool, k int, ref, f32 bool) {
	benchUpdateStd(b, persistent, k, ref, f32, 0.01)
}

// benchUpdateStd is benchUpdateImpl from weights W_ij ~ N(0, std²).
func benchUpdateStd(b *testing.B, persistent bool, k int, ref, f32 bool, std float64) {
	data := mnistLike(100)
	m := models.NewRBM(784, 500)
	tr, err := NewRBMTrainer(m, RBMOptions{
		Persistent: persistent, BatchSize: 100, WeightDecay: 2e-4,
		Schedule: constSchedule{k: k, lr: 0.05, mom: 0.5}, Precision: precisionOf(f32),
	}, 1)
	if err != nil {
		b.Fatal(err)
	}
	tr.InitParams(std, make([]float64, 784))
	for i := range m.VBias {
		m.VBias[i] = -1.9 // about 13% on, like MNIST's base rate
	}
	tr.setup()
	if ref {
		benchBatches(b, 100, func(idx []int) { tr.refBatch(data, idx, k, 0.05, 0.5) })
		return
	}
	benchBatches(b, 100, func(idx []int) { tr.batch(data, idx, k, 0.05, 0.5) })
}

// benchBatches reports allocations and times update on the minibatch of
// examples 0…n−1.
func benchBatches(b *testing.B, n int, update func(idx []int)) {
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		update(idx)
	}
}

// BenchmarkCD1Update784x500 is one CD-1 minibatch update (100 examples) of a
// 784×500 RBM: the unit of an MNIST training epoch (600 per epoch).
func BenchmarkCD1Update784x500(b *testing.B) { benchUpdate(b, false, 1) }

// BenchmarkPCD1Update784x500 is the same with 100 persistent chains.
func BenchmarkPCD1Update784x500(b *testing.B) { benchUpdate(b, true, 1) }

// BenchmarkCD1Update784x500Ref and BenchmarkPCD1Update784x500Ref time the
// reference (pre-rewrite) update in the same run, for before/after figures.
func BenchmarkCD1Update784x500Ref(b *testing.B)  { benchUpdateImpl(b, false, 1, true, false) }
func BenchmarkPCD1Update784x500Ref(b *testing.B) { benchUpdateImpl(b, true, 1, true, false) }

// BenchmarkCD1Update784x500Float32 and BenchmarkPCD1Update784x500Float32
// are the updates in float32 (RBMOptions.Precision).
func BenchmarkCD1Update784x500Float32(b *testing.B)  { benchUpdateImpl(b, false, 1, false, true) }
func BenchmarkPCD1Update784x500Float32(b *testing.B) { benchUpdateImpl(b, true, 1, false, true) }

// BenchmarkCDkUpdate784x500 is a CD-k update for k = 1, 5, 25, in float64
// and float32, from W_ij ~ N(0, 0.01²) (the start of training: every
// hidden unit is on half the time, so a Gibbs step flips as many units as
// are on and the incremental sweeps cannot save anything).
func BenchmarkCDkUpdate784x500(b *testing.B) {
	for _, f32 := range []bool{false, true} {
		for _, k := range []int{1, 5, 25} {
			b.Run(fmt.Sprintf("%s/k=%d", map[bool]string{false: "float64", true: "float32"}[f32], k), func(b *testing.B) {
				benchUpdateImpl(b, false, k, false, f32)
			})
		}
	}
}

// BenchmarkCDkUpdate784x500Sticky is BenchmarkCDkUpdate784x500 from
// W_ij ~ N(0, 0.5²), whose chains, like a trained RBM's, flip few units
// per step; "full" turns the incremental sweeps off.
func BenchmarkCDkUpdate784x500Sticky(b *testing.B) {
	defer func() { incrementalGibbs = true }()
	for _, f32 := range []bool{false, true} {
		for _, inc := range []bool{true, false} {
			for _, k := range []int{1, 5, 25} {
				name := fmt.Sprintf("%s/k=%d", map[bool]string{false: "float64", true: "float32"}[f32], k)
				if !inc {
					name += "/full"
				}
				b.Run(name, func(b *testing.B) {
					incrementalGibbs = inc
					benchUpdateStd(b, false, k, false, f32, 0.5)
				})
			}
		}
	}
}

// BenchmarkDBMJointUpdate784x500x1000 is one joint DBM update of a
// 784-500-1000 DBM: 10 mean-field iterations for a minibatch of 100 and one
// Gibbs sweep of 100 persistent chains (600 per MNIST epoch).
func BenchmarkDBMJointUpdate784x500x1000(b *testing.B) { benchDBMJoint(b, false) }

// BenchmarkDBMJointUpdate784x500x1000Ref is the same update as it was before
// internal/gemm (gonum's Dgemm for the dense products; jointBatchRef, the
// test reference), for a side-by-side figure; with -tags purego the chains'
// row sums are the Go loop too, i.e. the update as it was when issue 15
// measured 145–155 ms.
func BenchmarkDBMJointUpdate784x500x1000Ref(b *testing.B) { benchDBMJoint(b, true) }

func benchDBMJoint(b *testing.B, ref bool) {
	data := mnistLike(100)
	m, err := models.NewDBM(784, 500, 1000)
	if err != nil {
		b.Fatal(err)
	}
	tr, err := NewDBMTrainer(m, DBMOptions{
		BatchSize: 100, Chains: 100, K: 1, MFIters: 10, WeightDecay: 2e-4, Epochs: 1,
		Schedule: constSchedule{k: 1, lr: 0.01, mom: 0.5}, InitStd: 0.01,
	}, 1)
	if err != nil {
		b.Fatal(err)
	}
	if err := tr.Prepare(data); err != nil {
		b.Fatal(err)
	}
	for i := range m.B[0] {
		m.B[0][i] = -1.9 // about 13% on, like MNIST's base rate
	}
	tr.setup()
	benchBatches(b, 100, func(idx []int) {
		if ref {
			tr.jointBatchRef(data, idx, 1, 0.01, 0.5)
		} else {
			tr.jointBatch(data, idx, 1, 0.01, 0.5)
		}
	})
	b.StopTimer()
	ms := b.Elapsed().Seconds() * 1e3 / float64(b.N)
	b.ReportMetric(ms, "ms/update")
	b.ReportMetric(ms*600/1e3, "s/MNIST-epoch")
}
