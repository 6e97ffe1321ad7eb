package sbn

import (
	"math"
	"math/rand/v2"

	"github.com/logz-ml/logz/internal/nmath"
	"github.com/logz-ml/logz/internal/seqsum"
	"github.com/logz-ml/logz/internal/sigpair"
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
}

// newGibbsTables allocates the tables; with exps false only wt (for
// forward: the importance sampler).
func (n *Net) newGibbsTables(exps bool) *gibbsTables {
	L := n.Layers()
	g := &gibbsTables{wt: make([][]float64, L+1), ep: make([][]float64, L+1), en: make([][]float64, L+1)}
	if n.S != nil && exps {
		g.st, g.eps, g.ens = make([][]float64, L+1), make([][]float64, L+1), make([][]float64, L+1)
	}
	for l := 1; l <= L; l++ {
		m := n.Sizes[l-1] * n.Sizes[l]
		g.wt[l] = make([]float64, m)
		if !exps {
			continue
		}
		g.ep[l], g.en[l] = make([]float64, m), make([]float64, m)
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
		transposeExp(n.W[l], n.Sizes[l-1], n.Sizes[l], g.wt[l], g.ep[l], g.en[l])
		if n.S != nil {
			transposeExp(n.S[l], n.Sizes[l], n.Sizes[l], g.st[l], g.eps[l], g.ens[l])
		}
	}
}

