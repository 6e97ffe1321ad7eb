package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// selGrid builds the rows and grid of a grid "rbm" over lr with select:
// {split: valid, estimator: ais}: per point (in grid order) and seed, its
// valid and test ais estimates (a missing value: no valid row). The points
// are named so that neither name order nor map order is grid order.
func selGrid(points []string, valid, test map[string][]float64) ([]Row, Grid) {
	var rows []Row
	g := Grid{}
	spec := &SelectSpec{Split: "valid", Estimator: "ais"}
	idx := 0
	for _, lr := range points {
		for s := range test[lr] {
			seed := string(rune('1' + s))
			name := "rbm.lr-" + lr + ".seed-" + seed
			g[name] = GridPoint{Group: "rbm (lr=" + lr + ")", Seed: seed, Of: "rbm", Setting: "lr=" + lr, Index: idx, Select: spec}
			idx++
			if s < len(valid[lr]) {
				rows = append(rows, Row{Experiment: name, Model: "rbm 20-8", Stage: StageFinal, Estimator: "ais", Split: "valid", Runs: 16, Betas: 100,
					LogZ: p(10), MeanLoglik: p(valid[lr][s]), LoglikSE: p(0.25), NExamples: 100, Warnings: []string{}})
			}
			rows = append(rows, Row{Experiment: name, Model: "rbm 20-8", Stage: StageFinal, Estimator: "ais", Split: "test", Runs: 16, Betas: 100,
				LogZ: p(10), MeanLoglik: p(test[lr][s]), LoglikSE: p(0.5), NExamples: 100, Warnings: []string{}})
		}
	}
	return rows, g
}

func oneSelection(t *testing.T, rows []Row, g Grid) Selection {
	t.Helper()
	sel := Selections(rows, g)
	if len(sel) != 1 {
		t.Fatalf("%d selections, want 1: %+v", len(sel), sel)
	}
	return sel[0]
}

// TestSelectionOnValid: the point with the best valid estimate is chosen
// although another has the best test one, and its test number is
// reported. Mutation checked: firstRow taking the estimator's row of
// another split than the select's (the test value then decides).
func TestSelectionOnValid(t *testing.T) {
	rows, g := selGrid([]string{"0.5", "0.05"},
		map[string][]float64{"0.5": {-20}, "0.05": {-21}},
		map[string][]float64{"0.5": {-19}, "0.05": {-18}})
	s := oneSelection(t, rows, g)
	if s.Chosen != "rbm (lr=0.5)" || len(s.ChosenExperiments) != 1 || s.ChosenExperiments[0] != "rbm.lr-0.5.seed-1" {
		t.Fatalf("chosen %q, want rbm (lr=0.5) (best on valid; lr=0.05 is best on test)", s.Chosen)
	}
	if len(s.Results) != 1 || s.Results[0].Split != "test" || s.Results[0].Mean != -19 || *s.Results[0].SE != 0.5 || s.Results[0].Seeds != 1 {
		t.Errorf("results %+v, want test ais -19 ± 0.5 of one seed", s.Results)
	}
	want := "rbm: chosen on valid by ais: lr=0.5 (valid -20.00 ± 0.25) → test: ais 16 runs -19.00 ± 0.50"
	if got := s.Line(); got != want {
		t.Errorf("line\n%s\nwant\n%s", got, want)
	}
}

// TestSelectionSeedMeans: with seeds, the point whose mean over its seeds
// is best is chosen, not the one with the best single seed, and its
// numbers are the means ± SE over its seeds. Mutation checked: choosing on
// each seed's own value (pt.Value the last seed's, not the mean).
func TestSelectionSeedMeans(t *testing.T) {
	// lr=0.5: valid −10 and −15 (mean −12.5, the best single seed −10);
	// lr=0.05: −11 and −12 (mean −11.5).
	rows, g := selGrid([]string{"0.5", "0.05"},
		map[string][]float64{"0.5": {-10, -15}, "0.05": {-12, -11}},
		map[string][]float64{"0.5": {-9, -9}, "0.05": {-20, -22}})
	s := oneSelection(t, rows, g)
	if s.Chosen != "rbm (lr=0.05)" || *s.Points[0].Value != -12.5 || *s.Points[1].Value != -11.5 || *s.Points[1].SE != 0.5 {
		t.Fatalf("chosen %q, points %+v; want rbm (lr=0.05) with the mean -11.5 ± 0.5", s.Chosen, s.Points)
	}
	if r := s.Results[0]; r.Mean != -21 || *r.SE != 1 || r.Seeds != 2 {
		t.Errorf("test result %+v, want -21 ± 1 over 2 seeds", r)
	}
	if !strings.Contains(s.Line(), "lr=0.05 (valid -11.50 ± 0.50, mean of 2 seeds) → test: ais 16 runs -21.00 ± 1.00") {
		t.Errorf("line %q", s.Line())
	}
}

