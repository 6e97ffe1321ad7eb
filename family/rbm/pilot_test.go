package rbm

import (
	"math"
	"strings"
	"testing"

	"github.com/logz-ml/logz/eval/report"
	"github.com/logz-ml/logz/family"
	"github.com/logz-ml/logz/family/kit/estim"
	"github.com/logz-ml/logz/family/kit/evalenv"
)

// TestAISPilotSchedule: ais with schedule pilot on the 4-block RBM (exact
// log Z known) runs the pilot, says which spacing it chose, and its log Ẑ
// agrees with exact within the ±3σ band, with its main runs on the
// evaluation's seed as any ais. (Mutation: dropping the note from
// SetAISLogZ, or running the main AIS on the pilot's fixed 2008 spacing
// regardless of the choice, fails the note check.)
func TestAISPilotSchedule(t *testing.T) {
	x := blockData(40, 0.05, 2)
	a := AISSettings{AIS: estim.DefaultAIS()}
	a.Betas, a.Schedule, a.Init, a.Runs = 200, "pilot", "base-rate", 200
	env := evalenv.Env{Experiment: "b", Stage: report.StageFinal, Epoch: 1, Seed: 5, Splits: []evalenv.Split{{Name: "test", Data: x}}, BaseRate: logOdds(x)}
	rows, err := env.Run(Family, blockRBM(4), []family.Configured{{Name: "exact", Settings: Exact.New()}, {Name: "ais", Settings: &a}})
	if err != nil {
		t.Fatal(err)
	}
	var ex, ai report.Row
	for _, r := range rows {
		switch r.Estimator {
		case "exact":
			ex = r
		case "ais":
			ai = r
		}
	}
	var note string
	for _, n := range ai.Notes {
		if strings.Contains(n, "chosen by a pilot of 20 runs × 20 β") {
			note = n
		}
	}
	if note == "" {
		t.Fatalf("ais notes %q: no pilot note", ai.Notes)
	}
	t.Logf("exact log Z %.4f, AIS %.4f [%.4f, %.4f]; %s", *ex.LogZ, *ai.LogZ, *ai.LogZLo, *ai.LogZHi, note)
	if lo, hi := *ai.LogZLo, *ai.LogZHi; !(lo <= *ex.LogZ && *ex.LogZ <= hi) || math.IsNaN(*ai.LogZ) {
		t.Errorf("AIS log Z %.4f, band [%.4f, %.4f], exact %.4f", *ai.LogZ, lo, hi, *ex.LogZ)
	}
	if ai.Betas != 200 {
		t.Errorf("row says %d β, want 200", ai.Betas)
	}
}
