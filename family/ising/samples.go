package ising

import (
	"fmt"

	"github.com/logz-ml/logz/eval"
	"github.com/logz-ml/logz/family/kit/sampling"
	"github.com/logz-ml/logz/models"
)

// SampleInits are the starts of the ising sampler's chains, the default
// first.
var SampleInits = []string{sampling.InitRandom, sampling.InitData}

// Sample runs o.N single-site Gibbs chains of an Ising model for o.Steps
// raster sweeps each (eval.Gibbs.SampleIsing; chain i keyed by (o.Seed,
// i)), from uniform states (random) or random training examples (data).
// It returns the final states x (0/1 codes: the spin of a pm1 model is
// 2x − 1), or with o.Mean the conditionals p(x_i = 1 | x_−i) at the final
// state.
func (Plugin) Sample(mm models.Model, o sampling.SampleOptions) (*sampling.Drawn, error) {
	m, ok := mm.(*models.Ising)
	if !ok {
		return nil, fmt.Errorf("ising samples: a %s is not an ising model", mm.TypeName())
	}
	init, err := o.Check(SampleInits)
	if err != nil {
		return nil, err
	}
	var start eval.Start // nil: uniform
	if init == sampling.InitData {
		if start, err = eval.ExamplesStart(o.Data, m.NumVisible()); err != nil {
			return nil, fmt.Errorf("ising samples: %w", err)
		}
	}
	g := eval.Gibbs{Chains: o.N, Steps: o.Steps, Seed: o.Seed, Workers: o.Workers, Means: o.Mean}
	x, err := g.SampleIsing(m, start)
	if err != nil {
		return nil, err
	}
	return &sampling.Drawn{N: o.N, D: m.NumVisible(), X: x, Method: sampling.MethodGibbs, Steps: o.Steps, Init: init, Values: sampling.Values(o.Mean),
		What: sampling.GibbsCaption("single-site Gibbs (raster)", o.N, o.Steps, init, o.Mean, "p(x_i=1|x_−i) at the final state")}, nil
}
