// Package sigpair holds the kernels of the sigmoid belief net's
// single-site Gibbs sampler run on several chains side by side ("lanes"),
// four lanes (a group) at a time: the product that gives a unit's
// log-odds (Prod, Prod2 for two groups sharing a row), the rank-one
// update of the activations a and the σ pairs s = σ(a), t = σ(−a) it
// feeds when it flips (Shift), in float64 (the AIS lanes'). The lanes of
// element i of a group are at [i·Stride, i·Stride + 4). f32.go holds the
// Gibbs chains' kernels: eight lanes, generic over the precision.
//
// Each lane sees exactly the floating-point operations, in the same order,
// of the one-chain loops they replace (sbn's softplusTerms and shift), so a
// lane's results are the same bits as that chain's; on amd64 with AVX2,
// the four lanes go at once in assembly that performs those operations (no
// fused multiply-add; build tag purego: Go only).
package sigpair

import "math"

// Constants shared with the assembly.
const (
	// BlockLen is the number of factors multiplied between
	// renormalisations of a product.
	BlockLen = 32
	// ProdLo and ProdHi bound the safe range of a block's product: outside
	// it (or NaN) the block is reported bad and its product discarded.
	ProdLo = 1e-280
	ProdHi = 1e280
	// Extreme bounds the |a| whose σ(±a) a lane keeps (NaN beyond).
	Extreme = 600
)

// ProdArgs are the operands of Prod. For n = len(EP) elements and the
// 4·ng lanes of ng groups (lane k of element i at [i·Stride + k]):
//
//	T, S      σ(−a), σ(a) of the n elements
//	EP, EN    e^{w_i} and e^{−w_i}: lane k uses EN where Sel[k] is all
//	          ones, EP where it is 0 (its top bit decides)
//	X, W      if X is not nil: Dot[k] += Σ_i X[i·Stride+k]·W[i], in order
//	P, Exp    each lane's running product P·2^Exp (P starts at 1, Exp at 0)
//	Bad       Bad[b·ng + g] gets bit q set when block b of lane 4g+q left
//	          the safe range (its product was discarded)
type ProdArgs struct {
	T, S   []float64
	Stride int
	EP, EN []float64
	Sel    []uint64
	X, W   []float64
	P      []float64
	Exp    []int64
	Dot    []float64
	Bad    []uint8
}

// Prod multiplies, for every lane k, the factors t_i + s_i·e_i over the
// elements i in blocks of BlockLen: a block's product q = P·Π f is kept
// when ProdLo < q < ProdHi, as P = the fraction of math.Frexp(q) in [½, 1)
// and Exp += its exponent, and discarded (bit set in Bad) otherwise. It
// reports whether any block of any lane was bad. ng is the number of
// groups of four lanes; P, Exp, Dot and Sel have at least 4·ng entries and
// Bad at least ng·⌈n/BlockLen⌉.
func Prod(ng int, a *ProdArgs) bool {
	n := len(a.EP)
	_ = a.EN[:n]
	if n == 0 {
		return false
	}
	L := 4 * ng
	_, _, _, _ = a.P[:L], a.Exp[:L], a.Dot[:L], a.Sel[:L]
	last := (n-1)*a.Stride + L
	_, _ = a.T[:last], a.S[:last]
	if a.X != nil {
		_, _ = a.X[:last], a.W[:n]
	}
	_ = a.Bad[:ng*((n+BlockLen-1)/BlockLen)]
	if useAVX2 {
		return prodAVX2(ng, a)
	}
	return prodGo(0, ng, a)
}

// ShiftArgs are the operands of Shift, for one group of four lanes: a, s,
// t of element i and lane q at [i·Stride + q], W the flipped unit's
// outgoing row with e^{W} in EP and e^{−W} in EN.
//
//	D     the change of the unit's state per lane (+1, −1; 0 for no flip)
//	Sel   lane q uses EN where Sel[q] is all ones (the unit was 1), EP
//	      where it is 0 (its top bit decides)
//	Fb    Fb[i] gets bit q set when lane q of element i needs its σ pair
//	      recomputed from a (the caller's fallback)
type ShiftArgs struct {
	A, S, T []float64
	Stride  int
	W       []float64
	EP, EN  []float64
	D       [4]float64
	Sel     [4]uint64
	Fb      []uint8
}

