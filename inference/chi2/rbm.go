package chi2

import (
	"github.com/logz-ml/logz/internal/kernel"
	"github.com/logz-ml/logz/internal/nmath"
	"github.com/logz-ml/logz/models"
)

// RBMTarget is an RBM's visible marginal as a target:
//
//	log p̃(v) = −F(v) = aᵀv + Σ_j softplus(b_j + vᵀW_{:,j}),
//
// computed for binary v as a sum of the selected rows of W.
type RBMTarget struct{ M *models.RBM }

// Dim is the number of visible units.
func (t RBMTarget) Dim() int { return t.M.NVis }

// NewLogP returns −F(v) with its own scratch.
func (t RBMTarget) NewLogP() func(x []uint8) float64 {
	m := t.M
	pre := make([]float64, m.NHid)
	idx := make([]int32, 0, m.NVis)
	return func(x []uint8) float64 {
		idx = idx[:0]
		s := 0.0
		for i, xi := range x {
			if xi != 0 {
				idx = append(idx, int32(i))
				s += m.VBias[i]
			}
		}
		copy(pre, m.HBias)
		kernel.AddRows(pre, m.W, idx)
		for _, p := range pre {
			s += nmath.Softplus(p)
		}
		return s
	}
}
