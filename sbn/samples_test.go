package sbn

import (
	"math/rand/v2"
	"testing"

	"github.com/logz-ml/logz/internal/sampletest"
)

// TestSampleVisibleMatchesTheModel: ancestral samples of a two-layer SBN
// and of an ARSBN have p(x) by enumeration of (x, h1, h2) (states and the
// probabilities x was drawn with); the samples do not depend on the
// workers. Mutation checked: means from the bottom layer's biases alone
// (h1 dropped) and x drawn from the previous sample's h1 (which changes
// only the first sample of each worker: the workers check) both fail.
func TestSampleVisibleMatchesTheModel(t *testing.T) {
	for _, ar := range []bool{false, true} {
		n := New([]int{4, 3, 2}, ar)
		InitNormal(n, 1.5, 3)
		rng := rand.New(rand.NewPCG(5, 1))
		for _, b := range n.B {
			for i := range b {
				b[i] = rng.NormFloat64()
			}
		}
		sc := n.NewScratch()
		p := sampletest.Marginal(n.Sizes, func(xs [][]float64) float64 { return n.LogJoint(xs, 1, sc) })
		draw := func(N int, _ string, mean bool, workers int) ([]float64, error) {
			return n.SampleVisible(N, 5, workers, mean), nil
		}
		sampletest.CheckSampler(t, draw, 4, p, nil, 8000)
	}
}
