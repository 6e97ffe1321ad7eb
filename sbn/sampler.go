package sbn

import (
	"math"
	"math/rand/v2"

	"github.com/logz-ml/logz/internal/kernel"
	"github.com/logz-ml/logz/internal/nmath"
	"github.com/logz-ml/logz/sbn/internal/sigpair"
)

// The single-site Gibbs sampler of the latent units given x (Du, Zhu &
// Zhang 2015, eq. 15 and App. A.1, extended to autoregressive layers).
//
// Unit j of latent layer l enters log p(x, h) through its own Bernoulli
// term, through the activations a_{l−1,i} of every unit of the layer below
// (weight W_l[i,j]) and, in an autoregressive layer, through the
// activations a_{l,i} of the later units i > j of its own layer (weight
// S_l[i,j]). With a⁰ the activations when h_{l,j} = 0, the log-odds of the
// conditional p(h_{l,j} = 1 | everything else) are
//
//	Δ_{l,j} = a_{l,j} + Σ_i [h_{l−1,i} W_l[i,j] − softplus(a⁰_{l−1,i} + W_l[i,j]) + softplus(a⁰_{l−1,i})]
//	                  + Σ_{i>j} [h_{l,i} S_l[i,j] − softplus(a⁰_{l,i} + S_l[i,j]) + softplus(a⁰_{l,i})]
//
// (a_{l,j} itself does not depend on h_{l,j}). A chain keeps every
// activation a and σ(±a) up to date as units flip, so a softplus
// difference is a ratio of sigmoids: with s = σ(a), t = σ(−a) at the
// current activation,
//
//	softplus(a + w) − softplus(a) = log(t + s·e^{w}),
//
// and a row of such terms is the log of one product (renormalised every
// 32 units, with the direct formula as fallback for a block whose product
// leaves the safe range). e^{±W} and e^{±S} are tabulated once per dynamics step.
//
// One engine, gibbsChains[F], runs the chains in precision F
// (train.precision, kernel.Float): their states, the latent layers'
// activations and σ pairs, the visible layer's odds (below) and the
// tabulated e^{±W}, e^{±S} are F, eight lanes (a group) at a time
// (sbn/internal/sigpair's eight-lane kernels: AVX2 assembly in float32,
// Go loops in float64). What stays float64: the activations recomputed at
// each refresh (the sums of float64 weights, then rounded to F), the
// visible layer's dot products Σ_i x_i W_1[i,j] and Σ_i softplus(a_i), the
// product of a block of 32 factors (each factor is formed in F and
// multiplied in float64, renormalised), the latent layers' dot products,
// the log-odds, the sigmoid and the draws. In float32 the log-odds then
// differ from exact arithmetic by the rounding of the float32 values: a
// few units of 2⁻²⁴ per factor, plus the drift of the values updated
// multiplicatively between refreshes (see tol32 in the tests; on an SBN
// 784-200 the largest difference seen is about 5e−6).
//
// The visible layer, the widest, is kept in odds form: each unit holds ρ =
// e^{a} in F (NaN beyond ±sigpair.Extreme8) and each lane the sum S = Σ_i
// softplus(a_i) in float64, so that the visible part of unit j's log-odds
// is sign·(log Π_i (1 + ρ_i e^{sign·w_i}) − S): a flip of unit j multiplies
// each ρ_i by e^{±w_i} (one product, no division), and its new S is the
// log of the product just taken for its log-odds. Its activations are
// needed only where a ρ must be recomputed (it left [RhoLo, RhoHi] or is
// NaN) and for the direct formula of a bad block, both rare, so a lane's
// activations are recomputed from its states in float64 when one of them
// needs them (materialise: the bits refresh would give) and are otherwise
// stale. The update of the visible layer by a layer-1 unit's flip waits
// for the next unit's log-odds and runs in the same pass (sigpair.Rho8); a
// lane whose update fell gets its ρ and S recomputed from its activations,
// and its product is taken again.

