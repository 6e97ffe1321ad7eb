package sbn

import (
	"testing"

	"github.com/logz-ml/logz/family"
	"github.com/logz-ml/logz/family/familytest"
	"github.com/logz-ml/logz/family/kit/evalenv"
	"github.com/logz-ml/logz/family/kit/sampling"
	"github.com/logz-ml/logz/internal/sampletest"
	belief "github.com/logz-ml/logz/sbn"
)

// TestSampleDrawn: the Drawn of the ancestral sampler (states and means)
// says what was drawn, and its X are belief.Net.SampleVisible's keyed by
// o.Seed; the samples' distribution is sbn's
// TestSampleVisibleMatchesTheModel. Filters are gen_W1. Mutation checked:
// dropping o.Mean (always states) fails.
func TestSampleDrawn(t *testing.T) {
	n := belief.New([]int{4, 3, 2}, true)
	belief.InitNormal(n, 1.5, 3)
	draw := func(_ string, mean bool) ([]float64, error) {
		d, err := Plugin{}.Sample(n, sampling.SampleOptions{N: 40, Mean: mean, Seed: 5, Workers: 2})
		if err != nil {
			return nil, err
		}
		if d.N != 40 || d.D != 4 || d.Method != sampling.MethodAncestral || d.Values != sampling.Values(mean) {
			t.Errorf("mean %v: drawn %+v", mean, d)
		}
		return d.X, nil
	}
	want := func(_ string, mean bool) ([]float64, error) { return n.SampleVisible(40, 5, 1, mean), nil }
	sampletest.CheckSameDraws(t, nil, draw, want)
	if f, ok := (Plugin{}).Filters(n); !ok || f.Visible != 4 || f.Hidden != 3 || f.Column(1)[2] != n.W[1][2*3+1] {
		t.Errorf("filters %+v", f)
	}
}

// TestCompletionFigure: three rows (original, hollowed with the lower half
// 0.5, completed) of the first examples, as a valid artifact; and the
// completion estimator hands it to Env.Artifact in a run. Mutation
// checked: hollowing the upper half instead fails.
func TestCompletionFigure(t *testing.T) {
	x := familytest.Rows{{1, 0, 1, 1, 0, 1}, {0, 1, 0, 0, 1, 0}}
	res := belief.CompletionResult{Completed: [][]uint8{{1, 0, 1, 0, 0, 0}, {0, 1, 0, 1, 1, 1}}}
	a := CompletionFigure(x, res, 3, 2, "test")
	if err := a.Check(); err != nil {
		t.Fatal(err)
	}
	want := []float64{
		1, 0, 1, 1, 0, 1, 0, 1, 0, 0, 1, 0, // originals
		1, 0, .5, .5, .5, .5, 0, 1, .5, .5, .5, .5, // rows/2 = 1 of 3 rows kept
		1, 0, 1, 0, 0, 0, 0, 1, 0, 1, 1, 1, // completed
	}
	if a.Rows != 3 || a.Cols != 2 || a.TileRows != 3 || a.TileCols != 2 || len(a.RowNames) != 3 {
		t.Errorf("artifact %+v", a)
	}
	for i, v := range want {
		if a.X[i] != v {
			t.Fatalf("value %d is %v, want %v (got %v)", i, a.X[i], v, a.X)
		}
	}
	// The estimator hands it over.
	n := belief.New([]int{6, 2}, false)
	belief.InitNormal(n, 0.5, 1)
	var got []sampling.Artifact
	env := evalenv.Env{Stage: "final", Splits: []evalenv.Split{{Name: "test", Data: x}}, Seed: 1,
		Artifact: func(a sampling.Artifact) error { got = append(got, a); return nil }}
	s := Completion.New().(*CompletionSettings)
	s.Rows, s.Cols, s.Samples, s.Sweeps = 3, 2, 3, 1
	if _, err := env.Run(SBN, n, []family.Configured{{Name: "completion", Settings: s}}); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Name != "completion" || got[0].Cols != 2 || got[0].X[13] != 0 || got[0].X[14] != 0.5 {
		t.Errorf("artifacts %+v", got)
	}
}
