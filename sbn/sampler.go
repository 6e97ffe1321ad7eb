package sbn

import (
	"math"
	"math/rand/v2"

	"github.com/logz-ml/logz/internal/expvec"
	"github.com/logz-ml/logz/internal/nmath"
	"github.com/logz-ml/logz/internal/seqsum"
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

// gibbsTables holds, for the current parameters, each latent unit's
// outgoing weights as a contiguous row with their exponentials: for
// l = 1 … L, wt[l] is W_lᵀ (n_l × n_{l−1}) and ep[l], en[l] are e^{W_lᵀ},
// e^{−W_lᵀ}; for an autoregressive net st[l] is S_lᵀ (n_l × n_l, row j
// holding column j, meaningful for i > j) with eps[l], ens[l].
type gibbsTables struct {
	wt, ep, en   [][]float64
	st, eps, ens [][]float64
	wmax         [][]float64 // wmax[l][j] = max_i |W_l[i,j]| (with the exponentials)
	row          []float64   // scratch of refresh
	f32          *gibbs32    // the float32 tables of laneChains32 (nil: none)
}

// newGibbsTables allocates the tables; with exps false only wt (for
// forward: the importance sampler).
func (n *Net) newGibbsTables(exps bool) *gibbsTables {
	L := n.Layers()
	widest := 0
	for _, k := range n.Sizes {
		widest = max(widest, k)
	}
	g := &gibbsTables{wt: make([][]float64, L+1), ep: make([][]float64, L+1), en: make([][]float64, L+1), wmax: make([][]float64, L+1), row: make([]float64, widest)}
	if n.S != nil && exps {
		g.st, g.eps, g.ens = make([][]float64, L+1), make([][]float64, L+1), make([][]float64, L+1)
	}
	for l := 1; l <= L; l++ {
		m := n.Sizes[l-1] * n.Sizes[l]
		g.wt[l] = make([]float64, m)
		if !exps {
			continue
		}
		g.ep[l], g.en[l], g.wmax[l] = make([]float64, m), make([]float64, m), make([]float64, n.Sizes[l])
		if n.S != nil {
			k := n.Sizes[l] * n.Sizes[l]
			g.st[l], g.eps[l], g.ens[l] = make([]float64, k), make([]float64, k), make([]float64, k)
		}
	}
	return g
}

// refresh recomputes the tables from n's parameters; with exps false only
// W_lᵀ (what forward needs).
func (g *gibbsTables) refresh(n *Net, exps bool) {
	for l := 1; l <= n.Layers(); l++ {
		if !exps {
			transpose(n.W[l], n.Sizes[l-1], n.Sizes[l], g.wt[l])
			continue
		}
		transposeExp(n.W[l], n.Sizes[l-1], n.Sizes[l], g.wt[l], g.ep[l], g.en[l], g.row)
		r := n.Sizes[l-1]
		for j := range n.Sizes[l] {
			top := 0.0
			for _, x := range g.wt[l][j*r : (j+1)*r] {
				top = max(top, math.Abs(x))
			}
			g.wmax[l][j] = top
		}
		if n.S != nil {
			transposeExp(n.S[l], n.Sizes[l], n.Sizes[l], g.st[l], g.eps[l], g.ens[l], g.row)
		}
	}
	if exps && g.f32 != nil {
		g.refresh32(n)
	}
}

// transposeExp writes wᵀ (w is r×c) into t and e^{±wᵀ} into ep, en
// (e^{w} by expvec: math.Exp's bits), using row (c entries) as scratch.
func transposeExp(w []float64, r, c int, t, ep, en, row []float64) {
	for i := range r {
		wi := w[i*c : (i+1)*c]
		expvec.Exp(row[:c], wi)
		for j, x := range wi {
			t[j*r+i] = x
			if math.Abs(x) > extreme {
				ep[j*r+i], en[j*r+i] = math.NaN(), math.NaN()
				continue
			}
			e := row[j]
			ep[j*r+i] = e
			en[j*r+i] = 1 / e
		}
	}
}

// extreme bounds the |a| and |w| whose e^{±a}, e^{±w} enter the product
// form: beyond it σ(−|a|) and e^{−|w|} approach the subnormal range, where
// they lose relative precision, so the chains store NaN for them and the
// blocks that meet one take the direct softplus formula.
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

// laneChains runs up to 4·ng Gibbs chains of one net side by side, one per
// lane, each over the latent layers of its own example h_0 = x: the chains
// of a trainer's chunk of examples sweep together, so that every weight
// row and its exponentials are read once for all of them and the
// products of the log-odds and the updates run four lanes (a group) at a
// time (sbn/internal/sigpair). Layer l's states h, activations a and σ(a),
// σ(−a) (s, t; NaN where |a| > extreme) are stored group by group, unit by
// unit: unit i of lane k = 4g + q at [(g·n_l + i)·4 + q] (idx), so that
// one group's units are contiguous. Every lane performs the
// floating-point operations of the one-chain sampler in the same order,
// so a chain's states and activations do not depend on which lane, or
// beside which other chains, it runs.
//
// The visible layer, the widest, gets two shortcuts that leave those
// operations as they were:
//
//   - Its activations a_0 are needed only to check that an update keeps
//     |a| ≤ extreme and for the rare terms taken by the direct formula, so
//     a flip of a unit of layer 1 does not add its row to them at once: the
//     lane records it (pend) and adds the recorded rows, in order, when a_0
//     is read (materialise). Meanwhile max_i |a_{0,i}| + Σ max_i |w_i| over
//     the recorded rows bounds every |a_{0,i}| the eager updates would have
//     produced; while it stays below extreme (and no σ pair of the lane nor
//     exponential of the row is NaN) the eager update could not have taken
//     its fallback, and sigpair.ShiftPairs updates the σ pairs alone.
//   - The update of a layer-1 unit's flip waits until the next unit's
//     log-odds are computed, and runs in the same pass
//     (sigpair.ShiftPairsProd); an update still waiting when a dynamics step
//     ends is dropped with the activations (refresh recomputes them).
type laneChains struct {
	n          *Net
	ng, lanes  int
	active     int         // lanes 0 … active−1 hold chains
	h, a, s, t [][]float64 // a[0] is unused: the visible activations are a0
	dot1       []float64   // n_1 × lanes: Σ_i x_i W_1[i,j], the visible layer's dot for unit j and lane k at [j·lanes + k] (fixed while W is)

	// The visible layer's activations, lane by lane (a0[k·n_0 + i]), as of
	// the rows recorded in pend[k] (j, or ^j for a subtraction), with the
	// largest |a| (amax) and the sum of the recorded rows' largest |w|
	// (pbound) at that point, and the number of NaN σ pairs (nan0).
	a0          []float64
	pend        [][]int32
	amax        []float64
	pbound      []float64
	nan0        []int
	penJ        int // the layer-1 unit whose update waits (−1: none)
	penD        [][4]float64
	penSel      [][4]uint64
	penAny      []bool
	gsc         []float64 // one group's visible activations (the eager update)
	span        []int32
	lanesByRows []int32

	// The lanes' units at 1 and sums (refresh), and the per-unit work.
	lon        [][]int32 // per layer: the units at 1 of lane k are lon[l][lspan[l][2k]:lspan[l][2k+1]]
	lspan      [][]int32
	sum        []float64
	ps, pt     []float64 // a lane's σ pairs (refresh)
	sig        []float64 // the lanes' σ(Δ) (sweep)
	sel        []uint64
	p, dot, lo []float64
	exp        []int64
	bad, fb    []uint8
	v          []float64
	nbMax      int // blocks of the widest layer: group g's bad bytes are bad[g·nbMax:]
	gbad       []bool
	fused      []int
	plain      []int
	prods      []sigpair.ProdArgs
	vprods     []sigpair.ProdArgs // the visible layer's, built once (only the row changes)
	shifts     []sigpair.ShiftArgs
	shift      sigpair.ShiftArgs
}

// pendCap bounds the rows a lane records before it materialises a_0.
const pendCap = 1024

// boundLimit is the largest bound on |a_0| under which the recorded
// updates could not have left [−extreme, extreme], with room for the
// rounding of up to pendCap additions (relative 2^−53 each).
const boundLimit = extreme * (1 - 1e-9)

func (n *Net) newLaneChains(lanes int) *laneChains {
	ng := (lanes + 3) / 4
	L := 4 * ng
	widest := 0
	for _, s := range n.Sizes {
		widest = max(widest, s)
	}
	c := &laneChains{n: n, ng: ng, lanes: L, dot1: make([]float64, n.Sizes[1]*L), sum: make([]float64, widest*L),
		ps: make([]float64, widest), pt: make([]float64, widest), sig: make([]float64, L),
		sel: make([]uint64, L), p: make([]float64, L), dot: make([]float64, L), lo: make([]float64, L), exp: make([]int64, L),
		nbMax: (widest + sigpair.BlockLen - 1) / sigpair.BlockLen, fb: make([]uint8, widest), v: make([]float64, L),
		gbad: make([]bool, ng), fused: make([]int, 0, ng), plain: make([]int, 0, ng), prods: make([]sigpair.ProdArgs, ng), shifts: make([]sigpair.ShiftArgs, ng),
		a0: make([]float64, L*n.Sizes[0]), pend: make([][]int32, L), amax: make([]float64, L), pbound: make([]float64, L),
		nan0: make([]int, L), penJ: -1, penD: make([][4]float64, ng), penSel: make([][4]uint64, ng), penAny: make([]bool, ng),
		gsc: make([]float64, 4*n.Sizes[0]), span: make([]int32, 2)}
	c.bad = make([]uint8, ng*c.nbMax)
	for k := range c.pend {
		c.pend[k] = make([]int32, 0, pendCap)
	}
	for l, s := range n.Sizes {
		c.h = append(c.h, make([]float64, s*L))
		if l > 0 {
			c.a = append(c.a, make([]float64, s*L))
		} else {
			c.a = append(c.a, nil)
		}
		c.s = append(c.s, make([]float64, s*L))
		c.t = append(c.t, make([]float64, s*L))
		c.lon = append(c.lon, make([]int32, 0, s*L))
		c.lspan = append(c.lspan, make([]int32, 2*L))
	}
	c.vprods = make([]sigpair.ProdArgs, ng)
	m0 := n.Sizes[0]
	for gr := range ng {
		o, k0 := gr*m0*4, 4*gr
		c.vprods[gr] = sigpair.ProdArgs{T: c.t[0][o:], S: c.s[0][o:], Stride: 4, Sel: c.sel[k0 : k0+4],
			P: c.p[k0 : k0+4], Exp: c.exp[k0 : k0+4], Dot: c.dot[k0 : k0+4], Bad: c.bad[gr*c.nbMax : (gr+1)*c.nbMax]}
	}
	return c
}

// idx is the position of unit i of lane k in layer l's arrays.
func (c *laneChains) idx(l, k, i int) int { return (k/4*c.n.Sizes[l]+i)*4 + k%4 }

// act is the activation of unit i of lane k in layer l (materialising
// the visible layer's).
func (c *laneChains) act(g *gibbsTables, l, k, i int) float64 {
	if l == 0 {
		c.materialise(g, k)
		return c.a0[k*c.n.Sizes[0]+i]
	}
	return c.a[l][c.idx(l, k, i)]
}

// load sets lane k's states to h (every layer, h[0] = x).
func (c *laneChains) load(k int, h [][]float64) {
	for l, hl := range h {
		for i, x := range hl {
			c.h[l][c.idx(l, k, i)] = x
		}
	}
}

// latent copies lane k's latent states h_1 … h_L into h[1:].
func (c *laneChains) latent(k int, h [][]float64) {
	for l := 1; l < len(h); l++ {
		for i := range h[l] {
			h[l][i] = c.h[l][c.idx(l, k, i)]
		}
	}
}

// refresh recomputes, for lanes 0 … active−1 (loaded), every activation
// from the states, a_l = b_l + (Σ_{j on} W_{l+1}[i,j]) + Σ_{j<i on} S_l[i,j]
// as one chain sums it, and the visible dot products Σ_{i on} W_1[i,j]
// for the current tables; it makes the other lanes inert (s = 0, t = 1:
// factors of 1, never drawn) and drops every waiting update.
func (c *laneChains) refresh(active int, g *gibbsTables) {
	n, L := c.n, c.lanes
	c.active = active
	c.penJ = -1
	laneUnitsOn(n.Sizes, active, func(l, k, i int) bool { return c.h[l][c.idx(l, k, i)] != 0 }, c.lon, c.lspan)
	for l := range c.h {
		m := n.Sizes[l]
		sum := c.sum[:active*m]
		n.laneActivations(g, l, active, c.lon, c.lspan, sum)
		for k := range L {
			if l == 0 {
				c.pend[k], c.pbound[k], c.amax[k], c.nan0[k] = c.pend[k][:0], 0, 0, 0
			}
			if k >= active {
				for i := range m {
					o := c.idx(l, k, i)
					c.h[l][o], c.s[l][o], c.t[l][o] = 0, 0, 1
					if l > 0 {
						c.a[l][o] = 0
					} else {
						c.a0[k*m+i] = 0
					}
				}
				continue
			}
			ak := sum[k*m : (k+1)*m]
			ps, pt := c.ps[:m], c.pt[:m]
			expvec.SigPair(ps, pt, ak) // chainPair, but for the NaN beyond extreme
			for i, a := range ak {
				o := c.idx(l, k, i)
				if math.Abs(a) > extreme {
					ps[i], pt[i] = math.NaN(), math.NaN()
				}
				c.s[l][o], c.t[l][o] = ps[i], pt[i]
				if l > 0 {
					c.a[l][o] = a
					continue
				}
				c.a0[k*m+i] = a
				c.amax[k] = max(c.amax[k], math.Abs(a))
				if math.IsNaN(ps[i]) {
					c.nan0[k]++
				}
			}
		}
	}
	n.visibleDots(active, L, c.lon, c.lspan, c.sum, c.dot1)
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
func (n *Net) laneActivations(g *gibbsTables, l, active int, lon, lspan [][]int32, sum []float64) {
	m := n.Sizes[l]
	sum = sum[:active*m]
	clear(sum)
	if l < n.Layers() {
		seqsum.AddSelected(sum, m, g.wt[l+1], m, m, lon[l+1], lspan[l+1][:2*active])
	}
	var s []float64
	if n.S != nil {
		s = n.S[l]
	}
	for k := range active {
		onl := lon[l][lspan[l][2*k]:lspan[l][2*k+1]]
		ak := sum[k*m : (k+1)*m]
		for i := range m {
			a := n.B[l][i]
			a += ak[i]
			if s != nil {
				a = addLower(a, s, m, i, onl)
			}
			ak[i] = a
		}
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
	seqsum.AddSelected(dot, m, n.W[1], m, m, lon[0], lspan[0][:2*active])
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

// materialise adds lane k's recorded rows to its visible activations, in
// order (the additions of the eager updates), and resets its bound.
func (c *laneChains) materialise(g *gibbsTables, k int) {
	if len(c.pend[k]) == 0 {
		return
	}
	m := c.n.Sizes[0]
	a := c.a0[k*m : (k+1)*m]
	c.span[0], c.span[1] = 0, int32(len(c.pend[k]))
	seqsum.AddSelected(a, m, g.wt[1], m, m, c.pend[k], c.span)
	c.pend[k], c.pbound[k] = c.pend[k][:0], 0
	top := 0.0
	for _, x := range a {
		top = max(top, math.Abs(x))
	}
	c.amax[k] = top
}

// term adds to lo[k] (k < active), for unit j's outgoing row w over the m
// units of layer ll from unit i0 on (e^{w} in ep, e^{−w} in en), the
// terms of its log-odds (see the top of the file): x·w − sign·log Π (t +
// s e^{sign·w}) with sign = +1 where the unit is 0 (sel[k] = 0), −1 where
// it is 1. With visible the dot products are dot1's column j, else they
// run over the states of layer ll. For the visible layer (ll = 0, i0 = 0)
// the groups' waiting updates of the previous unit run in the same pass,
// two groups at a time where they may go without their checks.
func (c *laneChains) term(g *gibbsTables, ll, i0, m, j int, w, ep, en []float64, visible bool) {
	L, nl := c.lanes, c.n.Sizes[ll]
	for k := range L {
		c.p[k], c.exp[k], c.dot[k] = 1, 0, 0
	}
	if visible {
		copy(c.dot, c.dot1[j*L:(j+1)*L])
	}
	nb := (m + sigpair.BlockLen - 1) / sigpair.BlockLen
	ngr := (c.active + 3) / 4
	prods := c.prods
	if visible {
		prods = c.vprods // built once: only the row changes
	}
	for gr := range ngr {
		o, k0 := (gr*nl+i0)*4, 4*gr
		bad := c.bad[gr*c.nbMax : gr*c.nbMax+nb]
		clear(bad)
		pa := &prods[gr]
		if visible {
			pa.EP, pa.EN = ep[:m], en[:m]
			continue
		}
		*pa = sigpair.ProdArgs{T: c.t[ll][o:], S: c.s[ll][o:], Stride: 4, EP: ep[:m], EN: en[:m], Sel: c.sel[k0 : k0+4],
			P: c.p[k0 : k0+4], Exp: c.exp[k0 : k0+4], Dot: c.dot[k0 : k0+4], Bad: bad, X: c.h[ll][o:], W: w[:m]}
	}
	// The products, with the waiting updates of the visible layer; two
	// groups at a time where they share the row and have no dot products.
	fused, plain := c.fused[:0], c.plain[:0]
	for gr := range ngr {
		if ll == 0 && c.penJ >= 0 && c.penAny[gr] && c.prepareFlush(g, gr) {
			fused = append(fused, gr)
			continue
		}
		plain = append(plain, gr)
	}
	for visible && len(plain) >= 2 {
		a, b := plain[0], plain[1]
		c.gbad[a], c.gbad[b] = sigpair.Prod2(&prods[a], &prods[b])
		plain = plain[2:]
	}
	for _, gr := range plain {
		c.gbad[gr] = sigpair.Prod(1, &prods[gr])
	}
	for len(fused) >= 2 {
		a, b := fused[0], fused[1]
		c.gbad[a], c.gbad[b] = sigpair.ShiftPairsProd2(&c.shifts[a], &c.shifts[b], &prods[a], &prods[b])
		fused = fused[2:]
	}
	if len(fused) == 1 {
		c.gbad[fused[0]] = sigpair.ShiftPairsProd(&c.shifts[fused[0]], &prods[fused[0]])
	}
	for gr := range ngr {
		k0 := 4 * gr
		bad := c.bad[gr*c.nbMax:]
		for q := range min(4, c.active-k0) {
			k := k0 + q
			sign := 1.0
			if c.sel[k] != 0 {
				sign = -1
			}
			lg := 0.0
			if c.gbad[gr] {
				// Blocks out of the safe range: term by term.
				for b, lo := 0, 0; lo < m; b, lo = b+1, lo+sigpair.BlockLen {
					if bad[b]>>q&1 == 0 {
						continue
					}
					for i := lo; i < min(lo+sigpair.BlockLen, m); i++ {
						ai := c.act(g, ll, k, i0+i)
						lg += nmath.Softplus(ai+sign*w[i]) - nmath.Softplus(ai)
					}
				}
			}
			lg = lg + math.Log(c.p[k]) + float64(c.exp[k])*math.Ln2
			c.lo[k] += c.dot[k] - sign*lg
		}
	}
}

// prepareFlush readies group gr's waiting update of layer-1 unit penJ to
// the visible layer (c.shifts[gr]) and reports whether it may go without
// its checks, recording it then in the lanes' pending rows; otherwise it
// applies the eager update, checks and fallbacks included, at once.
func (c *laneChains) prepareFlush(g *gibbsTables, gr int) bool {
	m := c.n.Sizes[0]
	p := c.penJ
	row := p * m
	sh := &c.shifts[gr]
	o := gr * m * 4
	*sh = sigpair.ShiftArgs{S: c.s[0][o:], T: c.t[0][o:], Stride: 4, W: g.wt[1][row : row+m], EP: g.ep[1][row : row+m], EN: g.en[1][row : row+m],
		D: c.penD[gr], Sel: c.penSel[gr]}
	c.penAny[gr] = false
	safe := g.wmax[1][p] <= extreme
	for q := range 4 {
		k := 4*gr + q
		if sh.D[q] == 0 {
			continue
		}
		if c.nan0[k] > 0 || len(c.pend[k]) == pendCap {
			safe = false
		}
		if safe && c.amax[k]+c.pbound[k]+g.wmax[1][p] > boundLimit {
			c.materialise(g, k)
			safe = c.amax[k]+g.wmax[1][p] <= boundLimit
		}
	}
	if safe {
		for q := range 4 {
			k := 4*gr + q
			if sh.D[q] != 0 {
				r := int32(p)
				if sh.D[q] < 0 {
					r = ^r
				}
				c.pend[k] = append(c.pend[k], r)
				c.pbound[k] += g.wmax[1][p]
			}
		}
		return true
	}
	// The eager update on the group's activations gathered from the lanes.
	for q := range 4 {
		k := 4*gr + q
		c.materialise(g, k)
		copyStrided(c.gsc[q:], 4, c.a0[k*m:(k+1)*m])
	}
	sh.A, sh.Fb = c.gsc, c.fb[:m]
	fell := sigpair.Shift(sh)
	for q := range 4 {
		k := 4*gr + q
		if sh.D[q] == 0 {
			continue
		}
		a := c.a0[k*m : (k+1)*m]
		top := 0.0
		for i := range a {
			a[i] = c.gsc[i*4+q]
			top = max(top, math.Abs(a[i]))
		}
		c.amax[k] = top
	}
	if fell {
		for i, b := range c.fb[:m] {
			for q := range 4 {
				if b>>q&1 != 0 {
					x := o + i*4 + q
					c.s[0][x], c.t[0][x] = chainPair(c.gsc[i*4+q])
				}
			}
			c.fb[i] = 0
		}
		for q := range 4 {
			k := 4*gr + q
			c.nan0[k] = 0
			for i := range m {
				if math.IsNaN(c.s[0][o+i*4+q]) {
					c.nan0[k]++
				}
			}
		}
	}
	return false
}

// copyStrided sets dst[i·stride] = src[i].
func copyStrided(dst []float64, stride int, src []float64) {
	for i, x := range src {
		dst[i*stride] = x
	}
}

// flush applies every waiting update (the chains' activations are then
// those of the eager updates).
func (c *laneChains) flush(g *gibbsTables) {
	if c.penJ < 0 {
		return
	}
	for gr := range c.ng {
		if c.penAny[gr] && c.prepareFlush(g, gr) {
			sigpair.ShiftPairs(&c.shifts[gr])
		}
	}
	c.penJ = -1
}

// logOdds sets lo[k] to Δ_{l,j} = log p(h_{l,j} = 1 | rest) − log
// p(h_{l,j} = 0 | rest) of every active lane (l ≥ 1).
func (c *laneChains) logOdds(g *gibbsTables, l, j int) {
	n := c.n
	for k := range c.lanes {
		o := c.idx(l, k, j)
		c.sel[k] = 0
		if c.h[l][o] != 0 {
			c.sel[k] = ^uint64(0)
		}
		c.lo[k] = c.a[l][o]
	}
	m := n.Sizes[l-1]
	r := g.wt[l][j*m : (j+1)*m]
	c.term(g, l-1, 0, m, j, r, g.ep[l][j*m:(j+1)*m], g.en[l][j*m:(j+1)*m], l == 1)
	if l == 1 {
		c.penJ = -1 // every waiting update ran with the products
	}
	if n.S != nil {
		k := n.Sizes[l]
		lo, hi := j*k+j+1, (j+1)*k
		c.term(g, l, j+1, hi-lo, j, g.st[l][lo:hi], g.eps[l][lo:hi], g.ens[l][lo:hi], false)
	}
}

// set moves every active lane's h_{l,j} to v[k] (0 or 1), updating the
// activations it feeds in the lanes where it changes (sigpair.Shift: the
// sigmoids follow without an exp, recomputed from a when the update leaves
// the safe range). The update of the visible layer by a layer-1 unit
// waits for the next log-odds (see laneChains).
func (c *laneChains) set(g *gibbsTables, l, j int) {
	n := c.n
	sh := &c.shift
	for gr := range (c.active + 3) / 4 {
		flips := false
		var d [4]float64
		var sel [4]uint64
		for q := range 4 {
			k := 4*gr + q
			if k >= c.active {
				continue
			}
			o := c.idx(l, k, j)
			if x := c.v[k] - c.h[l][o]; x != 0 {
				c.h[l][o] = c.v[k]
				d[q] = x
				if x < 0 {
					sel[q] = ^uint64(0)
				}
				flips = true
			}
		}
		if l == 1 {
			c.penD[gr], c.penSel[gr], c.penAny[gr] = d, sel, flips
		}
		if !flips {
			continue
		}
		sh.D, sh.Sel = d, sel
		if l > 1 {
			m := n.Sizes[l-1]
			lo, hi := j*m, (j+1)*m
			c.shiftLayer(l-1, 0, gr, g.wt[l][lo:hi], g.ep[l][lo:hi], g.en[l][lo:hi])
		}
		if n.S != nil {
			k := n.Sizes[l]
			lo, hi := j*k+j+1, (j+1)*k
			sh.D, sh.Sel = d, sel
			c.shiftLayer(l, j+1, gr, g.st[l][lo:hi], g.eps[l][lo:hi], g.ens[l][lo:hi])
		}
	}
	if l == 1 {
		c.penJ = j
	}
}

// shiftLayer applies c.shift's flips (the lanes of group gr) to the units
// i0 … i0+len(w)−1 of layer ll ≥ 1.
func (c *laneChains) shiftLayer(ll, i0, gr int, w, ep, en []float64) {
	m := len(w)
	if m == 0 {
		return
	}
	sh := &c.shift
	o := (gr*c.n.Sizes[ll] + i0) * 4
	sh.A, sh.S, sh.T, sh.Stride, sh.W, sh.EP, sh.EN, sh.Fb = c.a[ll][o:], c.s[ll][o:], c.t[ll][o:], 4, w, ep, en, c.fb[:m]
	if !sigpair.Shift(sh) {
		return
	}
	for i, b := range c.fb[:m] {
		for q := range 4 {
			if b>>q&1 != 0 {
				x := o + i*4 + q
				c.s[ll][x], c.t[ll][x] = chainPair(c.a[ll][x])
			}
		}
		c.fb[i] = 0
	}
}

// sweep updates every latent unit of every active lane once from its
// conditional, layer 1 to L, units in raster order within a layer; lane k
// draws from rngs[k].
func (c *laneChains) sweep(g *gibbsTables, rngs []*rand.Rand) {
	for l := 1; l <= c.n.Layers(); l++ {
		for j := range c.n.Sizes[l] {
			c.logOdds(g, l, j)
			expvec.Sigmoid(c.sig[:c.active], c.lo[:c.active]) // nmath.Sigmoid's bits
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
