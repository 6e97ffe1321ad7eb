package optim

import "math"

// Step32 is one step of an Adam (at its current T, which it does not
// advance) on float32 gradients: Prepare32 computes the step's constants
// once, then Range updates blocks of entries (disjoint blocks may be
// updated concurrently).
type Step32 struct {
	a *Adam
	k [9]float64
}

// Prepare32 returns the step at the current T on the gradient scale·g (a
// negative scale ascends), as StepRange.
func (a *Adam) Prepare32(scale float64) Step32 {
	c1 := 1 / (1 - math.Pow(AdamB1, float64(a.T)))
	c2 := 1 / (1 - math.Pow(AdamB2, float64(a.T)))
	return Step32{a: a, k: [9]float64{scale, AdamB1, 1 - AdamB1, AdamB2, 1 - AdamB2, c1, c2, a.LR, AdamEps}}
}

// Range is StepRange on entries lo … lo+len(g)−1 with the float32
// gradient g, which also writes the updated parameters rounded to float32
// into w (len(g) entries) and returns the largest magnitude among them
// (±Inf included) and whether any is NaN: one pass over the state where a
// float32 trainer would convert its gradient to float64, step, and copy
// the parameters back to float32. The arithmetic is StepRange's on
// float64(g) (exact), so θ, M and S get the same bits.
func (st *Step32) Range(theta []float64, g, w []float32, lo int) (big float64, nan bool) {
	n := len(g)
	theta, m, s, w := theta[lo:lo+n], st.a.M[lo:lo+n], st.a.S[lo:lo+n], w[:n]
	j, big, nan := adam32Asm(theta, m, s, g, w, &st.k)
	b, nn := adam32Go(theta[j:], m[j:], s[j:], g[j:], w[j:], &st.k)
	return max(big, b), nan || nn
}

// adam32Go is adamGo on float64(g) that also sets w = float32(θ) and
// returns the largest |θ| and whether a θ is NaN.
func adam32Go(theta, m, s []float64, g, w []float32, k *[9]float64) (big float64, nan bool) {
	m, s, g, w = m[:len(theta)], s[:len(theta)], g[:len(theta)], w[:len(theta)]
	scale, c1, c2, lr := k[0], k[5], k[6], k[7]
	for i := range theta {
		gi := scale * float64(g[i])
		m[i] = float64(AdamB1*m[i]) + float64((1-AdamB1)*gi)
		s[i] = float64(AdamB2*s[i]) + float64(float64((1-AdamB2)*gi)*gi)
		x := theta[i] - float64(lr*(m[i]*c1))/(math.Sqrt(s[i]*c2)+AdamEps)
		theta[i] = x
		w[i] = float32(x)
		if a := math.Abs(x); a != a {
			nan = true
		} else if a > big {
			big = a
		}
	}
	return big, nan
}
