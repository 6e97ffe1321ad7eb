package sigpair

import "math"

// The float32 kernels: eight lanes (a group) in one AVX2 register. The σ
// pairs, the activations and the tabulated exponentials are float32; a
// lane's factor t + s·e is formed in float32 and multiplied into a float64
// running product (so a block of BlockLen factors has float64's range, with
// the same ProdLo, ProdHi and renormalisation as Prod), and a dot product
// of float32 states with float64 weights is summed in float64. The lanes
// of element i are [8i, 8i+8): one group stored contiguously.

// Lanes32 is the number of lanes of a float32 group.
const Lanes32 = 8

// Extreme32 bounds the |a| whose σ(±a) a float32 lane keeps and the |w|
// whose e^{±w} enter its products: σ(−80) ≈ 1.8e−35 and e^{80} ≈ 5.5e34
// are normal float32 numbers with room for a factor t + s·e.
const Extreme32 = 80

// Prod32Args are the operands of Prod32 for one group of n = len(EP)
// elements (lane q of element i at [8i + q]):
//
//	T, S      σ(−a), σ(a) of the elements
//	EP, EN    e^{w_i}, e^{−w_i}: lane q uses EN where Sel[q]'s top bit is set
//	X, W      if X is not nil: Dot[q] += float64(X[8i+q])·W[i], in order
//	P, Exp    each lane's running product P·2^Exp
//	Bad       Bad[b] gets bit q set when block b of lane q left the safe
//	          range (its product was discarded)
type Prod32Args struct {
	T, S   []float32
	EP, EN []float32
	Sel    *[8]uint32
	X      []float32
	W      []float64
	P      *[8]float64
	Exp    *[8]int64
	Dot    *[8]float64
	Bad    []uint8
}

// Shift32Args are the operands of ShiftProd32 for one group: A, S, T the
// activations and σ pairs (lane q of element i at [8i + q]), W the flipped
// unit's outgoing row with e^{W} in EP and e^{−W} in EN.
//
//	D     the change of the unit's state per lane (+1, −1; 0: no flip)
//	Sel   lane q uses EN where Sel[q]'s top bit is set (the unit was 1)
//	Fb    Fb[i] gets bit q set when lane q of element i needs its σ pair
//	      recomputed from a (the caller's fallback)
type Shift32Args struct {
	A, S, T []float32
	W       []float32
	EP, EN  []float32
	D       [8]float32
	Sel     [8]uint32
	Fb      []uint8
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
	return prod32Go(a)
}

// Shift32 adds D[q]·w_i to a_i of every lane q with D[q] ≠ 0 and updates
// its σ pair without an exp: with e = e^{D[q]·w_i} and r = t + s·e in
// float32, s ← s·(e·(1/r)), t ← t·(1/r) when 0 < r ≤ MaxFloat32 and the
// new |a| ≤ Extreme32, else s, t are left and the lane's bit set in Fb
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
	return shift32Go(sh)
}

// prod32Go is Prod32 in Go; every product that feeds an addition is
// converted explicitly, which forbids the compiler to fuse them.
func prod32Go(a *Prod32Args) bool {
	n := len(a.EP)
	any := false
	for q := range 8 {
		e := a.EP
		if a.Sel[q]>>31 != 0 {
			e = a.EN
		}
		p, exp, dot := a.P[q], a.Exp[q], 0.0
		if a.X != nil {
			dot = a.Dot[q]
		}
		for lo, b := 0, 0; lo < n; lo, b = lo+BlockLen, b+1 {
			hi := min(lo+BlockLen, n)
			r := p
			for i := lo; i < hi; i++ {
				o := 8*i + q
				if a.X != nil {
					dot += float64(float64(a.X[o]) * a.W[i])
				}
				r *= float64(a.T[o] + float32(a.S[o]*e[i]))
			}
			if !endBlock(r, &p, &exp) {
				a.Bad[b] |= 1 << q
				any = true
			}
		}
		a.P[q], a.Exp[q] = p, exp
		if a.X != nil {
			a.Dot[q] = dot
		}
	}
	return any
}

