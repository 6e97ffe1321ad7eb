package dbm

import (
	"math/rand/v2"
	"testing"

	"github.com/logz-ml/logz/family/familytest"
	"github.com/logz-ml/logz/family/kit"
	"github.com/logz-ml/logz/models"
)

// TestSampleMatchesTheModel: DBM Gibbs chains from both starts reach p(v)
// by enumeration of (v, h1, h2), states and means p(v=1|h1); the samples
// do not depend on the workers. Mutation checked: no sweeps (the chains
// stay at their starts) and means from σ(b_0) alone (h1 dropped) fail.
func TestSampleMatchesTheModel(t *testing.T) {
	m, err := models.NewDBM(4, 3, 2)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 1))
	for _, ps := range append(append([][]float64(nil), m.W...), m.B...) {
		for i := range ps {
			ps[i] = rng.NormFloat64()
		}
	}
	p := familytest.Marginal(m.Sizes, func(xs [][]float64) float64 { return -m.Energy(xs) })
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
	if f, ok := (Plugin{}).Filters(m); !ok || f.Visible != 4 || f.Hidden != 3 || f.Column(1)[2] != m.W[0][2*3+1] {
		t.Errorf("filters %+v", f)
	}
}