// gibbsTablesF holds, for the current parameters in precision F, each
// latent unit's outgoing weights as a contiguous row with their
// exponentials: for l = 1 … L, wt[l] is W_lᵀ (n_l × n_{l−1}) and ep[l],
// en[l] are e^{W_lᵀ}, e^{−W_lᵀ}, NaN where |w| > sigpair.Extreme8; for an
// autoregressive net st[l] is S_lᵀ (n_l × n_l, row j holding column j,
// meaningful for i > j) with eps[l], ens[l].
type gibbsTablesF[F kernel.Float] struct {
	wt, ep, en   [][]F
	st, eps, ens [][]F
}

// gibbsTables are the tables in float64 (the exponentials by expvec:
// math.Exp's bits) and, for the float32 chains, rounded to float32.
type gibbsTables struct {
	gibbsTablesF[float64]
	row []float64              // scratch of refresh
	f32 *gibbsTablesF[float32] // nil: no float32 chains
}

// newGibbsTables allocates the tables (in float32 too with f32).
func (n *Net) newGibbsTables(f32 bool) *gibbsTables {
	widest := 0
	for _, k := range n.Sizes {
		widest = max(widest, k)
	}
	g := &gibbsTables{gibbsTablesF: makeTables[float64](n), row: make([]float64, widest)}
	if f32 {
		t := makeTables[float32](n)
		g.f32 = &t
	}
	return g
}

// makeTables allocates the tables of n in F.
func makeTables[F kernel.Float](n *Net) gibbsTablesF[F] {
	L := n.Layers()
	mk := func() [][]F { return make([][]F, L+1) }
	t := gibbsTablesF[F]{wt: mk(), ep: mk(), en: mk()}
	if n.S != nil {
		t.st, t.eps, t.ens = mk(), mk(), mk()
	}
	for l := 1; l <= L; l++ {
		m := n.Sizes[l-1] * n.Sizes[l]
		t.wt[l], t.ep[l], t.en[l] = make([]F, m), make([]F, m), make([]F, m)
		if n.S != nil {
			k := n.Sizes[l] * n.Sizes[l]
			t.st[l], t.eps[l], t.ens[l] = make([]F, k), make([]F, k), make([]F, k)
		}
	}
	return t
}

// tablesOf returns g's tables in F.
func tablesOf[F kernel.Float](g *gibbsTables) *gibbsTablesF[F] {
	if t, ok := any(&g.gibbsTablesF).(*gibbsTablesF[F]); ok {
		return t
	}
	return any(g.f32).(*gibbsTablesF[F])
}

// refresh recomputes the tables from n's parameters.
func (g *gibbsTables) refresh(n *Net) {
	for l := 1; l <= n.Layers(); l++ {
		transposeExp(n.W[l], n.Sizes[l-1], n.Sizes[l], g.wt[l], g.ep[l], g.en[l], g.row)
		if n.S != nil {
			transposeExp(n.S[l], n.Sizes[l], n.Sizes[l], g.st[l], g.eps[l], g.ens[l], g.row)
		}
	}
	if f := g.f32; f != nil {
		for l := 1; l <= n.Layers(); l++ {
			round32(f.wt[l], f.ep[l], f.en[l], g.wt[l], g.ep[l], g.en[l])
			if n.S != nil {
				round32(f.st[l], f.eps[l], f.ens[l], g.st[l], g.eps[l], g.ens[l])
			}
		}
	}
}

// transposeExp writes wᵀ (w is r×c) into t and e^{±wᵀ} into ep, en
// (e^{w} by expvec: math.Exp's bits; NaN where |w| > sigpair.Extreme8),
// using row (c entries) as scratch.
func transposeExp(w []float64, r, c int, t, ep, en, row []float64) {
	for i := range r {
		wi := w[i*c : (i+1)*c]
		kernel.Exp(row[:c], wi)
		for j, x := range wi {
			t[j*r+i] = x
			if math.Abs(x) > sigpair.Extreme8 {
				ep[j*r+i], en[j*r+i] = math.NaN(), math.NaN()
				continue
			}
			e := row[j]
			ep[j*r+i] = e
			en[j*r+i] = 1 / e
		}
	}
}

