// Package expvec computes exponentials and sigmoids of float64 vectors
// four at a time with the bits of the scalar code they replace: math.Exp,
// as Go computes it on amd64 with FMA (Shibata's reduction and Taylor
// series, the same fused operations in the same order), and the
// additions, divisions and products around it. Lanes whose argument math.Exp would treat specially (NaN,
// below −708: subnormal or zero results) go through math.Exp itself. On
// other machines, without FMA, or with the build tag purego, everything is
// the scalar loop.
package kernel

import "math"

// run applies the assembly kernel k to a, then the scalar f to the block
// of four (or the tail) it stopped at, and so on.
func run(a []float64, k func(i int) int, f func(lo, hi int)) {
	i := 0
	for i < len(a) {
		i += k(i)
		if i >= len(a) {
			return
		}
		e := min(i+4, len(a)) // a block of four the assembly left, or the tail
		f(i, e)
		i = e
	}
}

// Exp sets dst[i] to math.Exp(x[i]), the same bits.
func Exp(dst, x []float64) {
	dst = dst[:len(x)]
	run(x, func(i int) int { return expAsm(dst[i:], x[i:]) }, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			dst[i] = math.Exp(x[i])
		}
	})
}

// SigPair sets s[i], t[i] to σ(a[i]), σ(−a[i]) computed as
//
//	e := math.Exp(−|a|);  r := 1/(1 + e);  (s, t) = (r, e·r) if a ≥ 0, else (e·r, r)
//
// with the same bits.
func SigPair(s, t, a []float64) {
	s, t = s[:len(a)], t[:len(a)]
	run(a, func(i int) int { return sigPairAsm(s[i:], t[i:], a[i:]) }, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			e := math.Exp(-math.Abs(a[i]))
			r := 1 / (1 + e)
			if a[i] >= 0 {
				s[i], t[i] = r, e*r
			} else {
				s[i], t[i] = e*r, r
			}
		}
	})
}

// Sigmoid sets dst[i] to σ(x[i]) computed as nmath.Sigmoid does — 1/(1 +
// math.Exp(−x)) for x ≥ 0, e/(1 + e) with e = math.Exp(x) otherwise —
// with the same bits.
func Sigmoid(dst, x []float64) {
	dst = dst[:len(x)]
	run(x, func(i int) int { return sigmoidAsm(dst[i:], x[i:]) }, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			if x[i] >= 0 {
				dst[i] = 1 / (1 + math.Exp(-x[i]))
			} else {
				e := math.Exp(x[i])
				dst[i] = e / (1 + e)
			}
		}
	})
}

// SigmoidBern sets dst[i] to σ(a[i]) computed as
//
//	e := math.Exp(−|a|);  r := 1/(1 + e);  σ = r if a > 0, else e·r
//
// with the same bits (the σ of bernTerm, without the softplus).
func SigmoidBern(dst, a []float64) {
	dst = dst[:len(a)]
	run(a, func(i int) int { return sigmoidBernAsm(dst[i:], a[i:]) }, func(lo, hi int) { sigmoidBernGo(dst[lo:hi], a[lo:hi]) })
}

func sigmoidBernGo(dst, a []float64) {
	for i, x := range a {
		e := math.Exp(-math.Abs(x))
		r := 1 / (1 + e)
		if x > 0 {
			dst[i] = r
		} else {
			dst[i] = e * r
		}
	}
}
