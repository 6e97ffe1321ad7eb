package report

import (
	"fmt"
	"image/color"
	"math"
	"math/rand/v2"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
)

func hexOf(c color.Color) string {
	r, g, b, _ := c.RGBA()
	return fmt.Sprintf("#%02X%02X%02X", r>>8, g>>8, b>>8)
}

// TestStyleOf: one colour and mark per estimator and start, whatever the
// figure calls the series.
func TestStyleOf(t *testing.T) {
	pairs := [][2]string{
		{"exact", ""}, {"ais", "base-rate"}, {"ais", "uniform"}, {"raise", "base-rate"}, {"raise", "uniform"},
		{"csl", "base-rate"}, {"chi2", "mixture"}, {"chi2", "aux"}, {"is", ""}, {"elbo", ""},
		{"mf-bound", ""}, {"dbn-bound", ""}, {"bdmc", ""}, {"someday-estimator", "odd-start"},
	}
	seen := map[string][2]string{}
	for _, p := range pairs {
		st := StyleOf(p[0], p[1])
		key := hexOf(st.Color) + fmt.Sprintf("%T", st.Shape)
		if q, dup := seen[key]; dup {
			t.Errorf("%v and %v share colour and mark %s", p, q, key)
		}
		seen[key] = p
		if again := StyleOf(p[0], p[1]); again != st {
			t.Errorf("%v: StyleOf is not deterministic", p)
		}
	}
	for label, want := range map[string][2]string{
		"ais (base-rate)":                       {"ais", "base-rate"},
		"ais (uniform, K = 100)":                {"ais", "uniform"},
		"raise (K = 2000)":                      {"raise", ""},
		"final ais (base-rate) 100×2000 β -7.7": {"ais", "base-rate"},
		"final exact -7.72":                     {"exact", ""},
		"recon (training)":                      {"recon", "training"},
		"chi2":                                  {"chi2", ""},
	} {
		if got, w := StyleOfLabel(label), StyleOf(want[0], want[1]); got != w {
			t.Errorf("StyleOfLabel(%q) = %v, want StyleOf(%q, %q) = %v", label, got, want[0], want[1], w)
		}
	}
	if hexOf(StyleOf("exact", "").Color) != "#000000" {
		t.Error("exact is not black")
	}
}

// svgTexts returns the <text> contents of an SVG figure.
func svgTexts(data []byte) []string {
	var out []string
	for _, m := range regexp.MustCompile(`<text[^>]*>([^<]*)</text>`).FindAllStringSubmatch(string(data), -1) {
		out = append(out, m[1])
	}
	return out
}

