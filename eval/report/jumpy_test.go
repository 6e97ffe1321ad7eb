package report

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// aisCurve is the per-epoch AIS rows of one experiment on the test split:
// mean log-likelihoods y[e] at epochs 1…len(y) with log Z bars of ±half
// nats (log(Ẑ ± 3σ̂)).
func aisCurve(exp string, y []float64, half float64) []Row {
	var rows []Row
	for e, v := range y {
		z := 300 + v // any log Z; the bar is what matters
		rows = append(rows, Row{Experiment: exp, Model: "rbm 784-25", Stage: StageEpoch, Epoch: e + 1, Estimator: "ais", Init: "base-rate",
			Split: "test", Runs: 20, Betas: 1000, MeanLoglik: F(v), LogZ: F(z), LogZLo: F(z - half), LogZHi: F(z + half)})
	}
	return rows
}

// TestJumpyCurves: the rule fires on a curve that swings 5–10 nats
// between epochs with ±1-nat bars (the MNIST case), and stays silent on a
// smooth rising curve with the same bars, on a curve whose jitter its bars
// explain (σ = a third of the ±3σ̂ half-width), on a jumpy curve with bars
// as wide as its jumps, on a flat curve after one big early rise, and on
// three points. (Mutations: the mean change instead of the median flags
// the early rise; a factor of 9 instead of 3 misses the jumpy curve.)
func TestJumpyCurves(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	jumpy, smooth, noisy, early := make([]float64, 20), make([]float64, 20), make([]float64, 20), make([]float64, 20)
	for e := range 20 {
		swing := 5 + 5*rng.Float64()
		if e%2 == 1 {
			swing = -swing
		}
		jumpy[e] = -95 + float64(e)*0.2 + swing/2
		smooth[e] = -110 + 15*(1-math.Exp(-float64(e)/5))
		noisy[e] = -90 + rng.NormFloat64()/3
		early[e] = -90 + 0.1*rng.NormFloat64()
	}
	early[0] = -200 // one big rise at the start: learning, not noise
	for _, c := range []struct {
		name string
		rows []Row
		want bool
	}{
		{"jumpy, ±1 nat bars", aisCurve("a", jumpy, 1), true},
		{"smooth", aisCurve("a", smooth, 1), false},
		{"noise its bars explain", aisCurve("a", noisy, 1), false},
		{"jumpy, bars as wide as the jumps", aisCurve("a", jumpy, 8), false},
		{"one early jump", aisCurve("a", early, 1), false},
		{"three points", aisCurve("a", jumpy[:3], 1), false},
	} {
		js := JumpyCurves(c.rows)
		if got := len(js) == 1; got != c.want || len(js) > 1 {
			t.Errorf("%s: %d flagged curves %+v, want flagged %v", c.name, len(js), js, c.want)
			continue
		}
		if c.want {
			j := js[0]
			if j.Label != "ais (base-rate)" || j.Split != "test" || j.Points != 20 || len(j.Epochs) != 20 || j.MedianChange/j.MedianHalfWidth <= JumpyFactor {
				t.Errorf("%s: %+v", c.name, j)
			}
			t.Logf("%s: %s", c.name, j.Warning())
		}
	}
}

// TestJumpyCurveInReport: the flagged curve's warning is in the report's
// Warnings (Markdown, and so HTML) and in its per-epoch plot's caption,
// and the plot draws the final trusted value as a labelled dashed line —
// exact's when the final evaluation has one, else the final ais with the
// most work; a smooth curve's caption has no warning.
func TestJumpyCurveInReport(t *testing.T) {
	y := make([]float64, 10)
	for e := range y {
		y[e] = -90 + 4*float64(1-2*(e%2))
	}
	rows := aisCurve("a", y, 0.5)
	final := func(est string, runs, betas int, v float64) Row {
		return Row{Experiment: "a", Model: "rbm 784-25", Stage: StageFinal, Epoch: 10, Estimator: est, Split: "test", Runs: runs, Betas: betas,
			Init: map[bool]string{true: "base-rate"}[est == "ais"], MeanLoglik: F(v), LogZ: F(300)}
	}
	withAIS := append(rows[:len(rows):len(rows)], final("ais", 20, 1000, -91), final("ais", 100, 14500, -88.25))
	var md strings.Builder
	if err := WriteMarkdown(&md, "t", nil, withAIS); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), JumpyText) {
		t.Errorf("the report's warnings lack the jumpy curve:\n%s", md.String())
	}
	caption := func(rows []Row) (string, string) {
		figs, err := ExperimentFigures(rows)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range figs {
			if f.Name == "loglik-test" {
				return f.Caption, string(f.Data)
			}
		}
		t.Fatal("no loglik-test figure")
		return "", ""
	}
	c, svg := caption(withAIS)
	if !strings.Contains(c, "σ̂ of a small AIS underestimates its error") || !strings.Contains(c, "Dashed: the final trusted value") {
		t.Errorf("caption %q", c)
	}
	if !strings.Contains(svg, "final ais (base-rate) 100×14500 β -88.25") {
		t.Errorf("the plot lacks the final ais reference line of the most work")
	}
	_, svg = caption(append(withAIS, final("exact", 0, 0, -87.5)))
	if !strings.Contains(svg, "final exact -87.50") || strings.Contains(svg, "final ais") {
		t.Errorf("with a final exact the reference is exact's alone")
	}
	for e := range y {
		y[e] = -90 + 0.01*float64(e)
	}
	if c, _ := caption(aisCurve("a", y, 0.5)); strings.Contains(c, "Warning") || strings.Contains(c, "Dashed") {
		t.Errorf("a smooth curve without final rows: caption %q", c)
	}
}

// TestLogZFigureFinalReference: the per-epoch log Ẑ plot draws the final
// trusted log Z as a labelled dashed line too — the final ais of the most
// work without exact, exact's with it. (Mutation: no reference on the
// log Ẑ plot fails.)
func TestLogZFigureFinalReference(t *testing.T) {
	rows := aisCurve("a", []float64{-95, -92, -91, -90.5}, 0.5)
	fin := Row{Experiment: "a", Model: "rbm 784-25", Stage: StageFinal, Epoch: 4, Estimator: "ais", Init: "base-rate", Split: "test",
		Runs: 100, Betas: 14500, MeanLoglik: F(-90), LogZ: F(391.25)}
	svgOf := func(rows []Row) (string, string) {
		figs, err := ExperimentFigures(rows)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range figs {
			if f.Name == "logz" {
				return string(f.Data), f.Caption
			}
		}
		t.Fatal("no logz figure")
		return "", ""
	}
	svg, caption := svgOf(append(rows, fin))
	if !strings.Contains(svg, "final ais (base-rate) 100×14500 β 391.25") || !strings.Contains(caption, "Dashed: the final trusted log Z") {
		t.Errorf("no final ais reference on the log Ẑ plot; caption %q", caption)
	}
	ex := Row{Experiment: "a", Model: "rbm 784-25", Stage: StageFinal, Epoch: 4, Estimator: "exact", Split: "test", MeanLoglik: F(-89.9), LogZ: F(391.5)}
	if svg, _ := svgOf(append(rows, fin, ex)); !strings.Contains(svg, "final exact 391.50") || strings.Contains(svg, "final ais") {
		t.Errorf("with exact, the reference is exact's alone")
	}
}
