package eval

import (
	"math/rand/v2"
	"testing"

	"github.com/logz-ml/logz/inference"
	"github.com/logz-ml/logz/models"
)

// ratioBenchPair returns the 784×500 benchmark model as A and, as B, a
// copy with every weight moved by N(0, 0.01²) (fixed seed): two models of
// the same kind, like the 2008 paper's CD3(500) and CD25(500).
func ratioBenchPair(b *testing.B) (mA, mB *models.RBM) {
	mA, _ = benchModel(b)
	mB = mA.Clone()
	rng := rand.New(rand.NewPCG(5, 5))
	for i := range mB.W {
		mB.W[i] += 0.01 * rng.NormFloat64()
	}
	return mA, mB
}

// BenchmarkRatioGibbsStart784x500 measures the Gibbs starts of
// LogRatioGibbs on two 784×500 RBMs: 100 chains × 300 block-Gibbs sweeps
// of A over GOMAXPROCS goroutines (and the one step of a 1-β schedule).
// ns/sweep is wall time per chain sweep: 100 chains × 10,000 sweeps, the
// paper's start, take 10⁶ times it.
func BenchmarkRatioGibbsStart784x500(b *testing.B) {
	mA, mB := ratioBenchPair(b)
	const runs, sweeps = 100, 300
	b.ReportAllocs()
	for b.Loop() {
		if _, err := (AIS{Runs: runs, Betas: inference.LinearSchedule(1), Seed: 1}).LogRatioGibbs(mA, mB, sweeps); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/(runs*sweeps), "ns/sweep")
}

// BenchmarkRatioAISStep784x500 measures the annealing of LogRatioGibbs on
// the same pair: 100 runs × 300 linearly spaced β along the joint path
// (both hidden layers sampled at every step) from 1-sweep starts. ns/step
// is wall time per chain step: 100 runs × 10,000 β, the paper's ratio
// estimate, take 10⁶ times it.
func BenchmarkRatioAISStep784x500(b *testing.B) {
	mA, mB := ratioBenchPair(b)
	const runs, K = 100, 300
	b.ReportAllocs()
	for b.Loop() {
		if _, err := (AIS{Runs: runs, Betas: inference.LinearSchedule(K), Seed: 1}).LogRatioGibbs(mA, mB, 1); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/(runs*K), "ns/step")
}
