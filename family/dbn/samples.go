package dbn

import (
	"fmt"
	"math/rand/v2"

	"github.com/logz-ml/logz/data"
	"github.com/logz-ml/logz/eval"
	"github.com/logz-ml/logz/family/kit"
	"github.com/logz-ml/logz/family/rbm"
	"github.com/logz-ml/logz/internal/nmath"
	"github.com/logz-ml/logz/internal/seeds"
	"github.com/logz-ml/logz/models"
)

// SampleInits are the starts of the dbn sampler's top-RBM chains, the
// default first.
var SampleInits = []string{kit.InitRandom, kit.InitData}

// Seed labels of the sampler's streams.
const (
	keyTop uint64 = iota + 1
	keyDown
)

// Sample draws o.N samples of a DBN as the model defines them: o.Steps
// block-Gibbs sweeps in the top RBM p(h_{L−1}, h_L) (eval.Gibbs; chain i
// keyed by the seed and i) started from uniform states (random) or from a
// random training example passed up by the recognition weights,
// x_l ~ Q(x_l | x_{l−1}) = σ(b_{l−1} + W_{l−1}ᵀx_{l−1}) (data); then a
// down-pass x_l ~ p(x_l | x_{l+1}) = σ(a_l + W_l x_{l+1}) for l = L−2, …,
// 1 and v ~ p(v|h1) (sample i keyed (seed, down, i)), or with o.Mean the
// probabilities p(v=1|h1). A stack of one RBM (a DBN whose first layer is
// still training) is sampled as an RBM.
func (Plugin) Sample(mm models.Model, o kit.SampleOptions) (*kit.Drawn, error) {
	if r, ok := mm.(*models.RBM); ok {
		return rbm.Plugin{}.Sample(r, o)
	}
	m, ok := mm.(*models.DBN)
	if !ok {
		return nil, fmt.Errorf("dbn samples: a %s is not a dbn", mm.TypeName())
	}
	init, err := o.Check(SampleInits)
	if err != nil {
		return nil, err
	}
	L := m.NumLayers()
	top := m.Top()
	D := m.NumVisible()
	start := eval.UniformStart
	if init == kit.InitData {
		start = upStart{m, o.Data}
	}
	g := eval.Gibbs{Chains: o.N, Steps: o.Steps, Seed: seeds.Derive(o.Seed, keyTop), Workers: o.Workers}
	r, err := g.Run(top, start)
	if err != nil {
		return nil, err
	}
	out := make([]float64, o.N*D)
	err = kit.EachSample(o.N, o.Workers, seeds.Derive(o.Seed, keyDown), func() func(int, *rand.Rand) error {
		xs := make([][]float64, L)
		for l := range xs {
			xs[l] = make([]float64, m.Layers[l].NVis)
		}
		return func(i int, rng *rand.Rand) error {
			T := top.NVis
			for j, b := range r.Final[i*T : (i+1)*T] {
				xs[L-1][j] = float64(b)
			}
			for l := L - 2; l >= 0; l-- {
				m.Layers[l].VisiblePreact(xs[l], xs[l+1])
				if l == 0 && o.Mean {
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
			return nil
		}
	})
	if err != nil {
		return nil, err
	}
	from := kit.StartCaption(init)
	if init == kit.InitData {
		from += " passed up by Q"
	}
	what := fmt.Sprintf("%d block-Gibbs chains of %d sweeps in the top RBM from %s, then a down-pass through the sigmoid layers; ", o.N, o.Steps, from)
	if o.Mean {
		what += "p(v=1|h1)"
	} else {
		what += "v ~ p(v|h1)"
	}
	return &kit.Drawn{N: o.N, D: D, X: out, Method: kit.MethodGibbs, Steps: o.Steps, Init: init, Values: kit.Values(o.Mean), What: what}, nil
}

// upStart starts a top-RBM chain at a random example passed up to
// h_{L−1} by the recognition weights.
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

// Filters returns W1, the weights between v and h1 (D×n_1); of a stack of
// one RBM, its weights.
func (Plugin) Filters(mm models.Model) (*kit.Filters, bool) {
	if r, ok := mm.(*models.RBM); ok {
		return rbm.Plugin{}.Filters(r)
	}
	m, ok := mm.(*models.DBN)
	if !ok {
		return nil, false
	}
	b := m.Layers[0]
	return &kit.Filters{W: b.W, Visible: b.NVis, Hidden: b.NHid, What: "W1, the visible-to-h1 weights"}, true
}
