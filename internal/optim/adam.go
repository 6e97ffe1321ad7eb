// Package optim holds the optimisers shared by logz's trainers and fitters.
package optim

import "math"

// Adam is the optimiser of Kingma & Ba (2015) with β₁ = 0.9, β₂ = 0.999,
// ε = 1e-8: for a gradient g at step t,
//
//	m ← β₁m + (1−β₁)g,  s ← β₂s + (1−β₂)g²,
//	θ ← θ − lr · (m/(1−β₁ᵗ)) / (√(s/(1−β₂ᵗ)) + ε).
//
// M, S and T are its whole state (saved in checkpoints).
type Adam struct {
	LR   float64
	M, S []float64
	T    int
}

// NewAdam returns Adam with step size lr for size parameters.
func NewAdam(lr float64, size int) Adam {
	return Adam{LR: lr, M: make([]float64, size), S: make([]float64, size)}
}

// Adam's constants.
const (
	AdamB1  = 0.9
	AdamB2  = 0.999
	AdamEps = 1e-8
)

// Step descends on the gradient scale·g (pass a negative scale to ascend).
// theta may be shorter than the state; its prefix is updated.
func (a *Adam) Step(theta, g []float64, scale float64) {
	a.T++
	a.StepRange(theta, g, scale, 0, len(theta))
}

// StepRange is the update of Step at the current T (which it does not
// advance) on entries lo … hi−1 only, so that disjoint ranges may be updated
// concurrently: a step is T++ once, then StepRange over a partition of the
// entries, with the arithmetic of Step.
func (a *Adam) StepRange(theta, g []float64, scale float64, lo, hi int) {
	c1 := 1 / (1 - math.Pow(AdamB1, float64(a.T)))
	c2 := 1 / (1 - math.Pow(AdamB2, float64(a.T)))
	theta, m, s, g := theta[lo:hi], a.M[lo:hi], a.S[lo:hi], g[lo:hi]
	for i := range theta {
		gi := scale * g[i]
		m[i] = AdamB1*m[i] + (1-AdamB1)*gi
		s[i] = AdamB2*s[i] + (1-AdamB2)*gi*gi
		theta[i] -= a.LR * (m[i] * c1) / (math.Sqrt(s[i]*c2) + AdamEps)
	}
}
