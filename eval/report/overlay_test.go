package report

import (
	"testing"
)

// TestTrainingTime: the time axis sums the trainer's per-epoch seconds
// (its "train" rows), not the evaluations', and stops at a missing epoch.
func TestTrainingTime(t *testing.T) {
	rows := []Row{
		{Experiment: "a", Stage: StageEpoch, Epoch: 1, Estimator: "train", Split: "train", Seconds: 2},
		{Experiment: "a", Stage: StageEpoch, Epoch: 1, Estimator: "exact", Split: "test", MeanLoglik: p(-9), Seconds: 100},
		{Experiment: "a", Stage: StageEpoch, Epoch: 2, Estimator: "train", Split: "train", Seconds: 3},
		{Experiment: "a", Stage: StageEpoch, Epoch: 4, Estimator: "train", Split: "train", Seconds: 5},
	}
	got := TrainingTime(rows)
	want := map[int]float64{0: 0, 1: 2, 2: 5}
	if len(got) != len(want) {
		t.Fatalf("TrainingTime = %v, want %v", got, want)
	}
	for e, s := range want {
		if got[e] != s {
			t.Errorf("TrainingTime[%d] = %v, want %v", e, got[e], s)
		}
	}
}

// TestOverlaysNeedTwo: no overlay with a single curve to show — one
// experiment across experiments, one split within one.
func TestOverlaysNeedTwo(t *testing.T) {
	rows := fixtureRows()
	if f, err := OverlayFigures(Select(rows, "cd1-25")); err != nil || len(f) != 0 {
		t.Errorf("one experiment: %d overlays (%v)", len(f), err)
	}
	// cd1-25 and cd25-500 share no test curve configuration.
	if f, err := OverlayFigures(rows); err != nil || len(f) != 0 {
		t.Errorf("no shared curve: %d overlays (%v)", len(f), err)
	}
	if f, err := SplitOverlayFigures(Select(rows, "cd25-500")); err != nil || len(f) != 0 {
		t.Errorf("one split: %d split overlays (%v)", len(f), err)
	}
	f, err := SplitOverlayFigures(Select(rows, "cd1-25"))
	if err != nil || len(f) != 1 || f[0].Name != "splits-exact" {
		t.Errorf("cd1-25's exact on test and train: %d figures, want one splits-exact (%v)", len(f), err)
	}
}
