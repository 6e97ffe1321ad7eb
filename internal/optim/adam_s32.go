package optim

import "math"

// RangeS32 is RangeM32 with the step's arithmetic in float32 as well: the
// moments are updated in float32 from their float32 values, and the step
// lr·(m·c₁)/(√(s·c₂) + ε) is computed in float32 (the constants rounded to
// float32) and subtracted from the float64 θ. Its square root and
// division cost a quarter of float64's on AVX2 (eight lanes a
// instruction, and cheaper ones), which bounds a float64-step Adam on
// float32 moments. The step differs from RangeM32's by the float32
// rounding of a few operations (a relative 2⁻²¹ or so); θ stays float64
// and w = float32(θ).
func (st *Step32) RangeS32(theta []float64, m, s []float32, g, w []float32, lo int) (big float64, nan bool) {
	n := len(g)
	theta, m, s, w = theta[lo:lo+n], m[lo:lo+n], s[lo:lo+n], w[:n]
	k := st.k32()
	j, big, nan := adamS32Asm(theta, m, s, g, w, &k)
	b, nn := adamS32Go(theta[j:], m[j:], s[j:], g[j:], w[j:], &k)
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

// adamS32Go is RangeS32's loop; every operation rounds to float32 (the
// conversions keep the compiler from fusing them).
func adamS32Go(theta []float64, m32, s32, g, w []float32, k *[9]float32) (big float64, nan bool) {
	m32, s32, g, w = m32[:len(theta)], s32[:len(theta)], g[:len(theta)], w[:len(theta)]
	scale, b1, ob1, b2, ob2, c1, c2, lr, eps := k[0], k[1], k[2], k[3], k[4], k[5], k[6], k[7], k[8]
	for i := range theta {
		gi := float32(scale * g[i])
		m := float32(b1*m32[i]) + float32(ob1*gi)
		s := float32(b2*s32[i]) + float32(float32(ob2*gi)*gi)
		m32[i], s32[i] = m, s
		num := float32(lr * float32(m*c1))
		den := float32(math.Sqrt(float64(float32(s*c2)))) + eps
		x := theta[i] - float64(num/den)
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
