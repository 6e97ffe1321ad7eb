package dbn

import (
	"math/rand/v2"
	"testing"

	"github.com/logz-ml/logz/family/familytest"
	"github.com/logz-ml/logz/family/kit"
	"github.com/logz-ml/logz/models"
)

// TestSampleMatchesTheModel: top-RBM Gibbs chains then a down-pass, from
// both starts, give p(v) of a 3-layer DBN by enumeration of (v, h1, h2)
// (states and means p(v=1|h1)); the samples do not depend on the workers.
// Mutation checked: a down-pass with W_1 dropped (v from σ(a_0) alone)
// and no top-RBM sweeps both fail.
func TestSampleMatchesTheModel(t *testing.T) {
	m, err := models.NewDBN(4, 3, 2, 2)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(4, 1))
	for _, r := range m.Layers {
		for _, ps := range [][]float64{r.W, r.VBias, r.HBias} {
			for i := range ps {
				ps[i] = 1.2 * rng.NormFloat64()
			}
		}
	}
	p := familytest.Marginal(m.Sizes()[:3], func(xs [][]float64) float64 { return m.LogUnnormJoint(xs[0], xs[1:], nil) })
	data := familytest.Rows{{1, 1, 1, 1}, {0, 0, 0, 0}}
	draw := func(n int, init string, mean bool, workers int) ([]float64, error) {
		d, err := Plugin{}.Sample(m, kit.SampleOptions{N: n, Steps: 40, Init: init, Mean: mean, Data: data, Seed: 5, Workers: workers})
		if err != nil {
			return nil, err
		}
		if d.N != n || d.D != 4 || d.Steps != 40 || d.Init != init {
			t.Errorf("drawn %+v", d)
		}
		return d.X, nil
	}
	familytest.CheckSampler(t, draw, 4, p, SampleInits, 4000)
	if f, ok := (Plugin{}).Filters(m); !ok || f.Visible != 4 || f.Hidden != 3 || f.Column(1)[2] != m.Layers[0].W[2*3+1] {
		t.Errorf("filters %+v", f)
	}
	// A stack of one RBM samples as an RBM.
	if d, err := (Plugin{}).Sample(m.Layers[0], kit.SampleOptions{N: 3, Steps: 2, Seed: 1}); err != nil || d.D != 4 {
		t.Errorf("one RBM: %v", err)
	}
}
