package sigpair

import (
	"math"
	"math/rand/v2"
	"testing"
)

// case32 is a random float32 problem on one group: n elements with
// activations of scale sa and weights of scale sw; with withNaN a few σ
// pairs and exponentials are NaN (beyond Extreme8).
type case32 struct {
	n          int
	a, t, s, x []float32
	w, ep, en  []float32
	w64        []float64
	sel, psel  [8]uint32
	d          [8]float32
	pep, pen   []float32
	p          [8]float64
	exp        [8]int64
	dot        [8]float64
}

func newCase32(rng *rand.Rand, n int, sa, sw float64, withNaN bool) *case32 {
	c := &case32{n: n}
	c.a, c.t, c.s, c.x = make([]float32, 8*n), make([]float32, 8*n), make([]float32, 8*n), make([]float32, 8*n)
	c.w, c.ep, c.en, c.w64 = make([]float32, n), make([]float32, n), make([]float32, n), make([]float64, n)
	c.pep, c.pen = make([]float32, n), make([]float32, n)
	exps := func(w float64) (float32, float32) {
		if math.Abs(w) > Extreme8 || (withNaN && rng.IntN(50) == 0) {
			return float32(math.NaN()), float32(math.NaN())
		}
		return float32(math.Exp(w)), float32(math.Exp(-w))
	}
	for i := range n {
		c.w64[i] = sw * rng.NormFloat64()
		c.w[i] = float32(c.w64[i])
		c.ep[i], c.en[i] = exps(c.w64[i])
		c.pep[i], c.pen[i] = exps(sw * rng.NormFloat64())
		for q := range 8 {
			o := 8*i + q
			a := sa * rng.NormFloat64()
			c.a[o] = float32(a)
			s, t := sigPair(a)
			c.s[o], c.t[o] = float32(s), float32(t)
			if math.Abs(a) > Extreme8 || (withNaN && rng.IntN(40) == 0) {
				c.s[o], c.t[o] = float32(math.NaN()), float32(math.NaN())
			}
			c.x[o] = float32(rng.IntN(2))
		}
	}
	for q := range 8 {
		if rng.IntN(2) == 1 {
			c.sel[q] = ^uint32(0)
		}
		if rng.IntN(2) == 1 {
			c.psel[q] = ^uint32(0)
		}
		c.d[q] = float32(rng.IntN(3) - 1)
		c.p[q], c.exp[q], c.dot[q] = 1, int64(rng.IntN(5)), rng.NormFloat64()
	}
	return c
}

func (c *case32) clone() *case32 {
	d := *c
	d.a, d.s, d.t = append([]float32(nil), c.a...), append([]float32(nil), c.s...), append([]float32(nil), c.t...)
	return &d
}

func (c *case32) prodArgs(dot bool, bad []uint8) *Prod32Args {
	a := &Prod32Args{T: c.t, S: c.s, EP: c.pep, EN: c.pen, Sel: &c.psel, P: &c.p, Exp: &c.exp, Dot: &c.dot, Bad: bad}
	if dot {
		a.X, a.W = c.x, c.w64
	}
	return a
}

func (c *case32) shiftArgs(fb []uint8) *Shift32Args {
	return &Shift32Args{A: c.a, S: c.s, T: c.t, W: c.w, EP: c.ep, EN: c.en, D: c.d, Sel: c.sel, Fb: fb}
}

// rhoArgs: the update of ρ, held in s (e^{a}: a's of scale up to 90 give
// values out of range, and NaN where the pairs are NaN).
func (c *case32) rhoArgs() *RhoArgs {
	var flip [8]uint32
	for q, d := range c.d {
		if d != 0 {
			flip[q] = ^uint32(0)
		}
	}
	for i := range c.s {
		c.s[i] = float32(math.Exp(float64(c.a[i])))
		if c.t[i] != c.t[i] {
			c.s[i] = c.t[i]
		}
	}
	return &RhoArgs{R: c.s, EP: c.ep, EN: c.en, Sel: &c.sel, Flip: &flip}
}

func (c *case32) rhoProdArgs(bad []uint8) *RhoArgs {
	return &RhoArgs{R: c.s, EP: c.pep, EN: c.pen, Sel: &c.psel, P: &c.p, Exp: &c.exp, Bad: bad}
}

