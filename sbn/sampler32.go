package sbn

import (
	"math"
	"math/rand/v2"

	"github.com/logz-ml/logz/internal/expvec"
	"github.com/logz-ml/logz/internal/nmath"
	"github.com/logz-ml/logz/internal/seqsum"
	"github.com/logz-ml/logz/sbn/internal/sigpair"
)

// The float32 Gibbs sampler (train.precision float32 with the gibbs
// sampler): the chains of sampler.go with their states, the latent layers'
// activations and σ pairs, the visible layer's odds (below) and the
// tabulated e^{±W}, e^{±S} in float32, eight lanes per AVX2 register
// (sbn/internal/sigpair's float32 kernels). What stays float64: the
// activations recomputed at each refresh (the sums of float64 weights,
// then rounded), the visible layer's dot products Σ_i x_i W_1[i,j] and
// Σ_i softplus(a_i), the product of a block of 32 factors (each factor is
// formed in float32 and multiplied in float64, renormalised as in
// sampler.go), the latent layers' dot products, the log-odds, the sigmoid
// and the draws. The log-odds then differ from the float64 sampler's by
// the rounding of the float32 values: a few units of 2⁻²⁴ per factor, plus
// the drift of the values updated multiplicatively between refreshes (see
// tol32 in the tests for the bound they are checked against; on an SBN
// 784-200 the largest difference seen is about 5e−6).
//
// The visible layer, the widest, is kept in odds form: each unit holds ρ =
// e^{a} in float32 (NaN beyond ±sigpair.Extreme32) and each lane the sum
// S = Σ_i softplus(a_i) in float64, so that the visible part of unit j's
// log-odds is sign·(log Π_i (1 + ρ_i e^{sign·w_i}) − S): a flip of unit j
// multiplies each ρ_i by e^{±w_i} (one float32 product, no division), and
// its new S is the log of the product just taken for its log-odds. Its
// activations are needed only where a ρ must be recomputed (it left
// [RhoLo, RhoHi] or is NaN) and for the direct formula of a bad block,
// both rare, so a lane's activations are recomputed from its states in
// float64 when one of them needs them (materialise: the bits refresh would
// give) and are otherwise stale. The update of the visible layer by a
// layer-1 unit's flip waits for the next unit's log-odds and runs in the
// same pass (sigpair.Rho); a lane whose update fell gets its ρ and S
// recomputed from its activations, and its product is taken again.

// gibbs32 holds the float32 tables: for l = 1 … L, wt[l] = W_lᵀ (n_l ×
// n_{l−1}) and ep[l], en[l] = e^{±W_lᵀ}, NaN where |w| > sigpair.Extreme32,
// and for an autoregressive net the same of S_lᵀ.
type gibbs32 struct {
	wt, ep, en   [][]float32
	st, eps, ens [][]float32
}

// enable32 adds the float32 tables to g (refresh then fills them).
func (g *gibbsTables) enable32(n *Net) {
	L := n.Layers()
	f := &gibbs32{wt: make([][]float32, L+1), ep: make([][]float32, L+1), en: make([][]float32, L+1)}
	if n.S != nil {
		f.st, f.eps, f.ens = make([][]float32, L+1), make([][]float32, L+1), make([][]float32, L+1)
	}
	for l := 1; l <= L; l++ {
		m := n.Sizes[l-1] * n.Sizes[l]
		f.wt[l], f.ep[l], f.en[l] = make([]float32, m), make([]float32, m), make([]float32, m)
		if n.S != nil {
			k := n.Sizes[l] * n.Sizes[l]
			f.st[l], f.eps[l], f.ens[l] = make([]float32, k), make([]float32, k), make([]float32, k)
		}
	}
	g.f32 = f
}

// refresh32 rounds the float64 tables into the float32 ones.
func (g *gibbsTables) refresh32(n *Net) {
	f := g.f32
	for l := 1; l <= n.Layers(); l++ {
		round32(f.wt[l], f.ep[l], f.en[l], g.wt[l], g.ep[l], g.en[l])
		if n.S != nil {
			round32(f.st[l], f.eps[l], f.ens[l], g.st[l], g.eps[l], g.ens[l])
		}
	}
}

