// Package logistic computes the logistic sigmoid σ(x) = 1/(1+e^{−x}) of
// float32 vectors with one exp per element, for the float32 RBM trainer, and
// (ExpNegAbs32) e^{−β|x|} for the float32 annealing chains. On
// amd64 with AVX2 eight elements go at a time in assembly that performs the
// float32 operations of the Go loop in the same order (no fused
// multiply-add), so the results are the same bits (build tag purego: Go
// only).
//
// Method: with a = −|x| (clamped at −87, where e^a ≈ 1.6e-38 is still a
// normal float32), e = e^a, and σ(x) = 1/(1+e) for x ≥ 0 and e/(1+e) for
// x < 0, the factor chosen by the sign bit of x (so σ(−0) = ½ as well).
// e^a: a = (8m + j)·ln2/8 + r with integers m, j ∈ [0,8) and |r| ≤ ln2/16,
// so e^a = 2^m · 2^{j/8} · e^r; the table holds 2^{j/8}, 2^m is an integer
// addition to the exponent field, and e^r − 1 = r + r²/2 + r³/6 + r⁴/24
// has truncation error |r|⁵/120 < 1.3e-9, far below float32's 6e-8. The
// relative error of σ is a few float32 ulps (tested against float64).
package kernel

import "math"

// Constants of the float32 exp, shared with the assembly through consts.
const (
	expMin       = -87.0               // e^{−87} ≈ 1.6e-38 > the smallest normal 1.2e-38
	expC         = 8 / math.Ln2        // 8/ln2: a·expC ∈ [−1005, 0]
	expMagic     = 12582912.0          // 1.5·2^23: adding it rounds a float32 in (−2^22, 2^22) to an integer
	expHi        = 11357.0 / (1 << 17) // ln2/8 to 14 bits, so that kf·expHi is exact for |kf| < 2^10
	expLo        = math.Ln2/8 - expHi  // the rest of ln2/8
	sixth        = float32(1.0 / 6)
	twentyFourth = float32(1.0 / 24)
)

// consts are the eight-lane constants of the kernel, in the order the
// assembly reads them: sign bit, expMin, expC, expMagic, expHi, expLo, ½,
// 1/6, 1/24, 1, the table 2^{j/8}.
var consts [11][8]float32

// tableBits[j] holds the bits of 2^{j/8} rounded to float32.
var tableBits [8]uint32

func init() {
	vals := []float32{math.Float32frombits(1 << 31), expMin, expC, expMagic, expHi, float32(expLo), 0.5, sixth, twentyFourth, 1}
	for k, v := range vals {
		for l := range consts[k] {
			consts[k][l] = v
		}
	}
	for j := range tableBits {
		v := float32(math.Exp2(float64(j) / 8))
		tableBits[j] = math.Float32bits(v)
		consts[10][j] = v
	}
}

// Sigmoid32 sets p_j = σ(x_j) for every j < len(x) (p may alias x).
func Sigmoid32(p, x []float32) {
	p = p[:len(x)]
	j := sigmoid32Asm(p, x)
	sigmoidGo(p[j:], x[j:])
}

// sigmoidGo is the portable loop. Every product that feeds an addition is
// converted to float32 explicitly, which forbids the compiler to fuse them
// (the assembly does not fuse either).
func sigmoidGo(p, x []float32) {
	p = p[:len(x)]
	for j, xj := range x {
		e := expNegAbs(xj)
		f := float32(1)
		if math.Float32bits(xj)>>31 != 0 {
			f = e
		}
		p[j] = f / (1 + e)
	}
}

// expNegAbs is e^{−|x|} with −|x| clamped at expMin (a NaN too), the
// exponential of the package comment.
func expNegAbs(xj float32) float32 {
	return expClamped(math.Float32frombits(math.Float32bits(xj) | 1<<31))
}

