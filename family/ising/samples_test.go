package ising

import (
	"testing"

	"github.com/logz-ml/logz/eval"
	"github.com/logz-ml/logz/family/kit/sampling"
	"github.com/logz-ml/logz/internal/sampletest"
	"github.com/logz-ml/logz/models"
)

// TestSampleDrawn: from both starts, states and means, the Drawn says what
// was drawn, and its X are those of eval.Gibbs.SampleIsing keyed by o.Seed
// from that start (uniform: nil; data: eval.ExamplesStart); the samples'
// distribution is eval's TestSampleIsingMatchesTheModel. A data example of
// the wrong size is an error. Mutation checked: starting the data chains
// uniformly (nil start) fails.
func TestSampleDrawn(t *testing.T) {
	m := models.NewIsing(2, 2, models.SpinsPM1)
	for i := range m.Params() {
		m.Params()[i] = float64(i%3) - 0.7
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
		return eval.Gibbs{Chains: 50, Steps: 1, Seed: 5, Means: mean}.SampleIsing(m, start)
	}
	sampletest.CheckSameDraws(t, SampleInits, draw, want)
	if _, err := (Plugin{}).Sample(m, sampling.SampleOptions{N: 2, Init: sampling.InitData, Data: sampletest.Rows{{1, 0}}}); err == nil {
		t.Error("a 2-unit example started a 4-site chain")
	}
}
