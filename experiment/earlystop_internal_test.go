package experiment

import (
	"testing"

	"github.com/logz-ml/logz/eval/report"
)

// TestStopStateOf: where early stopping stands after a sequence of
// validation estimates. A dip that recovers before the patience runs out
// restarts the count; a tie is not an improvement; a missing estimate
// (NaN) counts as no improvement; only the first monitor row of an epoch,
// on the valid split, of this experiment, counts.
// Mutations checked: not resetting since on a new best (the dip case stops
// at epoch 6), >= for > (the tie case never stops), counting every row of
// an epoch rather than its first (the noise rows win).
func TestStopStateOf(t *testing.T) {
	missing := 0.0 // no value is 0
	for _, c := range []struct {
		name     string
		values   []float64 // valid estimates of epochs 1, 2, …; 0 = missing
		patience int
		want     stopState
	}{
		{"dip recovers", []float64{-5, -4, -4.5, -4.2, -3.9, -4, -4.1, -4.05, -3.95}, 3, stopState{best: 5, value: -3.9, last: 8, since: 3, stopped: true}},
		{"tie is no gain", []float64{-5, -4, -4, -4, -4}, 3, stopState{best: 2, value: -4, last: 5, since: 3, stopped: true}},
		{"missing", []float64{-5, missing, missing}, 2, stopState{best: 1, value: -5, last: 3, since: 2, stopped: true}},
		{"still going", []float64{-5, -4, -4.5}, 2, stopState{best: 2, value: -4, last: 3, since: 1}},
		{"none yet", nil, 2, stopState{}},
	} {
		var rows []report.Row
		for i, v := range c.values {
			e := i + 1
			row := report.Row{Experiment: "a", Stage: report.StageEpoch, Epoch: e, Estimator: "ais", Split: "valid"}
			if v != missing {
				row.MeanLoglik = report.F(v)
			}
			noise := report.F(100) // better than anything, on rows that must not count
			rows = append(rows,
				report.Row{Experiment: "a", Stage: report.StageEpoch, Epoch: e, Estimator: "train", Split: "train", MeanLoglik: noise},
				report.Row{Experiment: "a", Stage: report.StageEpoch, Epoch: e, Estimator: "ais", Split: "test", MeanLoglik: noise},
				report.Row{Experiment: "b", Stage: report.StageEpoch, Epoch: e, Estimator: "ais", Split: "valid", MeanLoglik: noise},
				row,
				report.Row{Experiment: "a", Stage: report.StageEpoch, Epoch: e, Estimator: "ais", Split: "valid", MeanLoglik: noise},
				report.Row{Experiment: "a", Stage: report.StageFinal, Epoch: e, Estimator: "ais", Split: "valid", MeanLoglik: noise},
			)
		}
		if got := stopStateOf(rows, "a", "ais", c.patience, 1); got != c.want {
			t.Errorf("%s: got %+v, want %+v", c.name, got, c.want)
		}
	}
}
