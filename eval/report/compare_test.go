package report

import (
	"slices"
	"strings"
	"testing"

	"github.com/logz-ml/logz/internal/provenance"
)

// cmpRow is a final AIS row of experiment e on the test split with mean
// m, log Ẑ = 10 and log(Ẑ+σ̂) = 10 + sigma.
func cmpRow(e string, betas int, m, sigma float64, d provenance.Data) Row {
	return Row{Experiment: e, Stage: StageFinal, Estimator: "ais", Split: "test", Init: "base-rate", Betas: betas,
		MeanLoglik: F(m), LogZ: F(10), LogZHi1: F(10 + sigma), Data: &d, Warnings: []string{}}
}

var cmpData = provenance.Data{Spec: "mnist:test", Binarize: "stochastic", BinarizeSeed: 1, N: 10, D: 4, SHA256: "aaaa1111bbbb2222"}

// TestProtocolDiffers: each field of the protocol is named when it
// differs, with both values; equal protocols give nothing.
func TestProtocolDiffers(t *testing.T) {
	a := cmpRow("x", 1000, -80, 0.1, cmpData)
	if d := ProtocolDiffers(&a, &a); len(d) != 0 {
		t.Errorf("same row: %v", d)
	}
	cv := a.Clone()
	cv.NExamples, cv.SplitExamples, cv.ControlVariate = 100, 1000, "exact log p(x)"
	if d := ProtocolDiffers(&a, &cv); len(d) != 0 {
		t.Errorf("a subsample extended to the whole split by a control variate covers it all: %v", d)
	}
	for _, c := range []struct {
		change func(r *Row)
		want   string
	}{
		{func(r *Row) { d := *r.Data; d.BinarizeSeed = 2; r.Data = &d }, "data.binarize_seed 1 vs 2"},
		{func(r *Row) { d := *r.Data; d.SHA256 = "cccc3333dddd4444"; r.Data = &d }, "data sha256 aaaa1111bbbb vs sha256 cccc3333dddd"},
		{func(r *Row) { d := *r.Data; d.Binarize = "threshold"; r.Data = &d }, "data.binarize stochastic vs threshold"},
		{func(r *Row) { r.Data = nil }, "data recorded on one row only"},
		{func(r *Row) { r.Betas = 2000 }, "K 1000 vs 2000"},
		{func(r *Row) { r.Init = "uniform" }, "start base-rate vs uniform"},
		{func(r *Row) { r.Split = "train" }, "split test vs train"},
		{func(r *Row) { r.Estimator = "raise" }, "estimator ais vs raise"},
		{func(r *Row) { r.NExamples, r.SplitExamples = 100, 1000 }, "examples all vs 100 of 1000"},
	} {
		b := a.Clone()
		c.change(&b)
		if d := ProtocolDiffers(&a, &b); len(d) != 1 || d[0] != c.want {
			t.Errorf("want [%s], got %q", c.want, d)
		}
	}
}

// TestCompareLines: rows of the same protocol share a line and their Δ is
// the difference with √(σ_A² + σ_B²); a row of another K joins the line of
// its experiment, estimator and split that lacks its run, marked not
// comparable; an extra K of a run that has its line gets a line of its own.
func TestCompareLines(t *testing.T) {
	runs := []CompareRun{
		{Name: "a", Rows: []Row{cmpRow("x", 1000, -80, 0.03, cmpData), cmpRow("y", 1000, -90, 0.03, cmpData)}},
		{Name: "b", Rows: []Row{cmpRow("x", 500, -79.9, 0.04, cmpData), cmpRow("x", 1000, -79.7, 0.04, cmpData), cmpRow("y", 2000, -89, 0.04, cmpData)}},
	}
	c := Compare(runs)
	if len(c.Lines) != 3 {
		t.Fatalf("want 3 lines (x K=1000, y, x K=500), got %d", len(c.Lines))
	}
	x, y, extra := c.Lines[0], c.Lines[1], c.Lines[2]
	if x.Rows[1] == nil || x.Rows[1].Betas != 1000 || len(x.Differs[1]) != 0 {
		t.Errorf("x: want b's K=1000 row, comparable; got %+v, %v", x.Rows[1], x.Differs[1])
	}
	if got := x.diffCell(1); got != "+0.300 ± 0.050 (6.0σ)" {
		t.Errorf("x Δ = %q, want +0.300 ± 0.050 (6.0σ)", got)
	}
	if got := y.diffCell(1); got != "not comparable: K 1000 vs 2000" {
		t.Errorf("y Δ = %q", got)
	}
	if extra.Rows[0] != nil || extra.Rows[1] == nil || extra.Betas != 500 {
		t.Errorf("x K=500: want a line of b alone, got %+v", extra)
	}
	if c.NotComparable() != 1 {
		t.Errorf("NotComparable = %d, want 1", c.NotComparable())
	}
	var b strings.Builder
	if err := RenderCompare(&b, c, TableOptions{ASCII: true}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"-80.000 ± 0.030", "not comparable: K 1000 vs 2000", "1 of 3 lines hold rows that are not comparable"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, b.String())
		}
	}
}

