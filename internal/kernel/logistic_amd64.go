//go:build amd64 && !purego

package kernel

import "golang.org/x/sys/cpu"

// logisticAVX2 selects the assembly kernel; the tests switch it off to compare.
var logisticAVX2 = cpu.X86.HasAVX2

// sigmoid8AVX2 is sigmoidGo on x[:n] (n a multiple of 8), eight lanes at a
// time with the same operations in the same order.
//
//go:noescape
func sigmoid8AVX2(p, x *float32, n int, c *[11][8]float32)

// sigmoid32Asm applies the kernel to the leading multiple of 8 of x and
// returns how many entries it did.
func sigmoid32Asm(p, x []float32) int {
	n8 := len(x) &^ 7
	if !logisticAVX2 || n8 == 0 {
		return 0
	}
	_ = p[n8-1]
	sigmoid8AVX2(&p[0], &x[0], n8, &consts)
	return n8
}

// logLik8AVX2 is logLikGo on a[:n] (n a multiple of 8), eight lanes at a
// time with the same operations in the same order, acc holding the lanes.
//
//go:noescape
func logLik8AVX2(p, a, x *float32, n int, c *[11][8]float32, acc *[16]float64)

// logLikAsm applies the kernel to the leading multiple of 8 of a and
// returns how many entries it did.
func logLikAsm(p, a, x []float32, acc *[16]float64) int {
	n8 := len(a) &^ 7
	if !logisticAVX2 || n8 == 0 {
		return 0
	}
	_, _ = p[n8-1], x[n8-1]
	logLik8AVX2(&p[0], &a[0], &x[0], n8, &consts, acc)
	return n8
}

// expNegAbs8AVX2 is the loop of ExpNegAbs32 on x[:n] (n a multiple of 8),
// eight lanes at a time with the same operations in the same order.
//
//go:noescape
func expNegAbs8AVX2(dst, x *float32, n int, beta float32, c *[11][8]float32)

// expNegAbs32Asm applies the kernel to the leading multiple of 8 of x and
// returns how many entries it did.
func expNegAbs32Asm(dst, x []float32, beta float32) int {
	n8 := len(dst) &^ 7
	if !logisticAVX2 || n8 == 0 {
		return 0
	}
	_ = x[n8-1]
	expNegAbs8AVX2(&dst[0], &x[0], n8, beta, &consts)
	return n8
}
