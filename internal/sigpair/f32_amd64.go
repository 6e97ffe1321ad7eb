//go:build amd64 && !purego

package sigpair

import "math"

// prod32AVX2k is Prod32 on one group (f32_amd64.s); x nil: no dot product.
//
//go:noescape
func prod32AVX2k(t, s, x *float32, w *float64, ep, en *float32, n int, sel *[8]uint32, p *[8]float64, exp *[8]int64, dot *[8]float64, bad *uint8) bool

// shiftProd32AVX2k is ShiftProd32 (f32_amd64.s); pep nil: the update
// alone. Bit 0 of the result: a lane fell back; bit 1: a block was bad.
//
//go:noescape
func shiftProd32AVX2k(a, s, t, w, ep, en *float32, n int, d *[8]float32, sel *[8]uint32, fb *uint8, pep, pen *float32, psel *[8]uint32, p *[8]float64, exp *[8]int64, bad *uint8) uint8

// shift32Consts: the mask of |x|, Extreme32, MaxFloat32, 1, 0 (eight lanes each).
var shift32Consts [5][8]uint32

func init() {
	sv := [5]uint32{1<<31 - 1, math.Float32bits(Extreme32), math.Float32bits(math.MaxFloat32), math.Float32bits(1), 0}
	for k, v := range sv {
		for q := range 8 {
			shift32Consts[k][q] = v
		}
	}
}

func prod32AVX2(a *Prod32Args) bool {
	var x *float32
	var w *float64
	if a.X != nil {
		x, w = &a.X[0], &a.W[0]
	}
	return prod32AVX2k(&a.T[0], &a.S[0], x, w, &a.EP[0], &a.EN[0], len(a.EP), a.Sel, a.P, a.Exp, a.Dot, &a.Bad[0])
}

func shiftProd32AVX2(sh *Shift32Args, pr *Prod32Args) (bool, bool) {
	var r uint8
	if pr == nil {
		r = shiftProd32AVX2k(&sh.A[0], &sh.S[0], &sh.T[0], &sh.W[0], &sh.EP[0], &sh.EN[0], len(sh.W), &sh.D, &sh.Sel, &sh.Fb[0], nil, nil, nil, nil, nil, nil)
	} else {
		r = shiftProd32AVX2k(&sh.A[0], &sh.S[0], &sh.T[0], &sh.W[0], &sh.EP[0], &sh.EN[0], len(sh.W), &sh.D, &sh.Sel, &sh.Fb[0], &pr.EP[0], &pr.EN[0], pr.Sel, pr.P, pr.Exp, &pr.Bad[0])
	}
	return r&1 != 0, r&2 != 0
}
