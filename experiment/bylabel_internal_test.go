package experiment

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/logz-ml/logz/config"
	"github.com/logz-ml/logz/data"
	"github.com/logz-ml/logz/eval/report"
	"github.com/logz-ml/logz/family"
	"github.com/logz-ml/logz/family/kit/evalenv"
	"github.com/logz-ml/logz/family/rbm"
	"github.com/logz-ml/logz/internal/nmath"
	"github.com/logz-ml/logz/models/modeltest"
)

// TestByLabelMatchesEnumeration: on a tiny RBM and labelled data, the
// exact row's per-label means and standard errors equal those computed
// directly from log p(v) = log f(v) − log Z with log Z by enumeration of
// every visible state; the AIS row's are the same shifted by the
// difference of the two log Z; the per-label means weighted by their
// counts give the row's mean; rows that are not a mean of log f − log Z
// (pll) get none. Mutation checked: dropping the − log Z of estim.ByLabel
// (and grouping every example under label 0) fails it.
func TestByLabelMatchesEnumeration(t *testing.T) {
	const d, n = 6, 41
	rng := rand.New(rand.NewPCG(3, 8))
	m := modeltest.RandomRBM(d, 4, 1, 0.5, rng)
	set := &data.Set{Name: "lab", N: n, D: d, X: make([]uint8, n*d), Labels: make([]uint8, n)}
	for i := range set.X {
		set.X[i] = uint8(rng.IntN(2))
	}
	for i := range set.Labels {
		set.Labels[i] = []uint8{1, 8, 8, 3}[rng.IntN(4)]
	}
	splits := []evalenv.Split{{Name: "test", Data: set}}
	a := rbm.AIS.New().(*rbm.AISSettings)
	a.Runs, a.Betas, a.Init, a.Schedule = 20, 100, "uniform", "linear"
	env := evalenv.Env{Experiment: "e", Stage: report.StageFinal, Epoch: 1, Seed: 2, Splits: splits}
	rows, err := env.Run(rbm.Family, m, []family.Configured{{Name: "exact", Settings: rbm.Exact.New()}, {Name: "ais", Settings: a}, {Name: "pll", Settings: rbm.PLL.New()}})
	if err != nil {
		t.Fatal(err)
	}
	addByLabel(m, splits, rows)

	lf := make([]float64, 1<<d)
	v := make([]float64, d)
	for s := range lf {
		for i := range d {
			v[i] = float64(s >> i & 1)
		}
		lf[s] = m.LogUnnorm(v, nil)
	}
	logZ := nmath.LogSumExp(lf)
	by := map[int][]float64{}
	for k := range n {
		set.RowFloat(v, k)
		by[int(set.Labels[k])] = append(by[int(set.Labels[k])], m.LogUnnorm(v, nil)-logZ)
	}
	var exact, ais *report.Row
	for i := range rows {
		switch rows[i].Estimator {
		case "exact":
			exact = &rows[i]
		case "ais":
			ais = &rows[i]
		case "pll":
			if rows[i].ByLabel != nil {
				t.Errorf("pll row broken down by label: %+v", rows[i].ByLabel)
			}
		}
	}
	if exact == nil || ais == nil || len(exact.ByLabel) != 3 || len(ais.ByLabel) != 3 {
		t.Fatalf("rows %+v", rows)
	}
	sum := 0.0
	for k, c := range exact.ByLabel {
		x := by[c.Label]
		mean, ss := 0.0, 0.0
		for _, y := range x {
			mean += y
		}
		mean /= float64(len(x))
		for _, y := range x {
			ss += (y - mean) * (y - mean)
		}
		se := math.Sqrt(ss / float64(len(x)-1) / float64(len(x)))
		if c.NExamples != len(x) || math.Abs(*c.MeanLoglik-mean) > 1e-9 || math.Abs(*c.LoglikSE-se) > 1e-9 {
			t.Errorf("label %d: %d examples, %.12f ± %.12f; want %d, %.12f ± %.12f", c.Label, c.NExamples, *c.MeanLoglik, *c.LoglikSE, len(x), mean, se)
		}
		if k > 0 && exact.ByLabel[k-1].Label >= c.Label {
			t.Errorf("labels not in increasing order: %+v", exact.ByLabel)
		}
		shift := *exact.LogZ - *ais.LogZ
		if a := ais.ByLabel[k]; a.Label != c.Label || math.Abs(*a.MeanLoglik-*c.MeanLoglik-shift) > 1e-9 || math.Abs(*a.LoglikSE-*c.LoglikSE) > 1e-12 {
			t.Errorf("ais label %d: %.9f, want exact's %.9f shifted by %.9f", a.Label, *a.MeanLoglik, *c.MeanLoglik, shift)
		}
		sum += float64(c.NExamples) * *c.MeanLoglik
	}
	if math.Abs(sum/n-*exact.MeanLoglik) > 1e-9 {
		t.Errorf("weighted per-label mean %.9f, row's %.9f", sum/n, *exact.MeanLoglik)
	}
}

// TestByLabelNeedsLabels: by_label on a split without labels is an error
// naming the key and the split; without by_label nothing is checked.
func TestByLabelNeedsLabels(t *testing.T) {
	set := &data.Set{Name: "x", N: 2, D: 1, X: []uint8{0, 1}}
	exp := config.Experiment{Name: "e", Evaluate: config.Evaluate{Splits: []string{"test"}}}
	if err := checkLabels(exp, set, nil, set); err != nil {
		t.Errorf("without by_label: %v", err)
	}
	exp.Evaluate.ByLabel = true
	err := checkLabels(exp, set, nil, set)
	if err == nil || !strings.Contains(err.Error(), "e: evaluate.by_label: the test split (x) has no labels") {
		t.Errorf("got %v", err)
	}
	set.Labels = []uint8{4, 2}
	if err := checkLabels(exp, set, nil, set); err != nil {
		t.Errorf("labelled: %v", err)
	}
}
