package kit

import (
	"slices"
	"strings"
	"testing"

	"github.com/logz-ml/logz/eval/report"
	"github.com/logz-ml/logz/family"
	"github.com/logz-ml/logz/models"
)

// TestSandwichNotClosedAboveExact: a sandwich whose RAISE lies 0.7 nats
// (14σ) above exact's mean, with AIS just above it (a gap that closes by
// its size), does not call the bracket closed while exact ran earlier in
// the evaluation: rounds 1 and 2 (K = 40, 160) warn that RAISE is above
// exact and their verdict says no bracket; it stops at round 3 (K = 640),
// where RAISE has come down below exact. Mutation checked: dropping the
// againstExact call in runSandwich closes the bracket at K = 40.
func TestSandwichNotClosedAboveExact(t *testing.T) {
	s := &Sandwich[AIS, RAISE]{UntilGap: 0.5, StartBetas: 40, MaxBetas: 2560, Growth: 4, Schedule: "linear", Init: "base-rate",
		AIS: AIS{Runs: 10}, RAISE: SandwichRAISE()}
	fake := func(est string) Runner {
		return runFunc(func(_ *Env, _ models.Model, set family.Settings, j Job) ([]report.Row, error) {
			k := set.(Annealed).AnnealPath().Betas
			mean := -19.3 // exact is −20: the annealed model beats the model at small K
			if k >= 640 {
				mean = -20.02
			}
			row := j.Base
			row.Split, row.Betas, row.Init, row.NExamples = "test", k, "base-rate", 50
			if est == "ais" {
				row.MeanLoglik, row.LogZ, row.LogZHi1 = report.F(mean+0.1), report.F(5), report.F(5.01)
			} else {
				row.MeanLoglik, row.LoglikSE = report.F(mean), report.F(0.05)
			}
			return []report.Row{row}, nil
		})
	}
	final := report.StageFinal
	env := &Env{Experiment: "e", Stage: final,
		earlier: []report.Row{{Experiment: "e", Stage: final, Estimator: "exact", Split: "test", MeanLoglik: report.F(-20), NExamples: 50}}}
	rows, err := runSandwich(env, nil, s.Rounds(), s.UntilGap, s.at, fake("ais"), fake("raise"), Job{Base: report.Row{Experiment: "e", Stage: final}})
	if err != nil {
		t.Fatal(err)
	}
	if n := rows[len(rows)-1].Round; n != 3 {
		for _, r := range rows {
			t.Logf("round %d %s notes %q warnings %q", r.Round, r.Estimator, r.Notes, r.Warnings)
		}
		t.Fatalf("the sandwich stopped in round %d, want 3 (K = 640, the first with RAISE below exact)", n)
	}
	for _, r := range rows {
		notes := strings.Join(r.Notes, "\n")
		above := r.Estimator == "raise" && slices.ContainsFunc(r.Warnings, func(w string) bool { return strings.Contains(w, "RAISE is 0.70 nats above exact (-20.00;") })
		switch {
		case r.Round < 3 && (!strings.Contains(notes, "RAISE lies beyond noise on the wrong side of exact: no bracket") || r.Estimator == "raise" && !above):
			t.Errorf("round %d %s: notes %q warnings %q", r.Round, r.Estimator, r.Notes, r.Warnings)
		case r.Round == 3 && (!strings.Contains(notes, "the bracket closed at K = 640") || above):
			t.Errorf("round 3 %s: notes %q warnings %q", r.Estimator, r.Notes, r.Warnings)
		}
	}
}
