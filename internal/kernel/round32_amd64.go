//go:build amd64 && !purego

package kernel

import "golang.org/x/sys/cpu"

// round32AVX2 selects the assembly kernel; the tests switch it off to compare.
var round32AVX2 = cpu.X86.HasAVX2

// round32AVX2Asm converts the first n entries (n a positive multiple of
// 8) of src into dst (round32_amd64.s).
//
//go:noescape
func round32AVX2Asm(dst *float32, src *float64, n int)

// round32 runs the kernel on the leading multiple of 8 entries and returns
// how many it did.
func round32(dst []float32, src []float64) int {
	n := len(src) &^ 7
	if !round32AVX2 || n == 0 {
		return 0
	}
	round32AVX2Asm(&dst[0], &src[0], n)
	return n
}