// transposeExp writes wᵀ (w is r×c) into t and e^{±wᵀ} into ep, en.
func transposeExp(w []float64, r, c int, t, ep, en []float64) {
	for i := range r {
		row := w[i*c : (i+1)*c]
		for j, x := range row {
			t[j*r+i] = x
			if math.Abs(x) > extreme {
				ep[j*r+i], en[j*r+i] = math.NaN(), math.NaN()
				continue
			}
			e := math.Exp(x)
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
// time (internal/sigpair). Layer l's states h, activations a and σ(a),
// σ(−a) (s, t; NaN where |a| > extreme) are stored group by group, unit by
// unit: unit i of lane k = 4g + q at [(g·n_l + i)·4 + q] (idx), so that
// one group's units are contiguous. Every lane performs the
// floating-point operations of the one-chain sampler in the same order,
// so a chain's states and activations do not depend on which lane, or
// beside which other chains, it runs.
type laneChains struct {
	n          *Net
	ng, lanes  int
	active     int // lanes 0 … active−1 hold chains
	h, a, s, t [][]float64
	dot1       []float64 // n_1 × lanes: Σ_i x_i W_1[i,j], the visible layer's dot for unit j and lane k at [j·lanes + k] (fixed while W is)

	// The lanes' units at 1 and sums (refresh), and the per-unit work.
	lon        [][]int32 // per layer: the units at 1 of lane k are lon[l][lspan[l][2k]:lspan[l][2k+1]]
	lspan      [][]int32
	sum        []float64
	sel        []uint64
	p, dot, lo []float64
	exp        []int64
	bad, fb    []uint8
	v          []float64
	prod       sigpair.ProdArgs
	shift      sigpair.ShiftArgs
}

func (n *Net) newLaneChains(lanes int) *laneChains {
	ng := (lanes + 3) / 4
	L := 4 * ng
	widest := 0
	for _, s := range n.Sizes {
		widest = max(widest, s)
	}
	c := &laneChains{n: n, ng: ng, lanes: L, dot1: make([]float64, n.Sizes[1]*L), sum: make([]float64, widest*L),
		sel: make([]uint64, L), p: make([]float64, L), dot: make([]float64, L), lo: make([]float64, L), exp: make([]int64, L),
		bad: make([]uint8, (widest+sigpair.BlockLen-1)/sigpair.BlockLen), fb: make([]uint8, widest), v: make([]float64, L)}
	for _, s := range n.Sizes {
		c.h = append(c.h, make([]float64, s*L))
		c.a = append(c.a, make([]float64, s*L))
		c.s = append(c.s, make([]float64, s*L))
		c.t = append(c.t, make([]float64, s*L))
		c.lon = append(c.lon, make([]int32, 0, s*L))
		c.lspan = append(c.lspan, make([]int32, 2*L))
	}
	return c
}

// idx is the position of unit i of lane k in layer l's arrays.
func (c *laneChains) idx(l, k, i int) int { return (k/4*c.n.Sizes[l]+i)*4 + k%4 }

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
// factors of 1, never drawn).
func (c *laneChains) refresh(active int, g *gibbsTables) {
	n, L := c.n, c.lanes
	c.active = active
	for l := range c.h {
		on := c.lon[l][:0]
		for k := range active {
			c.lspan[l][2*k] = int32(len(on))
			for i := range n.Sizes[l] {
				if c.h[l][c.idx(l, k, i)] != 0 {
					on = append(on, int32(i))
				}
			}
			c.lspan[l][2*k+1] = int32(len(on))
		}
		c.lon[l] = on
	}
	top := n.Layers()
	for l := range c.h {
		m := n.Sizes[l]
		sum := c.sum[:active*m]
		clear(sum)
		if l < top {
			seqsum.AddSelected(sum, m, g.wt[l+1], m, m, c.lon[l+1], c.lspan[l+1][:2*active])
		}
		var s []float64
		if n.S != nil {
			s = n.S[l]
		}
		for k := range L {
			if k >= active {
				for i := range m {
					o := c.idx(l, k, i)
					c.h[l][o], c.a[l][o], c.s[l][o], c.t[l][o] = 0, 0, 0, 1
				}
				continue
			}
			onl := c.lon[l][c.lspan[l][2*k]:c.lspan[l][2*k+1]]
			for i := range m {
				a := n.B[l][i]
				a += sum[k*m+i]
				if s != nil {
					row := s[i*m : i*m+i]
					for _, j := range onl {
						if int(j) >= i {
							break
						}
						a += row[j]
					}
				}
				o := c.idx(l, k, i)
				c.a[l][o] = a
				c.s[l][o], c.t[l][o] = chainPair(a)
			}
		}
	}
	// Σ_{i on} x_i W_1[i,j] in order: the same bits as over every unit
	// (adding x_i·w = ±0 to a sum that starts at +0 changes nothing).
	m := n.Sizes[1]
	dot := c.sum[:active*m]
	clear(dot)
	seqsum.AddSelected(dot, m, n.W[1], m, m, c.lon[0], c.lspan[0][:2*active])
	for j := range m {
		for k := range L {
			v := 0.0
			if k < active {
				v = dot[k*m+j]
			}
			c.dot1[j*L+k] = v
		}
	}
}

// term adds to lo[k] (k < active), for unit j's outgoing row w over the m
// units of layer ll from unit i0 on (e^{w} in ep, e^{−w} in en), the
// terms of its log-odds (see the top of the file): x·w − sign·log Π (t +
// s e^{sign·w}) with sign = +1 where the unit is 0 (sel[k] = 0), −1 where
// it is 1. With visible the dot products are dot1's column j, else they
// run over the states of layer ll.
func (c *laneChains) term(ll, i0, m, j int, w, ep, en []float64, visible bool) {
	L, nl := c.lanes, c.n.Sizes[ll]
	for k := range L {
		c.p[k], c.exp[k], c.dot[k] = 1, 0, 0
	}
	if visible {
		copy(c.dot, c.dot1[j*L:(j+1)*L])
	}
	nb := (m + sigpair.BlockLen - 1) / sigpair.BlockLen
	pa := &c.prod
	for g := range (c.active + 3) / 4 {
		o, k0 := (g*nl+i0)*4, 4*g
		clear(c.bad[:nb])
		*pa = sigpair.ProdArgs{T: c.t[ll][o:], S: c.s[ll][o:], Stride: 4, EP: ep[:m], EN: en[:m], Sel: c.sel[k0 : k0+4],
			P: c.p[k0 : k0+4], Exp: c.exp[k0 : k0+4], Dot: c.dot[k0 : k0+4], Bad: c.bad[:nb]}
		if !visible {
			pa.X, pa.W = c.h[ll][o:], w[:m]
		}
		bad := sigpair.Prod(1, pa)
		a := c.a[ll][o:]
		for q := range min(4, c.active-k0) {
			k := k0 + q
			sign := 1.0
			if c.sel[k] != 0 {
				sign = -1
			}
			lg := 0.0
			if bad {
				// Blocks out of the safe range: term by term.
				for b, lo := 0, 0; lo < m; b, lo = b+1, lo+sigpair.BlockLen {
					if c.bad[b]>>q&1 == 0 {
						continue
					}
					for i := lo; i < min(lo+sigpair.BlockLen, m); i++ {
						ai := a[i*4+q]
						lg += nmath.Softplus(ai+sign*w[i]) - nmath.Softplus(ai)
					}
				}
			}
			lg = lg + math.Log(c.p[k]) + float64(c.exp[k])*math.Ln2
			c.lo[k] += c.dot[k] - sign*lg
		}
	}
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
	c.term(l-1, 0, m, j, r, g.ep[l][j*m:(j+1)*m], g.en[l][j*m:(j+1)*m], l == 1)
	if n.S != nil {
		k := n.Sizes[l]
		lo, hi := j*k+j+1, (j+1)*k
		c.term(l, j+1, hi-lo, j, g.st[l][lo:hi], g.eps[l][lo:hi], g.ens[l][lo:hi], false)
	}
}

// set moves every active lane's h_{l,j} to v[k] (0 or 1), updating the
// activations it feeds in the lanes where it changes (sigpair.Shift: the
// sigmoids follow without an exp, recomputed from a when the update leaves
// the safe range).
func (c *laneChains) set(g *gibbsTables, l, j int) {
	n := c.n
	sh := &c.shift
	for gr := range (c.active + 3) / 4 {
		flips := false
		for q := range 4 {
			k := 4*gr + q
			sh.D[q], sh.Sel[q] = 0, 0
			if k >= c.active {
				continue
			}
			o := c.idx(l, k, j)
			if d := c.v[k] - c.h[l][o]; d != 0 {
				c.h[l][o] = c.v[k]
				sh.D[q] = d
				if d < 0 {
					sh.Sel[q] = ^uint64(0)
				}
				flips = true
			}
		}
		if !flips {
			continue
		}
		m := n.Sizes[l-1]
		lo, hi := j*m, (j+1)*m
		c.shiftLayer(l-1, 0, gr, g.wt[l][lo:hi], g.ep[l][lo:hi], g.en[l][lo:hi])
		if n.S != nil {
			k := n.Sizes[l]
			lo, hi := j*k+j+1, (j+1)*k
			c.shiftLayer(l, j+1, gr, g.st[l][lo:hi], g.eps[l][lo:hi], g.ens[l][lo:hi])
		}
	}
}

// shiftLayer applies c.shift's flips (the lanes of group gr) to the units
// i0 … i0+len(w)−1 of layer ll.
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
			for k := range c.active {
				c.v[k] = 0
				if rngs[k].Float64() < nmath.Sigmoid(c.lo[k]) {
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
