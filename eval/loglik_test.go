package eval

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/logz-ml/logz/internal/nmath"
	"github.com/logz-ml/logz/models"
	"github.com/logz-ml/logz/models/modeltest"
)

type rowSet [][]uint8

func (r rowSet) Len() int          { return len(r) }
func (r rowSet) Row(n int) []uint8 { return r[n] }

// smallRBM has N(0, scale²) weights and biases from the stream (seed, 0).
func smallRBM(d, h int, scale float64, seed uint64) *models.RBM {
	return modeltest.RandomRBM(d, h, scale, scale, rand.New(rand.NewPCG(seed, 0)))
}

// TestPseudoLogLikByEnumeration compares with log p(v_i|v_−i) computed from
// the two unnormalised probabilities directly.
func TestPseudoLogLikByEnumeration(t *testing.T) {
	m := smallRBM(6, 4, 1.5, 3)
	x := rowSet{{1, 0, 1, 1, 0, 0}, {0, 0, 0, 1, 1, 1}, {1, 1, 1, 1, 1, 1}}
	want := 0.0
	v := make([]float64, 6)
	for _, r := range x {
		for i := range v {
			v[i] = float64(r[i])
		}
		for i := range v {
			orig := v[i]
			v[i] = 1
			l1 := m.LogUnnorm(v, nil)
			v[i] = 0
			l0 := m.LogUnnorm(v, nil)
			v[i] = orig
			lz := nmath.LogAddExp(l0, l1)
			if orig == 1 {
				want += l1 - lz
			} else {
				want += l0 - lz
			}
		}
	}
	want /= float64(len(x))
	if got := PseudoLogLik(m, x); math.Abs(got.Mean-want) > 1e-12 {
		t.Fatalf("PLL = %v, want %v", got.Mean, want)
	}
}

func TestReconErrorZeroForDeterministicModel(t *testing.T) {
	// Visible biases of ±40 make p(v|h) a point mass on the pattern.
	m := models.NewRBM(3, 2)
	m.VBias = []float64{40, -40, 40}
	got := ReconError(m, rowSet{{1, 0, 1}}, rand.New(rand.NewPCG(1, 1)))
	if got.Mean > 1e-30 {
		t.Fatalf("recon = %v", got.Mean)
	}
	got = ReconError(m, rowSet{{0, 1, 0}}, rand.New(rand.NewPCG(1, 1)))
	if math.Abs(got.Mean-3) > 1e-12 {
		t.Fatalf("recon = %v, want 3", got.Mean)
	}
}
