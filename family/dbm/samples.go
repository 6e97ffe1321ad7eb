package dbm

import (
	"fmt"
	"math/rand/v2"

	"github.com/logz-ml/logz/family/kit"
	"github.com/logz-ml/logz/inference"
	"github.com/logz-ml/logz/internal/nmath"
	"github.com/logz-ml/logz/models"
)

// SampleInits are the starts of the dbm sampler's chains, the default
// first.
var SampleInits = []string{kit.InitRandom, kit.InitData}

// Sample runs o.N Gibbs chains of a DBM for o.Steps sweeps each — a sweep
// draws the odd layers given the even ones, then the even layers (v, h2,
// …) given the odd ones (inference.DBMChain at β = 1) — started with every
// layer uniform (random) or with v a random training example and the even
// hidden layers uniform (data). It returns the final v, or with o.Mean
// p(v=1|h1) = σ(b_0 + W_1 h1) of the last sweep's h1. Chain i draws from
// the generator keyed (o.Seed, i).
func (Plugin) Sample(mm models.Model, o kit.SampleOptions) (*kit.Drawn, error) {
	m, ok := mm.(*models.DBM)
	if !ok {
		return nil, fmt.Errorf("dbm samples: a %s is not a dbm", mm.TypeName())
	}
	init, err := o.Check(SampleInits)
	if err != nil {
		return nil, err
	}
	path, err := inference.NewDBMPath(m, nil)
	if err != nil {
		return nil, err
	}
	D := m.Sizes[0]
	out := make([]float64, o.N*D)
	err = kit.EachSample(o.N, o.Workers, o.Seed, func() func(int, *rand.Rand) error {
		chain := path.NewDBMChain()
		h1 := make([]float64, m.Sizes[1])
		return func(i int, rng *rand.Rand) error {
			chain.SampleBase(rng) // v and the even hidden layers uniform (zero base)
			if init == kit.InitData {
				row := o.Data.Row(rng.IntN(o.Data.Len()))
				if len(row) != D {
					return fmt.Errorf("dbm samples: a data example has %d units; the model has %d visible units", len(row), D)
				}
				chain.SetVisible(row)
			}
			for range o.Steps {
				chain.Transition(1, rng)
			}
			x := out[i*D : (i+1)*D]
			if !o.Mean {
				for j, b := range chain.Visible() {
					x[j] = float64(b)
				}
				return nil
			}
			for j, b := range chain.Layer(1) {
				h1[j] = float64(b)
			}
			m.Preact(x, 0, nil, h1)
			for j, z := range x {
				x[j] = nmath.Sigmoid(z)
			}
			return nil
		}
	})
	if err != nil {
		return nil, err
	}
	return &kit.Drawn{N: o.N, D: D, X: out, Method: kit.MethodGibbs, Steps: o.Steps, Init: init, Values: kit.Values(o.Mean),
		What: kit.GibbsCaption("DBM Gibbs (odd layers, then even)", o.N, o.Steps, init, o.Mean, "p(v=1|h1)")}, nil
}

// Filters returns W1, the weights between v and h1 (D×n_1).
func (Plugin) Filters(mm models.Model) (*kit.Filters, bool) {
	m, ok := mm.(*models.DBM)
	if !ok {
		return nil, false
	}
	return &kit.Filters{W: m.W[0], Visible: m.Sizes[0], Hidden: m.Sizes[1], What: "W1, the visible-to-h1 weights"}, true
}
