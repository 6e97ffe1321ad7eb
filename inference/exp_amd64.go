//go:build amd64 && !purego

package inference

import (
	"math"

	"golang.org/x/sys/cpu"
)

// useAVX2 selects the assembly kernels of expNegAbs and sigmoids; the tests
// switch it off to compare.
var useAVX2 = cpu.X86.HasAVX2

// expConsts are the four-lane constants of the kernels (exp_amd64.s), in
// the order the assembly reads them: |·| mask, expMin, 256/ln2, expMagic,
// ln2/256 high and low parts, ½, 1/6, 1/24, 1, the table index mask 255.
var expConsts [11][4]uint64

func init() {
	for k, v := range []uint64{
		math.MaxInt64, math.Float64bits(expMin), math.Float64bits(expInvLn2x256), math.Float64bits(expMagic),
		math.Float64bits(expLn2x256Hi), math.Float64bits(expLn2x256Lo),
		math.Float64bits(0.5), math.Float64bits(1.0 / 6), math.Float64bits(1.0 / 24), math.Float64bits(1), 255,
	} {
		expConsts[k] = [4]uint64{v, v, v, v}
	}
}

// expNegAbsAVX2 is the loop of expNegAbs on x[:n] (n a positive multiple
// of 4) with nb = −β, four lanes at a time: the same float64 operations in
// the same order (no fused multiply-add; the table by a gather), so the
// same bits. sigmoidAVX2 sets p = σ(x) from e = e^{−|x|} as sigmoids does.
//
//go:noescape
func expNegAbsAVX2(dst, x *float64, n int, nb float64, c *[11][4]uint64)

//go:noescape
func sigmoidAVX2(p, x *float64, n int, c *[11][4]uint64)

// expNegAbsAsm runs the kernel on the leading multiple of 4 entries and
// returns how many it did.
func expNegAbsAsm(dst, x []float64, beta float64) int {
	n := len(dst) &^ 3
	if !useAVX2 || n == 0 {
		return 0
	}
	_ = x[n-1]
	expNegAbsAVX2(&dst[0], &x[0], n, -beta, &expConsts)
	return n
}

// sigmoidAsm is expNegAbsAsm for sigmoids.
func sigmoidAsm(p, x []float64) int {
	n := len(x) &^ 3
	if !useAVX2 || n == 0 {
		return 0
	}
	_ = p[n-1]
	sigmoidAVX2(&p[0], &x[0], n, &expConsts)
	return n
}
