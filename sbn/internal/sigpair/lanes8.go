package sigpair

import (
	"math"

	"github.com/logz-ml/logz/internal/kernel"
)

// The kernels of eight lanes (a group), generic over the precision F of
// the σ pairs, the activations, the odds and the tabulated exponentials
// (kernel.Float): a lane's factor t + s·e is formed in F and multiplied
// into a float64 running product (so a block of BlockLen factors has
// float64's range, with the same ProdLo, ProdHi and renormalisation as
// Prod), and a dot product of F states with float64 weights is summed in
// float64. The lanes of element i are [8i, 8i+8): one group stored
// contiguously. In float32 the group is one AVX2 register (assembly on
// amd64, the Go loops' bits); float64 runs the Go loops.

// Lanes8 is the number of lanes of a group.
const Lanes8 = 8

// Extreme8 bounds the |a| whose σ(±a) a lane keeps and the |w| whose e^{±w}
// enter its products: σ(−80) ≈ 1.8e−35 and e^{80} ≈ 5.5e34 are normal
// float32 numbers with room for a factor t + s·e.
const Extreme8 = 80

// Prod8Args are the operands of Prod8 for one group of n = len(EP)
// elements (lane q of element i at [8i + q]):
//
//	T, S      σ(−a), σ(a) of the elements
//	EP, EN    e^{w_i}, e^{−w_i}: lane q uses EN where Sel[q]'s top bit is set
//	X, W      if X is not nil: Dot[q] += float64(X[8i+q])·W[i], in order
//	P, Exp    each lane's running product P·2^Exp
//	Bad       Bad[b] gets bit q set when block b of lane q left the safe
//	          range (its product was discarded)
type Prod8Args[F kernel.Float] struct {
	T, S   []F
	EP, EN []F
	Sel    *[8]uint32
	X      []F
	W      []float64
	P      *[8]float64
	Exp    *[8]int64
	Dot    *[8]float64
	Bad    []uint8
}

// Prod32Args are the float32 operands (the assembly's).
type Prod32Args = Prod8Args[float32]

// Shift8Args are the operands of Shift8 for one group: A, S, T the
// activations and σ pairs (lane q of element i at [8i + q]), W the flipped
// unit's outgoing row with e^{W} in EP and e^{−W} in EN.
//
//	D     the change of the unit's state per lane (+1, −1; 0: no flip)
//	Sel   lane q uses EN where Sel[q]'s top bit is set (the unit was 1)
//	Fb    Fb[i] gets bit q set when lane q of element i needs its σ pair
//	      recomputed from a (the caller's fallback)
type Shift8Args[F kernel.Float] struct {
	A, S, T []F
	W       []F
	EP, EN  []F
	D       [8]F
	Sel     [8]uint32
	Fb      []uint8
}

// Shift32Args are the float32 operands (the assembly's).
type Shift32Args = Shift8Args[float32]

// Prod8 is Prod32 in precision F.
func Prod8[F kernel.Float](a *Prod8Args[F]) bool {
	if a32, ok := any(a).(*Prod32Args); ok {
		return Prod32(a32)
	}
	if len(a.EP) == 0 {
		return false
	}
	return prod8Go(a)
}

// Shift8 is Shift32 in precision F (with F's largest finite number in
// place of math.MaxFloat32).
func Shift8[F kernel.Float](sh *Shift8Args[F]) bool {
	if s32, ok := any(sh).(*Shift32Args); ok {
		return Shift32(s32)
	}
	if len(sh.W) == 0 {
		return false
	}
	return shift8Go(sh)
}

// RhoProd8 is RhoProd in precision F.
func RhoProd8[F kernel.Float](pr *Rho8Args[F]) bool {
	if p32, ok := any(pr).(*RhoArgs); ok {
		return RhoProd(p32)
	}
	if len(pr.EP) == 0 {
		return false
	}
	return rhoProdGo(pr)
}

// Rho8 is Rho in precision F (ρ's bounds e^{∓Extreme8} rounded to F).
func Rho8[F kernel.Float](sh, pr *Rho8Args[F]) (fell uint8, bad bool) {
	if s32, ok := any(sh).(*RhoArgs); ok {
		p32, _ := any(pr).(*RhoArgs)
		return Rho(s32, p32)
	}
	if len(sh.EP) == 0 {
		return 0, false
	}
	if pr != nil {
		return rhoFusedGo(sh, pr)
	}
	return rhoGo(sh), false
}

