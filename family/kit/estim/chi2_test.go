package estim

import (
	"strings"
	"testing"

	"github.com/logz-ml/logz/eval/report"
)

func logZRow(est, split string, epoch int, logZ, se float64) report.Row {
	r := report.Row{Experiment: "e", Stage: report.StageEpoch, Epoch: epoch, Estimator: est, Split: split,
		LogZ: report.F(logZ), LogZHi1: report.F(logZ + se), LogZLo1: report.F(logZ - se)}
	if est == Chi2Estimator {
		r.Init = "mixture"
	}
	return r
}

// TestPairLogZ: chi2 rows get [AIS, χ²] from the AIS row of the same
// evaluation and split (the highest AIS when there are several), AIS rows
// the tightest χ²; rows of other epochs are never paired; AIS above χ² by
// more than the combined SE is a warning on both, unless exact shows χ²
// is not under log Z (then a note on the chi2 row); within the SE nothing.
func TestPairLogZ(t *testing.T) {
	rows := []report.Row{
		logZRow("ais", "test", 1, 10.00, 0.02),
		logZRow("ais", "test", 1, 10.05, 0.02), // the higher AIS: the bracket's low end
		logZRow(Chi2Estimator, "test", 1, 10.30, 0.01),
		logZRow(Chi2Estimator, "test", 1, 10.20, 0.01), // the tighter χ² for the AIS row
		logZRow(Chi2Estimator, "test", 2, 11.00, 0.01), // no AIS at epoch 2
		logZRow("ais", "train", 1, 10.05, 0.02),        // another split
	}
	PairLogZ(rows)
	check := func(i int, lo, hi float64) {
		t.Helper()
		r := rows[i]
		if r.LogZBracketLo == nil || r.LogZBracketHi == nil || *r.LogZBracketLo != lo || *r.LogZBracketHi != hi {
			t.Errorf("row %d (%s epoch %d %s): bracket %v, %v, want [%g, %g]", i, r.Estimator, r.Epoch, r.Split, r.LogZBracketLo, r.LogZBracketHi, lo, hi)
		}
	}
	check(2, 10.05, 10.30)
	check(3, 10.05, 10.20)
	check(1, 10.05, 10.20)
	if rows[0].LogZBracketLo != nil || rows[4].LogZBracketLo != nil || rows[5].LogZBracketLo != nil {
		t.Errorf("unpaired rows got a bracket: %+v / %+v / %+v", rows[0], rows[4], rows[5])
	}
	if !strings.Contains(strings.Join(rows[3].Notes, " "), "log Z bracket [AIS, χ² (mixture)] = [10.050, 10.200], width 0.150 nats") {
		t.Errorf("chi2 note: %q", rows[3].Notes)
	}
	for _, r := range rows {
		if len(r.Warnings) > 0 {
			t.Errorf("warning on a proper bracket: %q", r.Warnings)
		}
	}

	// χ² under AIS: by 0.1 nats > √(0.02² + 0.01²) is a warning on both.
	below := []report.Row{logZRow("ais", "", 3, 10.30, 0.02), logZRow(Chi2Estimator, "", 3, 10.20, 0.01)}
	PairLogZ(below)
	for _, r := range below {
		if len(r.Warnings) != 1 || !strings.Contains(r.Warnings[0], "biased low") || !strings.Contains(r.Warnings[0], "below AIS's log Ẑ 10.300 by 0.100 nats") {
			t.Errorf("%s: warnings %q", r.Estimator, r.Warnings)
		}
	}
	// Within the combined SE: no warning.
	noise := []report.Row{logZRow("ais", "", 3, 10.215, 0.02), logZRow(Chi2Estimator, "", 3, 10.20, 0.01)}
	PairLogZ(noise)
	if len(noise[0].Warnings)+len(noise[1].Warnings) > 0 {
		t.Errorf("a reversal within the SE warned: %q %q", noise[0].Warnings, noise[1].Warnings)
	}
	// AIS high but χ² above exact: AIS's error, a note, not a warning.
	high := []report.Row{logZRow("ais", "", 3, 10.30, 0.02), logZRow(Chi2Estimator, "", 3, 10.20, 0.01)}
	high[1].ExactLogZ = report.F(10.19)
	PairLogZ(high)
	if len(high[0].Warnings)+len(high[1].Warnings) > 0 || !strings.Contains(strings.Join(high[1].Notes, " "), "AIS came out high") {
		t.Errorf("AIS above χ² ≥ exact: warnings %q %q, notes %q", high[0].Warnings, high[1].Warnings, high[1].Notes)
	}
}

// TestChi2ExactGap: χ² under the exact log Z by more than its SE (and
// 0.001 nats) is a warning saying the estimate is biased low; within the
// SE a note; above, a note with the gap.
func TestChi2ExactGap(t *testing.T) {
	var r report.Row
	addChi2ExactGap(&r, 10, 9.9, 0.02)
	if len(r.Warnings) != 1 || !strings.Contains(r.Warnings[0], "BELOW the exact log Z") || !strings.Contains(r.Warnings[0], "biased low") {
		t.Errorf("under exact: %q", r.Warnings)
	}
	r = report.Row{}
	addChi2ExactGap(&r, 10, 9.99, 0.02)
	addChi2ExactGap(&r, 10, 9.9995, 0)
	addChi2ExactGap(&r, 10, 10.05, 0.02)
	if len(r.Warnings) != 0 || len(r.Notes) != 3 || !strings.Contains(r.Notes[2], "+0.050 nats") {
		t.Errorf("within noise / above: warnings %q, notes %q", r.Warnings, r.Notes)
	}
}