// round32 sets w32, ep32, en32 to w, ep, en rounded to float32, with NaN
// exponentials where |w| > sigpair.Extreme32.
func round32(w32, ep32, en32 []float32, w, ep, en []float64) {
	for i, x := range w {
		w32[i] = float32(x)
		if math.Abs(x) > sigpair.Extreme32 {
			ep32[i], en32[i] = float32(math.NaN()), float32(math.NaN())
			continue
		}
		ep32[i], en32[i] = float32(ep[i]), float32(en[i])
	}
}

// chainPair32 is σ(a), σ(−a) in float32, or NaN, NaN when |a| >
// sigpair.Extreme32.
func chainPair32(a float32) (float32, float32) {
	if math.Abs(float64(a)) > sigpair.Extreme32 {
		return float32(math.NaN()), float32(math.NaN())
	}
	s, t := sigPair(float64(a))
	return float32(s), float32(t)
}

// laneChains32 runs up to 8·ng chains side by side, as laneChains does in
// float64: unit i of lane k = 8g + q of layer l at [(g·n_l + i)·8 + q]
// (idx). A lane's operations do not depend on the other lanes, so a
// chain's states do not depend on which lane, or beside which chains, it
// runs.
type laneChains32 struct {
	n          *Net
	ng, lanes  int
	active     int
	h, a, s, t [][]float32 // a[0], s[0], t[0] are unused: the visible layer is r0, a0
	dot1       []float64   // n_1 × lanes: Σ_i x_i W_1[i,j] at [j·lanes + k]

	// The visible layer's ρ = e^{a} (laid out as s), and per lane Σ_i
	// softplus(a_i) (sp0) and the value it takes if the lane's unit whose
	// log-odds were just computed flips (spNew).
	r0         []float32
	sp0, spNew []float64

	// The visible layer's activations, lane by lane (a0[k·n_0 + i]), valid
	// where a0ok[k] (else recomputed by materialise).
	a0   []float64
	a0ok []bool
	on1  []int32
	span []int32

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
	pr          sigpair.Prod32Args
	sh          sigpair.Shift32Args
	rp, ru      sigpair.RhoArgs
}

func (n *Net) newLaneChains32(lanes int) *laneChains32 {
	ng := (lanes + 7) / 8
	L := 8 * ng
	widest := 0
	for _, s := range n.Sizes {
		widest = max(widest, s)
	}
	c := &laneChains32{n: n, ng: ng, lanes: L, dot1: make([]float64, n.Sizes[1]*L), penJ: -1,
		a0: make([]float64, L*n.Sizes[0]), a0ok: make([]bool, L), r0: make([]float32, L*n.Sizes[0]), sp0: make([]float64, L), spNew: make([]float64, L), on1: make([]int32, 0, n.Sizes[1]), span: make([]int32, 2),
		penFlip: make([][8]uint32, ng), penSel: make([][8]uint32, ng), penAny: make([]bool, ng),
		sum: make([]float64, widest*L), ps: make([]float64, widest), pt: make([]float64, widest),
		sel: make([][8]uint32, ng), p: make([][8]float64, ng), dot: make([][8]float64, ng), exp: make([][8]int64, ng),
		lo: make([]float64, L), sig: make([]float64, L), v: make([]float64, L),
		nbMax: (widest + sigpair.BlockLen - 1) / sigpair.BlockLen, fb: make([]uint8, widest)}
	c.bad = make([]uint8, ng*c.nbMax)
	for l, s := range n.Sizes {
		c.h = append(c.h, make([]float32, s*L))
		if l > 0 {
			c.a = append(c.a, make([]float32, s*L))
			c.s = append(c.s, make([]float32, s*L))
			c.t = append(c.t, make([]float32, s*L))
		} else {
			c.a, c.s, c.t = append(c.a, nil), append(c.s, nil), append(c.t, nil)
		}
		c.lon = append(c.lon, make([]int32, 0, s*L))
		c.lspan = append(c.lspan, make([]int32, 2*L))
	}
	return c
}

// idx is the position of unit i of lane k in layer l's arrays.
func (c *laneChains32) idx(l, k, i int) int { return (k/8*c.n.Sizes[l]+i)*8 + k%8 }

