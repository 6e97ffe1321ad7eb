package dbn

import (
	"math/rand/v2"
	"testing"

	"github.com/logz-ml/logz/eval/report"
	"github.com/logz-ml/logz/family"
	"github.com/logz-ml/logz/family/kit/evalenv"
	"github.com/logz-ml/logz/models/modeltest"
)

// TestSplitNumbersIndependentOfOtherSplits: a split's per-example draws
// are keyed by the split's name, so its rows are the same whether it is
// evaluated alone, after another split or before it. (Mutation: keying
// the bound's or IS's draws by the split's position in the list again
// makes the test rows of [train, test] differ from those of [test].)
func TestSplitNumbersIndependentOfOtherSplits(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	d, err := modeltest.RandomDBN(0.5, rng, 10, 6, 8)
	if err != nil {
		t.Fatal(err)
	}
	test, train := make(rows, 30), make(rows, 30)
	for n := range test {
		test[n], train[n] = make([]uint8, 10), make([]uint8, 10)
		for i := range test[n] {
			test[n][i], train[n][i] = uint8(rng.IntN(2)), uint8(rng.IntN(2))
		}
	}
	run := func(splits ...evalenv.Split) map[string]float64 {
		a := AIS.New().(*AISSettings)
		a.Runs, a.Betas, a.Schedule, a.Init, a.Samples = 8, 200, "linear", "uniform", 3
		b := Bound.New().(*BoundSettings)
		b.Runs, b.Betas, b.Schedule, b.Init, b.MaxUnits, b.Samples = 8, 200, "linear", "uniform", 1, 3
		env := evalenv.Env{Experiment: "e", Stage: report.StageFinal, Seed: 4, Splits: splits}
		out, err := env.Run(Family, d, []family.Configured{{Name: "ais", Settings: a}, {Name: "dbn-bound", Settings: b}})
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]float64{}
		for _, r := range out {
			if r.Split == "test" && r.MeanLoglik != nil {
				got[r.Estimator] = *r.MeanLoglik
			}
		}
		if len(got) != 2 {
			t.Fatalf("test rows %v, want ais and dbn-bound", got)
		}
		return got
	}
	te, tr := evalenv.Split{Name: "test", Data: test}, evalenv.Split{Name: "train", Data: train}
	alone := run(te)
	for name, splits := range map[string][]evalenv.Split{"[train, test]": {tr, te}, "[test, train]": {te, tr}} {
		got := run(splits...)
		for k, v := range alone {
			if got[k] != v {
				t.Errorf("%s with splits %s: test mean %v, alone %v", k, name, got[k], v)
			}
		}
	}
}
