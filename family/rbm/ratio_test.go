package rbm

import (
	"math"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/logz-ml/logz/eval"
	"github.com/logz-ml/logz/eval/report"
	"github.com/logz-ml/logz/family"
	"github.com/logz-ml/logz/family/familytest"
	"github.com/logz-ml/logz/family/kit/evalenv"
	"github.com/logz-ml/logz/models"
	"github.com/logz-ml/logz/models/modeltest"
)

// randomRBM is a d×h RBM with N(0, w²) weights and N(0, b²) biases from
// the stream (seed, 17) (modeltest.RandomRBM).
func randomRBM(d, h int, w, b float64, seed uint64) *models.RBM {
	return modeltest.RandomRBM(d, h, w, b, rand.New(rand.NewPCG(seed, 17)))
}

func saveModel(t *testing.T, m models.Model, name string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := models.Save(p, &models.Checkpoint{Model: m}, family.Codecs()); err != nil {
		t.Fatal(err)
	}
	return p
}

func trueLogZ(t *testing.T, m *models.RBM) float64 {
	t.Helper()
	lz, err := eval.Exact{MaxUnits: 25}.LogZ(m)
	if err != nil {
		t.Fatal(err)
	}
	return lz
}

// TestAISRatioMatchesExact runs the ais-ratio estimator on two RBMs with
// different hidden sizes and exact log Z: the row's log Z_B − log Z_A must
// contain the exact difference within its ±3σ band, and carry that
// difference as exact_log_z; its notes say how the runs started. Forward
// from exact draws (A = 10×6 enumerated; start auto), reversed (start:
// reversed, B = 22×5 enumerated), and from Gibbs chains of A: start auto
// on A = 22×22, which has no exact sampler (the note suggests reversed, as
// B has one), and start gibbs on the 10×6 A. (eval's
// TestEstimateRatioMatchesExact checks the estimate itself on the same
// models; this checks the row built from it.)
func TestAISRatioMatchesExact(t *testing.T) {
	a22, b22 := randomRBM(22, 22, 0.15, 0.3, 3), randomRBM(22, 5, 0.5, 0.3, 4)
	a10, b10 := randomRBM(10, 6, 0.6, 0.5, 1), randomRBM(10, 9, 0.6, 0.5, 2)
	for _, c := range []struct {
		name   string
		mA, mB *models.RBM
		start  string
		notes  []string // phrases the notes must have
		absent []string // and must not have
	}{
		{"forward 10×6 → 10×9", a10, b10, StartAuto, nil, []string{"went from", "approximate starts"}},
		{"reversed 22×22 → 22×5", a22, b22, StartReversed, []string{"start: reversed, so the runs went from exact draws of B to A"}, []string{"approximate starts"}},
		{"auto gibbs 22×22 → 22×5", a22, b22, StartAuto, []string{"approximate starts: each run began where its own Gibbs chain of A was after 1000 sweeps", "only to the extent those chains reached A's distribution", "B has an exact sampler"}, []string{"went from"}},
		{"gibbs 10×6 → 10×9", a10, b10, StartGibbs, []string{"after 1000 sweeps"}, []string{"went from", "B has an exact sampler"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			want := trueLogZ(t, c.mB) - trueLogZ(t, c.mA)
			s := DefaultRatio()
			s.To = saveModel(t, c.mB, "b.npz")
			s.Runs, s.Betas, s.Schedule = 100, 1000, "linear"
			s.Start, s.GibbsSteps = c.start, 1000
			env := evalenv.Env{Experiment: "ratio", Stage: report.StageFinal, Seed: 11}
			rows, err := env.Run(Family, c.mA, []family.Configured{{Name: RatioEstimator, Settings: &s}})
			if err != nil {
				t.Fatal(err)
			}
			if len(rows) != 1 {
				t.Fatalf("%d rows, want 1 split-free row", len(rows))
			}
			r := rows[0]
			if r.Estimator != RatioEstimator || r.LogZ == nil || r.LogZLo == nil || r.LogZHi == nil || r.ExactLogZ == nil {
				t.Fatalf("row %+v lacks the estimate, its band or the exact difference", r)
			}
			t.Logf("log Z_B − log Z_A = %.4f [%.4f, %.4f], exact %.4f; notes %q", *r.LogZ, *r.LogZLo, *r.LogZHi, want, r.Notes)
			if math.Abs(*r.ExactLogZ-want) > 1e-9 {
				t.Errorf("exact_log_z %.6f, want the exact difference %.6f", *r.ExactLogZ, want)
			}
			if !(*r.LogZLo <= want && want <= *r.LogZHi) {
				t.Errorf("exact %.4f outside the ±3σ band [%.4f, %.4f] of %.4f", want, *r.LogZLo, *r.LogZHi, *r.LogZ)
			}
			if w := *r.LogZHi - *r.LogZLo; w > 0.5 {
				t.Errorf("band width %.3f nats: too wide for the check to mean anything", w)
			}
			if len(r.Warnings) != 0 {
				t.Errorf("warnings %q", r.Warnings)
			}
			notes := strings.Join(r.Notes, "\n")
			if !strings.Contains(notes, "rbm 10-6") && !strings.Contains(notes, "rbm 22-22") || !strings.Contains(notes, s.To) {
				t.Errorf("notes %q do not name both models", r.Notes)
			}
			for _, n := range c.notes {
				if !strings.Contains(notes, n) {
					t.Errorf("notes %q lack %q", r.Notes, n)
				}
			}
			for _, n := range c.absent {
				if strings.Contains(notes, n) {
					t.Errorf("notes %q have %q", r.Notes, n)
				}
			}
		})
	}
}

