package dbn

import (
	"math/rand/v2"
	"testing"

	"github.com/logz-ml/logz/eval"
	"github.com/logz-ml/logz/family/kit/sampling"
	"github.com/logz-ml/logz/internal/sampletest"
	"github.com/logz-ml/logz/models/modeltest"
)

// TestSampleDrawn: from both starts, states and means, the Drawn says what
// was drawn, and its X are those of eval.Gibbs.SampleDBN keyed by o.Seed
// from that start (uniform: nil; data: eval.UpStart); the samples'
// distribution is eval's TestSampleDBNMatchesTheModel. Filters are W1, and
// a stack of one RBM samples as an RBM. Mutation checked: starting the
// data chains uniformly (nil start) fails.
func TestSampleDrawn(t *testing.T) {
	m, err := modeltest.RandomDBN(1.2, rand.New(rand.NewPCG(4, 1)), 4, 3, 2, 2)
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
			start = eval.UpStart(m, data)
		}
		return eval.Gibbs{Chains: 50, Steps: 1, Seed: 5, Means: mean}.SampleDBN(m, start)
	}
	sampletest.CheckSameDraws(t, SampleInits, draw, want)
	if f, ok := (Plugin{}).Filters(m); !ok || f.Visible != 4 || f.Hidden != 3 || f.Column(1)[2] != m.Layers[0].W[2*3+1] {
		t.Errorf("filters %+v", f)
	}
	// A stack of one RBM samples as an RBM.
	if d, err := (Plugin{}).Sample(m.Layers[0], sampling.SampleOptions{N: 3, Steps: 2, Seed: 1}); err != nil || d.D != 4 || d.Trace == nil {
		t.Errorf("one RBM: %v", err)
	}
}