// Shift adds D[q]·w_i to a_i of every lane q with D[q] ≠ 0 and updates its
// σ pair without an exp: with e = e^{D[q]·w_i} and r = t + s·e, s ← s·(e/r)
// (as s·(e·(1/r))) and t ← t·(1/r), when 0 < r ≤ MaxFloat64 and the new
// |a| ≤ Extreme; otherwise it leaves s, t and sets the lane's bit in Fb
// (the caller recomputes them from a). Lanes with D[q] = 0 are left
// untouched. It reports whether any bit of Fb was set.
func Shift(a *ShiftArgs) bool {
	n := len(a.W)
	if n == 0 {
		return false
	}
	_, _, _ = a.EP[:n], a.EN[:n], a.Fb[:n]
	last := (n-1)*a.Stride + 4
	_, _, _ = a.A[:last], a.S[:last], a.T[:last]
	if useAVX2 {
		return shiftAVX2(a)
	}
	return shiftGo(a)
}

// Prod2 is Prod(1, a) and Prod(1, b) in one pass, for two groups of
// contiguous lanes (Stride 4) that share the row (a's and b's EP, EN),
// without dot products: the row is read once for both. The results are
// the bits of the two calls; it reports what they report.
func Prod2(a, b *ProdArgs) (badA, badB bool) {
	n := len(a.EP)
	if n == 0 {
		return false, false
	}
	for _, pr := range []*ProdArgs{a, b} {
		if pr.Stride != 4 || len(pr.EP) != n || pr.X != nil {
			panic("sigpair: Prod2 needs two groups of contiguous lanes, the same row, no dot products")
		}
		_, _ = pr.T[:4*n], pr.S[:4*n]
		_, _, _, _ = pr.P[:4], pr.Exp[:4], pr.Sel[:4], pr.Bad[:(n+BlockLen-1)/BlockLen]
	}
	if &b.EP[0] != &a.EP[0] || &b.EN[0] != &a.EN[0] {
		panic("sigpair: Prod2 needs the same row for both groups")
	}
	_ = a.EN[:n]
	if useAVX2 {
		return prod2AVX2(a, b)
	}
	return prodGo(0, 1, a), prodGo(0, 1, b)
}

// prodGo is Prod in Go for the groups g0 … ng−1. Every product that feeds
// an addition is converted to float64 explicitly, which forbids the
// compiler to fuse them.
func prodGo(g0, ng int, a *ProdArgs) bool {
	n := len(a.EP)
	any := false
	for k := 4 * g0; k < 4*ng; k++ {
		g, q := k/4, uint(k%4)
		e := a.EP
		if a.Sel[k]>>63 != 0 {
			e = a.EN
		}
		p, exp, dot := a.P[k], a.Exp[k], a.Dot[k]
		for lo, b := 0, 0; lo < n; lo, b = lo+BlockLen, b+1 {
			hi := min(lo+BlockLen, n)
			r := p
			for i := lo; i < hi; i++ {
				o := i*a.Stride + k
				if a.X != nil {
					dot += float64(a.X[o] * a.W[i])
				}
				r *= a.T[o] + float64(a.S[o]*e[i])
			}
			if r > ProdLo && r < ProdHi {
				f, x := math.Frexp(r)
				p, exp = f, exp+int64(x)
				continue
			}
			a.Bad[b*ng+g] |= 1 << q
			any = true
		}
		a.P[k], a.Exp[k], a.Dot[k] = p, exp, dot
	}
	return any
}

// shiftGo is Shift in Go (see prodGo).
func shiftGo(a *ShiftArgs) bool {
	any := false
	for q := range 4 {
		d := a.D[q]
		if d == 0 {
			continue
		}
		e := a.EP
		if a.Sel[q]>>63 != 0 {
			e = a.EN
		}
		for i, w := range a.W {
			o := i*a.Stride + q
			x := a.A[o] + float64(d*w)
			a.A[o] = x
			r := a.T[o] + float64(a.S[o]*e[i])
			if r > 0 && r <= math.MaxFloat64 && math.Abs(x) <= Extreme {
				inv := 1 / r
				a.S[o] *= float64(e[i] * inv)
				a.T[o] *= inv
			} else {
				a.Fb[i] |= 1 << q
				any = true
			}
		}
	}
	return any
}
