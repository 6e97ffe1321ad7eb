package sbn

import (
	"fmt"

	"github.com/logz-ml/logz/family/kit/sampling"
	"github.com/logz-ml/logz/models"
	belief "github.com/logz-ml/logz/sbn"
)

// Sample draws o.N ancestral samples of a (autoregressive) sigmoid belief
// net, top layer down (belief.Net.SampleVisible, sample i keyed by
// (o.Seed, i)). It returns the x, or with o.Mean the probabilities each
// unit of x was drawn with, p(x_i = 1 | h_1, x_{<i}) (p(x_i = 1 | h_1)
// without within-layer weights).
func (Plugin) Sample(mm models.Model, o sampling.SampleOptions) (*sampling.Drawn, error) {
	n, ok := mm.(*belief.Net)
	if !ok {
		return nil, fmt.Errorf("%s samples: a %s is not a sigmoid belief net", mm.TypeName(), mm.TypeName())
	}
	if _, err := o.Check(nil); err != nil {
		return nil, err
	}
	out := n.SampleVisible(o.N, o.Seed, o.Workers, o.Mean)
	kept := "x ~ p(x|h1)"
	if o.Mean {
		kept = "the probabilities p(x_i=1|h1, x_<i) x was drawn with"
		if !n.AR() {
			kept = "p(x=1|h1)"
		}
	}
	return &sampling.Drawn{N: o.N, D: n.NumVisible(), X: out, Method: sampling.MethodAncestral, Values: sampling.Values(o.Mean),
		What: fmt.Sprintf("%d ancestral samples (top layer down); %s", o.N, kept)}, nil
}

// Filters returns W1, the weights from h1 to the visible units (D×n_1).
func (Plugin) Filters(mm models.Model) (*sampling.Filters, bool) {
	n, ok := mm.(*belief.Net)
	if !ok || n.Layers() < 1 {
		return nil, false
	}
	return &sampling.Filters{W: n.W[1], Visible: n.Sizes[0], Hidden: n.Sizes[1], What: "gen_W1, the h1-to-visible weights"}, true
}