// maxOf is F's largest finite number.
func maxOf[F kernel.Float]() F {
	if kernel.Of[F]() == kernel.Float32 {
		return F(float32(math.MaxFloat32))
	}
	m := math.MaxFloat64
	return F(m)
}

// rhoBounds are RhoLo, RhoHi in F.
func rhoBounds[F kernel.Float]() (F, F) {
	return F(math.Exp(-Extreme8)), F(math.Exp(Extreme8))
}

// Prod32 multiplies, for every lane q, the factors float32(t_i + s_i·e_i)
// into a float64 product in blocks of BlockLen, renormalised as Prod does;
// it reports whether any block of any lane was bad.
func Prod32(a *Prod32Args) bool {
	n := len(a.EP)
	if n == 0 {
		return false
	}
	_, _, _ = a.EN[:n], a.T[:8*n], a.S[:8*n]
	if a.X != nil {
		_, _ = a.X[:8*n], a.W[:n]
	}
	_ = a.Bad[:(n+BlockLen-1)/BlockLen]
	if useAVX2 {
		return prod32AVX2(a)
	}
	return prod8Go(a)
}

// Shift32 adds D[q]·w_i to a_i of every lane q with D[q] ≠ 0 and updates
// its σ pair without an exp: with e = e^{D[q]·w_i} and r = t + s·e in
// float32, s ← s·(e·(1/r)), t ← t·(1/r) when 0 < r ≤ MaxFloat32 and the
// new |a| ≤ Extreme8, else s, t are left and the lane's bit set in Fb
// (the caller recomputes them from a). It reports whether any bit of Fb
// was set.
func Shift32(sh *Shift32Args) bool {
	n := len(sh.W)
	if n == 0 {
		return false
	}
	_, _, _ = sh.EP[:n], sh.EN[:n], sh.Fb[:n]
	_, _, _ = sh.A[:8*n], sh.S[:8*n], sh.T[:8*n]
	if useAVX2 {
		return shift32AVX2(sh)
	}
	return shift8Go(sh)
}

// prod8Go is Prod8 in Go; every product that feeds an addition is
// converted explicitly, which forbids the compiler to fuse them. The lanes
// go side by side (independent products), each with the operations of
// the assembly in its order.
func prod8Go[F kernel.Float](a *Prod8Args[F]) bool {
	n := len(a.EP)
	_, _, _ = a.EN[:n], a.T[:8*n], a.S[:8*n]
	var e [8][]F
	var r, dot [8]float64
	if a.X != nil {
		dot = *a.Dot
	}
	for q := range 8 {
		e[q] = a.EP
		if a.Sel[q]>>31 != 0 {
			e[q] = a.EN
		}
		e[q] = e[q][:n]
	}
	any := false
	for lo, b := 0, 0; lo < n; lo, b = lo+BlockLen, b+1 {
		hi := min(lo+BlockLen, n)
		r = *a.P
		for i := lo; i < hi; i++ {
			t, s := a.T[8*i:8*i+8], a.S[8*i:8*i+8]
			if a.X != nil {
				x, w := a.X[8*i:8*i+8], a.W[i]
				for q := range 8 {
					dot[q] += float64(float64(x[q]) * w)
				}
			}
			for q := range 8 {
				r[q] *= float64(t[q] + F(s[q]*e[q][i]))
			}
		}
		for q := range 8 {
			if !endBlock(r[q], &a.P[q], &a.Exp[q]) {
				a.Bad[b] |= 1 << q
				any = true
			}
		}
	}
	if a.X != nil {
		*a.Dot = dot
	}
	return any
}

// shift8Go is Shift8's update in Go (see prod8Go), the lanes side by
// side.
func shift8Go[F kernel.Float](a *Shift8Args[F]) bool {
	n := len(a.W)
	W, ep, en, fb := a.W, a.EP[:n], a.EN[:n], a.Fb[:n]
	A, S, T := a.A[:8*n], a.S[:8*n], a.T[:8*n]
	top := maxOf[F]()
	var useN [8]bool
	for q := range 8 {
		useN[q] = a.Sel[q]>>31 != 0
	}
	any := false
	for i, w := range W {
		ai, si, ti := (*[8]F)(A[8*i:8*i+8]), (*[8]F)(S[8*i:8*i+8]), (*[8]F)(T[8*i:8*i+8])
		for q := range 8 {
			d := a.D[q]
			if d == 0 {
				continue
			}
			e := ep[i]
			if useN[q] {
				e = en[i]
			}
			x := ai[q] + F(d*w)
			ai[q] = x
			r := ti[q] + F(si[q]*e)
			if r > 0 && r <= top && absF(x) <= Extreme8 {
				inv := 1 / r
				si[q] *= F(e * inv)
				ti[q] *= inv
			} else {
				fb[i] |= 1 << q
				any = true
			}
		}
	}
	return any
}

