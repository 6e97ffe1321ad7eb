//go:build amd64 && !purego

package kernel

import "golang.org/x/sys/cpu"

// tanhGrad32AVX2 selects the assembly kernel; the tests switch it off to
// compare.
var tanhGrad32AVX2 = cpu.X86.HasAVX2

// tanhGrad32AVX2Asm is TanhGrad32 on the first n entries (n a positive
// multiple of 8) (tanhgrad32_amd64.s).
//
//go:noescape
func tanhGrad32AVX2Asm(d, u *float32, n int)

// tanhGrad32 runs the kernel on the leading multiple of 8 entries and
// returns how many it did.
func tanhGrad32(d, u []float32) int {
	n := len(u) &^ 7
	if !tanhGrad32AVX2 || n == 0 {
		return 0
	}
	tanhGrad32AVX2Asm(&d[0], &u[0], n)
	return n
}
