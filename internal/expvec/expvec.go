// Package expvec computes sigmoids of float64 vectors four at a time with
// the bits of the scalar code they replace: math.Exp, as Go computes it on
// amd64 with FMA (Shibata's reduction and Taylor series, the same fused
// operations in the same order), and the additions, division and product
// around it. Lanes whose argument math.Exp would treat specially (NaN,
// below −708: subnormal or zero results) go through math.Exp itself. On
// other machines, without FMA, or with the build tag purego, everything is
// the scalar loop.
package expvec

import "math"

// SigmoidBern sets dst[i] to σ(a[i]) computed as
//
//	e := math.Exp(−|a|);  r := 1/(1 + e);  σ = r if a > 0, else e·r
//
// with the same bits (the σ of bernTerm, without the softplus).
func SigmoidBern(dst, a []float64) {
	dst = dst[:len(a)]
	i := 0
	for i < len(a) {
		i += sigmoidBernAsm(dst[i:], a[i:])
		if i >= len(a) {
			return
		}
		e := min(i+4, len(a)) // a block of four the assembly left, or the tail
		sigmoidBernGo(dst[i:e], a[i:e])
		i = e
	}
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
