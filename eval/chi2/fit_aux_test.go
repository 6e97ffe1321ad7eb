package chi2

import (
	"math"
	"math/rand/v2"
	"testing"

	ichi2 "github.com/logz-ml/logz/inference/chi2"
	"github.com/logz-ml/logz/inference/chi2/chi2test"
)

// The fitter's default for an aux proposal (r by maximum likelihood) stays
// stable with small batches; r by the χ² gradient collapses here (the bound
// estimate falls tens of nats under log Z with an ESS of 1).
func TestFitterAuxStable(t *testing.T) {
	target := ichi2.RBMTarget{M: chi2test.RandomRBM(10, 4, 1, 31)}
	q0, _ := ichi2.NewMixture(10, 1, nil, 0, rand.New(rand.NewPCG(1, 1)))
	logZ, _ := chi2test.ExactBound(target, q0)
	rng := rand.New(rand.NewPCG(3, 4))
	q := ichi2.NewAux(10, ichi2.AuxDefaultA, ichi2.AuxDefaultH, rng)
	f, err := ichi2.NewFitter(q, ichi2.FitOptions{Samples: 30, LearningRate: 0.005, Decay: 0.9})
	if err != nil {
		t.Fatal(err)
	}
	logp := target.NewLogP()
	for range 2000 {
		if _, err := f.Step(logp, rng); err != nil {
			t.Fatal(err)
		}
	}
	e, err := Bound(target, q, 20000, 20, 5, 2)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("aux bound − log Z = %.4f ± %.4f, ESS %.0f, IS − log Z = %.4f ± %.4f", e.LogZ-logZ, e.SE, e.ESS, e.LogZIS-logZ, e.SEIS)
	if e.LogZ < logZ-4*e.SE || e.LogZ-logZ > 0.2 || e.ESS < 1000 {
		t.Fatalf("fitted aux bound %.4f ± %.4f (ESS %.0f) for log Z %.4f: want above log Z and within 0.2 nats", e.LogZ, e.SE, e.ESS, logZ)
	}
	if math.Abs(e.LogZIS-logZ) > 4*e.SEIS {
		t.Fatalf("IS estimate %.4f ± %.4f, log Z %.4f", e.LogZIS, e.SEIS, logZ)
	}
}