// TestFiguresShareStyles draws every figure of the quick start's and
// quickstart-chi2's final rows and of the fixture, and checks that each
// estimator and start a figure names is drawn in StyleOf's colour, in
// every figure alike.
func TestFiguresShareStyles(t *testing.T) {
	sets := map[string][]Row{"fixture": fixtureRows()}
	for _, name := range []string{"quickstart-final.json", "quickstart-chi2-final.json"} {
		rows, err := ReadResults(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		sets[name] = rows
	}
	for set, rows := range sets {
		checked := 0
		for _, e := range Experiments(rows) {
			rs := Select(rows, e)
			figs, err := ExperimentFigures(rs)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range figs {
				svg := string(f.Data)
				joined := strings.Join(svgTexts(f.Data), "\n")
				for i := range rs {
					r := &rs[i]
					if r.Estimator == "exact" || r.Estimator == "pll" || r.Estimator == "recon" {
						continue
					}
					// Named in a legend ("ais (base-rate)") or under a mark
					// ("ais" and "(base-rate)" on lines of their own).
					named := strings.Contains(joined, rowLabel(r)) ||
						strings.Contains(joined, r.Estimator+"\n("+r.Init+")") ||
						r.Init == "" && strings.Contains("\n"+joined+"\n", "\n"+r.Estimator+"\n")
					if !named {
						continue
					}
					checked++
					if c := hexOf(StyleOf(r.Estimator, r.Init).Color); !strings.Contains(svg, c) {
						t.Errorf("%s/%s figure %s names %s but has none of its colour %s", set, e, f.Name, rowLabel(r), c)
					}
				}
			}
		}
		if checked == 0 {
			t.Errorf("%s: no figure named an estimator: nothing checked", set)
		}
	}
}

// TestFinalFigureKs: the quick start evaluates AIS and RAISE at K = 2000
// and K = 100; the final figure draws both and names both K, in its marks'
// names and its bands' legend, each once.
func TestFinalFigureKs(t *testing.T) {
	rows, err := ReadResults(filepath.Join("testdata", "quickstart-final.json"))
	if err != nil {
		t.Fatal(err)
	}
	figs, err := ExperimentFigures(Select(rows, "cd1-h12"))
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, f := range figs {
		texts := svgTexts(f.Data)
		count := map[string]int{}
		for _, x := range texts {
			count[x]++
		}
		if f.Name == "final-test" {
			found = true
			for _, want := range []string{"RAISE–AIS bracket (base-rate, K = 2000)", "RAISE–AIS bracket (base-rate, K = 100)"} {
				if count[want] != 1 {
					t.Errorf("final-test: legend %q appears %d times, want once; texts %q", want, count[want], texts)
				}
			}
			if count["K = 100"] != 2 || count["K = 2000"] != 2 {
				t.Errorf("final-test: want the AIS and RAISE marks of both K named; texts %q", texts)
			}
		}
		// No legend label twice (tick labels, 10px, such as "K = 100"
		// under several marks, may repeat).
		legend := map[string]int{}
		for _, m := range regexp.MustCompile(`font-size:(\d+)px">([^<]*)</text>`).FindAllStringSubmatch(string(f.Data), -1) {
			if m[1] != "10" {
				legend[m[2]]++
			}
		}
		for x, n := range legend {
			if n > 1 {
				t.Errorf("%s: legend label %q appears %d times", f.Name, x, n)
			}
		}
	}
	if !found {
		t.Fatal("no final-test figure")
	}
}

// TestTickLabels: every labelled tick reads as its value, labels are
// distinct, and no more decimals are used than it takes.
func TestTickLabels(t *testing.T) {
	for _, c := range []struct {
		vals []float64
		prec int
	}{
		{[]float64{3.5, 2.5, 1.5}, 1},       // the recon plot: not "4, 2, 2"
		{[]float64{-8.25, -7.75, -7.25}, 2}, // not "-8.2, -7.8, -7.2"
		{[]float64{4, 16, 28}, 0},
		{[]float64{0.1, 0.2, 0.30000000000000004}, 1},
		{[]float64{14.25, 14.3, 14.35}, 2},
		{[]float64{1000, 2000}, 0},
	} {
		if got := tickPrecision(c.vals); got != c.prec {
			t.Errorf("tickPrecision(%v) = %d, want %d", c.vals, got, c.prec)
		}
	}
	if formatTick(-0.0000001, 2) != "0.00" {
		t.Errorf("formatTick(-1e-7, 2) = %q", formatTick(-0.0000001, 2))
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		lo := (rng.Float64() - 0.5) * math.Pow(10, float64(rng.IntN(8)-3))
		hi := lo + rng.Float64()*math.Pow(10, float64(rng.IntN(8)-4))
		if hi <= lo {
			continue
		}
		var labels []plot.Tick
		for _, tk := range (preciseTicks{}).Ticks(lo, hi) {
			if tk.Label != "" {
				labels = append(labels, tk)
			}
		}
		seen := map[string]bool{}
		for i, tk := range labels {
			v, err := strconv.ParseFloat(tk.Label, 64)
			scale := math.Max(math.Abs(lo), math.Abs(hi))
			if err != nil || math.Abs(v-tk.Value) > 1e-9*scale {
				t.Fatalf("[%g, %g]: label %q of the tick at %g", lo, hi, tk.Label, tk.Value)
			}
			if seen[tk.Label] || i > 0 && v <= mustParse(labels[i-1].Label) {
				t.Fatalf("[%g, %g]: labels %v not distinct and increasing", lo, hi, labels)
			}
			seen[tk.Label] = true
		}
	}
}

func mustParse(s string) float64 {
	v, _ := strconv.ParseFloat(s, 64)
	return v
}

// TestCaptionsDescribeWhatIsDrawn: a caption names only the estimators its
// figure draws.
func TestCaptionsDescribeWhatIsDrawn(t *testing.T) {
	read := func(name string) []Row {
		rows, err := ReadResults(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		return rows
	}
	// The quick start: AIS, RAISE, CSL and exact; no χ².
	figs, err := ExperimentFigures(Select(read("quickstart-final.json"), "cd1-h12"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range figs {
		if strings.Contains(f.Caption, "χ²") || strings.Contains(f.Caption, "chi2") {
			t.Errorf("%s: caption speaks of χ² without a χ² series: %s", f.Name, f.Caption)
		}
		if f.Name == "final-test" && (!strings.Contains(f.Caption, "raise and csl") || !strings.Contains(f.Caption, "shaded band")) {
			t.Errorf("final-test: caption does not describe the RAISE and CSL bars and the bracket: %s", f.Caption)
		}
	}
	// quickstart-chi2: AIS, χ² and exact; no RAISE or CSL.
	figs, err = ExperimentFigures(Select(read("quickstart-chi2-final.json"), "cd1-h12"))
	if err != nil {
		t.Fatal(err)
	}
	sawLogZ := false
	for _, f := range figs {
		for _, w := range []string{"RAISE", "raise", "CSL", "csl"} {
			if strings.Contains(f.Caption, w) {
				t.Errorf("%s: caption names %s, which the figure does not draw: %s", f.Name, w, f.Caption)
			}
		}
		if f.Name == "final-logz" {
			sawLogZ = true
			if !strings.Contains(f.Caption, "χ²") || !strings.Contains(f.Caption, "ais and chi2") {
				t.Errorf("final-logz: caption does not describe its χ² series: %s", f.Caption)
			}
		}
	}
	if !sawLogZ {
		t.Error("quickstart-chi2: no final-logz figure")
	}
	// The sentence on bars, alone.
	ss := []*series{
		{label: "ais (base-rate)", xy: plotter.XYs{{X: 0, Y: 1}}, lo: []float64{0}, hi: []float64{2}},
		{label: "exact", xy: plotter.XYs{{X: 0, Y: 1}}, lo: []float64{math.NaN()}, hi: []float64{math.NaN()}},
	}
	if got := barsSentence(ss); got != "Bars of ais, from log(Ẑ − 3σ̂) to log(Ẑ + 3σ̂) (the error of its log Ẑ)." {
		t.Errorf("barsSentence = %q", got)
	}
	if got := barsSentence(ss[1:]); got != "" {
		t.Errorf("barsSentence without bars = %q", got)
	}
}

// TestHTMLTablesShowStyles: report.html's tables put each estimator's
// colour and mark, the figures', beside its name.
func TestHTMLTablesShowStyles(t *testing.T) {
	var b strings.Builder
	if err := WriteHTML(&b, "t", nil, fixtureRows(), nil); err != nil {
		t.Fatal(err)
	}
	for _, c := range [][2]string{{"ais", "base-rate"}, {"ais", "uniform"}, {"raise", "base-rate"}, {"exact", ""}} {
		st := StyleOf(c[0], c[1])
		label := c[0]
		if c[1] != "" {
			label += " (" + c[1] + ")"
		}
		want := `<span class="mk" style="color:` + st.CSSColor() + `">` + st.Symbol() + `</span> ` + label + `</td>`
		if !strings.Contains(b.String(), want) {
			t.Errorf("report.html has no %s", want)
		}
	}
}
