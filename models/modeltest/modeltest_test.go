package modeltest

import (
	"math/rand/v2"
	"testing"
)

// The tests that use RandomRBM and RandomDBM pin numbers that depend on
// the order of the draws: W, then the visible biases, then the hidden ones
// (W bottom up, then B bottom up for a DBM), each scaled.
func TestRandomModelsDrawInOrder(t *testing.T) {
	m := RandomRBM(3, 2, 2, 0.5, rand.New(rand.NewPCG(4, 9)))
	ref := rand.New(rand.NewPCG(4, 9))
	if len(m.W) != 6 || len(m.VBias) != 3 || len(m.HBias) != 2 {
		t.Fatalf("a 3×2 RBM with %d weights, %d and %d biases", len(m.W), len(m.VBias), len(m.HBias))
	}
	for _, c := range []struct {
		name  string
		x     []float64
		scale float64
	}{{"W", m.W, 2}, {"VBias", m.VBias, 0.5}, {"HBias", m.HBias, 0.5}} {
		for i, v := range c.x {
			if want := c.scale * ref.NormFloat64(); v != want {
				t.Fatalf("RBM %s[%d] = %g, want %g", c.name, i, v, want)
			}
		}
	}

	d, err := RandomDBM(2, 0.5, rand.New(rand.NewPCG(4, 9)), 3, 2, 2)
	if err != nil {
		t.Fatal(err)
	}
	ref = rand.New(rand.NewPCG(4, 9))
	for l, w := range d.W {
		for i, v := range w {
			if want := 2 * ref.NormFloat64(); v != want {
				t.Fatalf("DBM W[%d][%d] = %g, want %g", l, i, v, want)
			}
		}
	}
	for l, b := range d.B {
		for i, v := range b {
			if want := 0.5 * ref.NormFloat64(); v != want {
				t.Fatalf("DBM B[%d][%d] = %g, want %g", l, i, v, want)
			}
		}
	}
	if _, err := RandomDBM(1, 1, ref, 3); err == nil {
		t.Error("a DBM of one layer was made")
	}
}
