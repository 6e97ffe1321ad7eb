package optim

import "math"

// Step32 is one step of an Adam (at its current T, which it does not
// advance) for a float32 trainer: Prepare32 computes the step's constants
// once, then RangeW32 updates blocks of entries (disjoint blocks may be
// updated concurrently).
type Step32 struct {
	k [9]float64
}

// Prepare32 returns the step at the current T on the gradient scale·g (a
// negative scale ascends), as StepRange.
func (a *Adam) Prepare32(scale float64) Step32 {
	c1 := 1 / (1 - math.Pow(AdamB1, float64(a.T)))
	c2 := 1 / (1 - math.Pow(AdamB2, float64(a.T)))
	return Step32{k: [9]float64{scale, AdamB1, 1 - AdamB1, AdamB2, 1 - AdamB2, c1, c2, a.LR, AdamEps}}
}
