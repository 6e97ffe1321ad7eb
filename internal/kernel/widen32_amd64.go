//go:build amd64 && !purego

package kernel

import "golang.org/x/sys/cpu"

// widen32AVX2 selects the assembly kernel; the tests switch it off to compare.
var widen32AVX2 = cpu.X86.HasAVX2

// widen32AVX2Asm is Widen32 on the first n entries (n a positive multiple
// of 4) (widen32_amd64.s).
//
//go:noescape
func widen32AVX2Asm(dst *float64, src *float32, n int, a float64)

// widen32 runs the kernel on the leading multiple of 4 entries and returns
// how many it did.
func widen32(dst []float64, src []float32, a float64) int {
	n := len(src) &^ 3
	if !widen32AVX2 || n == 0 {
		return 0
	}
	widen32AVX2Asm(&dst[0], &src[0], n, a)
	return n
}
