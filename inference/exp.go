package inference

import "math"

// expTableBits[j] holds the bits of 2^{j/256}, j = 0…255, rounded to float64,
// so that 2^m·2^{j/256} is one integer addition to the exponent field.
var expTableBits [256]uint64

func init() {
	for j := range expTableBits {
		expTableBits[j] = math.Float64bits(math.Exp2(float64(j) / 256))
	}
}

const (
	expInvLn2x256 = 256 / math.Ln2
	// ln2/256 split in a high part with 21 trailing zero bits (so n·hi is
	// exact for |n| < 2^21) and a low part: the fdlibm constants over 256.
	expLn2x256Hi = 6.93147180369123816490e-01 / 256
	expLn2x256Lo = 1.90821492927058770002e-10 / 256
	expMagic     = 6755399441055744.0 // 1.5·2^52: adding it rounds to an integer
	expMin       = -708.0             // below: subnormal results
	expMax       = 709.0              // above: near overflow
)

// Exp returns e^x with a relative error below 1e-15 (tested against
// math.Exp; typically 2.5 times faster).
//
// Method: x = (256m + j)·ln2/256 + r with integers m, j ∈ [0,256) and
// |r| ≤ ln2/512, so e^x = 2^m · 2^{j/256} · e^r. The table holds 2^{j/256};
// e^r − 1 = r + r²/2 + r³/6 + r⁴/24 has truncation error |r|⁵/120 < 4e-17;
// 2^m is added to the exponent field. Arguments outside [−708, 709]
// (subnormal or overflowing results, ±Inf, NaN) go to math.Exp.
func Exp(x float64) float64 {
	if !(x >= expMin && x <= expMax) {
		return math.Exp(x)
	}
	t := x*expInvLn2x256 + expMagic
	n := int64(math.Float64bits(t) - math.Float64bits(expMagic))
	kf := t - expMagic
	r := x - kf*expLn2x256Hi - kf*expLn2x256Lo
	r2 := r * r
	p := r + r2*(0.5+r*(1.0/6)+r2*(1.0/24))
	s := math.Float64frombits(expTableBits[n&255] + uint64(n>>8)<<52)
	return s + s*p
}

// expNegAbs sets dst[j] = e^{−β|x[j]|} for β ≥ 0, with the method of Exp
// written out in the loop (the compiler does not inline Exp) and without a
// branch: an argument below −708 (or a NaN) is clamped to −708, giving
// e^{−708} ≈ 3.3e-308 instead of a smaller number. The callers use the value
// only in 1+e and in Bernoulli comparisons at 2^{−32} resolution, where the
// difference cannot show.
//
// On amd64 with AVX2 the leading multiple of 4 entries go through the
// assembly kernel, which does the same operations in the same order (same
// bits; exp_amd64.s).
func expNegAbs(dst, x []float64, beta float64) {
	x = x[:len(dst)]
	j0 := expNegAbsAsm(dst, x, beta)
	nb := -beta
	for j := j0; j < len(x); j++ {
		xj := x[j]
		a := nb * math.Abs(xj)
		if !(a >= expMin) {
			a = expMin
		}
		t := a*expInvLn2x256 + expMagic
		n := int64(math.Float64bits(t) - math.Float64bits(expMagic))
		kf := t - expMagic
		r := a - kf*expLn2x256Hi - kf*expLn2x256Lo
		r2 := r * r
		p := r + r2*(0.5+r*(1.0/6)+r2*(1.0/24))
		s := math.Float64frombits(expTableBits[n&255] + uint64(n>>8)<<52)
		dst[j] = s + s*p
	}
}

// sigmoids sets p_j = σ(x_j) (p may alias x) with one exp per element:
// e = e^{−|x|}, σ = 1/(1+e) for x ≥ 0 and e/(1+e) for x < 0, the factor
// chosen by the sign bit without a branch (x = −0 gives e/(1+e) = ½).
func sigmoids(p, x []float64) {
	p = p[:len(x)]
	j0 := sigmoidAsm(p, x)
	var e [64]float64
	for lo := j0; lo < len(x); lo += len(e) {
		xs := x[lo:min(lo+len(e), len(x))]
		es := e[:len(xs)]
		expNegAbs(es, xs, 1)
		for j, xj := range xs {
			ej := es[j]
			neg := math.Float64bits(xj) >> 63
			f := math.Float64frombits(oneBits ^ ((oneBits ^ math.Float64bits(ej)) & -neg))
			p[lo+j] = f / (1 + ej)
		}
	}
}

// oneBits is the bit pattern of 1.0.
var oneBits = math.Float64bits(1)