// round32 sets w32, ep32, en32 to w, ep, en rounded to float32.
func round32(w32, ep32, en32 []float32, w, ep, en []float64) {
	for i, x := range w {
		w32[i], ep32[i], en32[i] = float32(x), float32(ep[i]), float32(en[i])
	}
}

// chainPairF is σ(a), σ(−a) in F, or NaN, NaN when |a| > sigpair.Extreme8.
func chainPairF[F kernel.Float](a F) (F, F) {
	if math.Abs(float64(a)) > sigpair.Extreme8 {
		nan := F(math.NaN())
		return nan, nan
	}
	s, t := sigPair(float64(a))
	return F(s), F(t)
}

// extreme bounds the |a| and |w| whose e^{±a}, e^{±w} enter the product
// form of the AIS lanes (ais_lanes.go, float64): beyond it σ(−|a|) and
// e^{−|w|} approach the subnormal range, where they lose relative
// precision, so the lanes store NaN for them and the blocks that meet one
// take the direct softplus formula. (The Gibbs chains use
// sigpair.Extreme8.)
const extreme = sigpair.Extreme

// chainPair is sigPair(a), or NaN, NaN when |a| > extreme.
func chainPair(a float64) (float64, float64) {
	if math.Abs(a) > extreme {
		return math.NaN(), math.NaN()
	}
	return sigPair(a)
}

// sigPair returns σ(a) and σ(−a) with one exp.
func sigPair(a float64) (float64, float64) {
	e := math.Exp(-math.Abs(a))
	r := 1 / (1 + e)
	if a >= 0 {
		return r, e * r
	}
	return e * r, r
}

// gibbsChains runs up to 8·ng chains of one net side by side in
// precision F, one per lane, each over the latent layers of its own
// example h_0 = x: the chains of a trainer's sampling task sweep
// together, so that every weight row and its exponentials are read once
// for all of them and the products and updates run eight lanes (a group)
// at a time. Unit i of lane k = 8g + q of layer l is at [(g·n_l + i)·8 +
// q] (idx). A lane's operations do not depend on the other lanes, so a
// chain's states do not depend on which lane, or beside which chains, it
// runs.
type gibbsChains[F kernel.Float] struct {
	n          *Net
	ng, lanes  int
	active     int
	h, a, s, t [][]F     // a[0], s[0], t[0] are unused: the visible layer is r0, a0
	dot1       []float64 // n_1 × lanes: Σ_i x_i W_1[i,j] at [j·lanes + k]

	// The visible layer's ρ = e^{a} (laid out as s), and per lane Σ_i
	// softplus(a_i) (sp0) and the value it takes if the lane's unit whose
	// log-odds were just computed flips (spNew).
	r0         []F
	sp0, spNew []float64

	// The visible layer's activations, lane by lane (a0[k·n_0 + i]), valid
	// where a0ok[k] (else recomputed by materialise).
	a0   []float64
	a0ok []bool
	on1  []int32
	span []int32
	cur  []int32 // lanes: the cursors of addLowerAll

	penJ    int // the layer-1 unit whose update of the visible layer waits (−1: none)
	penFlip [][8]uint32
	penSel  [][8]uint32
	penAny  []bool

	lon, lspan  [][]int32
	sum, ps, pt []float64
	sel         [][8]uint32
	p, dot      [][8]float64
	exp         [][8]int64
	lo, sig, v  []float64
	bad, fb     []uint8
	nbMax       int
	pr          sigpair.Prod8Args[F]
	sh          sigpair.Shift8Args[F]
	rp, ru      sigpair.Rho8Args[F]
}

