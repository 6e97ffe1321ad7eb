package optim

import "math"

// RangeM32 is Range with the moments in float32: m and s hold M and S of
// the entries (indexed like theta, from lo), each step computing them in
// float64 from their float32 values as Range does, using them unrounded
// for this step's update of θ and storing them rounded to float32 (the
// step's own M and S are not used). It reads and writes 16 bytes less
// state per entry than Range (56 → 40 with g and w), which bounds a
// memory-bound Adam. θ stays float64; w = float32(θ) as Range.
func (st *Step32) RangeM32(theta []float64, m, s []float32, g, w []float32, lo int) (big float64, nan bool) {
	n := len(g)
	theta, m, s, w = theta[lo:lo+n], m[lo:lo+n], s[lo:lo+n], w[:n]
	j, big, nan := adamM32Asm(theta, m, s, g, w, &st.k)
	b, nn := adamM32Go(theta[j:], m[j:], s[j:], g[j:], w[j:], &st.k)
	return max(big, b), nan || nn
}

// adamM32Go is adam32Go with M and S read from and stored to float32.
func adamM32Go(theta []float64, m32, s32, g, w []float32, k *[9]float64) (big float64, nan bool) {
	m32, s32, g, w = m32[:len(theta)], s32[:len(theta)], g[:len(theta)], w[:len(theta)]
	scale, c1, c2, lr := k[0], k[5], k[6], k[7]
	for i := range theta {
		gi := scale * float64(g[i])
		m := float64(AdamB1*float64(m32[i])) + float64((1-AdamB1)*gi)
		s := float64(AdamB2*float64(s32[i])) + float64(float64((1-AdamB2)*gi)*gi)
		m32[i], s32[i] = float32(m), float32(s)
		x := theta[i] - float64(lr*(m*c1))/(math.Sqrt(s*c2)+AdamEps)
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