// act is the activation of unit i of lane k in layer l (materialising
// the visible layer's).
func (c *laneChains32) act(g *gibbsTables, l, k, i int) float64 {
	if l == 0 {
		c.materialise(g, k)
		return c.a0[k*c.n.Sizes[0]+i]
	}
	return float64(c.a[l][c.idx(l, k, i)])
}

// load sets lane k's states to h (every layer, h[0] = x).
func (c *laneChains32) load(k int, h [][]float64) {
	for l, hl := range h {
		for i, x := range hl {
			c.h[l][c.idx(l, k, i)] = float32(x)
		}
	}
}

// latent copies lane k's latent states h_1 … h_L into h[1:].
func (c *laneChains32) latent(k int, h [][]float64) {
	for l := 1; l < len(h); l++ {
		for i := range h[l] {
			h[l][i] = float64(c.h[l][c.idx(l, k, i)])
		}
	}
}

// refresh recomputes, for lanes 0 … active−1, every activation from the
// states in float64 (as laneChains.refresh sums them), rounds it and its σ
// pair to float32, and the visible dot products; the other lanes become
// inert (s = 0, t = 1) and the waiting update is dropped.
func (c *laneChains32) refresh(active int, g *gibbsTables) {
	n, L := c.n, c.lanes
	c.active = active
	c.penJ = -1
	clear(c.penAny)
	laneUnitsOn(n.Sizes, active, func(l, k, i int) bool { return c.h[l][c.idx(l, k, i)] != 0 }, c.lon, c.lspan)
	for l := range c.h {
		m := n.Sizes[l]
		sum := c.sum[:active*m]
		n.laneActivations(g, l, active, c.lon, c.lspan, sum)
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
			expvec.SigPair(ps, pt, ak)
			for i, a := range ak {
				o := c.idx(l, k, i)
				c.a[l][o] = float32(a)
				if math.Abs(a) > sigpair.Extreme32 {
					c.s[l][o], c.t[l][o] = float32(math.NaN()), float32(math.NaN())
					continue
				}
				c.s[l][o], c.t[l][o] = float32(ps[i]), float32(pt[i])
			}
		}
	}
	n.visibleDots(active, L, c.lon, c.lspan, c.sum, c.dot1)
}

// fixPairs recomputes from a the σ pairs of the lanes flagged in fb for
// the elements of layer ll from offset o on, and clears fb.
func (c *laneChains32) fixPairs(ll, o int, fb []uint8) {
	for i, b := range fb {
		if b == 0 {
			continue
		}
		for q := range 8 {
			if b>>q&1 != 0 {
				x := o + i*8 + q
				c.s[ll][x], c.t[ll][x] = chainPair32(c.a[ll][x])
			}
		}
		fb[i] = 0
	}
}

// materialise recomputes lane k's visible activations from its states
// unless they are valid: b_0 + Σ_{j on} W_1[·, j] (+ S_0 x), the sums of
// refresh.
func (c *laneChains32) materialise(g *gibbsTables, k int) {
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
	seqsum.AddSelected(a, m, g.wt[1], m, m, on, c.span)
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
func (c *laneChains32) visibleOdds(k int) {
	m := c.n.Sizes[0]
	a := c.a0[k*m : (k+1)*m]
	e := c.ps[:m]
	expvec.Exp(e, a)
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
		if math.Abs(x) > sigpair.Extreme32 {
			c.r0[o] = float32(math.NaN())
			continue
		}
		c.r0[o] = float32(e[i])
	}
	c.sp0[k] = sp + math.Log(prod)
}

// pendingRho readies c.ru with group gr's waiting update of the visible
// layer by layer-1 unit penJ.
func (c *laneChains32) pendingRho(g *gibbsTables, gr int) {
	m := c.n.Sizes[0]
	f, row, o := g.f32, c.penJ*m, gr*m*8
	c.ru = sigpair.RhoArgs{R: c.r0[o : o+8*m], EP: f.ep[1][row : row+m], EN: f.en[1][row : row+m], Flip: &c.penFlip[gr], Sel: &c.penSel[gr]}
	c.penAny[gr] = false
}

// fixFell recomputes the visible ρ and Σ softplus(a) of the lanes of group
// gr in fell from their activations.
func (c *laneChains32) fixFell(g *gibbsTables, gr int, fell uint8) {
	for q := range 8 {
		if fell>>q&1 != 0 {
			c.materialise(g, 8*gr+q)
			c.visibleOdds(8*gr + q)
		}
	}
}

