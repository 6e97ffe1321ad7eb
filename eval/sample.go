package eval

import (
	"fmt"
	"math/rand/v2"

	"github.com/logz-ml/logz/data"
	"github.com/logz-ml/logz/inference"
	"github.com/logz-ml/logz/internal/nmath"
	"github.com/logz-ml/logz/internal/seeds"
	"github.com/logz-ml/logz/internal/workgroup"
	"github.com/logz-ml/logz/models"
)

// The samplers of the models without an RBM's block-Gibbs chain (Gibbs.Run):
// Gibbs chains of an Ising model and of a DBM, a DBN's top-RBM chains and
// down-pass, each returning its N×D samples row-major (sample i is
// out[i·D:(i+1)·D]): 0/1 states, or with Gibbs.Means the probabilities
// p(v_i = 1 | ·) of the last step. Sample i draws from generators keyed by
// (seed, i) alone (EachSample), so the samples depend on neither Workers nor
// scheduling, and the first samples not on how many are drawn.

// EachSample is workgroup.EachSample: draw(i, rng) for the samples
// i = 0…n−1, rng keyed by (seed, i) alone.
func EachSample(n, workers int, seed uint64, newWorker func() func(i int, rng *rand.Rand)) {
	workgroup.EachSample(n, workers, seed, newWorker)
}

// ExamplesStart starts each chain at an example of x drawn uniformly with
// replacement (one rng.IntN(x.Len()) per chain). Every example must have d
// units; an error names the first that has not.
func ExamplesStart(x data.Examples, d int) (Start, error) {
	if x == nil || x.Len() == 0 {
		return nil, fmt.Errorf("a data start needs data examples")
	}
	for i := range x.Len() {
		if n := len(x.Row(i)); n != d {
			return nil, fmt.Errorf("data example %d has %d units; the model has %d visible units", i, n, d)
		}
	}
	return StartFunc(func(_ int, v []uint8, rng *rand.Rand) { copy(v, x.Row(rng.IntN(x.Len()))) }), nil
}

// checkCounts reports a number of chains or sweeps out of bounds.
func (g Gibbs) checkCounts() error {
	switch {
	case g.Chains < 1 || g.Chains > MaxGibbsChains:
		return fmt.Errorf("gibbs: the number of chains must be in [1, %d], got %d", MaxGibbsChains, g.Chains)
	case g.Steps < 0 || g.Steps > MaxGibbsSteps:
		return fmt.Errorf("gibbs: the number of sweeps must be in [0, %d], got %d", MaxGibbsSteps, g.Steps)
	}
	return nil
}

// SampleIsing runs g.Chains single-site Gibbs chains of an Ising model for
// g.Steps raster sweeps each (models.Ising.GibbsSweep at β = 1): a sweep
// sets, for i = 1…D in turn,
//
//	x_i = 1 with probability p(x_i = 1 | x_−i) = σ(Δ_i),
//	Δ_i = log p̃(x with x_i = 1) − log p̃(x with x_i = 0),
//
// a kernel that leaves p(x) = p̃(x)/Z invariant. Chain i starts at start's
// state, or with a nil start at a uniform state (one rng.Uint64 per site),
// and draws everything from the generator keyed (g.Seed, i) (EachSample).
// It returns the final states x (0/1 codes: the spin of a pm1 model is
// 2x − 1), or with g.Means the conditionals σ(Δ_i) at the final state.
func (g Gibbs) SampleIsing(m *models.Ising, start Start) ([]float64, error) {
	if err := g.checkCounts(); err != nil {
		return nil, err
	}
	D := m.NumVisible()
	out := make([]float64, g.Chains*D)
	EachSample(g.Chains, g.Workers, g.Seed, func() func(int, *rand.Rand) {
		x := make([]uint8, D)
		var startAt func(int, []uint8, *rand.Rand)
		if start != nil {
			startAt = start.NewStarter()
		}
		return func(i int, rng *rand.Rand) {
			if startAt != nil {
				startAt(i, x, rng)
			} else {
				for j := range x {
					x[j] = uint8(rng.Uint64() & 1)
				}
			}
			for range g.Steps {
				m.GibbsSweep(x, 1, nil, rng)
			}
			dst := out[i*D : (i+1)*D]
			for j := range x {
				if g.Means {
					dst[j] = nmath.Sigmoid(m.Delta(x, j))
				} else {
					dst[j] = float64(x[j])
				}
			}
		}
	})
	return out, nil
}