func newGibbsChains[F kernel.Float](n *Net, lanes int) *gibbsChains[F] {
	ng := (lanes + 7) / 8
	L := 8 * ng
	widest := 0
	for _, s := range n.Sizes {
		widest = max(widest, s)
	}
	c := &gibbsChains[F]{n: n, ng: ng, lanes: L, dot1: make([]float64, n.Sizes[1]*L), penJ: -1,
		a0: make([]float64, L*n.Sizes[0]), a0ok: make([]bool, L), r0: make([]F, L*n.Sizes[0]), sp0: make([]float64, L), spNew: make([]float64, L), on1: make([]int32, 0, n.Sizes[1]), span: make([]int32, 2), cur: make([]int32, L),
		penFlip: make([][8]uint32, ng), penSel: make([][8]uint32, ng), penAny: make([]bool, ng),
		sum: make([]float64, widest*L), ps: make([]float64, widest), pt: make([]float64, widest),
		sel: make([][8]uint32, ng), p: make([][8]float64, ng), dot: make([][8]float64, ng), exp: make([][8]int64, ng),
		lo: make([]float64, L), sig: make([]float64, L), v: make([]float64, L),
		nbMax: (widest + sigpair.BlockLen - 1) / sigpair.BlockLen, fb: make([]uint8, widest)}
	c.bad = make([]uint8, ng*c.nbMax)
	for l, s := range n.Sizes {
		c.h = append(c.h, make([]F, s*L))
		if l > 0 {
			c.a = append(c.a, make([]F, s*L))
			c.s = append(c.s, make([]F, s*L))
			c.t = append(c.t, make([]F, s*L))
		} else {
			c.a, c.s, c.t = append(c.a, nil), append(c.s, nil), append(c.t, nil)
		}
		c.lon = append(c.lon, make([]int32, 0, s*L))
		c.lspan = append(c.lspan, make([]int32, 2*L))
	}
	return c
}

// idx is the position of unit i of lane k in layer l's arrays.
func (c *gibbsChains[F]) idx(l, k, i int) int { return (k/8*c.n.Sizes[l]+i)*8 + k%8 }

// act is the activation of unit i of lane k in layer l (materialising
// the visible layer's).
func (c *gibbsChains[F]) act(g *gibbsTables, l, k, i int) float64 {
	if l == 0 {
		c.materialise(g, k)
		return c.a0[k*c.n.Sizes[0]+i]
	}
	return float64(c.a[l][c.idx(l, k, i)])
}

// load sets lane k's states to h (every layer, h[0] = x).
func (c *gibbsChains[F]) load(k int, h [][]float64) {
	for l, hl := range h {
		for i, x := range hl {
			c.h[l][c.idx(l, k, i)] = F(x)
		}
	}
}

// latent copies lane k's latent states h_1 … h_L into h[1:].
func (c *gibbsChains[F]) latent(k int, h [][]float64) {
	for l := 1; l < len(h); l++ {
		for i := range h[l] {
			h[l][i] = float64(c.h[l][c.idx(l, k, i)])
		}
	}
}

// refresh recomputes, for lanes 0 … active−1, every activation from the
// states in float64 (b_l + the rows of the units at 1 above, in order,
// + the autoregressive inputs), rounds it and its σ pair to F, and the
// visible dot products; the other lanes become
// inert (s = 0, t = 1) and the waiting update is dropped.
func (c *gibbsChains[F]) refresh(active int, g *gibbsTables) {
	n, L := c.n, c.lanes
	c.active = active
	c.penJ = -1
	clear(c.penAny)
	laneUnitsOn(n.Sizes, active, func(l, k, i int) bool { return c.h[l][c.idx(l, k, i)] != 0 }, c.lon, c.lspan)
	for l := range c.h {
		m := n.Sizes[l]
		sum := c.sum[:active*m]
		n.laneActivations(g, l, active, c.lon, c.lspan, sum, c.cur)
		for k := range L {
			if k >= active {
				for i := range m {
					o := c.idx(l, k, i)
					c.h[l][o] = 0
					if l > 0 {
						c.a[l][o], c.s[l][o], c.t[l][o] = 0, 0, 1
					} else {
						c.a0[k*m+i], c.r0[o] = 0, 0
					}
				}
				if l == 0 {
					c.a0ok[k], c.sp0[k] = true, 0
				}
				continue
			}
			ak := sum[k*m : (k+1)*m]
			if l == 0 {
				copy(c.a0[k*m:(k+1)*m], ak)
				c.a0ok[k] = true
				c.visibleOdds(k)
				continue
			}
			ps, pt := c.ps[:m], c.pt[:m]
			kernel.SigPair(ps, pt, ak)
			for i, a := range ak {
				o := c.idx(l, k, i)
				c.a[l][o] = F(a)
				if math.Abs(a) > sigpair.Extreme8 {
					c.s[l][o], c.t[l][o] = F(math.NaN()), F(math.NaN())
					continue
				}
				c.s[l][o], c.t[l][o] = F(ps[i]), F(pt[i])
			}
		}
	}
	n.visibleDots(active, L, c.lon, c.lspan, c.sum, c.dot1)
}

