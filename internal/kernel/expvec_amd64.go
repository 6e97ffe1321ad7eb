//go:build amd64 && !purego

package kernel

import "golang.org/x/sys/cpu"

// expvecAVX2 selects the assembly, which repeats math.Exp's FMA path: only
// where math.Exp takes it (AVX and FMA) and AVX2 is there. The tests
// switch it off to compare.
var expvecAVX2 = cpu.X86.HasAVX2 && cpu.X86.HasAVX && cpu.X86.HasFMA

// sigmoidBern4AVX2 applies SigmoidBern to blocks of four of a[:n] (n a
// multiple of 4) until a block has a lane below −708 in −|a| or NaN, and
// returns how many entries it did (expvec_amd64.s).
//
//go:noescape
func sigmoidBern4AVX2(dst, a *float64, n int) int

// expAVX2, sigPairAVX2 and sigmoidAVX2 are Exp, SigPair and Sigmoid on
// blocks of four, as sigmoidBern4AVX2 (the exponent's argument below −708
// or above 708, or NaN, stops them).
//
//go:noescape
func expAVX2(dst, x *float64, n int) int

//go:noescape
func sigPairAVX2(s, t, a *float64, n int) int

//go:noescape
func sigmoidAVX2(dst, x *float64, n int) int

func expAsm(dst, x []float64) int {
	n := len(x) &^ 3
	if !expvecAVX2 || n == 0 {
		return 0
	}
	_ = dst[n-1]
	return expAVX2(&dst[0], &x[0], n)
}

func sigPairAsm(s, t, a []float64) int {
	n := len(a) &^ 3
	if !expvecAVX2 || n == 0 {
		return 0
	}
	_, _ = s[n-1], t[n-1]
	return sigPairAVX2(&s[0], &t[0], &a[0], n)
}

func sigmoidAsm(dst, x []float64) int {
	n := len(x) &^ 3
	if !expvecAVX2 || n == 0 {
		return 0
	}
	_ = dst[n-1]
	return sigmoidAVX2(&dst[0], &x[0], n)
}

func sigmoidBernAsm(dst, a []float64) int {
	n := len(a) &^ 3
	if !expvecAVX2 || n == 0 {
		return 0
	}
	_ = dst[n-1]
	return sigmoidBern4AVX2(&dst[0], &a[0], n)
}