// absF is |x| (NaN for NaN).
func absF[F kernel.Float](x F) F {
	if x < 0 {
		return -x
	}
	return x
}

// The odds form of a float32 lane's visible layer: each element keeps ρ =
// e^{a} (in F, NaN where |a| > Extreme8) instead of its σ pair, so that
// softplus(a + w) = log(1 + ρ·e^{w}): a flip multiplies ρ by e^{±w} (no
// division) and a unit's row gives the product Π (1 + ρ_i·e^{±w_i}) =
// exp Σ softplus(a_i ± w_i), from which the caller subtracts Σ
// softplus(a_i), which it keeps.

// RhoLo and RhoHi bound the ρ a lane keeps: e^{∓Extreme8} in float32. A ρ
// outside (or NaN) is recomputed by the caller.
var (
	RhoLo = float32(math.Exp(-Extreme8))
	RhoHi = float32(math.Exp(Extreme8))
)

// Rho8Args are the operands of RhoProd8 and Rho8 for one group: R the ρ of
// n = len(EP) elements (lane q of element i at [8i + q]) and a row's
// e^{±w}.
//
//	Sel   all ones where the lane uses EN, else EP
//	Flip  (Rho) all ones where the lane's unit flips: ρ ← ρ·e
//	P, Exp, Bad  (RhoProd) as Prod32's
type Rho8Args[F kernel.Float] struct {
	R      []F
	EP, EN []F
	Sel    *[8]uint32
	Flip   *[8]uint32
	P      *[8]float64
	Exp    *[8]int64
	Bad    []uint8
}

// RhoArgs are the float32 operands (the assembly's).
type RhoArgs = Rho8Args[float32]

// RhoProd multiplies, for every lane q, the factors float32(1 + ρ_i·e_i)
// into a float64 product in blocks of BlockLen, renormalised as Prod does,
// four at a time: the float32 product of four consecutive factors of a
// block (of the one to three left at its end) is multiplied into the
// float64 one. It reports whether any block of any lane was bad.
func RhoProd(pr *RhoArgs) bool {
	n := len(pr.EP)
	if n == 0 {
		return false
	}
	_, _ = pr.EN[:n], pr.R[:8*n]
	_ = pr.Bad[:(n+BlockLen-1)/BlockLen]
	if useAVX2 {
		return rhoAVX2(nil, pr)>>8 != 0
	}
	return rhoProdGo(pr)
}

// Rho sets ρ ← ρ·e (float32) on every flipping lane of sh (e by sh.Sel)
// and, if pr is not nil, runs RhoProd(pr) on the updated ρ in the same pass
// (pr.R is sh.R). fell has bit q set when a new ρ of flipping lane q is
// outside [RhoLo, RhoHi] or NaN (the caller recomputes that lane's ρ from
// its activations, and its product); bad is RhoProd's report.
func Rho(sh, pr *RhoArgs) (fell uint8, bad bool) {
	n := len(sh.EP)
	if n == 0 {
		return 0, false
	}
	_, _ = sh.EN[:n], sh.R[:8*n]
	if pr != nil {
		if len(pr.EP) != n || &pr.R[0] != &sh.R[0] {
			panic("sigpair: Rho needs the product over the same elements")
		}
		_ = pr.EN[:n]
		_ = pr.Bad[:(n+BlockLen-1)/BlockLen]
	}
	if useAVX2 {
		r := rhoAVX2(sh, pr)
		return uint8(r), r>>8 != 0
	}
	if pr != nil {
		return rhoFusedGo(sh, pr)
	}
	return rhoGo(sh), false
}

