package ising

import (
	"fmt"
	"math/rand/v2"

	"github.com/logz-ml/logz/family/kit"
	"github.com/logz-ml/logz/internal/nmath"
	"github.com/logz-ml/logz/models"
)

// SampleInits are the starts of the ising sampler's chains, the default
// first.
var SampleInits = []string{kit.InitRandom, kit.InitData}

// Sample runs o.N single-site Gibbs chains of an Ising model for o.Steps
// raster sweeps each (models.Ising.GibbsSweep at β = 1), from uniform
// states (random) or random training examples (data), chain i keyed by
// (o.Seed, i). It returns the final states x (0/1 codes: the spin of a
// pm1 model is 2x − 1), or with o.Mean the conditionals p(x_i = 1 | x_−i)
// = σ(Δ_i) at the final state.
func (Plugin) Sample(mm models.Model, o kit.SampleOptions) (*kit.Drawn, error) {
	m, ok := mm.(*models.Ising)
	if !ok {
		return nil, fmt.Errorf("ising samples: a %s is not an ising model", mm.TypeName())
	}
	init, err := o.Check(SampleInits)
	if err != nil {
		return nil, err
	}
	D := m.NumVisible()
	out := make([]float64, o.N*D)
	err = kit.EachSample(o.N, o.Workers, o.Seed, func() func(int, *rand.Rand) error {
		x := make([]uint8, D)
		return func(i int, rng *rand.Rand) error {
			if init == kit.InitData {
				row := o.Data.Row(rng.IntN(o.Data.Len()))
				if len(row) != D {
					return fmt.Errorf("ising samples: a data example has %d units; the model has %d sites", len(row), D)
				}
				copy(x, row)
			} else {
				for j := range x {
					x[j] = uint8(rng.Uint64() & 1)
				}
			}
			for range o.Steps {
				m.GibbsSweep(x, 1, nil, rng)
			}
			dst := out[i*D : (i+1)*D]
			for j := range x {
				if o.Mean {
					dst[j] = nmath.Sigmoid(m.Delta(x, j))
				} else {
					dst[j] = float64(x[j])
				}
			}
			return nil
		}
	})
	if err != nil {
		return nil, err
	}
	return &kit.Drawn{N: o.N, D: D, X: out, Method: kit.MethodGibbs, Steps: o.Steps, Init: init, Values: kit.Values(o.Mean),
		What: kit.GibbsCaption("single-site Gibbs (raster)", o.N, o.Steps, init, o.Mean, "p(x_i=1|x_−i) at the final state")}, nil
}
