package ising

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/logz-ml/logz/family"
	"github.com/logz-ml/logz/family/familytest"
	"github.com/logz-ml/logz/family/kit/evalenv"
	"github.com/logz-ml/logz/models"
)

// randomIsing returns an R×C pm1 model with fields in [−f, f] and
// couplings in [−c, c].
func randomIsing(R, C int, f, c float64, seed uint64) *models.Ising {
	rng := rand.New(rand.NewPCG(seed, 5))
	m := models.NewIsing(R, C, models.SpinsPM1)
	for i := range m.Fields {
		m.Fields[i] = f * (2*rng.Float64() - 1)
	}
	for _, J := range [][]float64{m.CouplingH, m.CouplingV} {
		for i := range J {
			J[i] = c * (2*rng.Float64() - 1)
		}
	}
	return m
}

// runBP evaluates m with exact then bp (settings s) and returns bp's row.
func runBP(t *testing.T, m *models.Ising, s *BPSettings) (exact, bp float64, warnings, notes []string) {
	t.Helper()
	env := evalenv.Env{Experiment: "t", Stage: "final", Seed: 1}
	rows, err := env.Run(Family, m, []family.Configured{{Name: "exact", Settings: Exact.New()}, {Name: "bp", Settings: s}})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		switch r.Estimator {
		case "exact":
			exact = *r.LogZ
		case "bp":
			bp, warnings, notes = *r.LogZ, r.Warnings, r.Notes
			if r.ExactLogZ == nil || *r.ExactLogZ != exact {
				t.Errorf("bp row's exact_log_z %v, want %v", r.ExactLogZ, exact)
			}
		}
	}
	return exact, bp, warnings, notes
}

// TestBPEstimator: on a chain (a tree) the bp row equals exact to 1e-10
// with no warning; on a frustrated 5×5 grid with strong couplings and no
// damping the messages do not settle within max_iter, and the row says so
// in a warning rather than giving the number silently.
func TestBPEstimator(t *testing.T) {
	s := BP.New().(*BPSettings)
	exact, bp, warns, notes := runBP(t, randomIsing(1, 8, 1, 2, 3), s)
	if math.Abs(bp-exact) > 1e-10 || len(warns) > 0 {
		t.Errorf("chain: bp %.12f, exact %.12f, warnings %q", bp, exact, warns)
	}
	if !strings.Contains(strings.Join(notes, " "), "Bethe − exact") {
		t.Errorf("chain: notes %q lack the gap to exact", notes)
	}
	s.Damping, s.MaxIter = 0, 200
	_, _, warns, _ = runBP(t, randomIsing(5, 5, 0.1, 3, 9), s)
	if len(warns) != 1 || !strings.Contains(warns[0], "did not converge") {
		t.Errorf("frustrated grid, no damping: warnings %q, want one saying BP did not converge", warns)
	}
}

// TestBPSettings: bad settings are reported by key.
func TestBPSettings(t *testing.T) {
	for _, c := range []struct {
		s   BPSettings
		key string
	}{{BPSettings{Damping: 1, Tol: 1e-9, MaxIter: 10}, "damping"}, {BPSettings{Damping: 0.5, Tol: 0, MaxIter: 10}, "tol"},
		{BPSettings{Damping: 0.5, Tol: 1e-9, MaxIter: 0}, "max_iter"}} {
		var p familytest.Problems
		c.s.Check(&p)
		if len(p) != 1 || !strings.HasPrefix(p[0], c.key) {
			t.Errorf("%+v: problems %q, want one about %s", c.s, p, c.key)
		}
	}
}
