//go:build amd64 && !purego

package logistic

import "golang.org/x/sys/cpu"

// useAVX2 selects the assembly kernel; the tests switch it off to compare.
var useAVX2 = cpu.X86.HasAVX2

// sigmoid8AVX2 is sigmoidGo on x[:n] (n a multiple of 8), eight lanes at a
// time with the same operations in the same order.
//
//go:noescape
func sigmoid8AVX2(p, x *float32, n int, c *[11][8]float32)

// sigmoidAsm applies the kernel to the leading multiple of 8 of x and
// returns how many entries it did.
func sigmoidAsm(p, x []float32) int {
	n8 := len(x) &^ 7
	if !useAVX2 || n8 == 0 {
		return 0
	}
	_ = p[n8-1]
	sigmoid8AVX2(&p[0], &x[0], n8, &consts)
	return n8
}
