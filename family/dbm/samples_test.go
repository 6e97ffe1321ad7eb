package dbm

import (
	"math/rand/v2"
	"testing"

	"github.com/logz-ml/logz/eval"
	"github.com/logz-ml/logz/family/kit/sampling"
	"github.com/logz-ml/logz/internal/sampletest"
	"github.com/logz-ml/logz/models/modeltest"
)

// TestSampleDrawn: from both starts, states and means, the Drawn says what
// was drawn, and its X are those of eval.Gibbs.SampleDBM keyed by o.Seed
// from that start (uniform: nil; data: eval.ExamplesStart); the samples'
// distribution is eval's TestSampleDBMMatchesTheModel. Filters are W1.
// Mutation checked: starting the data chains uniformly (nil start) fails.
func TestSampleDrawn(t *testing.T) {
	m, err := modeltest.RandomDBM(1, 1, rand.New(rand.NewPCG(3, 1)), 4, 3, 2)
	if err != nil {
		t.Fatal(err)
	}
	data := sampletest.Rows{{1, 1, 1, 1}, {0, 0, 0, 0}}
	draw := func(init string, mean bool) ([]float64, error) {
		d, err := Plugin{}.Sample(m, sampling.SampleOptions{N: 50, Steps: 1, Init: init, Mean: mean, Data: data, Seed: 5, Workers: 2})
		if err != nil {
			return nil, err
		}
		if d.N != 50 || d.D != 4 || d.Steps != 1 || d.Init != init || d.Method != sampling.MethodGibbs || d.Values != sampling.Values(mean) {
			t.Errorf("start %s, mean %v: drawn %+v", init, mean, d)
		}
		return d.X, nil
	}
	want := func(init string, mean bool) ([]float64, error) {
		var start eval.Start
		if init == sampling.InitData {
			start, _ = eval.ExamplesStart(data, 4)
		}
		return eval.Gibbs{Chains: 50, Steps: 1, Seed: 5, Means: mean}.SampleDBM(m, start)
	}
	sampletest.CheckSameDraws(t, SampleInits, draw, want)
	if f, ok := (Plugin{}).Filters(m); !ok || f.Visible != 4 || f.Hidden != 3 || f.Column(1)[2] != m.W[0][2*3+1] {
		t.Errorf("filters %+v", f)
	}
}
