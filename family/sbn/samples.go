package sbn

import (
	"fmt"
	"math/rand/v2"

	"github.com/logz-ml/logz/family/kit"
	"github.com/logz-ml/logz/models"
	belief "github.com/logz-ml/logz/sbn"
)

// Sample draws o.N ancestral samples of a (autoregressive) sigmoid belief
// net, h_L ~ p(h_L), then h_{l−1} ~ p(h_{l−1} | h_l) down to x = h_0
// (belief.Net.Sample), sample i from the generator keyed (o.Seed, i). It
// returns the x, or with o.Mean the probabilities each unit of x was drawn
// with, p(x_i = 1 | h_1, x_{<i}) (p(x_i = 1 | h_1) without within-layer
// weights).
func (Plugin) Sample(mm models.Model, o kit.SampleOptions) (*kit.Drawn, error) {
	n, ok := mm.(*belief.Net)
	if !ok {
		return nil, fmt.Errorf("%s samples: a %s is not a sigmoid belief net", mm.TypeName(), mm.TypeName())
	}
	if _, err := o.Check(nil); err != nil {
		return nil, err
	}
	D := n.NumVisible()
	out := make([]float64, o.N*D)
	err := kit.EachSample(o.N, o.Workers, o.Seed, func() func(int, *rand.Rand) error {
		h := n.States()
		sc := n.NewScratch()
		return func(i int, rng *rand.Rand) error {
			L := n.Layers()
			for l := L; l >= 1; l-- {
				var above []float64
				if l < L {
					above = h[l+1]
				}
				n.SampleLayer(l, h[l], above, rng, sc)
			}
			x := out[i*D : (i+1)*D]
			var h1 []float64
			if L >= 1 {
				h1 = h[1]
			}
			if o.Mean {
				n.SampleLayerProbs(0, h[0], h1, x, rng, sc)
			} else {
				n.SampleLayer(0, h[0], h1, rng, sc)
				copy(x, h[0])
			}
			return nil
		}
	})
	if err != nil {
		return nil, err
	}
	kept := "x ~ p(x|h1)"
	if o.Mean {
		kept = "the probabilities p(x_i=1|h1, x_<i) x was drawn with"
		if !n.AR() {
			kept = "p(x=1|h1)"
		}
	}
	return &kit.Drawn{N: o.N, D: D, X: out, Method: kit.MethodAncestral, Values: kit.Values(o.Mean),
		What: fmt.Sprintf("%d ancestral samples (top layer down); %s", o.N, kept)}, nil
}

// Filters returns W1, the weights from h1 to the visible units (D×n_1).
func (Plugin) Filters(mm models.Model) (*kit.Filters, bool) {
	n, ok := mm.(*belief.Net)
	if !ok || n.Layers() < 1 {
		return nil, false
	}
	return &kit.Filters{W: n.W[1], Visible: n.Sizes[0], Hidden: n.Sizes[1], What: "gen_W1, the h1-to-visible weights"}, true
}
