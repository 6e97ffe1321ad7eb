package inference

import "math"

// The float32 exponential of the float32 chains (RBMPath in float32):
// e^a for a = −β|x| clamped at exp32Min (a NaN too), where e^{−87} ≈
// 1.6e-38 is still a normal float32. a = (8m + j)·ln2/8 + r with integers
// m, j ∈ [0,8) and |r| ≤ ln2/16, so e^a = 2^m · 2^{j/8} · e^r; the table
// holds 2^{j/8}, 2^m is an integer addition to the exponent field, and
// e^r − 1 = r + r²/2 + r³/6 + r⁴/24 has truncation error |r|⁵/120 < 1.3e-9,
// far below float32's 6e-8 (the method of internal/logistic, with the
// scale β). The values serve Bernoulli draws and the factors 1 + e of the
// softplus products, which are multiplied in float64.
const (
	exp32Min   = -87.0
	exp32C     = 8 / math.Ln2
	exp32Magic = 12582912.0          // 1.5·2^23: adding it rounds a float32 in (−2^22, 2^22) to an integer
	exp32Hi    = 11357.0 / (1 << 17) // ln2/8 to 14 bits: kf·exp32Hi is exact for |kf| < 2^10
	exp32Lo    = math.Ln2/8 - exp32Hi
	exp32Sixth = float32(1.0 / 6)
	exp32T4    = float32(1.0 / 24)
)

// exp32Consts are the eight-lane constants of the assembly kernel, in the
// order it reads them: sign bit, exp32Min, exp32C, exp32Magic, exp32Hi,
// exp32Lo, ½, 1/6, 1/24, 1, the table 2^{j/8}.
var exp32Consts [11][8]float32

// exp32Table[j] holds the bits of 2^{j/8} rounded to float32.
var exp32Table [8]uint32

func init() {
	vals := []float32{math.Float32frombits(1 << 31), exp32Min, exp32C, exp32Magic, exp32Hi, float32(exp32Lo), 0.5, exp32Sixth, exp32T4, 1}
	for k, v := range vals {
		for l := range exp32Consts[k] {
			exp32Consts[k][l] = v
		}
	}
	for j := range exp32Table {
		v := float32(math.Exp2(float64(j) / 8))
		exp32Table[j] = math.Float32bits(v)
		exp32Consts[10][j] = v
	}
}

// expNegAbs32 sets dst[j] = e^{−β|x[j]|} in float32 (β ≥ 0). On amd64 with
// AVX2 the leading multiple of 8 entries go through the assembly kernel,
// which does the same float32 operations in the same order (no fused
// multiply-add), so the same bits.
func expNegAbs32(dst, x []float32, beta float32) {
	x = x[:len(dst)]
	j0 := expNegAbs32Asm(dst, x, beta)
	for j := j0; j < len(x); j++ {
		dst[j] = expNegAbs32One(x[j], beta)
	}
}

// expNegAbs32One is one entry of expNegAbs32. Every product that feeds an
// addition is converted to float32 explicitly, which forbids the compiler
// to fuse them.
func expNegAbs32One(xj, beta float32) float32 {
	a := float32(math.Float32frombits(math.Float32bits(xj)|1<<31) * beta)
	if !(a >= exp32Min) {
		a = exp32Min
	}
	t := float32(a*exp32C) + exp32Magic
	n := int32(math.Float32bits(t) - math.Float32bits(exp32Magic))
	kf := t - exp32Magic
	r := (a - float32(kf*exp32Hi)) - float32(kf*float32(exp32Lo))
	r2 := float32(r * r)
	q := r + float32(r2*((0.5+float32(r*exp32Sixth))+float32(r2*exp32T4)))
	s := math.Float32frombits(exp32Table[n&7] + uint32(n>>3)<<23)
	return s + float32(s*q)
}
