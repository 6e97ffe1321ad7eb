// Package chi2test holds what the tests of the χ² machinery
// (inference/chi2) and of the χ² estimator (eval/chi2) share: a random RBM
// target, the exact bound of a proposal by enumeration, and a mixture
// fitted to a target.
package chi2test

import (
	"math/rand/v2"
	"testing"

	"github.com/logz-ml/logz/inference/chi2"
	"github.com/logz-ml/logz/internal/nmath"
	"github.com/logz-ml/logz/models"
	"github.com/logz-ml/logz/models/modeltest"
)

// ExactBound returns log Z = log Σ_x p̃(x) and the bound
// ½ log E_q[(p̃/q)²] = ½ log Σ_x p̃(x)²/q(x) by enumerating every
// x ∈ {0,1}^D (D = target.Dim(); x's bit i is state s's bit i).
func ExactBound(target chi2.Target, q *chi2.Mixture) (logZ, bound float64) {
	D := target.Dim()
	logp := target.NewLogP()
	x := make([]uint8, D)
	var lp, r []float64
	for s := 0; s < 1<<D; s++ {
		for i := range x {
			x[i] = uint8(s >> i & 1)
		}
		l := logp(x)
		lp = append(lp, l)
		r = append(r, 2*l-q.LogProb(x))
	}
	return nmath.LogSumExp(lp), 0.5 * nmath.LogSumExp(r)
}

// Fit returns a mixture of K components (unit spread, random start from
// the stream (seed, 7)) fitted to target for steps steps of 50 draws at
// learning rate 0.05.
func Fit(t testing.TB, target chi2.Target, K, steps int, seed uint64) *chi2.Mixture {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 7))
	q, err := chi2.NewMixture(target.Dim(), K, nil, 1, rng)
	if err != nil {
		t.Fatal(err)
	}
	f, err := chi2.NewFitter(q, chi2.FitOptions{Samples: 50, LearningRate: 0.05, Decay: 0.9})
	if err != nil {
		t.Fatal(err)
	}
	logp := target.NewLogP()
	for range steps {
		if _, err := f.Step(logp, rng); err != nil {
			t.Fatal(err)
		}
	}
	return q
}

// RandomRBM is the target of the χ² tests: a D×H RBM with N(0, std²)
// weights and biases from the stream (seed, 1).
func RandomRBM(D, H int, std float64, seed uint64) *models.RBM {
	return modeltest.RandomRBM(D, H, std, std, rand.New(rand.NewPCG(seed, 1)))
}
