package dbn

import (
	"fmt"

	"github.com/logz-ml/logz/eval"
	"github.com/logz-ml/logz/family/kit/sampling"
	"github.com/logz-ml/logz/family/rbm"
	"github.com/logz-ml/logz/models"
)

// SampleInits are the starts of the dbn sampler's top-RBM chains, the
// default first.
var SampleInits = []string{sampling.InitRandom, sampling.InitData}

// Sample draws o.N samples of a DBN as the model defines them
// (eval.Gibbs.SampleDBN): o.Steps block-Gibbs sweeps in the top RBM
// started from uniform states (random) or from a random training example
// passed up by the recognition weights (data), then a down-pass through
// the sigmoid layers to v ~ p(v|h1), or with o.Mean the probabilities
// p(v=1|h1). A stack of one RBM (a DBN whose first layer is still
// training) is sampled as an RBM.
func (Plugin) Sample(mm models.Model, o sampling.SampleOptions) (*sampling.Drawn, error) {
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
	var start eval.Start // nil: uniform
	if init == sampling.InitData {
		start = eval.UpStart(m, o.Data)
	}
	g := eval.Gibbs{Chains: o.N, Steps: o.Steps, Seed: o.Seed, Workers: o.Workers, Means: o.Mean}
	x, err := g.SampleDBN(m, start)
	if err != nil {
		return nil, err
	}
	from := sampling.StartCaption(init)
	if init == sampling.InitData {
		from += " passed up by Q"
	}
	what := fmt.Sprintf("%d block-Gibbs chains of %d sweeps in the top RBM from %s, then a down-pass through the sigmoid layers; ", o.N, o.Steps, from)
	if o.Mean {
		what += "p(v=1|h1)"
	} else {
		what += "v ~ p(v|h1)"
	}
	return &sampling.Drawn{N: o.N, D: m.NumVisible(), X: x, Method: sampling.MethodGibbs, Steps: o.Steps, Init: init, Values: sampling.Values(o.Mean), What: what}, nil
}

// Filters returns W1, the weights between v and h1 (D×n_1); of a stack of
// one RBM, its weights.
func (Plugin) Filters(mm models.Model) (*sampling.Filters, bool) {
	if r, ok := mm.(*models.RBM); ok {
		return rbm.Plugin{}.Filters(r)
	}
	m, ok := mm.(*models.DBN)
	if !ok {
		return nil, false
	}
	b := m.Layers[0]
	return &sampling.Filters{W: b.W, Visible: b.NVis, Hidden: b.NHid, What: "W1, the visible-to-h1 weights"}, true
}
