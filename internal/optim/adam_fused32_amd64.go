//go:build amd64 && !purego

package optim

// adam32AVX2 is adam32Go on the first n entries (n a multiple of 4), four
// at a time; out receives the largest |θ| (NaN ignored) and, in out[1], a
// nonzero value if a θ is NaN.
//
//go:noescape
func adam32AVX2(n int, theta, m, s *float64, grad, w *float32, k *[9]float64, out *[2]float64)

// adam32Asm updates the leading entries in assembly and returns how many,
// with their largest |θ| and whether one is NaN.
func adam32Asm(theta, m, s []float64, g, w []float32, k *[9]float64) (int, float64, bool) {
	n := len(theta) &^ 3
	if !useAVX2 || n == 0 {
		return 0, 0, false
	}
	_, _, _, _ = m[n-1], s[n-1], g[n-1], w[n-1]
	var out [2]float64
	adam32AVX2(n, &theta[0], &m[0], &s[0], &g[0], &w[0], k, &out)
	return n, out[0], out[1] != 0
}