// fixPairs recomputes from a the σ pairs of the lanes flagged in fb for
// the elements of layer ll from offset o on, and clears fb.
func (c *gibbsChains[F]) fixPairs(ll, o int, fb []uint8) {
	for i, b := range fb {
		if b == 0 {
			continue
		}
		for q := range 8 {
			if b>>q&1 != 0 {
				x := o + i*8 + q
				c.s[ll][x], c.t[ll][x] = chainPairF(c.a[ll][x])
			}
		}
		fb[i] = 0
	}
}

// materialise recomputes lane k's visible activations from its states
// unless they are valid: b_0 + Σ_{j on} W_1[·, j] (+ S_0 x), the sums of
// refresh.
func (c *gibbsChains[F]) materialise(g *gibbsTables, k int) {
	if c.a0ok[k] {
		return
	}
	n := c.n
	m, m1 := n.Sizes[0], n.Sizes[1]
	on := c.on1[:0]
	for j := range m1 {
		if c.h[1][c.idx(1, k, j)] != 0 {
			on = append(on, int32(j))
		}
	}
	c.on1 = on
	a := c.a0[k*m : (k+1)*m]
	clear(a)
	c.span[0], c.span[1] = 0, int32(len(on))
	kernel.AddSelected(a, m, g.wt[1], m, m, on, c.span)
	var s []float64
	if n.S != nil {
		s = n.S[0]
	}
	onl := c.lon[0][c.lspan[0][2*k]:c.lspan[0][2*k+1]]
	for i := range m {
		x := n.B[0][i] + a[i]
		if s != nil {
			x = addLower(x, s, m, i, onl)
		}
		a[i] = x
	}
	c.a0ok[k] = true
}

// visibleOdds sets lane k's ρ and Σ softplus(a) from its visible
// activations a0 (valid).
func (c *gibbsChains[F]) visibleOdds(k int) {
	m := c.n.Sizes[0]
	a := c.a0[k*m : (k+1)*m]
	e := c.ps[:m]
	kernel.Exp(e, a)
	// Σ softplus(a_i): the log of products of up to 16 factors 1 + e^{a_i}
	// (each below 1 + e^{30}), the other terms one by one.
	sp, prod, cnt := 0.0, 1.0, 0
	for i, x := range a {
		if math.Abs(x) <= 30 {
			prod *= 1 + e[i]
			if cnt++; cnt == 16 {
				sp += math.Log(prod)
				prod, cnt = 1, 0
			}
		} else {
			sp += nmath.Softplus(x)
		}
		o := c.idx(0, k, i)
		if math.Abs(x) > sigpair.Extreme8 {
			c.r0[o] = F(math.NaN())
			continue
		}
		c.r0[o] = F(e[i])
	}
	c.sp0[k] = sp + math.Log(prod)
}

// pendingRho readies c.ru with group gr's waiting update of the visible
// layer by layer-1 unit penJ.
func (c *gibbsChains[F]) pendingRho(g *gibbsTables, gr int) {
	m := c.n.Sizes[0]
	f, row, o := tablesOf[F](g), c.penJ*m, gr*m*8
	c.ru = sigpair.Rho8Args[F]{R: c.r0[o : o+8*m], EP: f.ep[1][row : row+m], EN: f.en[1][row : row+m], Flip: &c.penFlip[gr], Sel: &c.penSel[gr]}
	c.penAny[gr] = false
}

// fixFell recomputes the visible ρ and Σ softplus(a) of the lanes of group
// gr in fell from their activations.
func (c *gibbsChains[F]) fixFell(g *gibbsTables, gr int, fell uint8) {
	for q := range 8 {
		if fell>>q&1 != 0 {
			c.materialise(g, 8*gr+q)
			c.visibleOdds(8*gr + q)
		}
	}
}

