//go:build amd64 && !purego

package optim

import "golang.org/x/sys/cpu"

// useAVX2 selects the assembly loop; the tests switch it off to compare
// with the Go loop.
var useAVX2 = cpu.X86.HasAVX2

// adam4AVX2 updates the first 4⌊n/4⌋ entries, four at a time.
//
//go:noescape
func adam4AVX2(n int, theta, m, s, grad *float64, k *[9]float64)

// adamAsm updates the leading entries in assembly and returns how many.
func adamAsm(theta, m, s, g []float64, k *[9]float64) int {
	n := len(theta) &^ 3
	if !useAVX2 || n == 0 {
		return 0
	}
	_, _, _ = m[n-1], s[n-1], g[n-1]
	adam4AVX2(n, &theta[0], &m[0], &s[0], &g[0], k)
	return n
}