// TestAISRatioBadInput: a missing to, a missing file, a file that holds a
// DBN and a B with other visible units are problems at key "to" naming the
// file, found when the config is read (Check, CheckModel) and when run
// (Feasible).
func TestAISRatioBadInput(t *testing.T) {
	dbn, err := models.NewDBN(10, 4, 3)
	if err != nil {
		t.Fatal(err)
	}
	dbnPath := saveModel(t, dbn, "dbn.npz")
	other := saveModel(t, randomRBM(12, 3, 0.1, 0.1, 9), "other.npz")
	missing := filepath.Join(t.TempDir(), "nope.npz")
	check := func(to string) familytest.Problems {
		s := DefaultRatio()
		s.To = to
		var p familytest.Problems
		s.Check(&p)
		return p
	}
	for _, c := range []struct{ to, want string }{
		{"", "to: expected the path of model B"},
		{missing, "to: expected the path of an rbm .npz; " + missing + " does not exist"},
		{dbnPath, "to: expected the path of an rbm .npz; " + dbnPath + " holds a dbn, not an rbm"},
	} {
		p := check(c.to)
		if len(p) != 1 || !strings.HasPrefix(p[0], c.want) {
			t.Errorf("to %q: problems %q, want one starting %q", c.to, p, c.want)
		}
	}
	if p := check(other); len(p) != 0 {
		t.Errorf("a good to: problems %q", p)
	}
	s := DefaultRatio()
	s.To = other
	var p familytest.Problems
	AISRatio.CheckModel(&p, &s, &Model{Hidden: 5}, 10)
	if want := "to: expected an rbm with the data's 10 visible units, but " + other + " has 12"; len(p) != 1 || p[0] != want {
		t.Errorf("CheckModel: %q, want %q", p, want)
	}
	err = AISRatio.Feasible(randomRBM(10, 2, 0.1, 0.1, 10), &s)
	if err == nil || !strings.Contains(err.Error(), "to: "+other+" has 12 visible units, the evaluated model 10") {
		t.Errorf("Feasible: %v", err)
	}
}

// TestAISRatioGibbsRowProcs: the ais-ratio row from Gibbs starts is the
// same under GOMAXPROCS 1 and 2. Mutation check: keying the chains'
// generators by worker breaks it.
func TestAISRatioGibbsRowProcs(t *testing.T) {
	mA, mB := randomRBM(12, 8, 0.5, 0.4, 61), randomRBM(12, 10, 0.5, 0.4, 62)
	s := DefaultRatio()
	s.To = saveModel(t, mB, "b.npz")
	s.Runs, s.Betas, s.Schedule, s.Start, s.GibbsSteps = 7, 50, "linear", StartGibbs, 40
	row := func(procs int) report.Row {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		env := evalenv.Env{Experiment: "ratio", Stage: report.StageFinal, Seed: 3}
		rows, err := env.Run(Family, mA, []family.Configured{{Name: RatioEstimator, Settings: &s}})
		if err != nil {
			t.Fatal(err)
		}
		return rows[0]
	}
	one, two := row(1), row(2)
	if *one.LogZ != *two.LogZ || *one.LogZLo != *two.LogZLo || *one.LogZHi != *two.LogZHi || strings.Join(one.Notes, "|") != strings.Join(two.Notes, "|") {
		t.Errorf("GOMAXPROCS 1: %v [%v, %v] %q; 2: %v [%v, %v] %q", *one.LogZ, *one.LogZLo, *one.LogZHi, one.Notes, *two.LogZ, *two.LogZLo, *two.LogZHi, two.Notes)
	}
}

