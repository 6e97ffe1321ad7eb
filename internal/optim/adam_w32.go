package optim

import "math"

// RangeW32 is StepRange in float32 for a trainer whose weights are
// float32 values, on entries lo … lo+len(g)−1 with the float32 gradient
// g: the moments m and s (float32, indexed like theta, from lo) are
// updated in float32 from their float32 values, the step
// lr·(m·c₁)/(√(s·c₂) + ε) is computed in float32 (the constants rounded to
// float32; eight square roots and divisions an AVX2 instruction) and
// subtracted from w (len(g) entries), which must hold float32(θ) on entry,
// in float32; θ is then set to float64(w), exactly, without being read.
// It returns the largest |θ| among the updated entries (±Inf included) and
// whether one is NaN. Per weight it reads 16 bytes (m, s, g, w) and
// writes 20 (θ, m, s, w), where StepRange on a float64 gradient reads 32
// and writes 24: the step is memory-bound.
func (st *Step32) RangeW32(theta []float64, m, s []float32, g, w []float32, lo int) (big float64, nan bool) {
	n := len(g)
	theta, m, s, w = theta[lo:lo+n], m[lo:lo+n], s[lo:lo+n], w[:n]
	k := st.k32()
	j, big, nan := adamW32Asm(theta, m, s, g, w, &k)
	b, nn := adamW32Go(theta[j:], m[j:], s[j:], g[j:], w[j:], &k)
	return max(big, b), nan || nn
}

// k32 is the step's constants rounded to float32: scale, β₁, 1−β₁, β₂,
// 1−β₂, c₁, c₂, lr, ε.
func (st *Step32) k32() [9]float32 {
	var k [9]float32
	for i, x := range st.k {
		k[i] = float32(x)
	}
	return k
}

// adamW32Go is RangeW32's loop; every operation rounds to float32 (the
// conversions keep the compiler from fusing them).
func adamW32Go(theta []float64, m32, s32, g, w []float32, k *[9]float32) (big float64, nan bool) {
	m32, s32, g, w = m32[:len(theta)], s32[:len(theta)], g[:len(theta)], w[:len(theta)]
	scale, b1, ob1, b2, ob2, c1, c2, lr, eps := k[0], k[1], k[2], k[3], k[4], k[5], k[6], k[7], k[8]
	for i := range theta {
		gi := float32(scale * g[i])
		m := float32(b1*m32[i]) + float32(ob1*gi)
		s := float32(b2*s32[i]) + float32(float32(ob2*gi)*gi)
		m32[i], s32[i] = m, s
		num := float32(lr * float32(m*c1))
		den := float32(math.Sqrt(float64(float32(s*c2)))) + eps
		x := w[i] - float32(num/den)
		w[i] = x
		theta[i] = float64(x)
		if a := math.Abs(float64(x)); a != a {
			nan = true
		} else if a > big {
			big = a
		}
	}
	return big, nan
}