// ExpNegAbs32 sets dst[j] = e^{−β|x[j]|} for β ≥ 0 with the float32
// exponential of the package comment (the argument −β|x| rounded to
// float32 and clamped at −87, a NaN too): the exp of the float32 annealing
// chains. On amd64 with AVX2 the leading multiple of 8 entries go through
// the assembly, which does the same float32 operations in the same order,
// so the same bits.
func ExpNegAbs32(dst, x []float32, beta float32) {
	x = x[:len(dst)]
	j0 := expNegAbs32Asm(dst, x, beta)
	for j := j0; j < len(x); j++ {
		dst[j] = expClamped(float32(math.Float32frombits(math.Float32bits(x[j])|1<<31) * beta))
	}
}

// expClamped is e^a for a ≤ 0 clamped at expMin (a NaN too), the
// exponential of the package comment: the one float32 exp of the package.
func expClamped(a float32) float32 {
	if !(a >= expMin) {
		a = expMin
	}
	t := float32(a*expC) + expMagic
	n := int32(math.Float32bits(t) - math.Float32bits(expMagic))
	kf := t - expMagic
	r := (a - float32(kf*expHi)) - float32(kf*float32(expLo))
	r2 := float32(r * r)
	q := r + float32(r2*((0.5+float32(r*sixth))+float32(r2*twentyFourth)))
	s := math.Float32frombits(tableBits[n&7] + uint32(n>>3)<<23)
	return s + float32(s*q)
}

// logLikBlock is the most entries whose factors 1 + e_j ∈ (1, 2] one
// product holds: eight lanes of at most 125 factors each, whose product is
// below 2^1000, short of float64's overflow.
const logLikBlock = 1000

// LogLik32 sets p_j = σ(a_j), the same bits as Sigmoid32, and returns the
// Bernoulli log-likelihood of the binary x (every x_j 0 or 1) under the
// logits a, Σ_j x_j·a_j − softplus(a_j), accumulated in float64. With
// e_j = e^{−|a_j|} (the exponential σ uses, clamped as there) softplus(a_j) =
// max(a_j, 0) + log(1 + e_j), so
//
//	Σ_j x_j a_j − softplus(a_j) = Σ_j (x_j a_j − max(a_j, 0)) − log Π_j (1 + e_j):
//
// the first sum's terms are exact in float32 and added in float64, the
// factors 1 + e_j ∈ (1, 2] are multiplied in float64 and one log is taken
// per logLikBlock entries. Entry j goes to lane j mod 8 of eight partial
// sums and products, combined in a fixed order, so the AVX2 kernel (eight
// lanes at a time) and the Go loop give the same bits. The error against
// float64 arithmetic on the same float32 logits is that of 1 + e_j in
// float32, at most a few 1e-8 per entry. p may alias a; x must not alias p.
func LogLik32(p, a, x []float32) float64 {
	p, x = p[:len(a)], x[:len(a)]
	lp := 0.0
	for lo := 0; lo < len(a); lo += logLikBlock {
		hi := min(lo+logLikBlock, len(a))
		acc := [16]float64{8: 1, 9: 1, 10: 1, 11: 1, 12: 1, 13: 1, 14: 1, 15: 1}
		j := logLikAsm(p[lo:hi], a[lo:hi], x[lo:hi], &acc)
		logLikGo(p[lo+j:hi], a[lo+j:hi], x[lo+j:hi], &acc)
		s := ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]))
		q := ((acc[8] * acc[9]) * (acc[10] * acc[11])) * ((acc[12] * acc[13]) * (acc[14] * acc[15]))
		lp += s - math.Log(q)
	}
	return lp
}

// logLikGo is the loop of LogLik32 from an entry in lane 0: acc[0…7] the
// lanes' sums, acc[8…15] their products.
func logLikGo(p, a, x []float32, acc *[16]float64) {
	p, x = p[:len(a)], x[:len(a)]
	for j, aj := range a {
		e := expNegAbs(aj)
		f := float32(1)
		if math.Float32bits(aj)>>31 != 0 {
			f = e
		}
		one := 1 + e
		p[j] = f / one
		m := aj
		if !(m > 0) {
			m = 0
		}
		z := float32(x[j]*aj) - m
		acc[j&7] += float64(z)
		acc[8+j&7] *= float64(one)
	}
}
