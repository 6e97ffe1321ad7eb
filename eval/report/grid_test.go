package report

import (
	"bytes"
	"math"
	"strings"
	"testing"
)

// gridRows imitates a grid run: rbm.lr-0.1 and rbm.lr-0.2 at seeds 1–3
// (seed-major, as a grid whose seed axis comes first lists them), AIS on
// test and train plus pll, and a lone experiment.
func gridRows() ([]Row, Grid) {
	var rows []Row
	g := Grid{}
	test := map[string][]float64{"0.1": {-100, -102, -104}, "0.2": {-90, -91, -95}}
	for s, seed := range []string{"1", "2", "3"} {
		for _, lr := range []string{"0.1", "0.2"} {
			name := "rbm.lr-" + lr + ".seed-" + seed
			g[name] = GridPoint{Group: "rbm (train.lr=" + lr + ")", Seed: seed}
			ll := test[lr][s]
			rows = append(rows,
				Row{Experiment: name, Model: "rbm 20-8", Stage: StageFinal, Estimator: "ais", Split: "test", Runs: 100, Betas: 1000,
					LogZ: p(50 + float64(s)), MeanLoglik: p(ll), LoglikSE: p(0.5), NExamples: 100, Seconds: 60, Warnings: []string{}},
				Row{Experiment: name, Model: "rbm 20-8", Stage: StageFinal, Estimator: "ais", Split: "train", Runs: 100, Betas: 1000,
					LogZ: p(50 + float64(s)), MeanLoglik: p(ll + 1), LoglikSE: p(0.5), NExamples: 100, Seconds: 60, Warnings: []string{}},
				Row{Experiment: name, Model: "rbm 20-8", Stage: StageFinal, Estimator: "pll", Split: "test", Value: p(-10 - float64(s)), NExamples: 100, Warnings: []string{}},
			)
		}
	}
	rows = append(rows, Row{Experiment: "alone", Model: "rbm 20-8", Stage: StageFinal, Estimator: "ais", Split: "test", Runs: 100, Betas: 1000,
		LogZ: p(40), MeanLoglik: p(-80), NExamples: 100, Warnings: []string{}})
	return rows, g
}

// TestGridMeans checks the lines of the mean ± SE over seeds in the
// terminal table, report.md and report.html: the numbers, their place
// after the group's last seed, and the legend.
func TestGridMeans(t *testing.T) {
	rows, g := gridRows()
	// lr 0.1: test −100, −102, −104: mean −102, sd 2, SE 2/√3 = 1.15.
	// lr 0.2: −90, −91, −95: mean −92, sd √7 = 2.6458, SE 1.53.
	if m, se := meanSE([]float64{-90, -91, -95}); m != -92 || math.Abs(se-math.Sqrt(7.0/3)) > 1e-12 {
		t.Fatalf("meanSE: %g ± %g", m, se)
	}
	var term bytes.Buffer
	if err := RenderTable(&term, rows, TableOptions{ASCII: true, Grid: g}); err != nil {
		t.Fatal(err)
	}
	var md, html bytes.Buffer
	if err := WriteMarkdownGrid(&md, "t", nil, rows, g); err != nil {
		t.Fatal(err)
	}
	if err := WriteHTMLGrid(&html, "t", nil, rows, func(string, []Row) ([]Figure, error) { return nil, nil }, nil, g); err != nil {
		t.Fatal(err)
	}
	for name, out := range map[string]string{"terminal": term.String(), "report.md": md.String(), "report.html": html.String()} {
		for _, want := range []string{
			"rbm (train.lr=0.1): mean of 3 seeds", "-102.00 ± 1.15", "-101.00 ± 1.15", // test, train
			"rbm (train.lr=0.2): mean of 3 seeds", "-92.00 ± 1.53", "-91.00 ± 1.53",
			"51.00 ± 0.58",  // log Ẑ: 50, 51, 52
			"-11.00 ± 0.58", // pll: −10, −11, −12
			"SE = sd/√n",
		} {
			if !strings.Contains(out, want) {
				t.Errorf("%s lacks %q:\n%s", name, want, out)
			}
		}
		if strings.Contains(out, "alone: mean") {
			t.Errorf("%s: a mean of the lone experiment", name)
		}
	}
	// The means follow the group's last seed's line, before "alone".
	out, _, _ := strings.Cut(term.String(), "Cheap training signals")
	last1, last2 := strings.Index(out, "rbm.lr-0.1.seed-3"), strings.Index(out, "rbm.lr-0.2.seed-3")
	m1, m2 := strings.Index(out, "rbm (train.lr=0.1): mean"), strings.Index(out, "rbm (train.lr=0.2): mean")
	alone := strings.Index(out, "| alone")
	if !(last1 < m1 && m1 < last2 && last2 < m2 && m2 < alone) {
		t.Errorf("means out of place (last seeds %d %d, means %d %d, alone %d):\n%s", last1, last2, m1, m2, alone, out)
	}
	// Without a grid, no means and no legend.
	var plain bytes.Buffer
	if err := RenderTable(&plain, rows, TableOptions{ASCII: true}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(plain.String(), "mean of") || strings.Contains(plain.String(), "sd/√n") {
		t.Errorf("means without a grid:\n%s", plain.String())
	}
}

// TestGridFigures: one figure per split of the grid points with seeds,
// none without a grid or with one seed per point.
func TestGridFigures(t *testing.T) {
	rows, g := gridRows()
	figs, err := GridFigures(rows, g)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range figs {
		names = append(names, f.Name)
		if !bytes.Contains(f.Data, []byte("<svg")) || !strings.Contains(f.Caption, "sd/√n") {
			t.Errorf("%s: not an SVG with the SE in its caption", f.Name)
		}
	}
	if strings.Join(names, " ") != "grid-test grid-train" {
		t.Errorf("figures %v, want grid-test grid-train", names)
	}
	if figs, _ := GridFigures(rows, nil); len(figs) != 0 {
		t.Errorf("%d figures without a grid", len(figs))
	}
	one := Grid{}
	for e, pt := range g {
		if pt.Seed == "1" {
			one[e] = pt
		}
	}
	if figs, _ := GridFigures(rows, one); len(figs) != 0 {
		t.Errorf("%d figures with one seed per point", len(figs))
	}
}
