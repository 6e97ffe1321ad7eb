// Package logistic computes the logistic sigmoid σ(x) = 1/(1+e^{−x}) of
// float32 vectors with one exp per element, for the float32 RBM trainer. On
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
package logistic

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

// Sigmoid sets p_j = σ(x_j) for every j < len(x) (p may alias x).
func Sigmoid(p, x []float32) {
	p = p[:len(x)]
	j := sigmoidAsm(p, x)
	sigmoidGo(p[j:], x[j:])
}

// sigmoidGo is the portable loop. Every product that feeds an addition is
// converted to float32 explicitly, which forbids the compiler to fuse them
// (the assembly does not fuse either).
func sigmoidGo(p, x []float32) {
	p = p[:len(x)]
	for j, xj := range x {
		a := math.Float32frombits(math.Float32bits(xj) | 1<<31)
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
		e := s + float32(s*q)
		f := float32(1)
		if math.Float32bits(xj)>>31 != 0 {
			f = e
		}
		p[j] = f / (1 + e)
	}
}
