package rbm

import (
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/logz-ml/logz/eval"
	"github.com/logz-ml/logz/eval/report"
	"github.com/logz-ml/logz/family"
	"github.com/logz-ml/logz/family/familytest"
	"github.com/logz-ml/logz/inference"
	"github.com/logz-ml/logz/internal/nmath"
	"github.com/logz-ml/logz/models"
)

// randomRBM is a d×h RBM with N(0, w²) weights and N(0, b²) biases from
// a generator seeded by seed alone.
func randomRBM(d, h int, w, b float64, seed uint64) *models.RBM {
	rng := rand.New(rand.NewPCG(seed, 17))
	m := models.NewRBM(d, h)
	for i := range m.W {
		m.W[i] = w * rng.NormFloat64()
	}
	for i := range m.VBias {
		m.VBias[i] = b * rng.NormFloat64()
	}
	for j := range m.HBias {
		m.HBias[j] = b * rng.NormFloat64()
	}
	return m
}

func saveModel(t *testing.T, m models.Model, name string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := models.Save(p, &models.Checkpoint{Model: m}); err != nil {
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
// difference as exact_log_z. Forward (A = 10×6 enumerated) and reversed
// (A = 22×22 has no exact sampler, so the runs go from B = 22×5 to A).
func TestAISRatioMatchesExact(t *testing.T) {
	for _, c := range []struct {
		name     string
		mA, mB   *models.RBM
		reversed bool
	}{
		{"forward 10×6 → 10×9", randomRBM(10, 6, 0.6, 0.5, 1), randomRBM(10, 9, 0.6, 0.5, 2), false},
		{"reversed 22×22 → 22×5", randomRBM(22, 22, 0.15, 0.3, 3), randomRBM(22, 5, 0.5, 0.3, 4), true},
	} {
		t.Run(c.name, func(t *testing.T) {
			want := trueLogZ(t, c.mB) - trueLogZ(t, c.mA)
			s := DefaultRatio()
			s.To = saveModel(t, c.mB, "b.npz")
			s.Runs, s.Betas, s.Schedule = 100, 1000, "linear"
			env := family.Env{Experiment: "ratio", Stage: report.StageFinal, Seed: 11}
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
			if got := strings.Contains(notes, "went from B to A"); got != c.reversed {
				t.Errorf("reversed note present = %v, want %v", got, c.reversed)
			}
		})
	}
}

// TestAISRatioWeightUnbiased checks E[w] = Z_B/Z_A (forward) and E[w] =
// Z_A/Z_B (reversed) for the weights EstimateRatio anneals with, at K = 2
// and K = 10 where AIS is far from converged: in log space, the log of the
// mean weight minus the true log ratio is within 4 standard errors, the
// standard error being σ̂/r̂ from the weights' sample variance.
func TestAISRatioWeightUnbiased(t *testing.T) {
	for _, c := range []struct {
		name   string
		mA, mB *models.RBM
	}{
		{"forward 6×3 → 6×5", randomRBM(6, 3, 0.8, 0.5, 5), randomRBM(6, 5, 0.8, 0.5, 6)},
		{"reversed 21×21 → 21×3", randomRBM(21, 21, 0.15, 0.3, 7), randomRBM(21, 3, 0.8, 0.3, 8)},
	} {
		truth := trueLogZ(t, c.mB) - trueLogZ(t, c.mA)
		for _, K := range []int{2, 10} {
			r, err := EstimateRatio(eval.AIS{Runs: 40000, Betas: inference.LinearSchedule(K), Seed: uint64(100 + K)}, c.mA, c.mB)
			if err != nil {
				t.Fatal(err)
			}
			want := truth
			if r.Reversed {
				want = -truth // the weights estimate Z_A/Z_B
			}
			st := nmath.Summarise(r.AIS.LogW)
			d := st.LogMean - want
			se := math.Exp(st.LogStdErr - st.LogMean)
			t.Logf("%s K=%d: log mean w − true = %+.4f, SE %.4f, ESS %.0f", c.name, K, d, se, st.ESS)
			if se > 0.03 {
				t.Errorf("%s K=%d: standard error %.3g too large for a meaningful test", c.name, K, se)
			}
			if math.Abs(d) > 4*se {
				t.Errorf("%s K=%d: log mean weight is %+.4f from the true log ratio, beyond 4 SE (%.4f)", c.name, K, d, 4*se)
			}
		}
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
