package rbm

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/logz-ml/logz/eval"
	"github.com/logz-ml/logz/family/kit/sampling"
	"github.com/logz-ml/logz/internal/sampletest"
	"github.com/logz-ml/logz/internal/seeds"
	"github.com/logz-ml/logz/models"
	"github.com/logz-ml/logz/models/modeltest"
)

// tinyRBM is a D×H RBM with every parameter N(0, scale²)
// (modeltest.RandomRBM, stream 1).
func tinyRBM(D, H int, scale float64, seed uint64) *models.RBM {
	return modeltest.RandomRBM(D, H, scale, scale, rand.New(rand.NewPCG(seed, 1)))
}

// TestSampleDrawn: from every start, states and means, the Drawn says
// what was drawn (sizes, method, start, values, the mean free energy after
// every sweep), and its X are the final states, or the means, of the
// eval.Gibbs chains keyed by the sampler's chain seed from that start
// (random and data; the "q" start's proposal is fitted inside). The
// samples' distribution is eval's TestGibbsStartsMatchTheModel. Mutation
// checked: passing o.Seed itself as the chains' seed fails.
func TestSampleDrawn(t *testing.T) {
	m := tinyRBM(4, 3, 1.0, 7)
	data := sampletest.Rows{{1, 1, 1, 1}, {0, 0, 0, 0}}
	draw := func(init string, mean bool) ([]float64, error) {
		d, err := Plugin{}.Sample(m, sampling.SampleOptions{N: 50, Steps: 30, Init: init, Mean: mean, Data: data, Seed: 5, Workers: 2,
			QFit: sampling.QFit{Components: 3, Steps: 20, Fit: sampling.QFitDefaults().Fit}})
		if err != nil {
			return nil, err
		}
		if d.N != 50 || d.D != 4 || len(d.X) != 200 || d.Steps != 30 || d.Init != init || d.Method != sampling.MethodGibbs ||
			d.Values != sampling.Values(mean) || len(d.Trace.Mean) != 31 || !strings.Contains(d.What, "50 block-Gibbs chains of 30 sweeps") {
			t.Errorf("start %s, mean %v: drawn %+v", init, mean, d)
		}
		return d.X, nil
	}
	want := func(init string, mean bool) ([]float64, error) {
		start := eval.UniformStart
		if init == sampling.InitData {
			start, _ = eval.ExamplesStart(data, 4)
		}
		r, err := eval.Gibbs{Chains: 50, Steps: 30, Seed: seeds.Derive(5, keySampleChains), Means: mean}.Run(m, start)
		if err != nil || mean {
			return r.Means, err
		}
		x := make([]float64, len(r.Final))
		for i, b := range r.Final {
			x[i] = float64(b)
		}
		return x, nil
	}
	sampletest.CheckSameDraws(t, []string{sampling.InitRandom, sampling.InitData}, draw, want)
	for _, mean := range []bool{false, true} {
		if _, err := draw(sampling.InitQ, mean); err != nil {
			t.Errorf("start q: %v", err)
		}
	}
}

// TestSampleBadOptions: bad options are errors naming the problem.
func TestSampleBadOptions(t *testing.T) {
	m := tinyRBM(4, 3, 1.0, 7)
	for _, c := range []struct {
		o    sampling.SampleOptions
		want string
	}{
		{sampling.SampleOptions{N: 0}, "number of samples"},
		{sampling.SampleOptions{N: 2, Steps: -1}, "sweeps"},
		{sampling.SampleOptions{N: 2, Init: "dat"}, "unknown start"},
		{sampling.SampleOptions{N: 2, Init: "data"}, "needs data"},
		{sampling.SampleOptions{N: 2, Init: "data", Data: sampletest.Rows{{1, 0}}}, "2 units"},
		{sampling.SampleOptions{N: 2, Mean: true}, "at least one sweep"},
	} {
		if _, err := (Plugin{}).Sample(m, c.o); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want one saying %q", c.o, err, c.want)
		}
	}
}

// TestFilters: W as visible×hidden.
func TestFilters(t *testing.T) {
	m := tinyRBM(4, 3, 1.0, 7)
	f, ok := Plugin{}.Filters(m)
	if !ok || f.Visible != 4 || f.Hidden != 3 || f.Column(2)[1] != m.W[1*3+2] {
		t.Errorf("filters %+v", f)
	}
}