// rhoGo is Rho's update in Go, the lanes side by side.
func rhoGo[F kernel.Float](a *Rho8Args[F]) uint8 {
	n := len(a.EP)
	ep, en, R := a.EP[:n], a.EN[:n], a.R[:8*n]
	rlo, rhi := rhoBounds[F]()
	var flip, useN [8]bool
	for q := range 8 {
		flip[q], useN[q] = a.Flip[q] != 0, a.Sel[q]>>31 != 0
	}
	var fell uint8
	for i := range n {
		rr := (*[8]F)(R[8*i : 8*i+8])
		for q := range 8 {
			if !flip[q] {
				continue
			}
			e := ep[i]
			if useN[q] {
				e = en[i]
			}
			r := rr[q] * e
			if !(r >= rlo && r <= rhi) {
				fell |= 1 << q
			}
			rr[q] = r
		}
	}
	return fell
}

// rhoFusedGo is rhoGo(sh) then rhoProdGo(pr) in one pass over ρ (each
// element's new ρ enters the product at once): the bits of the two.
func rhoFusedGo[F kernel.Float](sh, pr *Rho8Args[F]) (uint8, bool) {
	n := len(sh.EP)
	sep, sen, R := sh.EP[:n], sh.EN[:n], sh.R[:8*n]
	pep, pen := pr.EP[:n], pr.EN[:n]
	rlo, rhi := rhoBounds[F]()
	var flip, useN, puseN [8]bool
	for q := range 8 {
		flip[q], useN[q], puseN[q] = sh.Flip[q] != 0, sh.Sel[q]>>31 != 0, pr.Sel[q]>>31 != 0
	}
	var fell uint8
	any := false
	for lo, b := 0, 0; lo < n; lo, b = lo+BlockLen, b+1 {
		hi := min(lo+BlockLen, n)
		r := *pr.P
		for i4 := lo; i4 < hi; i4 += 4 {
			part := [8]F{1, 1, 1, 1, 1, 1, 1, 1}
			for i := i4; i < min(i4+4, hi); i++ {
				rr := (*[8]F)(R[8*i : 8*i+8])
				for q := range 8 {
					x := rr[q]
					if flip[q] {
						e := sep[i]
						if useN[q] {
							e = sen[i]
						}
						x *= e
						if !(x >= rlo && x <= rhi) {
							fell |= 1 << q
						}
						rr[q] = x
					}
					e := pep[i]
					if puseN[q] {
						e = pen[i]
					}
					part[q] *= 1 + F(x*e)
				}
			}
			for q := range 8 {
				r[q] *= float64(part[q])
			}
		}
		for q := range 8 {
			if !endBlock(r[q], &pr.P[q], &pr.Exp[q]) {
				pr.Bad[b] |= 1 << q
				any = true
			}
		}
	}
	return fell, any
}

// rhoProdGo is RhoProd in Go (see prod8Go): each run of four factors of
// a block (fewer at its end) is multiplied in F, starting from 1 (exact),
// then into the float64 product.
func rhoProdGo[F kernel.Float](a *Rho8Args[F]) bool {
	n := len(a.EP)
	ep, en, R := a.EP[:n], a.EN[:n], a.R[:8*n]
	var useN [8]bool
	for q := range 8 {
		useN[q] = a.Sel[q]>>31 != 0
	}
	any := false
	for lo, b := 0, 0; lo < n; lo, b = lo+BlockLen, b+1 {
		hi := min(lo+BlockLen, n)
		r := *a.P
		for i4 := lo; i4 < hi; i4 += 4 {
			part := [8]F{1, 1, 1, 1, 1, 1, 1, 1}
			for i := i4; i < min(i4+4, hi); i++ {
				rr := (*[8]F)(R[8*i : 8*i+8])
				for q := range 8 {
					e := ep[i]
					if useN[q] {
						e = en[i]
					}
					part[q] *= 1 + F(rr[q]*e)
				}
			}
			for q := range 8 {
				r[q] *= float64(part[q])
			}
		}
		for q := range 8 {
			if !endBlock(r[q], &a.P[q], &a.Exp[q]) {
				a.Bad[b] |= 1 << q
				any = true
			}
		}
	}
	return any
}

// endBlock ends a block whose product is r: when ProdLo < r < ProdHi it
// sets p to the fraction of math.Frexp(r) and adds its exponent to exp,
// else it reports the block bad (false) and leaves p and exp.
func endBlock(r float64, p *float64, exp *int64) bool {
	if r > ProdLo && r < ProdHi {
		f, x := math.Frexp(r)
		*p, *exp = f, *exp+int64(x)
		return true
	}
	return false
}
