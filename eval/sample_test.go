package eval

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/logz-ml/logz/inference/chi2"
	"github.com/logz-ml/logz/internal/sampletest"
	"github.com/logz-ml/logz/models"
	"github.com/logz-ml/logz/models/modeltest"
)

// sampleData is the data start of the sampler tests: two opposite rows, so
// that chains that did not leave their start fail the frequencies.
var sampleData = sampletest.Rows{{1, 1, 1, 1}, {0, 0, 0, 0}}

// startOf returns the start of init for a sampler over d units: nil
// (random) or the data rows.
func startOf(t *testing.T, init string, d int) Start {
	t.Helper()
	if init != "data" {
		return nil
	}
	s, err := ExamplesStart(sampleData, d)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestGibbsStartsMatchTheModel: block-Gibbs chains of an RBM (Gibbs.Run)
// from every start the rbm sampler offers — uniform, data examples
// (ExamplesStart) and a χ² mixture fitted by ProposalFit.FitRBM — reach
// p(v) by enumeration, states and means p(v=1|h); the samples do not
// depend on the workers. Mutation checked: Steps: min(g.Steps, 1) in Run
// fails the frequencies, and means 1 − p(v=1|h) fail the means.
func TestGibbsStartsMatchTheModel(t *testing.T) {
	m := testRBM(4, 3, 1, 1, 7)
	lp := exactLogP(m)
	p := make([]float64, len(lp))
	for c, l := range lp {
		p[c] = math.Exp(l)
	}
	fit := ProposalFit{Fit: chi2.FitOptions{Samples: 100, LearningRate: 0.05, Decay: 0.9}, Steps: 20,
		New: func(d int, rng *rand.Rand) (chi2.Proposal, error) { return chi2.NewMixture(d, 3, nil, 0.5, rng) }}
	q, err := fit.FitRBM(m, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	draw := func(n int, init string, mean bool, workers int) ([]float64, error) {
		start := UniformStart
		switch init {
		case "data":
			start = startOf(t, init, 4)
		case "q":
			start = ProposalStart(q)
		}
		r, err := Gibbs{Chains: n, Steps: 30, Seed: 5, Workers: workers, Means: mean}.Run(m, start)
		if err != nil {
			return nil, err
		}
		if mean {
			return r.Means, nil
		}
		return toF64(r.Final), nil
	}
	sampletest.CheckSampler(t, draw, 4, p, []string{"random", "data", "q"}, 4000)
}

// TestSampleIsingMatchesTheModel: single-site Gibbs chains of a 2×2 Ising
// model (both spin conventions) from uniform states and from data reach
// p(x) by enumeration (states and the conditionals σ(Δ_i)); the samples
// do not depend on the workers. Mutation checked: no sweeps, and means
// σ(Δ_i) of the all-zero state instead of the final one, both fail.
func TestSampleIsingMatchesTheModel(t *testing.T) {
	for _, sp := range []models.Spins{models.Spins01, models.SpinsPM1} {
		m := models.NewIsing(2, 2, sp)
		rng := rand.New(rand.NewPCG(2, 1))
		for i := range m.Params() {
			m.Params()[i] = rng.NormFloat64()
		}
		p := sampletest.Marginal([]int{4}, func(xs [][]float64) float64 {
			x := make([]uint8, 4)
			for i, v := range xs[0] {
				x[i] = uint8(v)
			}
			return m.LogUnnorm(x)
		})
		draw := func(n int, init string, mean bool, workers int) ([]float64, error) {
			return Gibbs{Chains: n, Steps: 30, Seed: 5, Workers: workers, Means: mean}.SampleIsing(m, startOf(t, init, 4))
		}
		sampletest.CheckSampler(t, draw, 4, p, []string{"random", "data"}, 4000)
	}
}

// TestSampleDBMMatchesTheModel: DBM Gibbs chains from uniform layers and
// from data reach p(v) by enumeration of (v, h1, h2), states and means
// p(v=1|h1); the samples do not depend on the workers. Mutation checked:
// no sweeps (the chains stay at their starts) and means from σ(b_0) alone
// (h1 dropped) fail.
func TestSampleDBMMatchesTheModel(t *testing.T) {
	m, err := modeltest.RandomDBM(1, 1, rand.New(rand.NewPCG(3, 1)), 4, 3, 2)
	if err != nil {
		t.Fatal(err)
	}
	p := sampletest.Marginal(m.Sizes, func(xs [][]float64) float64 { return -m.Energy(xs) })
	draw := func(n int, init string, mean bool, workers int) ([]float64, error) {
		return Gibbs{Chains: n, Steps: 40, Seed: 5, Workers: workers, Means: mean}.SampleDBM(m, startOf(t, init, 4))
	}
	sampletest.CheckSampler(t, draw, 4, p, []string{"random", "data"}, 4000)
}

// TestSampleDBNMatchesTheModel: top-RBM Gibbs chains then a down-pass,
// from uniform states and from data passed up (UpStart), give p(v) of a
// 3-layer DBN by enumeration of (v, h1, h2) (states and means p(v=1|h1));
// the samples do not depend on the workers. Mutation checked: a down-pass
// with W_1 dropped (v from σ(a_0) alone) and no top-RBM sweeps both fail.
func TestSampleDBNMatchesTheModel(t *testing.T) {
	m, err := modeltest.RandomDBN(1.2, rand.New(rand.NewPCG(4, 1)), 4, 3, 2, 2)
	if err != nil {
		t.Fatal(err)
	}
	p := sampletest.Marginal(m.Sizes()[:3], func(xs [][]float64) float64 { return m.LogUnnormJoint(xs[0], xs[1:], nil) })
	draw := func(n int, init string, mean bool, workers int) ([]float64, error) {
		var start Start
		if init == "data" {
			start = UpStart(m, sampleData)
		}
		return Gibbs{Chains: n, Steps: 40, Seed: 5, Workers: workers, Means: mean}.SampleDBN(m, start)
	}
	sampletest.CheckSampler(t, draw, 4, p, []string{"random", "data"}, 4000)
}

// TestExamplesStartChecks: a data start refuses no data and an example of
// the wrong size, naming it; the samplers refuse counts out of bounds.
// Mutation checked: dropping the size check passes the 3-unit example.
func TestExamplesStartChecks(t *testing.T) {
	if _, err := ExamplesStart(nil, 4); err == nil || !strings.Contains(err.Error(), "needs data") {
		t.Errorf("no data: %v", err)
	}
	bad := sampletest.Rows{{1, 0, 1, 1}, {1, 0, 1}}
	if _, err := ExamplesStart(bad, 4); err == nil || err.Error() != "data example 1 has 3 units; the model has 4 visible units" {
		t.Errorf("a short example: %v", err)
	}
	ising := models.NewIsing(2, 2, models.Spins01)
	dbm, err := models.NewDBM(4, 3, 2)
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range []Gibbs{{Chains: 0, Steps: 1}, {Chains: 1, Steps: -1}, {Chains: MaxGibbsChains + 1}} {
		if _, err := g.SampleIsing(ising, nil); err == nil || !strings.Contains(err.Error(), "must be in") {
			t.Errorf("ising %+v: %v", g, err)
		}
		if _, err := g.SampleDBM(dbm, nil); err == nil || !strings.Contains(err.Error(), "must be in") {
			t.Errorf("dbm %+v: %v", g, err)
		}
	}
}
