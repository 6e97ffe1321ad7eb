//go:build amd64 && !purego

package sigpair

import (
	"math"

	"golang.org/x/sys/cpu"
)

// useAVX2 selects the assembly kernels; the tests switch it off to compare.
var useAVX2 = cpu.X86.HasAVX2

// The product kernels run one group of four lanes over elements [0, n),
// the …Dot variant also accumulating the dot product with x
// (sigpair_amd64.s). The lanes of element i start stride bytes after
// those of element i−1; bad points at the group's bad bits of block 0,
// those of the next block badStep bytes on.
//
//go:noescape
func prod1AVX2(t, s, x, w, ep, en *float64, stride, n int, sel *uint64, p *float64, exp *int64, dot *float64, bad *uint8, badStep int, c *[5][4]uint64) bool

//go:noescape
func prod1DotAVX2(t, s, x, w, ep, en *float64, stride, n int, sel *uint64, p *float64, exp *int64, dot *float64, bad *uint8, badStep int, c *[5][4]uint64) bool

// shiftAVX2k is Shift on elements [0, n) (sigpair_amd64.s).
//
//go:noescape
func shiftAVX2k(a, s, t, w, ep, en *float64, stride, n int, d *[4]float64, sel *[4]uint64, fb *uint8, c *[4][4]uint64) bool

// prod2AVX2k is Prod2 (sigpair_amd64.s): bit 0 of the result is A's
// report, bit 1 B's.
//
//go:noescape
func prod2AVX2k(tA, sA, tB, sB, ep, en *float64, n int, selA, selB *uint64, pA *float64, expA *int64, badA *uint8, pB *float64, expB *int64, badB *uint8) uint8

// prodConsts: ProdLo, ProdHi, the fraction mask, the exponent field of ½
// (1022), and 1022 as an integer, four lanes each.
var prodConsts [5][4]uint64

// shiftConsts: the mask of |x|, Extreme, MaxFloat64, 1.
var shiftConsts [4][4]uint64

func init() {
	vals := [5]uint64{math.Float64bits(ProdLo), math.Float64bits(ProdHi), 1<<52 - 1, 1022 << 52, 1022}
	for k, v := range vals {
		prodConsts[k] = [4]uint64{v, v, v, v}
	}
	sv := [4]uint64{1<<63 - 1, math.Float64bits(Extreme), math.Float64bits(math.MaxFloat64), math.Float64bits(1)}
	for k, v := range sv {
		shiftConsts[k] = [4]uint64{v, v, v, v}
	}
}

// prodAVX2 runs the groups one at a time.
func prodAVX2(ng int, a *ProdArgs) bool {
	n := len(a.EP)
	var x, w *float64
	k := prod1AVX2
	if a.X != nil {
		x, w = &a.X[0], &a.W[0]
		k = prod1DotAVX2
	}
	any := false
	for g := range ng {
		o := 4 * g
		if x != nil {
			x = &a.X[o]
		}
		if k(&a.T[o], &a.S[o], x, w, &a.EP[0], &a.EN[0], 8*a.Stride, n, &a.Sel[o], &a.P[o], &a.Exp[o], &a.Dot[o], &a.Bad[g], ng, &prodConsts) {
			any = true
		}
	}
	return any
}

func shiftAVX2(a *ShiftArgs) bool {
	return shiftAVX2k(&a.A[0], &a.S[0], &a.T[0], &a.W[0], &a.EP[0], &a.EN[0], 8*a.Stride, len(a.W), &a.D, &a.Sel, &a.Fb[0], &shiftConsts)
}

func prod2AVX2(a, b *ProdArgs) (bool, bool) {
	r := prod2AVX2k(&a.T[0], &a.S[0], &b.T[0], &b.S[0], &a.EP[0], &a.EN[0], len(a.EP), &a.Sel[0], &b.Sel[0],
		&a.P[0], &a.Exp[0], &a.Bad[0], &b.P[0], &b.Exp[0], &b.Bad[0])
	return r&1 != 0, r&2 != 0
}