// term adds to lo[k] (k < active), for unit j's outgoing row over the m
// units of layer ll from unit i0 on (w64 in float64, e^{±w} in ep, en),
// the terms of its log-odds (see the top of the file): x·w − sign·log Π
// (t + s e^{sign·w}) with sign = +1 where the unit is 0, −1 where it is
// 1 (for the visible layer log Π (1 + ρ e^{sign·w}) − Σ softplus(a)). With
// visible the dot
// products are dot1's column j and the groups' waiting updates of the
// visible layer run in the same pass as the products.
func (c *gibbsChains[F]) term(g *gibbsTables, ll, i0, m, j int, w64 []float64, ep, en []F, visible bool) {
	L, nl := c.lanes, c.n.Sizes[ll]
	nb := (m + sigpair.BlockLen - 1) / sigpair.BlockLen
	for gr := range (c.active + 7) / 8 {
		o := (gr*nl + i0) * 8
		bad := c.bad[gr*c.nbMax : gr*c.nbMax+nb]
		clear(bad)
		c.p[gr], c.exp[gr] = [8]float64{1, 1, 1, 1, 1, 1, 1, 1}, [8]int64{}
		c.dot[gr] = [8]float64{}
		if visible {
			copy(c.dot[gr][:], c.dot1[j*L+8*gr:j*L+8*gr+8])
		}
		var anyBad bool
		if visible {
			pr := &c.rp
			*pr = sigpair.Rho8Args[F]{R: c.r0[o : o+8*m], EP: ep[:m], EN: en[:m], Sel: &c.sel[gr], P: &c.p[gr], Exp: &c.exp[gr], Bad: bad}
			if c.penJ >= 0 && c.penAny[gr] {
				c.pendingRho(g, gr)
				var fell uint8
				fell, anyBad = sigpair.Rho8(&c.ru, pr)
				if fell != 0 {
					// The product used ρ that fell: recompute them and
					// take the product again.
					c.fixFell(g, gr, fell)
					c.p[gr], c.exp[gr] = [8]float64{1, 1, 1, 1, 1, 1, 1, 1}, [8]int64{}
					clear(bad)
					anyBad = sigpair.RhoProd8(pr)
				}
			} else {
				anyBad = sigpair.RhoProd8(pr)
			}
		} else {
			pr := &c.pr
			*pr = sigpair.Prod8Args[F]{T: c.t[ll][o : o+8*m], S: c.s[ll][o : o+8*m], EP: ep[:m], EN: en[:m], Sel: &c.sel[gr],
				P: &c.p[gr], Exp: &c.exp[gr], Dot: &c.dot[gr], Bad: bad, X: c.h[ll][o : o+8*m], W: w64[:m]}
			anyBad = sigpair.Prod8(pr)
		}
		for q := range min(8, c.active-8*gr) {
			k := 8*gr + q
			sign := 1.0
			if c.sel[gr][q] != 0 {
				sign = -1
			}
			lg := 0.0
			if anyBad {
				// Blocks out of the safe range: term by term (for the
				// visible layer the softplus of a ± w alone).
				for b, lo := 0, 0; lo < m; b, lo = b+1, lo+sigpair.BlockLen {
					if bad[b]>>q&1 == 0 {
						continue
					}
					for i := lo; i < min(lo+sigpair.BlockLen, m); i++ {
						if visible {
							c.materialise(g, k)
							lg += nmath.Softplus(c.a0[k*nl+i] + sign*w64[i])
							continue
						}
						ai := float64(c.a[ll][o+8*i+q])
						lg += nmath.Softplus(ai+sign*w64[i]) - nmath.Softplus(ai)
					}
				}
			}
			lg = lg + math.Log(c.p[gr][q]) + float64(c.exp[gr][q])*math.Ln2
			if visible {
				// Σ softplus(a ± w) − Σ softplus(a).
				c.spNew[k] = lg
				lg -= c.sp0[k]
			}
			c.lo[k] += c.dot[gr][q] - sign*lg
		}
	}
}

