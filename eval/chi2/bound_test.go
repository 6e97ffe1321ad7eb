package chi2

import (
	"math"
	"math/rand/v2"
	"testing"

	ichi2 "github.com/logz-ml/logz/inference/chi2"
	"github.com/logz-ml/logz/internal/nmath"
	"github.com/logz-ml/logz/models"
)

// randomRBM returns an RBM with N(0, std²) weights and biases.
func randomRBM(D, H int, std float64, seed uint64) *models.RBM {
	rng := rand.New(rand.NewPCG(seed, 1))
	m := models.NewRBM(D, H)
	for i := range m.W {
		m.W[i] = std * rng.NormFloat64()
	}
	for i := range m.VBias {
		m.VBias[i] = std * rng.NormFloat64()
	}
	for i := range m.HBias {
		m.HBias[i] = std * rng.NormFloat64()
	}
	return m
}

// exactBound returns log Z and ½ log E_q[(p̃/q)²] = ½ log Σ_x p̃²/q by
// enumerating every x ∈ {0,1}^D.
func exactBound(t ichi2.Target, q *ichi2.Mixture) (logZ, bound float64) {
	D := t.Dim()
	logp := t.NewLogP()
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

// fit returns a mixture of K components fitted to target for steps steps.
func fit(t *testing.T, target ichi2.Target, K, steps int, seed uint64) *ichi2.Mixture {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 7))
	q, err := ichi2.NewMixture(target.Dim(), K, nil, 1, rng)
	if err != nil {
		t.Fatal(err)
	}
	f, err := ichi2.NewFitter(q, ichi2.FitOptions{Samples: 50, LearningRate: 0.05, Decay: 0.9})
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

func TestBoundEstimateMatchesEnumeration(t *testing.T) {
	target := ichi2.RBMTarget{M: randomRBM(8, 4, 1, 12)}
	q := fit(t, target, 4, 400, 13)
	logZ, exact := exactBound(target, q)
	e, err := Bound(target, q, 20000, 20, 99, 3)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(e.LogZ-exact) > 4*e.SE {
		t.Fatalf("bound estimate %.5f ± %.5f, exact bound %.5f", e.LogZ, e.SE, exact)
	}
	if math.Abs(e.LogZIS-logZ) > 4*e.SEIS {
		t.Fatalf("IS estimate %.5f ± %.5f, log Z %.5f", e.LogZIS, e.SEIS, logZ)
	}
	if !(e.ESS > 1 && e.ESS <= 20000) {
		t.Fatalf("ESS %g", e.ESS)
	}
	one, err := Bound(target, q, 20000, 20, 99, 1)
	if err != nil {
		t.Fatal(err)
	}
	if one.LogZ != e.LogZ || one.SE != e.SE || one.LogZIS != e.LogZIS {
		t.Fatalf("bound depends on workers: %+v vs %+v", one, e)
	}
}
