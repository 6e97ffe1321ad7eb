package eval

import (
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/logz-ml/logz/inference"
)

// benchExamples returns n test vectors: MNIST test images when
// LOGZ_MNIST_DIR is set, else binary vectors drawn from the model's base
// rate (the visible biases' Bernoulli distribution).
func benchExamples(b *testing.B, n int, base []float64) rowSet {
	if dir := mnistBenchDir(b); dir != "" {
		imgs, err := readIDXImages(filepath.Join(dir, "t10k-images-idx3-ubyte.gz"))
		if err != nil {
			b.Fatal(err)
		}
		return rowSet(imgs[:n])
	}
	rng := rand.New(rand.NewPCG(4, 4))
	out := make(rowSet, n)
	for i := range out {
		x := make([]uint8, len(base))
		for j, a := range base {
			if rng.Float64()*(1+expNeg(a)) < 1 {
				x[j] = 1
			}
		}
		out[i] = x
	}
	return out
}

func expNeg(a float64) float64 { return inference.Exp(-a) }

// BenchmarkRAISEvsAIS784x500 runs 20,000 chain-steps of each estimator on the
// same path (AIS: 100 runs × 200 β; RAISE: 2 examples × 50 chains × 200 β)
// and reports the cost per chain per β: the two share their kernels, so the
// figures should agree.
func BenchmarkRAISEvsAIS784x500(b *testing.B) {
	m, base := benchModel(b)
	betas := inference.PiecewiseSchedule(200)
	xs := benchExamples(b, 2, base)
	b.Run("ais", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			if _, err := (AIS{Runs: 100, Betas: betas, BaseVBias: base, Seed: 1}).LogZ(m); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/(100*200), "ns/chain-step")
	})
	b.Run("raise", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			if _, err := (RAISE{Chains: 50, Betas: betas, BaseVBias: base, Seed: 1}).LogProb(m, xs); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/(100*200), "ns/chain-step")
	})
}

// BenchmarkRAISE100x50x1000 is the reference job: 100 test examples ×
// 50 chains × 1,000 β (2008 schedule shape) at 784×500. Run it with
// -benchtime 1x.
func BenchmarkRAISE100x50x1000(b *testing.B) {
	m, base := benchModel(b)
	xs := benchExamples(b, 100, base)
	betas := inference.PiecewiseSchedule(1000)
	b.ReportAllocs()
	for range b.N {
		r, err := (RAISE{Chains: 50, Betas: betas, BaseVBias: base, Seed: 1}).LogProb(m, xs)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(r.Mean.Mean, "mean-log-p")
	}
}
