package sigpair

import (
	"math"
	"math/rand/v2"
	"testing"
)

// sigPair is (σ(a), σ(−a)).
func sigPair(a float64) (float64, float64) {
	e := math.Exp(-math.Abs(a))
	r := 1 / (1 + e)
	if a >= 0 {
		return r, e * r
	}
	return e * r, r
}

// prodCase is a random Prod problem: n elements, 4·ng lanes, activations
// of scale sa and weights of scale sw; a few lanes of some elements hold
// NaN pairs (|a| beyond Extreme) and a few weights NaN exponentials.
type prodCase struct {
	ng, n, stride int
	a, t, s, x    []float64
	w, ep, en     []float64
	sel           []uint64
}

func newProdCase(rng *rand.Rand, ng, n int, sa, sw float64, withNaN bool) *prodCase {
	L := 4 * ng
	c := &prodCase{ng: ng, n: n, stride: L + 2*rng.IntN(2)}
	m := max(n*c.stride, 1)
	c.a, c.t, c.s, c.x = make([]float64, m), make([]float64, m), make([]float64, m), make([]float64, m)
	c.w, c.ep, c.en = make([]float64, n), make([]float64, n), make([]float64, n)
	for i := range n {
		c.w[i] = sw * rng.NormFloat64()
		c.ep[i] = math.Exp(c.w[i])
		c.en[i] = 1 / c.ep[i]
		if withNaN && rng.IntN(50) == 0 {
			c.ep[i], c.en[i] = math.NaN(), math.NaN()
		}
		for k := range c.stride {
			o := i*c.stride + k
			c.a[o] = sa * rng.NormFloat64()
			c.s[o], c.t[o] = sigPair(c.a[o])
			if withNaN && rng.IntN(40) == 0 {
				c.s[o], c.t[o] = math.NaN(), math.NaN()
			}
			c.x[o] = float64(rng.IntN(2))
		}
	}
	c.sel = make([]uint64, L)
	for k := range c.sel {
		if rng.IntN(2) == 1 {
			c.sel[k] = ^uint64(0)
		}
	}
	return c
}

type prodOut struct {
	p   []float64
	exp []int64
	dot []float64
	bad []uint8
	any bool
}

func (c *prodCase) run(dot bool) prodOut {
	L := 4 * c.ng
	o := prodOut{p: make([]float64, L), exp: make([]int64, L), dot: make([]float64, L), bad: make([]uint8, c.ng*((c.n+BlockLen-1)/BlockLen))}
	for k := range L {
		o.p[k], o.exp[k], o.dot[k] = 1, int64(k)-3, 0.25*float64(k)
	}
	a := &ProdArgs{T: c.t, S: c.s, Stride: c.stride, EP: c.ep, EN: c.en, Sel: c.sel, P: o.p, Exp: o.exp, Dot: o.dot, Bad: o.bad}
	if dot {
		a.X, a.W = c.x, c.w
	}
	o.any = Prod(c.ng, a)
	return o
}

func sameBits(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }

// TestProdAVX2SameBits: the assembly products, exponents, dot products and
// bad bits equal the Go loop's bit for bit, over block boundaries, one to
// four groups, safe and unsafe ranges and NaN pairs.
func TestProdAVX2SameBits(t *testing.T) {
	if !useAVX2 {
		t.Skip("no AVX2 kernel on this build or CPU")
	}
	defer func() { useAVX2 = true }()
	rng := rand.New(rand.NewPCG(1, 2))
	for _, ng := range []int{1, 2, 3, 4} {
		for _, n := range []int{0, 1, 5, 31, 32, 33, 64, 100, 784} {
			for _, sc := range []struct {
				sa, sw  float64
				withNaN bool
			}{{1, 0.1, false}, {4, 2, false}, {30, 25, true}, {700, 300, true}} {
				c := newProdCase(rng, ng, n, sc.sa, sc.sw, sc.withNaN)
				for _, dot := range []bool{false, true} {
					useAVX2 = false
					want := c.run(dot)
					useAVX2 = true
					got := c.run(dot)
					if got.any != want.any {
						t.Fatalf("ng %d n %d scale %v dot %v: any bad %v, Go %v", ng, n, sc, dot, got.any, want.any)
					}
					for k := range got.p {
						if !sameBits(got.p[k], want.p[k]) || got.exp[k] != want.exp[k] || !sameBits(got.dot[k], want.dot[k]) {
							t.Fatalf("ng %d n %d scale %v dot %v lane %d: p %v·2^%d dot %v, Go %v·2^%d dot %v",
								ng, n, sc, dot, k, got.p[k], got.exp[k], got.dot[k], want.p[k], want.exp[k], want.dot[k])
						}
					}
					for b := range got.bad {
						if got.bad[b] != want.bad[b] {
							t.Fatalf("ng %d n %d scale %v: bad byte %d = %04b, Go %04b", ng, n, sc, b, got.bad[b], want.bad[b])
						}
					}
				}
			}
		}
	}
}

