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
	k := [9]float64{scale, AdamB1, 1 - AdamB1, AdamB2, 1 - AdamB2, c1, c2, a.LR, AdamEps}
	j := adamAsm(theta, m, s, g, &k)
	adamGo(theta[j:], m[j:], s[j:], g[j:], &k)
}

// adamGo is the update of StepRange on every entry, with the constants k
// (scale, β₁, 1−β₁, β₂, 1−β₂, c₁, c₂, lr, ε) as the assembly reads them;
// the operations are those of the assembly in the same order (Go does not
// fuse them on amd64 at the default GOAMD64 level, and each product that
// feeds an addition is rounded first), so both give the same bits.
func adamGo(theta, m, s, g []float64, k *[9]float64) {
	m, s, g = m[:len(theta)], s[:len(theta)], g[:len(theta)]
	scale, c1, c2, lr := k[0], k[5], k[6], k[7]
	for i := range theta {
		gi := scale * g[i]
		m[i] = float64(AdamB1*m[i]) + float64((1-AdamB1)*gi)
		s[i] = float64(AdamB2*s[i]) + float64(float64((1-AdamB2)*gi)*gi)
		theta[i] -= float64(lr*(m[i]*c1)) / (math.Sqrt(s[i]*c2) + AdamEps)
	}
}
