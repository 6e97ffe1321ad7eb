package rbm

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/logz-ml/logz/data"
	"github.com/logz-ml/logz/eval"
	"github.com/logz-ml/logz/eval/report"
	"github.com/logz-ml/logz/family"
	"github.com/logz-ml/logz/family/kit/estim"
	"github.com/logz-ml/logz/family/kit/evalenv"
	"github.com/logz-ml/logz/models"
	"github.com/logz-ml/logz/models/modeltest"
)

// raiseByLabel runs one raise entry (seed 7, uniform start, 200 linear β,
// no control variate, examples of the split) on set, with Env.ByLabel as
// given, and returns its row.
func raiseByLabel(t *testing.T, m *models.RBM, set *data.Set, examples int, byLabel bool) (report.Row, *estim.RAISE) {
	t.Helper()
	s := RAISE.New().(*estim.RAISE)
	s.Chains, s.Betas, s.Schedule, s.Init, s.ControlVariate, s.Examples, s.Seed = 20, 200, "linear", "uniform", "none", examples, 7
	env := evalenv.Env{Experiment: "e", Stage: report.StageFinal, Epoch: 1, Seed: 2, Splits: []evalenv.Split{{Name: "test", Data: set}}, ByLabel: byLabel}
	rows, err := env.Run(Family, m, []family.Configured{{Name: "raise", Settings: s}})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 {
		t.Fatalf("%d rows", len(rows))
	}
	return rows[0], s
}

// TestRAISEByLabel: with Env.ByLabel a raise row is broken down by label
// from its own per-example estimates: on the whole split, each label's
// mean and standard error equal those of eval.RAISE's per-example log p
// (run directly with the entry's seed) over that label's examples, and
// the counts weight the means back to the row's mean; on a subsample,
// the labels are those of the examples drawn (the first 20 of 41 carry
// label 0, the rest label 7, so a draw of 20 shows both), their counts sum
// to the subsample; without ByLabel there is none.
// Mutations checked: estim.ByLabel given nil for idx (the subsample's
// labels taken from examples 0..19: label 7 missing), the row not broken
// down (no by_label), and ByLabel ignored (always broken down).
func TestRAISEByLabel(t *testing.T) {
	const d, n = 6, 41
	rng := rand.New(rand.NewPCG(5, 9))
	m := modeltest.RandomRBM(d, 4, 1, 0.5, rng)
	set := &data.Set{Name: "lab", N: n, D: d, X: make([]uint8, n*d), Labels: make([]uint8, n)}
	for i := range set.X {
		set.X[i] = uint8(rng.IntN(2))
	}
	for i := 20; i < n; i++ {
		set.Labels[i] = 7
	}
	row, s := raiseByLabel(t, m, set, 0, true)
	betas, err := s.BetaSchedule()
	if err != nil {
		t.Fatal(err)
	}
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	res, err := (&eval.RAISE{Chains: s.Chains, Betas: betas, Seed: s.Seed}).LogProb(m, evalenv.Subset{X: set, Idx: idx})
	if err != nil {
		t.Fatal(err)
	}
	by := map[int][]float64{}
	for k, lp := range res.LogP {
		by[int(set.Labels[k])] = append(by[int(set.Labels[k])], lp)
	}
	if len(row.ByLabel) != 2 {
		t.Fatalf("by_label %+v, want labels 0 and 7", row.ByLabel)
	}
	sum := 0.0
	for _, c := range row.ByLabel {
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
		if c.NExamples != len(x) || math.Abs(*c.MeanLoglik-mean) > 1e-12 || math.Abs(*c.LoglikSE-se) > 1e-12 {
			t.Errorf("label %d: %d examples, %.12f ± %.12f; want %d, %.12f ± %.12f", c.Label, c.NExamples, *c.MeanLoglik, *c.LoglikSE, len(x), mean, se)
		}
		sum += float64(c.NExamples) * *c.MeanLoglik
	}
	if math.Abs(sum/n-*row.MeanLoglik) > 1e-9 {
		t.Errorf("weighted per-label mean %.12f, row's %.12f", sum/n, *row.MeanLoglik)
	}

	sub, _ := raiseByLabel(t, m, set, 20, true)
	count := 0
	for _, c := range sub.ByLabel {
		count += c.NExamples
	}
	if len(sub.ByLabel) != 2 || count != 20 || sub.NExamples != 20 {
		t.Errorf("subsample of 20: by_label %+v (%d examples), want labels 0 and 7 over 20", sub.ByLabel, count)
	}
	if off, _ := raiseByLabel(t, m, set, 0, false); off.ByLabel != nil {
		t.Errorf("without Env.ByLabel: by_label %+v", off.ByLabel)
	}
}