// TestProdValue: without bad blocks, log(P) + Exp·ln2 is Σ_i log(t_i +
// s_i·e_i) (each factor is e^{softplus(a+w) − softplus(a)}) and Dot is
// Σ x_i w_i; a block beyond the safe range is flagged and leaves P·2^Exp
// at the product of the other blocks.
func TestProdValue(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	c := newProdCase(rng, 2, 200, 3, 1.5, false)
	o := c.run(true)
	for k := range 8 {
		lg, dot := 0.0, 0.25*float64(k)
		for i := range c.n {
			a, w := c.a[i*c.stride+k], c.w[i]
			if c.sel[k] != 0 {
				w = -w
			}
			lg += math.Log1p(math.Exp(a+w)) - math.Log1p(math.Exp(a))
			dot += c.x[i*c.stride+k] * c.w[i]
		}
		got := math.Log(o.p[k]) + float64(o.exp[k]-int64(k)+3)*math.Ln2
		if math.Abs(got-lg) > 1e-10*max(1, math.Abs(lg)) || math.Abs(o.dot[k]-dot) > 1e-12 || o.p[k] < 0.5 || o.p[k] >= 1 {
			t.Fatalf("lane %d: log product %.15g (P %v), want %.15g; dot %v, want %v", k, got, o.p[k], lg, o.dot[k], dot)
		}
	}
	// Block 1 of lane 2 overflows: its factors are huge.
	for i := 32; i < 64; i++ {
		c.s[i*c.stride+2], c.t[i*c.stride+2] = 1e20, 0
	}
	ref := c.run(false)
	if !ref.any || ref.bad[1*2+0] != 1<<2 {
		t.Fatalf("overflowing block not flagged: any %v, bad %v", ref.any, ref.bad)
	}
	for i := 32; i < 64; i++ {
		c.s[i*c.stride+2], c.t[i*c.stride+2] = 0, 1 // factors 1: the block contributes nothing
	}
	one := c.run(false)
	if !sameBits(one.p[2], ref.p[2]) || one.exp[2] != ref.exp[2] {
		t.Fatalf("a flagged block changed the product: %v·2^%d, without it %v·2^%d", ref.p[2], ref.exp[2], one.p[2], one.exp[2])
	}
}

// shiftCase runs Shift on a copy of c's group g with the flips d.
func (c *prodCase) shift(g int, d [4]float64) (a, s, t []float64, fb []uint8, any bool) {
	a, s, t = append([]float64(nil), c.a...), append([]float64(nil), c.s...), append([]float64(nil), c.t...)
	fb = make([]uint8, c.n)
	o := 4 * g
	args := &ShiftArgs{A: a[o:], S: s[o:], T: t[o:], Stride: c.stride, W: c.w, EP: c.ep, EN: c.en, D: d, Fb: fb}
	copy(args.Sel[:], c.sel[o:o+4])
	any = Shift(args)
	return a, s, t, fb, any
}

// TestShiftAVX2SameBits: the assembly update equals the Go loop's bit for
// bit, lanes that do not flip are untouched, and the fallback bits agree.
func TestShiftAVX2SameBits(t *testing.T) {
	if !useAVX2 {
		t.Skip("no AVX2 kernel on this build or CPU")
	}
	defer func() { useAVX2 = true }()
	rng := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{1, 3, 32, 200, 784} {
		for _, sc := range []struct{ sa, sw float64 }{{1, 0.1}, {4, 2}, {550, 100}, {700, 300}} {
			c := newProdCase(rng, 3, n, sc.sa, sc.sw, true)
			for _, d := range [][4]float64{{1, 0, -1, 0}, {0, 0, 0, 0}, {-1, -1, 1, 1}, {0, 1, 0, 0}} {
				for g := range 3 {
					useAVX2 = false
					wa, ws, wt, wfb, wany := c.shift(g, d)
					useAVX2 = true
					ga, gs, gt, gfb, gany := c.shift(g, d)
					if gany != wany {
						t.Fatalf("n %d scale %v d %v: any %v, Go %v", n, sc, d, gany, wany)
					}
					for i := range ga {
						if !sameBits(ga[i], wa[i]) || !sameBits(gs[i], ws[i]) || !sameBits(gt[i], wt[i]) {
							t.Fatalf("n %d scale %v d %v group %d: entry %d is a %v s %v t %v, Go %v %v %v", n, sc, d, g, i, ga[i], gs[i], gt[i], wa[i], ws[i], wt[i])
						}
					}
					for i := range gfb {
						if gfb[i] != wfb[i] {
							t.Fatalf("n %d scale %v d %v: fallback bits of %d = %04b, Go %04b", n, sc, d, i, gfb[i], wfb[i])
						}
					}
				}
			}
		}
	}
}