// term adds to lo[k] (k < active), for unit j's outgoing row over the m
// units of layer ll from unit i0 on (w64 in float64, e^{±w} in ep, en),
// the terms of its log-odds, as laneChains.term. With visible the dot
// products are dot1's column j and the groups' waiting updates of the
// visible layer run in the same pass as the products.
func (c *laneChains32) term(g *gibbsTables, ll, i0, m, j int, w64 []float64, ep, en []float32, visible bool) {
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
			*pr = sigpair.RhoArgs{R: c.r0[o : o+8*m], EP: ep[:m], EN: en[:m], Sel: &c.sel[gr], P: &c.p[gr], Exp: &c.exp[gr], Bad: bad}
			if c.penJ >= 0 && c.penAny[gr] {
				c.pendingRho(g, gr)
				var fell uint8
				fell, anyBad = sigpair.Rho(&c.ru, pr)
				if fell != 0 {
					// The product used ρ that fell: recompute them and
					// take the product again.
					c.fixFell(g, gr, fell)
					c.p[gr], c.exp[gr] = [8]float64{1, 1, 1, 1, 1, 1, 1, 1}, [8]int64{}
					clear(bad)
					anyBad = sigpair.RhoProd(pr)
				}
			} else {
				anyBad = sigpair.RhoProd(pr)
			}
		} else {
			pr := &c.pr
			*pr = sigpair.Prod32Args{T: c.t[ll][o : o+8*m], S: c.s[ll][o : o+8*m], EP: ep[:m], EN: en[:m], Sel: &c.sel[gr],
				P: &c.p[gr], Exp: &c.exp[gr], Dot: &c.dot[gr], Bad: bad, X: c.h[ll][o : o+8*m], W: w64[:m]}
			anyBad = sigpair.Prod32(pr)
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
func (c *laneChains32) logOdds(g *gibbsTables, l, j int) {
	n, f := c.n, g.f32
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
func (c *laneChains32) set(g *gibbsTables, l, j int) {
	n, f := c.n, g.f32
	for gr := range (c.active + 7) / 8 {
		flips := false
		var d [8]float32
		var sel, flip [8]uint32
		for q := range min(8, c.active-8*gr) {
			k := 8*gr + q
			o := c.idx(l, k, j)
			if x := float32(c.v[k]) - c.h[l][o]; x != 0 {
				c.h[l][o] = float32(c.v[k])
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
func (c *laneChains32) shiftLayer(ll, i0, gr int, w, ep, en []float32, d [8]float32, sel [8]uint32) {
	m := len(w)
	if m == 0 {
		return
	}
	o := (gr*c.n.Sizes[ll] + i0) * 8
	c.sh = sigpair.Shift32Args{A: c.a[ll][o : o+8*m], S: c.s[ll][o : o+8*m], T: c.t[ll][o : o+8*m], W: w, EP: ep, EN: en, D: d, Sel: sel, Fb: c.fb[:m]}
	if sigpair.Shift32(&c.sh) {
		c.fixPairs(ll, o, c.fb[:m])
	}
}

// visibleSigmoid sets dst[i] to σ(a_{0,i}) of lane k, ρ/(1 + ρ) from its
// odds (from its activations where ρ is NaN); no update may be waiting
// (flush).
func (c *laneChains32) visibleSigmoid(g *gibbsTables, k int, dst []float64) {
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
func (c *laneChains32) flush(g *gibbsTables) {
	if c.penJ < 0 {
		return
	}
	for gr := range c.ng {
		if c.penAny[gr] {
			c.pendingRho(g, gr)
			if fell, _ := sigpair.Rho(&c.ru, nil); fell != 0 {
				c.fixFell(g, gr, fell)
			}
		}
	}
	c.penJ = -1
}

// sweep updates every latent unit of every active lane once from its
// conditional, layer 1 to L, units in raster order; lane k draws from
// rngs[k].
func (c *laneChains32) sweep(g *gibbsTables, rngs []*rand.Rand) {
	for l := 1; l <= c.n.Layers(); l++ {
		for j := range c.n.Sizes[l] {
			c.logOdds(g, l, j)
			expvec.Sigmoid(c.sig[:c.active], c.lo[:c.active])
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
