package dbm

import (
	"fmt"

	"github.com/logz-ml/logz/eval"
	"github.com/logz-ml/logz/family/kit/sampling"
	"github.com/logz-ml/logz/models"
)

// SampleInits are the starts of the dbm sampler's chains, the default
// first.
var SampleInits = []string{sampling.InitRandom, sampling.InitData}

// Sample runs o.N Gibbs chains of a DBM for o.Steps sweeps each (the odd
// layers given the even ones, then the even layers given the odd ones:
// eval.Gibbs.SampleDBM; chain i keyed by (o.Seed, i)), started with every
// layer uniform (random) or with v a random training example and the even
// hidden layers uniform (data). It returns the final v, or with o.Mean
// p(v=1|h1) of the last sweep's h1.
func (Plugin) Sample(mm models.Model, o sampling.SampleOptions) (*sampling.Drawn, error) {
	m, ok := mm.(*models.DBM)
	if !ok {
		return nil, fmt.Errorf("dbm samples: a %s is not a dbm", mm.TypeName())
	}
	init, err := o.Check(SampleInits)
	if err != nil {
		return nil, err
	}
	D := m.Sizes[0]
	var start eval.Start // nil: v uniform
	if init == sampling.InitData {
		if start, err = eval.ExamplesStart(o.Data, D); err != nil {
			return nil, fmt.Errorf("dbm samples: %w", err)
		}
	}
	g := eval.Gibbs{Chains: o.N, Steps: o.Steps, Seed: o.Seed, Workers: o.Workers, Means: o.Mean}
	x, err := g.SampleDBM(m, start)
	if err != nil {
		return nil, err
	}
	return &sampling.Drawn{N: o.N, D: D, X: x, Method: sampling.MethodGibbs, Steps: o.Steps, Init: init, Values: sampling.Values(o.Mean),
		What: sampling.GibbsCaption("DBM Gibbs (odd layers, then even)", o.N, o.Steps, init, o.Mean, "p(v=1|h1)")}, nil
}

// Filters returns W1, the weights between v and h1 (D×n_1).
func (Plugin) Filters(mm models.Model) (*sampling.Filters, bool) {
	m, ok := mm.(*models.DBM)
	if !ok {
		return nil, false
	}
	return &sampling.Filters{W: m.W[0], Visible: m.Sizes[0], Hidden: m.Sizes[1], What: "W1, the visible-to-h1 weights"}, true
}
