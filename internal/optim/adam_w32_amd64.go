//go:build amd64 && !purego

package optim

// adamW32AVX2 is adamW32Go on the first n entries (n a multiple of 8),
// eight at a time; out receives the largest |θ| and a non-zero value if
// a θ is NaN.
//
//go:noescape
func adamW32AVX2(n int, theta *float64, m, s, grad, w *float32, k *[9]float32, out *[2]float64)

// adamW32Asm updates the leading entries in assembly and returns how many,
// with their largest |θ| and whether one is NaN.
func adamW32Asm(theta []float64, m, s, g, w []float32, k *[9]float32) (int, float64, bool) {
	n := len(theta) &^ 7
	if !useAVX2 || n == 0 {
		return 0, 0, false
	}
	_, _, _, _ = m[n-1], s[n-1], g[n-1], w[n-1]
	var out [2]float64
	adamW32AVX2(n, &theta[0], &m[0], &s[0], &g[0], &w[0], k, &out)
	return n, out[0], out[1] != 0
}