// logOdds sets lo[k] to Δ_{l,j} of every active lane (l ≥ 1).
func (c *gibbsChains[F]) logOdds(g *gibbsTables, l, j int) {
	n, f := c.n, tablesOf[F](g)
	for k := range c.active {
		o := c.idx(l, k, j)
		c.sel[k/8][k%8] = 0
		if c.h[l][o] != 0 {
			c.sel[k/8][k%8] = ^uint32(0)
		}
		c.lo[k] = float64(c.a[l][o])
	}
	m := n.Sizes[l-1]
	r := j * m
	c.term(g, l-1, 0, m, j, g.wt[l][r:r+m], f.ep[l][r:r+m], f.en[l][r:r+m], l == 1)
	if l == 1 {
		c.penJ = -1 // every waiting update ran with the products
	}
	if n.S != nil {
		k := n.Sizes[l]
		lo, hi := j*k+j+1, (j+1)*k
		c.term(g, l, j+1, hi-lo, j, g.st[l][lo:hi], f.eps[l][lo:hi], f.ens[l][lo:hi], false)
	}
}

// set moves every active lane's h_{l,j} to v[k], updating the activations
// it feeds where it changes; the update of the visible layer by a layer-1
// unit waits for the next log-odds.
func (c *gibbsChains[F]) set(g *gibbsTables, l, j int) {
	n, f := c.n, tablesOf[F](g)
	for gr := range (c.active + 7) / 8 {
		flips := false
		var d [8]F
		var sel, flip [8]uint32
		for q := range min(8, c.active-8*gr) {
			k := 8*gr + q
			o := c.idx(l, k, j)
			if x := F(c.v[k]) - c.h[l][o]; x != 0 {
				c.h[l][o] = F(c.v[k])
				d[q], flip[q] = x, ^uint32(0)
				if x < 0 {
					sel[q] = ^uint32(0)
				}
				flips = true
				if l == 1 {
					c.a0ok[k], c.sp0[k] = false, c.spNew[k]
				}
			}
		}
		if l == 1 {
			c.penFlip[gr], c.penSel[gr], c.penAny[gr] = flip, sel, flips
		}
		if !flips {
			continue
		}
		if l > 1 {
			m := n.Sizes[l-1]
			lo, hi := j*m, (j+1)*m
			c.shiftLayer(l-1, 0, gr, f.wt[l][lo:hi], f.ep[l][lo:hi], f.en[l][lo:hi], d, sel)
		}
		if n.S != nil {
			k := n.Sizes[l]
			lo, hi := j*k+j+1, (j+1)*k
			c.shiftLayer(l, j+1, gr, f.st[l][lo:hi], f.eps[l][lo:hi], f.ens[l][lo:hi], d, sel)
		}
	}
	if l == 1 {
		c.penJ = j
	}
}

// shiftLayer applies the flips d (selections sel) of group gr to the units
// i0 … i0+len(w)−1 of layer ll.
func (c *gibbsChains[F]) shiftLayer(ll, i0, gr int, w, ep, en []F, d [8]F, sel [8]uint32) {
	m := len(w)
	if m == 0 {
		return
	}
	o := (gr*c.n.Sizes[ll] + i0) * 8
	c.sh = sigpair.Shift8Args[F]{A: c.a[ll][o : o+8*m], S: c.s[ll][o : o+8*m], T: c.t[ll][o : o+8*m], W: w, EP: ep, EN: en, D: d, Sel: sel, Fb: c.fb[:m]}
	if sigpair.Shift8(&c.sh) {
		c.fixPairs(ll, o, c.fb[:m])
	}
}

// visibleSigmoid sets dst[i] to σ(a_{0,i}) of lane k, ρ/(1 + ρ) from its
// odds (from its activations where ρ is NaN); no update may be waiting
// (flush).
func (c *gibbsChains[F]) visibleSigmoid(g *gibbsTables, k int, dst []float64) {
	for i := range dst {
		r := float64(c.r0[c.idx(0, k, i)])
		if r != r {
			c.materialise(g, k)
			dst[i] = nmath.Sigmoid(c.a0[k*len(dst)+i])
			continue
		}
		dst[i] = r / (1 + r)
	}
}

