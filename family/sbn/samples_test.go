package sbn

import (
	"math/rand/v2"
	"testing"

	"github.com/logz-ml/logz/family"
	"github.com/logz-ml/logz/family/familytest"
	belief "github.com/logz-ml/logz/sbn"
)

// TestSampleMatchesTheModel: ancestral samples of a two-layer SBN and of
// an ARSBN have p(x) by enumeration of (x, h1, h2) (states and the
// probabilities x was drawn with); the samples do not depend on the
// workers. Mutation checked: means from the bottom layer's biases alone
// (h1 dropped) and x drawn from the previous sample's h1 (which changes only the
// first sample of each worker: the workers check) both fail.
func TestSampleMatchesTheModel(t *testing.T) {
	for _, ar := range []bool{false, true} {
		n := belief.New([]int{4, 3, 2}, ar)
		belief.InitNormal(n, 1.5, 3)
		rng := rand.New(rand.NewPCG(5, 1))
		for _, b := range n.B {
			for i := range b {
				b[i] = rng.NormFloat64()
			}
		}
		sc := n.NewScratch()
		p := familytest.Marginal(n.Sizes, func(xs [][]float64) float64 { return n.LogJoint(xs, 1, sc) })
		draw := func(N int, init string, mean bool, workers int) ([]float64, error) {
			d, err := Sample(n, family.SampleOptions{N: N, Mean: mean, Seed: 5, Workers: workers})
			if err != nil {
				return nil, err
			}
			if d.N != N || d.D != 4 || d.Method != family.MethodAncestral {
				t.Errorf("drawn %+v", d)
			}
			return d.X, nil
		}
		familytest.CheckSampler(t, draw, 4, p, nil, 8000)
		if f, ok := Filters(n); !ok || f.Visible != 4 || f.Hidden != 3 || f.Column(1)[2] != n.W[1][2*3+1] {
			t.Errorf("filters %+v", f)
		}
	}
}