// TestShiftValue: after Shift, a = a + d·w and, where no fallback bit is
// set, (s, t) = (σ(a), σ(−a)) to 1e-12; lanes with d = 0 keep their bits.
func TestShiftValue(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	c := newProdCase(rng, 1, 300, 5, 1, false)
	d := [4]float64{1, 0, -1, 1}
	c.sel = []uint64{0, 0, ^uint64(0), 0} // e^{d·w}: EN for d = −1
	a, s, tt, fb, _ := c.shift(0, d)
	for i := range c.n {
		for q := range 4 {
			o := i*c.stride + q
			if d[q] == 0 {
				if !sameBits(a[o], c.a[o]) || !sameBits(s[o], c.s[o]) || !sameBits(tt[o], c.t[o]) {
					t.Fatalf("element %d lane %d does not flip but changed", i, q)
				}
				continue
			}
			if a[o] != c.a[o]+d[q]*c.w[i] {
				t.Fatalf("element %d lane %d: a = %v, want %v", i, q, a[o], c.a[o]+d[q]*c.w[i])
			}
			if fb[i]>>q&1 != 0 {
				continue
			}
			ws, wt := sigPair(a[o])
			if math.Abs(s[o]-ws) > 1e-12 || math.Abs(tt[o]-wt) > 1e-12 {
				t.Fatalf("element %d lane %d: σ pair (%v, %v), recomputed (%v, %v)", i, q, s[o], tt[o], ws, wt)
			}
		}
	}
}

// safeCase is a prodCase of one contiguous group whose activations lie
// within Extreme (σ pairs from them) and whose exponentials are finite.
func safeCase(rng *rand.Rand, n int, sa, sw float64) *prodCase {
	var c *prodCase
	for c == nil || c.stride != 4 {
		c = newProdCase(rng, 1, n, sa, sw, false)
	}
	wmax := 0.0
	for _, w := range c.w {
		wmax = max(wmax, math.Abs(w))
	}
	for i := range c.a {
		c.a[i] = math.Max(-Extreme+wmax, math.Min(Extreme-wmax, c.a[i]))
		c.s[i], c.t[i] = sigPair(c.a[i])
	}
	return c
}

// TestProd2: the two-group product leaves the bits of two Prod calls, over
// block boundaries and with one group's products leaving the safe range
// and not the other's, with the assembly and in Go.
func TestProd2(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	has := useAVX2
	defer func() { useAVX2 = has }()
	for _, n := range []int{1, 31, 32, 33, 200, 784} {
		for _, sc := range []struct{ sa, sw float64 }{{1, 0.1}, {4, 2}, {150, 40}} {
			ca, cb := safeCase(rng, n, sc.sa, sc.sw), safeCase(rng, n, sc.sa, sc.sw)
			if sc.sw > 10 {
				for i := range ca.a { // A's factors stay near 1, B's overflow
					ca.s[i], ca.t[i] = sigPair(-400)
					cb.s[i], cb.t[i] = sigPair(400)
					ca.ep[i/4], ca.en[i/4] = math.Exp(30), math.Exp(-30)
				}
			}
			run := func(two bool) (po [2]prodOut) {
				var pr [2]*ProdArgs
				for g, c := range []*prodCase{ca, cb} {
					po[g] = prodOut{p: []float64{1, 0.75, 1, 0.5}, exp: []int64{0, 3, -2, 0}, dot: make([]float64, 4), bad: make([]uint8, (n+31)/32)}
					pr[g] = &ProdArgs{T: c.t, S: c.s, Stride: 4, EP: ca.ep, EN: ca.en, Sel: c.sel[:4], P: po[g].p, Exp: po[g].exp, Dot: po[g].dot, Bad: po[g].bad}
				}
				if two {
					po[0].any, po[1].any = Prod2(pr[0], pr[1])
				} else {
					po[0].any, po[1].any = Prod(1, pr[0]), Prod(1, pr[1])
				}
				return
			}
			for _, avx := range []bool{false, true} {
				if avx && !has {
					continue
				}
				useAVX2 = avx
				want, got := run(false), run(true)
				for g := range 2 {
					if got[g].any != want[g].any {
						t.Fatalf("avx %v n %d scale %v group %d: reports %v, one by one %v", avx, n, sc, g, got[g].any, want[g].any)
					}
					for k := range 4 {
						if !sameBits(got[g].p[k], want[g].p[k]) || got[g].exp[k] != want[g].exp[k] {
							t.Fatalf("avx %v n %d scale %v group %d lane %d: product %v·2^%d, one by one %v·2^%d", avx, n, sc, g, k, got[g].p[k], got[g].exp[k], want[g].p[k], want[g].exp[k])
						}
					}
					for b := range got[g].bad {
						if got[g].bad[b] != want[g].bad[b] {
							t.Fatalf("avx %v n %d scale %v group %d: bad byte %d = %04b, one by one %04b", avx, n, sc, g, b, got[g].bad[b], want[g].bad[b])
						}
					}
				}
			}
		}
	}
}