// flush applies every waiting update of the visible layer.
func (c *gibbsChains[F]) flush(g *gibbsTables) {
	if c.penJ < 0 {
		return
	}
	for gr := range c.ng {
		if c.penAny[gr] {
			c.pendingRho(g, gr)
			if fell, _ := sigpair.Rho8(&c.ru, nil); fell != 0 {
				c.fixFell(g, gr, fell)
			}
		}
	}
	c.penJ = -1
}

// sweep updates every latent unit of every active lane once from its
// conditional, layer 1 to L, units in raster order; lane k draws from
// rngs[k].
func (c *gibbsChains[F]) sweep(g *gibbsTables, rngs []*rand.Rand) {
	for l := 1; l <= c.n.Layers(); l++ {
		for j := range c.n.Sizes[l] {
			c.logOdds(g, l, j)
			kernel.Sigmoid(c.sig[:c.active], c.lo[:c.active])
			for k := range c.active {
				c.v[k] = 0
				if rngs[k].Float64() < c.sig[k] {
					c.v[k] = 1
				}
			}
			c.set(g, l, j)
		}
	}
}

// laneUnitsOn lists, for lanes 0 … active−1, the units at 1 of every layer
// (those where on(l, k, i)): lane k's of layer l are
// lon[l][lspan[l][2k]:lspan[l][2k+1]].
func laneUnitsOn(sizes []int, active int, on func(l, k, i int) bool, lon, lspan [][]int32) {
	for l, m := range sizes {
		u := lon[l][:0]
		for k := range active {
			lspan[l][2*k] = int32(len(u))
			for i := range m {
				if on(l, k, i) {
					u = append(u, int32(i))
				}
			}
			lspan[l][2*k+1] = int32(len(u))
		}
		lon[l] = u
	}
}

// laneActivations sets sum[k·n_l + i], for lanes k < active whose units at
// 1 are lon, lspan (laneUnitsOn), to the activation of unit i of layer l,
// b_l + (Σ_{j on} W_{l+1}[i,j]) + Σ_{j<i on} S_l[i,j], as one chain sums it.
func (n *Net) laneActivations(g *gibbsTables, l, active int, lon, lspan [][]int32, sum []float64, cur []int32) {
	m := n.Sizes[l]
	sum = sum[:active*m]
	clear(sum)
	if l < n.Layers() {
		kernel.AddSelected(sum, m, g.wt[l+1], m, m, lon[l+1], lspan[l+1][:2*active])
	}
	var s []float64
	if n.S != nil {
		s = n.S[l]
	}
	for k := range active {
		ak := sum[k*m : (k+1)*m]
		for i, b := range n.B[l] {
			ak[i] = b + ak[i]
		}
	}
	if s != nil {
		addLowerAll(sum, s, m, active, 1, lon[l], lspan[l], cur)
	}
}

// visibleDots sets dot1[j·L + k] to Σ_{i on} x_i W_1[i,j] of lane k < active
// (0 for the others), summed in order over the visible units at 1 (lon[0],
// lspan[0]): the same bits as over every unit (adding x_i·w = ±0 to a sum
// that starts at +0 changes nothing). sum is scratch (active × n_1).
func (n *Net) visibleDots(active, L int, lon, lspan [][]int32, sum, dot1 []float64) {
	m := n.Sizes[1]
	dot := sum[:active*m]
	clear(dot)
	kernel.AddSelected(dot, m, n.W[1], m, m, lon[0], lspan[0][:2*active])
	for j := range m {
		for k := range L {
			v := 0.0
			if k < active {
				v = dot[k*m+j]
			}
			dot1[j*L+k] = v
		}
	}
}

// samplePrior draws the latent layers h_L … h_1 of h from the prior p(h),
// ignoring h[0] (the start of a Gibbs chain).
func (n *Net) samplePrior(h [][]float64, rng *rand.Rand, sc *Scratch) {
	L := n.Layers()
	for l := L; l >= 1; l-- {
		var above []float64
		if l < L {
			above = h[l+1]
		}
		n.SampleLayer(l, h[l], above, rng, sc)
	}
}