// TestAISRatioStartSettings: bad start and gibbs_steps values, too many
// sweeps in all, start: reversed with a B and start: exact with an A that
// have no exact sampler are errors naming the setting (and the models'
// sizes), when the config is read (Check, CheckModel) and before the run
// (Feasible); good values pass.
func TestAISRatioStartSettings(t *testing.T) {
	small := saveModel(t, randomRBM(22, 5, 0.5, 0.3, 4), "small.npz")
	wide := saveModel(t, randomRBM(22, 22, 0.15, 0.3, 3), "wide.npz")
	check := func(edit func(s *RatioSettings)) familytest.Problems {
		s := DefaultRatio()
		s.To = small
		edit(&s)
		var p familytest.Problems
		s.Check(&p)
		return p
	}
	for _, c := range []struct {
		name string
		edit func(s *RatioSettings)
		want string
	}{
		{"unknown start", func(s *RatioSettings) { s.Start = "sideways" }, `start: "sideways" not one of [auto exact gibbs reversed]`},
		{"zero sweeps", func(s *RatioSettings) { s.GibbsSteps = 0 }, "gibbs_steps: expected an integer ≥ 1, got 0"},
		{"negative sweeps", func(s *RatioSettings) { s.GibbsSteps = -5 }, "gibbs_steps: expected an integer ≥ 1, got -5"},
		{"too many sweeps", func(s *RatioSettings) { s.GibbsSteps = eval.MaxGibbsSteps + 1 }, "gibbs_steps: expected at most 16777216 (eval.MaxGibbsSteps), got 16777217"},
		{"sweeps in all", func(s *RatioSettings) { s.Runs, s.GibbsSteps = 100000, 100000 },
			"@gibbs_steps: runs × (betas + gibbs_steps) = 100000 × (14500 + 100000) Gibbs sweeps is more than the limit of 10000000000 (family.MaxSweeps)"},
		{"reversed to a wide B", func(s *RatioSettings) { s.Start, s.To = StartReversed, wide },
			"start: expected auto, exact or gibbs (reversed needs exact draws of B, but " + wide + " (rbm 22-22) has non-zero weights and its smaller layer has 22 units, more than the 20 of an exact sampler)"},
	} {
		p := check(c.edit)
		if len(p) != 1 || p[0] != c.want {
			t.Errorf("%s: problems %q, want [%q]", c.name, p, c.want)
		}
	}
	for _, edit := range []func(s *RatioSettings){
		func(s *RatioSettings) {},
		func(s *RatioSettings) { s.Start, s.GibbsSteps = StartGibbs, 1 },
		func(s *RatioSettings) { s.Start = StartReversed },
		func(s *RatioSettings) { s.Start, s.Runs, s.GibbsSteps = StartExact, 100000, 100000 }, // exact runs no sweeps
	} {
		if p := check(edit); len(p) != 0 {
			t.Errorf("good settings: problems %q", p)
		}
	}

	s := DefaultRatio()
	s.To, s.Start = small, StartExact
	var p familytest.Problems
	AISRatio.CheckModel(&p, &s, &Model{Hidden: 500}, 22)
	if want := "start: expected auto, gibbs or reversed (exact needs exact draws of A, but the trained rbm 22-500 will have a smaller layer of 22 units, more than the 20 of an exact sampler)"; len(p) != 1 || p[0] != want {
		t.Errorf("CheckModel: %q, want [%q]", p, want)
	}
	p = nil
	AISRatio.CheckModel(&p, &s, &Model{Hidden: 20}, 22)
	if len(p) != 0 {
		t.Errorf("CheckModel of a 22×20 A with start exact: %q", p)
	}
	err := AISRatio.Feasible(randomRBM(22, 22, 0.15, 0.3, 3), &s)
	if want := "start: exact needs exact draws of A, but the evaluated rbm 22-22 has non-zero weights and its smaller layer has 22 units, more than the 20 of an exact sampler; use start: gibbs or auto (--ratio-start)"; err == nil || err.Error() != want {
		t.Errorf("Feasible: %v, want %q", err, want)
	}
	if err := AISRatio.Feasible(randomRBM(22, 5, 0.1, 0.1, 10), &s); err != nil {
		t.Errorf("Feasible of a 22×5 A with start exact: %v", err)
	}
	s.Start = StartAuto
	if err := AISRatio.Feasible(randomRBM(22, 22, 0.15, 0.3, 3), &s); err != nil {
		t.Errorf("Feasible of a 22×22 A with start auto: %v", err)
	}
}