// shift32Go is ShiftProd32's update in Go (see prod32Go).
func shift32Go(a *Shift32Args) bool {
	any := false
	for q := range 8 {
		d := a.D[q]
		if d == 0 {
			continue
		}
		e := a.EP
		if a.Sel[q]>>31 != 0 {
			e = a.EN
		}
		for i, w := range a.W {
			o := 8*i + q
			x := a.A[o] + float32(d*w)
			a.A[o] = x
			r := a.T[o] + float32(a.S[o]*e[i])
			if r > 0 && r <= math.MaxFloat32 && abs32(x) <= Extreme32 {
				inv := 1 / r
				a.S[o] *= float32(e[i] * inv)
				a.T[o] *= inv
			} else {
				a.Fb[i] |= 1 << q
				any = true
			}
		}
	}
	return any
}

func abs32(x float32) float32 { return math.Float32frombits(math.Float32bits(x) &^ (1 << 31)) }

// The odds form of a float32 lane's visible layer: each element keeps ρ =
// e^{a} (float32, NaN where |a| > Extreme32) instead of its σ pair, so that
// softplus(a + w) = log(1 + ρ·e^{w}): a flip multiplies ρ by e^{±w} (no
// division) and a unit's row gives the product Π (1 + ρ_i·e^{±w_i}) =
// exp Σ softplus(a_i ± w_i), from which the caller subtracts Σ
// softplus(a_i), which it keeps.

// RhoLo and RhoHi bound the ρ a lane keeps: e^{∓Extreme32} in float32. A ρ
// outside (or NaN) is recomputed by the caller.
var (
	RhoLo = float32(math.Exp(-Extreme32))
	RhoHi = float32(math.Exp(Extreme32))
)

// RhoArgs are the operands of RhoProd and Rho for one group: R the ρ of
// n = len(EP) elements (lane q of element i at [8i + q]) and a row's
// e^{±w}.
//
//	Sel   all ones where the lane uses EN, else EP
//	Flip  (Rho) all ones where the lane's unit flips: ρ ← ρ·e
//	P, Exp, Bad  (RhoProd) as Prod32's
type RhoArgs struct {
	R      []float32
	EP, EN []float32
	Sel    *[8]uint32
	Flip   *[8]uint32
	P      *[8]float64
	Exp    *[8]int64
	Bad    []uint8
}

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
	fell = rhoGo(sh)
	if pr != nil {
		bad = rhoProdGo(pr)
	}
	return fell, bad
}

// rhoGo is Rho's update in Go.
func rhoGo(a *RhoArgs) uint8 {
	var fell uint8
	for q := range 8 {
		if a.Flip[q] == 0 {
			continue
		}
		e := a.EP
		if a.Sel[q]>>31 != 0 {
			e = a.EN
		}
		for i := range a.EP {
			o := 8*i + q
			r := a.R[o] * e[i]
			if !(r >= RhoLo && r <= RhoHi) {
				fell |= 1 << q
			}
			a.R[o] = r
		}
	}
	return fell
}

// rhoProdGo is RhoProd in Go (see prod32Go).
func rhoProdGo(a *RhoArgs) bool {
	n := len(a.EP)
	any := false
	for q := range 8 {
		e := a.EP
		if a.Sel[q]>>31 != 0 {
			e = a.EN
		}
		p, exp := a.P[q], a.Exp[q]
		for lo, b := 0, 0; lo < n; lo, b = lo+BlockLen, b+1 {
			hi := min(lo+BlockLen, n)
			r := p
			var part float32
			for i := lo; i < hi; i++ {
				f := 1 + float32(a.R[8*i+q]*e[i])
				if (i-lo)%4 == 0 {
					part = f
				} else {
					part *= f
				}
				if (i-lo)%4 == 3 || i == hi-1 {
					r *= float64(part)
				}
			}
			if !endBlock(r, &p, &exp) {
				a.Bad[b] |= 1 << q
				any = true
			}
		}
		a.P[q], a.Exp[q] = p, exp
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
