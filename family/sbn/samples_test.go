package sbn

import (
	"math/rand/v2"
	"testing"

	"github.com/logz-ml/logz/family"
	"github.com/logz-ml/logz/family/familytest"
	"github.com/logz-ml/logz/family/kit"
	belief "github.com/logz-ml/logz/sbn"
)

// TestSampleMatchesTheModel: ancestral samples of a two-layer SBN and of
// an ARSBN have p(x) by enumeration of (x, h1, h2) (states and the
// probabilities x was drawn with); the samples do not depend on the
// workers. Mutation checked: means from the bottom layer's biases alone
// (h1 dropped) and x drawn from the previous sample's h1 (which changes only the
// first sample of each worker: the workers check) both fail.
func TestSampleMatchesTheModel(t *testing.T) {
	for _, ar := range []bool{false, true} {
		n := belief.New([]int{4, 3, 2}, ar)
		belief.InitNormal(n, 1.5, 3)
		rng := rand.New(rand.NewPCG(5, 1))
		for _, b := range n.B {
			for i := range b {
				b[i] = rng.NormFloat64()
			}
		}
		sc := n.NewScratch()
		p := familytest.Marginal(n.Sizes, func(xs [][]float64) float64 { return n.LogJoint(xs, 1, sc) })
		draw := func(N int, init string, mean bool, workers int) ([]float64, error) {
			d, err := Plugin{}.Sample(n, kit.SampleOptions{N: N, Mean: mean, Seed: 5, Workers: workers})
			if err != nil {
				return nil, err
			}
			if d.N != N || d.D != 4 || d.Method != kit.MethodAncestral {
				t.Errorf("drawn %+v", d)
			}
			return d.X, nil
		}
		familytest.CheckSampler(t, draw, 4, p, nil, 8000)
		if f, ok := (Plugin{}).Filters(n); !ok || f.Visible != 4 || f.Hidden != 3 || f.Column(1)[2] != n.W[1][2*3+1] {
			t.Errorf("filters %+v", f)
		}
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
	var got []kit.Artifact
	env := kit.Env{Stage: "final", Splits: []kit.Split{{Name: "test", Data: x}}, Seed: 1,
		Artifact: func(a kit.Artifact) error { got = append(got, a); return nil }}
	s := Completion.New().(*CompletionSettings)
	s.Rows, s.Cols, s.Samples, s.Sweeps = 3, 2, 3, 1
	if _, err := env.Run(SBN, n, []family.Configured{{Name: "completion", Settings: s}}); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Name != "completion" || got[0].Cols != 2 || got[0].X[13] != 0 || got[0].X[14] != 0.5 {
		t.Errorf("artifacts %+v", got)
	}
}