// TestSelectionSkipsMissing: a point one of whose seeds has no estimate on
// the split (a failed experiment) is skipped and named, though its other
// seed is the best. Mutation checked: averaging the seeds that have one
// (dropping the r == nil case).
func TestSelectionSkipsMissing(t *testing.T) {
	rows, g := selGrid([]string{"0.5", "0.05"},
		map[string][]float64{"0.5": {-1}, "0.05": {-12, -11}},
		map[string][]float64{"0.5": {-9, -9}, "0.05": {-20, -22}})
	s := oneSelection(t, rows, g)
	if s.Chosen != "rbm (lr=0.05)" || s.Points[0].Value != nil || !strings.Contains(s.Points[0].Skipped, "rbm.lr-0.5.seed-2 has no final ais estimate on valid") {
		t.Fatalf("chosen %q, points %+v", s.Chosen, s.Points)
	}
	if !strings.HasSuffix(s.Line(), "; skipped: rbm (lr=0.5) (rbm.lr-0.5.seed-2 has no final ais estimate on valid (failed or not finished))") {
		t.Errorf("line %q", s.Line())
	}
	// A row without a mean log-likelihood (a training signal's) is no
	// estimate either.
	for i := range rows {
		if rows[i].Experiment == "rbm.lr-0.05.seed-1" && rows[i].Split == "valid" {
			rows[i].MeanLoglik, rows[i].LoglikSE, rows[i].LogZ, rows[i].Value = nil, nil, nil, p(3)
		}
	}
	if s := oneSelection(t, rows, g); s.Chosen != "" || !strings.Contains(s.Points[1].Skipped, "rbm.lr-0.05.seed-1: ais gives no mean log-likelihood on valid") {
		t.Errorf("a signal row: %+v", s.Points)
	}
	// No point with an estimate: none chosen, and said.
	rows, g = selGrid([]string{"0.5"}, map[string][]float64{}, map[string][]float64{"0.5": {-9}})
	if s := oneSelection(t, rows, g); s.Chosen != "" || len(s.Results) != 0 || !strings.HasPrefix(s.Line(), "rbm: chosen on valid by ais: none (no point has an estimate by ais on valid)") {
		t.Errorf("nothing to choose: %+v, line %q", s, s.Line())
	}
}

// TestSelectionTies: equal values go to the first point in grid order (the
// points' Index, not their names' order), and the line says so. Mutation
// checked: m >= best (the last of equals wins).
func TestSelectionTies(t *testing.T) {
	rows, g := selGrid([]string{"0.5", "0.05", "0.01"},
		map[string][]float64{"0.5": {-13}, "0.05": {-12}, "0.01": {-12}},
		map[string][]float64{"0.5": {-9}, "0.05": {-20}, "0.01": {-1}})
	for range 5 { // map order varies between runs
		s := oneSelection(t, rows, g)
		if s.Chosen != "rbm (lr=0.05)" || len(s.Tied) != 1 || s.Tied[0] != "rbm (lr=0.01)" {
			t.Fatalf("chosen %q tied %v, want rbm (lr=0.05) tied with rbm (lr=0.01)", s.Chosen, s.Tied)
		}
		if !strings.HasSuffix(s.Line(), "; tied with rbm (lr=0.01), the first in grid order chosen") {
			t.Errorf("line %q", s.Line())
		}
	}
}

// TestSelectionOutputs: the choice's line is in the terminal table,
// report.md and report.html, and results.json holds the selection (and
// reads back). Mutation checked: dropping the selections from
// EncodeResultsGrid's object.
func TestSelectionOutputs(t *testing.T) {
	rows, g := selGrid([]string{"0.5", "0.05"},
		map[string][]float64{"0.5": {-20}, "0.05": {-21}},
		map[string][]float64{"0.5": {-19}, "0.05": {-18}})
	var term, md, html, js bytes.Buffer
	if err := RenderTable(&term, rows, TableOptions{ASCII: true, Grid: g, Width: -1}); err != nil {
		t.Fatal(err)
	}
	if err := WriteMarkdownGrid(&md, "t", nil, rows, g); err != nil {
		t.Fatal(err)
	}
	if err := WriteHTMLGrid(&html, "t", nil, rows, func(string, []Row) ([]Figure, error) { return nil, nil }, nil, g); err != nil {
		t.Fatal(err)
	}
	for name, out := range map[string]string{"terminal": term.String(), "report.md": md.String(), "report.html": html.String()} {
		for _, want := range []string{selectionTitle, "rbm: chosen on valid by ais: lr=0.5 (valid -20.00 ± 0.25) → test: ais 16 runs -19.00 ± 0.50"} {
			if !strings.Contains(out, want) {
				t.Errorf("%s lacks %q:\n%s", name, want, out)
			}
		}
	}
	if err := EncodeResultsGrid(&js, rows, g); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Selections []Selection `json:"selections"`
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Selections) != 1 || doc.Selections[0].Chosen != "rbm (lr=0.5)" || len(doc.Selections[0].Points) != 2 {
		t.Fatalf("results.json selections: %s", js.String())
	}
	back, err := DecodeResults(&js, "results.json")
	if err != nil || len(back) != len(rows) {
		t.Fatalf("read back: %d rows, %v", len(back), err)
	}
	// Without a grid with select:, results.json is as before.
	js.Reset()
	if err := EncodeResultsGrid(&js, rows, nil); err != nil || strings.Contains(js.String(), "selections") {
		t.Errorf("no select: %v\n%s", err, js.String())
	}
}
