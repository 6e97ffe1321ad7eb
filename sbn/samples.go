package sbn

import (
	"math/rand/v2"

	"github.com/logz-ml/logz/internal/workgroup"
)

// SampleVisible draws count ancestral samples of the visible layer x
// (count×n_0, row-major): h_L ~ p(h_L), then h_{l−1} ~ p(h_{l−1} | h_l)
// down to x = h_0 (Sample), each layer in raster order. Sample i draws
// from the generator keyed (seed, i) (workgroup.EachSample, on up to workers
// goroutines), so the samples depend on neither workers nor count. It
// returns the x, or with means the probabilities each unit of x was drawn
// with, p(x_i = 1 | h_1, x_{<i}) (p(x_i = 1 | h_1) without within-layer
// weights).
func (n *Net) SampleVisible(count int, seed uint64, workers int, means bool) []float64 {
	D := n.NumVisible()
	out := make([]float64, count*D)
	workgroup.EachSample(count, workers, seed, func() func(int, *rand.Rand) {
		h := n.States()
		sc := n.NewScratch()
		return func(i int, rng *rand.Rand) {
			x := out[i*D : (i+1)*D]
			if !means {
				n.Sample(h, rng, sc)
				copy(x, h[0])
				return
			}
			n.samplePrior(h, rng, sc)
			var h1 []float64
			if n.Layers() >= 1 {
				h1 = h[1]
			}
			n.SampleLayerProbs(0, h[0], h1, x, rng, sc)
		}
	})
	return out
}
