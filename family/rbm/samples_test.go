package rbm

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/logz-ml/logz/family"
	"github.com/logz-ml/logz/family/familytest"
	"github.com/logz-ml/logz/models"
)

func tinyRBM(D, H int, scale float64, seed uint64) *models.RBM {
	m := models.NewRBM(D, H)
	rng := rand.New(rand.NewPCG(seed, 1))
	for i := range m.W {
		m.W[i] = scale * rng.NormFloat64()
	}
	for i := range m.VBias {
		m.VBias[i] = scale * rng.NormFloat64()
	}
	for j := range m.HBias {
		m.HBias[j] = scale * rng.NormFloat64()
	}
	return m
}

// exactP is p(v) of every code v (bit i = v_i) by enumeration.
func exactP(m *models.RBM) []float64 {
	D := m.NVis
	p := make([]float64, 1<<D)
	v := make([]float64, D)
	tot := 0.0
	for c := range p {
		for i := range v {
			v[i] = float64(c >> i & 1)
		}
		p[c] = math.Exp(-m.FreeEnergy(v, nil))
		tot += p[c]
	}
	for c := range p {
		p[c] /= tot
	}
	return p
}

// TestSampleMatchesTheModel: Gibbs chains from every start (random, data,
// a fitted q) reach p(v) by enumeration, states and means; the samples do
// not depend on the workers. Mutation checked: at most one sweep
// (Steps: min(o.Steps, 1)) fails the frequencies, and means 1 − p(v=1|h)
// fail the means.
func TestSampleMatchesTheModel(t *testing.T) {
	m := tinyRBM(4, 3, 1.0, 7)
	data := familytest.Rows{{1, 1, 1, 1}, {0, 0, 0, 0}}
	draw := func(n int, init string, mean bool, workers int) ([]float64, error) {
		d, err := Sample(m, family.SampleOptions{N: n, Steps: 30, Init: init, Mean: mean, Data: data, Seed: 5, Workers: workers,
			QFit: family.QFit{Components: 3, Steps: 20, Fit: family.QFitDefaults().Fit}})
		if err != nil {
			return nil, err
		}
		if d.N != n || d.D != 4 || d.Steps != 30 || d.Init != init || d.Method != family.MethodGibbs || len(d.Trace.Mean) != 31 {
			t.Errorf("drawn %+v", d)
		}
		return d.X, nil
	}
	familytest.CheckSampler(t, draw, 4, exactP(m), SampleInits, 4000)
}

// TestSampleBadOptions: bad options are errors naming the problem.
func TestSampleBadOptions(t *testing.T) {
	m := tinyRBM(4, 3, 1.0, 7)
	for _, c := range []struct {
		o    family.SampleOptions
		want string
	}{
		{family.SampleOptions{N: 0}, "number of samples"},
		{family.SampleOptions{N: 2, Steps: -1}, "sweeps"},
		{family.SampleOptions{N: 2, Init: "dat"}, "unknown start"},
		{family.SampleOptions{N: 2, Init: "data"}, "needs data"},
		{family.SampleOptions{N: 2, Init: "data", Data: familytest.Rows{{1, 0}}}, "2 units"},
		{family.SampleOptions{N: 2, Mean: true}, "at least one sweep"},
	} {
		if _, err := Sample(m, c.o); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want one saying %q", c.o, err, c.want)
		}
	}
}

// TestFilters: W as visible×hidden.
func TestFilters(t *testing.T) {
	m := tinyRBM(4, 3, 1.0, 7)
	f, ok := Filters(m)
	if !ok || f.Visible != 4 || f.Hidden != 3 || f.Column(2)[1] != m.W[1*3+2] {
		t.Errorf("filters %+v", f)
	}
}
