//go:build amd64 && !purego

package sigpair

import "math"

// prod32AVX2k is Prod32 on one group (f32_amd64.s); x nil: no dot product.
//
//go:noescape
func prod32AVX2k(t, s, x *float32, w *float64, ep, en *float32, n int, sel *[8]uint32, p *[8]float64, exp *[8]int64, dot *[8]float64, bad *uint8) bool

// shift32AVX2k is Shift32 (f32_amd64.s).
//
//go:noescape
func shift32AVX2k(a, s, t, w, ep, en *float32, n int, d *[8]float32, sel *[8]uint32, fb *uint8) bool

// shift32Consts: the mask of |x|, Extreme8, MaxFloat32, 1, 0 (eight
// lanes each).
var shift32Consts [5][8]uint32

func init() {
	sv := [5]uint32{1<<31 - 1, math.Float32bits(Extreme8), math.Float32bits(math.MaxFloat32), math.Float32bits(1), 0}
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

func shift32AVX2(sh *Shift32Args) bool {
	return shift32AVX2k(&sh.A[0], &sh.S[0], &sh.T[0], &sh.W[0], &sh.EP[0], &sh.EN[0], len(sh.W), &sh.D, &sh.Sel, &sh.Fb[0])
}

// rhoAVX2k is Rho (f32_amd64.s): ep nil: the product alone; pep nil: the
// update alone. The low byte of the result is fell, bit 8 the product's
// report.
//
//go:noescape
func rhoAVX2k(r, ep, en *float32, n int, flip, sel *[8]uint32, pep, pen *float32, psel *[8]uint32, p *[8]float64, exp *[8]int64, bad *uint8, c *[8][8]uint32) uint16

// rhoConsts: RhoLo, RhoHi, 1 (eight lanes each).
var rhoConsts [8][8]uint32

func init() {
	for q := range 8 {
		rhoConsts[0][q], rhoConsts[1][q], rhoConsts[2][q] = math.Float32bits(RhoLo), math.Float32bits(RhoHi), math.Float32bits(1)
	}
}

// rhoAVX2 runs Rho (sh not nil) and/or RhoProd (pr not nil).
func rhoAVX2(sh, pr *RhoArgs) uint16 {
	var ep, en, pep, pen, r *float32
	var flip, sel, psel *[8]uint32
	var p *[8]float64
	var exp *[8]int64
	var bad *uint8
	n := 0
	if sh != nil {
		r, ep, en, flip, sel, n = &sh.R[0], &sh.EP[0], &sh.EN[0], sh.Flip, sh.Sel, len(sh.EP)
	}
	if pr != nil {
		r, pep, pen, psel, p, exp, bad, n = &pr.R[0], &pr.EP[0], &pr.EN[0], pr.Sel, pr.P, pr.Exp, &pr.Bad[0], len(pr.EP)
	}
	return rhoAVX2k(r, ep, en, n, flip, sel, pep, pen, psel, p, exp, bad, &rhoConsts)
}