func same32(x, y []float32) bool {
	for i := range x {
		if math.Float32bits(x[i]) != math.Float32bits(y[i]) && !(x[i] != x[i] && y[i] != y[i]) {
			return false
		}
	}
	return true
}

// TestKernels32MatchGo: the AVX2 float32 kernels give the bits of the Go
// loops (products, exponents, bad bits, dot products, updated a, s, t,
// fallback bits and lanes, reports), on safe and extreme inputs, every
// length.
func TestKernels32MatchGo(t *testing.T) {
	if !useAVX2 {
		t.Skip("no AVX2")
	}
	rng := rand.New(rand.NewPCG(3, 2))
	for trial := range 600 {
		n := 1 + rng.IntN(140)
		sa, sw := []float64{1, 5, 40, 90}[trial%4], []float64{0.1, 2, 12, 30}[(trial/4)%4]
		base := newCase32(rng, n, sa, sw, trial%3 == 0)
		nb := (n + BlockLen - 1) / BlockLen
		for mode := range 6 { // 0: Prod32, 1: with dot, 2: Shift32, 3: RhoProd, 4: Rho without product, 5: with
			var res [2][2]bool
			var fell [2]uint8
			var out [2]*case32
			var bads, fbs [2][]uint8
			for v, asm := range []bool{false, true} {
				useAVX2 = asm
				c := base.clone()
				bad, fb := make([]uint8, nb), make([]uint8, n)
				switch mode {
				case 0, 1:
					res[v][1] = Prod32(c.prodArgs(mode == 1, bad))
				case 2:
					res[v][0] = Shift32(c.shiftArgs(fb))
				case 3:
					res[v][1] = RhoProd(c.rhoProdArgs(bad))
				case 4:
					fell[v], res[v][1] = Rho(c.rhoArgs(), nil)
				case 5:
					fell[v], res[v][1] = Rho(c.rhoArgs(), c.rhoProdArgs(bad))
				}
				out[v], bads[v], fbs[v] = c, bad, fb
			}
			useAVX2 = true
			g, a := out[0], out[1]
			if res[0] != res[1] || fell[0] != fell[1] || !same32(g.a, a.a) || !same32(g.s, a.s) || !same32(g.t, a.t) ||
				g.p != a.p || g.exp != a.exp || g.dot != a.dot || string(bads[0]) != string(bads[1]) || string(fbs[0]) != string(fbs[1]) {
				t.Fatalf("trial %d mode %d (n %d, sa %g, sw %g): Go %v and AVX2 %v differ:\np %v / %v\nexp %v / %v\ndot %v / %v\nbad %v / %v\nfb %v / %v",
					trial, mode, n, sa, sw, res[0], res[1], g.p, a.p, g.exp, a.exp, g.dot, a.dot, bads[0], bads[1], fbs[0], fbs[1])
			}
		}
	}
}

// TestProd32Close: a float32 product of safe factors is the float64
// product within float32 rounding (|Δ log| ≤ 4n·2⁻²⁴ bounds the factors'
// rounding of t, s, e and t + s·e), and an update keeps σ pairs within a few
// ulp of σ(±a) recomputed.
func TestProd32Close(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 2))
	for range 200 {
		n := 1 + rng.IntN(800)
		c := newCase32(rng, n, 3, 0.5, false)
		bad := make([]uint8, (n+BlockLen-1)/BlockLen)
		for q := range 8 {
			c.p[q], c.exp[q] = 1, 0
		}
		if Prod32(c.prodArgs(false, bad)) {
			t.Fatal("a safe product was reported bad")
		}
		for q := range 8 {
			want := 0.0
			for i := range n {
				a := float64(c.a[8*i+q])
				w := math.Log(float64(c.pep[i]))
				if c.psel[q]>>31 != 0 {
					w = -w
				}
				want += math.Log1p(math.Exp(a+w)) - math.Log1p(math.Exp(a))
			}
			got := math.Log(c.p[q]) + float64(c.exp[q])*math.Ln2
			if tol := 4 * float64(n) * 0x1p-24; math.Abs(got-want) > tol {
				t.Fatalf("n %d lane %d: log Π = %v, float64 %v (tolerance %g)", n, q, got, want, tol)
			}
		}
	}
}
