package report

import (
	"bytes"
	"math"
	"strconv"
	"strings"
	"testing"
)

// sweepRows returns the rows of one experiment: per epoch 1..4 exact
// log Z = 10+e, ais at +a, the χ² trainer's tracked log Z at +c+e/10
// (as its Value); a final exact and ais.
func sweepRows(exp string, a, c float64) []Row {
	var rows []Row
	for e := 1; e <= 4; e++ {
		ex := 10 + float64(e)
		rows = append(rows,
			Row{Experiment: exp, Stage: StageEpoch, Epoch: e, Estimator: "train", Split: "train", Init: TrackedLogZSignal, Value: F(ex + c + float64(e)/10)},
			Row{Experiment: exp, Stage: StageEpoch, Epoch: e, Estimator: "exact", Split: "test", LogZ: F(ex)},
			Row{Experiment: exp, Stage: StageEpoch, Epoch: e, Estimator: "ais", Split: "test", Init: "uniform", LogZ: F(ex + a), LogZLo: F(ex + a - 0.1), LogZHi: F(ex + a + 0.1)},
		)
	}
	rows = append(rows,
		Row{Experiment: exp, Stage: StageFinal, Epoch: 4, Estimator: "exact", LogZ: F(14)},
		Row{Experiment: exp, Stage: StageFinal, Epoch: 4, Estimator: "ais", Init: "uniform", LogZ: F(14 + a/2), LogZHi: F(14 + a/2 + 0.05)})
	return rows
}

// TestSweepSummary: the per-epoch point of an estimator is its mean error
// over epochs 3 and 4 (after half of 4) with its range; the trainer's
// tracked log Z counts as an estimate; the final point carries its own
// bar, −∞ below when log(Ẑ − 3σ̂) is undefined.
func TestSweepSummary(t *testing.T) {
	rows := sweepRows("x", -0.2, 0.5)
	labels, pts, exact, ok := sweepSummary(rows, StageEpoch)
	if !ok || exact != 0 || strings.Join(labels, ",") != "chi2-logz (training),ais (uniform)" {
		t.Fatalf("labels %q exact %v ok %v", labels, exact, ok)
	}
	if p := pts["chi2-logz (training)"]; math.Abs(p.y-0.85) > 1e-12 || math.Abs(p.lo-0.8) > 1e-12 || math.Abs(p.hi-0.9) > 1e-12 {
		t.Errorf("tracked: %+v, want mean 0.85 in [0.8, 0.9]", p)
	}
	if p := pts["ais (uniform)"]; math.Abs(p.y+0.2) > 1e-12 {
		t.Errorf("ais: %+v", p)
	}
	_, pts, _, _ = sweepSummary(rows, StageFinal)
	if p := pts["ais (uniform)"]; math.Abs(p.y+0.1) > 1e-12 || !math.IsInf(p.lo, -1) || math.Abs(p.hi+0.05) > 1e-12 {
		t.Errorf("final ais: %+v", p)
	}
}

// TestSweepFigures: two experiments of a sweep give the two figures, and
// report.html shows them under "Across experiments"; an experiment alone,
// or no sweep, gives none.
func TestSweepFigures(t *testing.T) {
	rows := append(sweepRows("s1", -0.2, 0.5), sweepRows("s2", -0.4, 0.1)...)
	sw := Sweep{Setting: "data.planted.weight_scale", X: map[string]float64{"s1": 0.5, "s2": 1}}
	figs, err := SweepFigures(rows, sw)
	if err != nil || len(figs) != 2 || figs[0].Name != "sweep-epochs" || figs[1].Name != "sweep-final" {
		t.Fatalf("figures %d, err %v", len(figs), err)
	}
	if !strings.Contains(figs[0].Title, "log Ẑ − exact") || !strings.Contains(figs[0].Title, "data.planted.weight_scale") {
		t.Errorf("title %q", figs[0].Title)
	}
	var b bytes.Buffer
	if err := WriteHTMLAcross(&b, "t", nil, rows, nil, figs); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "<h2>Across experiments</h2>") || !strings.Contains(b.String(), `id="across-sweep-epochs"`) {
		t.Error("report.html lacks the sweep figures")
	}
	for _, s := range []Sweep{{}, {Setting: sw.Setting, X: map[string]float64{"s1": 0.5}}} {
		if figs, err := SweepFigures(rows, s); err != nil || len(figs) != 0 {
			t.Errorf("%+v: %d figures, err %v", s, len(figs), err)
		}
	}
}

// TestEpochLogZFigureTracksChi2: the per-epoch log Z figure draws the χ²
// trainer's tracked log Z (its row's Value) beside the estimators'.
func TestEpochLogZFigureTracksChi2(t *testing.T) {
	figs, err := ExperimentFigures(sweepRows("x", -0.2, 0.5))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range figs {
		if f.Name == "logz" {
			if !bytes.Contains(f.Data, []byte("chi2-logz (training)")) {
				t.Error("the log Z figure lacks the tracked chi2-logz series")
			}
			return
		}
	}
	t.Error("no log Z figure")
}

// TestWriteSweepCSV: the CSV holds the points of the sweep figures, the
// experiments in the order of the swept value (not of the rows), errors
// against exact with their bars; no sweep writes nothing.
func TestWriteSweepCSV(t *testing.T) {
	rows := append(sweepRows("s2", -0.4, 0.1), sweepRows("s1", -0.2, 0.5)...)
	sw := Sweep{Setting: "data.planted.weight_scale", X: map[string]float64{"s1": 0.5, "s2": 1}}
	var b bytes.Buffer
	if wrote, err := WriteSweepCSV(&b, rows, sw); !wrote || err != nil {
		t.Fatalf("wrote %v, err %v", wrote, err)
	}
	want := `setting,value,experiment,stage,estimator,reference,mean,lo,hi
data.planted.weight_scale,0.5,s1,epoch,chi2-logz (training),exact,0.85,0.8,0.9
data.planted.weight_scale,0.5,s1,epoch,ais (uniform),exact,-0.2,-0.2,-0.2
data.planted.weight_scale,0.5,s1,final,ais (uniform),exact,-0.1,-Inf,-0.05
data.planted.weight_scale,1,s2,epoch,chi2-logz (training),exact,0.45,0.4,0.5
data.planted.weight_scale,1,s2,epoch,ais (uniform),exact,-0.4,-0.4,-0.4
data.planted.weight_scale,1,s2,final,ais (uniform),exact,-0.2,-Inf,-0.15
`
	got := b.String()
	// The means are sums of floats: compare them rounded.
	norm := func(s string) string {
		var out []string
		for _, line := range strings.Split(s, "\n") {
			f := strings.Split(line, ",")
			for i, x := range f {
				if v, err := strconv.ParseFloat(x, 64); err == nil && i >= 6 {
					f[i] = strconv.FormatFloat(v, 'f', 9, 64)
				}
			}
			out = append(out, strings.Join(f, ","))
		}
		return strings.Join(out, "\n")
	}
	if norm(got) != norm(want) {
		t.Errorf("sweep.csv:\n%s\nwant\n%s", got, want)
	}
	b.Reset()
	if wrote, err := WriteSweepCSV(&b, rows, Sweep{}); wrote || err != nil || b.Len() != 0 {
		t.Errorf("no sweep: wrote %v (%d bytes), err %v", wrote, b.Len(), err)
	}
}