// SampleDBM runs g.Chains Gibbs chains of a DBM with layers x_0 = v, x_1,
// …, x_L for g.Steps sweeps each (inference.DBMChain at β = 1). A sweep
// draws the odd layers given the even ones, then the even layers given the
// odd ones, each unit from
//
//	p(x_{l,j} = 1 | x_{l−1}, x_{l+1}) = σ(b_{l,j} + (W_{l−1}ᵀ x_{l−1})_j + (W_l x_{l+1})_j),
//
// which leaves p(v, h) ∝ e^{−E(v, h)} invariant. Chain i starts with v and
// the even hidden layers uniform (the zero base's draw); a non-nil start
// then sets v. Chain i draws everything from the generator keyed
// (g.Seed, i) (EachSample). It returns the final v, or with g.Means
// p(v = 1 | h1) = σ(b_0 + W_1 h1) of the last sweep's h1.
func (g Gibbs) SampleDBM(m *models.DBM, start Start) ([]float64, error) {
	if err := g.checkCounts(); err != nil {
		return nil, err
	}
	path, err := inference.NewDBMPath(m, nil)
	if err != nil {
		return nil, err
	}
	D := m.Sizes[0]
	out := make([]float64, g.Chains*D)
	EachSample(g.Chains, g.Workers, g.Seed, func() func(int, *rand.Rand) {
		chain := path.NewDBMChain()
		h1 := make([]float64, m.Sizes[1])
		v := make([]uint8, D)
		var startAt func(int, []uint8, *rand.Rand)
		if start != nil {
			startAt = start.NewStarter()
		}
		return func(i int, rng *rand.Rand) {
			chain.SampleBase(rng) // v and the even hidden layers uniform (zero base)
			if startAt != nil {
				startAt(i, v, rng)
				chain.SetVisible(v)
			}
			for range g.Steps {
				chain.Transition(1, rng)
			}
			x := out[i*D : (i+1)*D]
			if !g.Means {
				for j, b := range chain.Visible() {
					x[j] = float64(b)
				}
				return
			}
			for j, b := range chain.Layer(1) {
				h1[j] = float64(b)
			}
			m.Preact(x, 0, nil, h1)
			for j, z := range x {
				x[j] = nmath.Sigmoid(z)
			}
		}
	})
	return out, nil
}

// Seed labels of SampleDBN's streams.
const (
	keyDBNTop uint64 = iota + 1
	keyDBNDown
)

// SampleDBN draws g.Chains samples of a DBN of L RBMs, with layers x_0 = v,
// x_1 = h1, …, x_L, as the model defines them: g.Steps block-Gibbs sweeps
// in the top RBM p(x_{L−1}, x_L) (Gibbs.Run with the seed
// seeds.Derive(g.Seed, 1), from start, or from uniform states for a nil
// start), then a down-pass through the directed layers
//
//	x_l ~ p(x_l | x_{l+1}) = σ(a_l + W_l x_{l+1}),  l = L−2, …, 0,
//
// sample i's from the generator keyed (seeds.Derive(g.Seed, 2), i)
// (EachSample). It returns v = x_0, or with g.Means the probabilities
// p(v = 1 | h1) = σ(a_0 + W_0 h1) (v itself is then not drawn).
func (g Gibbs) SampleDBN(m *models.DBN, start Start) ([]float64, error) {
	if start == nil {
		start = UniformStart
	}
	L := m.NumLayers()
	top := m.Top()
	D := m.NumVisible()
	gt := Gibbs{Chains: g.Chains, Steps: g.Steps, Seed: seeds.Derive(g.Seed, keyDBNTop), Workers: g.Workers}
	r, err := gt.Run(top, start)
	if err != nil {
		return nil, err
	}
	out := make([]float64, g.Chains*D)
	EachSample(g.Chains, g.Workers, seeds.Derive(g.Seed, keyDBNDown), func() func(int, *rand.Rand) {
		xs := make([][]float64, L)
		for l := range xs {
			xs[l] = make([]float64, m.Layers[l].NVis)
		}
		return func(i int, rng *rand.Rand) {
			T := top.NVis
			for j, b := range r.Final[i*T : (i+1)*T] {
				xs[L-1][j] = float64(b)
			}
			for l := L - 2; l >= 0; l-- {
				m.Layers[l].VisiblePreact(xs[l], xs[l+1])
				if l == 0 && g.Means {
					for j, z := range xs[0] {
						xs[0][j] = nmath.Sigmoid(z)
					}
					break
				}
				for j, z := range xs[l] {
					xs[l][j] = 0
					if rng.Float64() < nmath.Sigmoid(z) {
						xs[l][j] = 1
					}
				}
			}
			copy(out[i*D:(i+1)*D], xs[0])
		}
	})
	return out, nil
}

// UpStart starts a DBN's top-RBM chain (SampleDBN) at a random example of
// x passed up by the recognition weights: the example x_0 drawn uniformly
// with replacement (one rng.IntN), then
//
//	x_l ~ Q(x_l | x_{l−1}) = σ(b_{l−1} + W_{l−1}ᵀ x_{l−1}),  l = 1, …, L−1,
//
// and the chain starts at x_{L−1}, the top RBM's visible layer. An example
// shorter than v is padded with zeros, a longer one cut.
func UpStart(m *models.DBN, x data.Examples) Start { return upStart{m, x} }

type upStart struct {
	m    *models.DBN
	data data.Examples
}

func (u upStart) NewStarter() func(c int, v []uint8, rng *rand.Rand) {
	L := u.m.NumLayers()
	xs := make([][]float64, L)
	for l := range xs {
		xs[l] = make([]float64, u.m.Layers[l].NVis)
	}
	return func(_ int, v []uint8, rng *rand.Rand) {
		row := u.data.Row(rng.IntN(u.data.Len()))
		for j := range xs[0] {
			xs[0][j] = 0
			if j < len(row) {
				xs[0][j] = float64(row[j])
			}
		}
		for l := 1; l < L; l++ {
			u.m.Layers[l-1].HiddenPreact(xs[l], xs[l-1])
			for j, z := range xs[l] {
				xs[l][j] = 0
				if rng.Float64() < nmath.Sigmoid(z) {
					xs[l][j] = 1
				}
			}
		}
		for j, x := range xs[L-1] {
			v[j] = uint8(x)
		}
	}
}
