package report

import "testing"

// TestSandwichRoundsLabelled: a sandwich's rounds stay on lines of their
// own, named with the round, beside a plain ais of the same K and start.
func TestSandwichRoundsLabelled(t *testing.T) {
	v := 1.0
	row := func(round int, split string) Row {
		return Row{Experiment: "e", Model: "rbm 4-2", Stage: StageFinal, Estimator: "ais", Split: split, Init: "uniform", Runs: 10, Betas: 100, Round: round, MeanLoglik: &v}
	}
	// A plain ais on test, a sandwich's round 2 on train: merged into one
	// line they would read as one estimate.
	lines := finalLines([]Row{row(0, "test"), row(2, "train")})
	var got []string
	for _, l := range lines {
		got = append(got, estimatorLabel(l))
	}
	if len(got) != 2 || got[0] != "ais (uniform)" || got[1] != "ais (uniform, round 2)" {
		t.Errorf("lines %q, want [ais (uniform) ais (uniform, round 2)]", got)
	}
}