// TestCompareExactError: an exact row has no estimator error: its Δ with
// another exact row is ± 0 and says so.
func TestCompareExactError(t *testing.T) {
	e := func(m float64) Row {
		return Row{Experiment: "x", Stage: StageFinal, Estimator: "exact", Split: "test", MeanLoglik: F(m), LoglikSE: F(0.5), Data: &cmpData}
	}
	c := Compare([]CompareRun{{Name: "a", Rows: []Row{e(-80)}}, {Name: "b", Rows: []Row{e(-79.5)}}})
	if got := c.Lines[0].diffCell(1); got != "+0.5000 ± 0 (exact: no estimator error)" {
		t.Errorf("Δ = %q", got)
	}
}

// TestConfigDiffs lists the keys whose values differ, with "(absent)"
// where a run lacks one, and an experiment that a run lacks in one line.
func TestConfigDiffs(t *testing.T) {
	runs := []CompareRun{
		{Name: "a", Config: map[string]string{"seed": "1", "experiments[x].train.epochs": "10", "k": "v"}},
		{Name: "b", Config: map[string]string{"seed": "2", "experiments[x].train.epochs": "10"}},
	}
	runs[0].Config["experiments[only-a].train.epochs"] = "5"
	runs[0].Config["experiments[only-a].seed"] = "5"
	got := configDiffs(runs)
	want := []string{"experiments[only-a]: (present) | (absent)", "k: v | (absent)", "seed: 1 | 2"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestCompareByConfig: rows that record no data are compared by the runs'
// configs: the same data settings of the experiment make them comparable
// (marked ‡, explained in the legend; data_dir does not count), another
// binarisation seed makes them not comparable, named; without configs they
// are not comparable.
func TestCompareByConfig(t *testing.T) {
	row := func(m float64) Row {
		return Row{Experiment: "x", Stage: StageFinal, Estimator: "exact", Split: "test", MeanLoglik: F(m), Warnings: []string{}}
	}
	cfg := func(seed, dir string) map[string]string {
		return map[string]string{"experiments[x].data.test": "mnist:test", "experiments[x].data.binarize_seed": seed,
			"experiments[x].data.data_dir": dir, "experiments[x].evaluate.max_examples": "0", "experiments[x].train.epochs": "5"}
	}
	same := Compare([]CompareRun{{Name: "a", Rows: []Row{row(-80)}, Config: cfg("1", "/a")}, {Name: "b", Rows: []Row{row(-79)}, Config: cfg("1", "/b")}})
	if got := same.Lines[0].diffCell(1); got != "+1.0000 ± 0 (exact: no estimator error) ‡" {
		t.Errorf("same data settings: Δ = %q", got)
	}
	if !slices.Contains(same.legend(), legendByConfig) {
		t.Error("the legend does not explain ‡")
	}
	other := Compare([]CompareRun{{Name: "a", Rows: []Row{row(-80)}, Config: cfg("1", "/a")}, {Name: "b", Rows: []Row{row(-79)}, Config: cfg("2", "/a")}})
	if got := other.Lines[0].diffCell(1); got != "not comparable: config data.binarize_seed 1 vs 2" {
		t.Errorf("other binarisation seed: Δ = %q", got)
	}
	none := Compare([]CompareRun{{Name: "a", Rows: []Row{row(-80)}}, {Name: "b", Rows: []Row{row(-79)}}})
	if got := none.Lines[0].diffCell(1); got != "not comparable: "+noDataRecorded {
		t.Errorf("no configs: Δ = %q", got)
	}
}
