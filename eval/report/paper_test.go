package report

import (
	"bytes"
	"html"
	"strings"
	"testing"
)

// paperFixture is fixtureRows with the published numbers of cd25-500 on
// test and valid (reference rows as the runner writes them): the final
// evaluation has test estimates but no valid ones, the per-epoch one valid
// estimates only; one of its final lines (is) has no test estimate.
func paperFixture() []Row {
	rows := fixtureRows()
	rows = append(rows, Row{Experiment: "cd25-500", Model: "rbm 784-500", Stage: StageFinal, Epoch: 2, Estimator: "is",
		Split: "train", MeanLoglik: p(-84.5), NExamples: 100})
	for _, ref := range []struct {
		split string
		v     float64
	}{{"test", -86.35}, {"valid", -88.75}} {
		rows = append(rows, Row{Experiment: "cd25-500", Model: "rbm 784-500", Stage: StageFinal, Epoch: 2, Estimator: ReferenceEstimator,
			Split: ref.split, MeanLoglik: p(ref.v), Notes: []string{ReferenceNote("Salakhutdinov & Murray 2008, Table 1")}})
	}
	return rows
}

// TestPaperColumn: the published test number of cd25-500 is shown in a
// "Test paper" column on each cd25-500 line with a test estimate, and in
// no other cell (not on cd1-25's lines, in no train column); the valid
// number, beside which the final table has no estimate, stays a line of
// its own; the legend cites the source.
func TestPaperColumn(t *testing.T) {
	rows := paperFixture()
	var fn footnotes
	main, _, legend, _ := finalTables(rows, 0, &fn, nil)
	col := map[string]int{}
	for j, h := range main.header {
		col[h] = j
	}
	pc, ok := col["Test paper"]
	if !ok {
		t.Fatalf("no Test paper column: %q", main.header)
	}
	if _, ok := col["Train paper"]; ok {
		t.Errorf("a Train paper column without a published train number: %q", main.header)
	}
	if pc != col["Test log-prob"]+1 {
		t.Errorf("Test paper is column %d, not beside Test log-prob (%d)", pc, col["Test log-prob"])
	}
	shown, refLines := 0, 0
	for _, r := range main.rows {
		exp, est, test := r[col["Experiment"]], r[col["Estimator"]], r[col["Test log-prob"]]
		want := ""
		if exp == "cd25-500" && est != ReferenceEstimator && test != Missing {
			want = "-86.35"
		}
		if r[pc] != want {
			t.Errorf("line %s %s: Test paper %q, want %q", exp, est, r[pc], want)
		}
		for j, c := range r {
			if j != pc && strings.Contains(c, "86.35") {
				t.Errorf("line %s %s: the published number in column %s too", exp, est, main.header[j])
			}
		}
		if r[pc] != "" {
			shown++
		}
		if est == ReferenceEstimator {
			refLines++
			if exp != "cd25-500" || !strings.Contains(strings.Join(r, "|"), "-88.75") {
				t.Errorf("reference line %q: want cd25-500's valid number, which no estimate stands beside", r)
			}
		}
	}
	if shown != 4 || refLines != 1 {
		t.Errorf("Test paper shown on %d lines (want cd25-500's 4), %d reference lines (want 1: valid)", shown, refLines)
	}
	if !strings.Contains(strings.Join(legend, "\n"), "cd25-500 test -86.35 (Salakhutdinov & Murray 2008, Table 1)") {
		t.Errorf("legend does not cite the source:\n%s", strings.Join(legend, "\n"))
	}

	// The three renderings carry the column.
	var term, md, page bytes.Buffer
	if err := RenderTable(&term, rows, TableOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := WriteMarkdown(&md, "", nil, rows); err != nil {
		t.Fatal(err)
	}
	if err := WriteHTML(&page, "", nil, rows, func(string, []Row) ([]Figure, error) { return nil, nil }); err != nil {
		t.Fatal(err)
	}
	for name, out := range map[string]string{"terminal": term.String(), "report.md": md.String(), "report.html": page.String()} {
		if !strings.Contains(out, "Test paper") || !strings.Contains(out, "-86.35") {
			t.Errorf("%s: no Test paper column with -86.35", name)
		}
	}

	// Without reference rows, no paper column.
	main, _, _, _ = finalTables(fixtureRows(), 0, &footnotes{}, nil)
	if strings.Contains(strings.Join(main.header, "|"), "paper") {
		t.Errorf("paper column without a reference: %q", main.header)
	}
}

// TestPaperLine: the per-epoch plot of the split with a published number
// draws it as a labelled line (the label in the SVG), and no other plot
// does.
func TestPaperLine(t *testing.T) {
	rows := paperFixture()
	figs, err := ExperimentFigures(Select(rows, "cd25-500"))
	if err != nil {
		t.Fatal(err)
	}
	label := "paper: Salakhutdinov & Murray 2008, Table 1: −88.75"
	found := false
	for _, f := range figs {
		svg := html.UnescapeString(string(f.Data))
		has := strings.Contains(svg, label)
		if f.Name == "loglik-valid" {
			found = true
			if !has {
				t.Errorf("loglik-valid has no line labelled %q", label)
			}
			if !strings.Contains(f.Caption, "published number") {
				t.Errorf("loglik-valid caption does not explain the line: %s", f.Caption)
			}
		} else if has || strings.Contains(svg, "paper:") {
			t.Errorf("figure %s has a paper line", f.Name)
		}
	}
	if !found {
		t.Fatal("no loglik-valid figure")
	}
	// cd1-25 has no reference: no paper line.
	figs, err = ExperimentFigures(Select(rows, "cd1-25"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range figs {
		if strings.Contains(string(f.Data), "paper:") {
			t.Errorf("cd1-25 figure %s has a paper line", f.Name)
		}
	}
}

// TestPaperLabel: a plot's label keeps the source up to its first
// parenthesis (the caption cites it whole) and writes the minus sign.
func TestPaperLabel(t *testing.T) {
	for _, c := range []struct{ source, want string }{
		{"Salakhutdinov & Murray 2008, Table 1 (AIS, ln Z 451.28)", "paper: Salakhutdinov & Murray 2008, Table 1: −86.34"},
		{"Du, Zhu & Zhang 2015, Table 2", "paper: Du, Zhu & Zhang 2015, Table 2: −86.34"},
		{"", "paper: published: −86.34"},
	} {
		ref := paperRef{source: c.source, value: -86.34}
		if got := ref.label(); got != c.want {
			t.Errorf("source %q: label %q, want %q", c.source, got, c.want)
		}
		if c.source != "" && !strings.Contains(ref.cite(), c.source) {
			t.Errorf("source %q: cite %q does not give it whole", c.source, ref.cite())
		}
	}
}
