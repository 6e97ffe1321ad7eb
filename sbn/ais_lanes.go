package sbn

import (
	"math"
	"math/rand/v2"
	"runtime"

	"github.com/logz-ml/logz/internal/kernel"
	"github.com/logz-ml/logz/internal/nmath"
	"github.com/logz-ml/logz/sbn/internal/sigpair"
)

// The annealing of AIS and BDMC runs its chains side by side, one per lane
// (aisLanes), as the Gibbs trainer does (laneChains): a worker holds up to
// aisMaxLanes chains — of one example or of several — which all sit at the
// same β at the same time, so the exponentials e^{±βW} (and e^{±βS}) are
// tabulated once per β for all of them (taken afresh every estRecompute
// steps, and in between from the last β's by the factors e^{±W/K}), and
// a unit's log-odds and the
// updates after its flip go four lanes (a group) at a time through the
// kernels of sbn/internal/sigpair:
//
//	softplus(a + βdw) − softplus(a) = log(t + s·e^{βdw}),  s, t = σ(±a), d = ±1,
//
// a row of such terms being the log of one product (renormalised every
// sigpair.BlockLen units; a block that leaves the safe range, or meets a
// σ pair or exponential beyond sigpair.Extreme, takes the direct softplus
// formula instead), and a flip updating the σ pairs without an exp
// (sigpair.Shift). The visible layer, the widest, keeps its σ pairs
// unnormalised between two weights, a flip multiplying s by e^{±βw}
// without a division (sigpair.Scale; see visibleGain), while the inputs
// stay below aisUnnormMax; two groups sweep it in lockstep, their
// products taken in one pass over the row (sigpair.Prod2).
//
// The AIS weight of a step, log f_{β_k}(z) − log f_{β_{k−1}}(z) at the
// state before the transition at β_k, is (β_k − β_{k−1})·Σ h·in −
// Σ [softplus(β_k in) − softplus(β_{k−1} in)], and with t_β = σ(−β in)
// the softplus difference is log(t_{β_{k−1}} / t_{β_k}): the σ pairs at
// both β (expvec, a vector at a time) give the weight as the log of a
// product in blocks and leave the chain's σ pairs fresh at β_k, ready for
// its sweeps. Elements beyond sigpair.Extreme, and blocks whose product
// leaves the safe range, take the direct formula.
//
// Every lane's arithmetic is its own (the kernels compute each lane alone),
// and the inputs in are kept as the one-chain estChain keeps them (the same
// additions, recomputed from scratch every estRecompute steps by its
// code), so a chain's weights do not depend on its lane, on the chains
// beside it or on how the chains are shared among workers; they agree
// with the one-chain reference anneal to rounding (the flip gains and
// weights are sums taken in another order), which the tests check.

// aisMaxLanes bounds the chains of one worker's batch.
const aisMaxLanes = 64

// aisLanes is the state of up to `lanes` chains of one net. Layer l's
// states h, unscaled inputs in and σ pairs s = σ(β in), t = σ(−β in) (NaN
// where |β in| > sigpair.Extreme) are stored group by group, unit by
// unit: unit i of lane k = 4g + q at [(g·n_l + i)·4 + q].
type aisLanes struct {
	e           *estNet
	lanes, ng   int
	h, in, s, t [][]float64
	// ep[l], en[l] = e^{±β W_lᵀ} (rows as e.wt[l]) and eps[l], ens[l] =
	// e^{±β S_lᵀ} (rows as e.st[l]) at beta, NaN where |βw| > extreme.
	ep, en, eps, ens [][]float64
	beta             float64
	rngs             []*rand.Rand
	pcgs             []*rand.PCG
	logw             []float64
	c                *estChain // scratch: starts and recomputations

	// The visible layer's fast path (see visibleFlip): fuse switches it
	// on; unnorm[g] reports that group g's visible σ pairs are
	// unnormalised, with logN[k] = log Π_i (s_i + t_i) of lane k's;
	// dot1[(g·n_1+u)·4+q] = Σ_i x_i W_1[i,u] of lane 4g+q, in the order of
	// sigpair.Prod's dot; wmax1[u] = max_i |W_1[i,u]|; amax0[k] bounds
	// |in_{0,i}| of lane k since its last weights (+ wmax1 of every flip
	// since).
	fuse         bool
	unnorm       []bool
	logN         []float64
	dot1         []float64
	wmax1, amax0 []float64
	sc           sigpair.ScaleArgs

	// per-group scratch: the slot of the group being updated (cur), two
	// for the visible layer's products of two groups in one pass
	slots          [2]laneSlot
	cur            *laneSlot
	a1, a0, s0, t0 []float64
	fb             []uint8
	sh             sigpair.ShiftArgs
}

// laneSlot is the scratch of one group's unit update: its lanes' flip
// gains, the selection of e^{±βw} by direction, the product's operands and
// results, and the log of the last visible product (logP).
type laneSlot struct {
	gain, p, dot, logP [4]float64
	exp                [4]int64
	sel                [4]uint64
	bad                []uint8
	pr                 sigpair.ProdArgs
}

func (e *estNet) newLanes(lanes int) *aisLanes {
	n := e.n
	L := n.Layers()
	ng := (lanes + 3) / 4
	w := &aisLanes{e: e, lanes: 4 * ng, ng: ng, c: e.newChain(), beta: math.NaN()}
	mk := func(per func(l int) int, from int) [][]float64 {
		r := make([][]float64, L+1)
		for l := from; l <= L; l++ {
			r[l] = make([]float64, per(l))
		}
		return r
	}
	state := func(l int) int { return 4 * ng * n.Sizes[l] }
	w.h, w.in, w.s, w.t = mk(state, 0), mk(state, 0), mk(state, 0), mk(state, 0)
	w.ep, w.en = mk(func(l int) int { return len(e.wt[l]) }, 1), mk(func(l int) int { return len(e.wt[l]) }, 1)
	if e.st != nil {
		w.eps, w.ens = mk(func(l int) int { return len(e.st[l]) }, 0), mk(func(l int) int { return len(e.st[l]) }, 0)
	}
	for range w.lanes {
		r, p := estRand()
		w.rngs, w.pcgs = append(w.rngs, r), append(w.pcgs, p)
	}
	w.logw = make([]float64, w.lanes)
	m := 4 * e.maxN
	w.a1, w.a0, w.s0, w.t0 = make([]float64, m), make([]float64, m), make([]float64, m), make([]float64, m)
	for i := range w.slots {
		w.slots[i].bad = make([]uint8, (e.maxN+sigpair.BlockLen-1)/sigpair.BlockLen)
	}
	w.cur = &w.slots[0]
	w.fb = make([]uint8, e.maxN)
	w.dot1 = make([]float64, 4*ng*n.Sizes[1])
	w.amax0 = make([]float64, w.lanes)
	w.wmax1 = make([]float64, n.Sizes[1])
	k := n.Sizes[0]
	for u := range w.wmax1 {
		for _, v := range e.wt[1][u*k : (u+1)*k] {
			w.wmax1[u] = max(w.wmax1[u], math.Abs(v))
		}
	}
	w.unnorm, w.logN = make([]bool, ng), make([]float64, w.lanes)
	return w
}

// setDots fills dot1 for the visible layer of every lane: the weights of
// the visible units that are on, added in the order of sigpair.Prod's dot
// product (its other terms are zeros, which do not change a sum that
// starts at +0).
func (w *aisLanes) setDots() {
	n0, n1 := len(w.h[0])/(4*w.ng), len(w.h[1])/(4*w.ng)
	W := w.e.n.W[1]
	dot := w.a1[:n1]
	for k := range w.lanes {
		g, q := k/4, k%4
		x := w.h[0][g*n0*4 : (g+1)*n0*4]
		clear(dot)
		for i := range n0 {
			if x[4*i+q] != 0 {
				estAdd(dot, W[i*n1:(i+1)*n1])
			}
		}
		for u, v := range dot {
			w.dot1[(g*n1+u)*4+q] = v
		}
	}
}

// load copies the scratch chain's state (h, in) into lane k.
func (w *aisLanes) load(k int) {
	g, q := k/4, k%4
	for l, h := range w.c.h {
		n := len(h)
		o := g * n * 4
		for i, v := range h {
			w.h[l][o+4*i+q] = v
			w.in[l][o+4*i+q] = w.c.in[l][i]
		}
	}
}

// clear puts lane k in the all-zero state with zero inputs: an idle lane
// of a partial batch (it never flips: no random draws are made for it).
func (w *aisLanes) clear(k int) {
	g, q := k/4, k%4
	for l := range w.h {
		n := len(w.h[l]) / (4 * w.ng)
		o := g * n * 4
		for i := range n {
			w.h[l][o+4*i+q] = 0
			w.in[l][o+4*i+q] = 0
		}
	}
}

// recompute sets the inputs of lane k from its state, from scratch, by
// estChain.recompute (the same bits).
func (w *aisLanes) recompute(k int) {
	g, q := k/4, k%4
	c := w.c
	for l, h := range c.h {
		o := g * len(h) * 4
		for i := range h {
			h[i] = w.h[l][o+4*i+q]
		}
	}
	c.recompute()
	for l, in := range c.in {
		o := g * len(in) * 4
		for i, v := range in {
			w.in[l][o+4*i+q] = v
		}
	}
}

// setBeta tabulates e^{±βW} (and e^{±βS}) at β afresh.
func (w *aisLanes) setBeta(beta float64) {
	tab := func(src, ep, en []float64) {
		x := w.a1
		for lo := 0; lo < len(src); lo += len(x) {
			hi := min(lo+len(x), len(src))
			xs := x[:hi-lo]
			for i, v := range src[lo:hi] {
				xs[i] = beta * v
			}
			kernel.Exp(ep[lo:hi], xs)
			for i := range xs {
				xs[i] = -xs[i]
			}
			kernel.Exp(en[lo:hi], xs)
			for i, v := range xs {
				if math.Abs(v) > extreme {
					ep[lo+i], en[lo+i] = math.NaN(), math.NaN()
				}
			}
		}
	}
	for l := 1; l < len(w.ep); l++ {
		tab(w.e.wt[l], w.ep[l], w.en[l])
	}
	for l := range w.eps {
		tab(w.e.st[l], w.eps[l], w.ens[l])
	}
	w.beta = beta
}

// aisSteps holds e^{±W/K} and e^{±S/K} (rows as estNet.wt, st), the
// factors that take the table of e^{±βW} from one β_k to the next; nil
// when some weight exceeds extreme (the table is then computed afresh at
// every β, where NaN marks β|w| > extreme).
type aisSteps struct {
	wp, wn, sp, sn [][]float64
}

func (e *estNet) newSteps(K int) *aisSteps {
	st := &aisSteps{}
	mk := func(src []float64) ([]float64, []float64) {
		p, m := make([]float64, len(src)), make([]float64, len(src))
		for i, v := range src {
			if math.Abs(v) > extreme {
				return nil, nil
			}
			m[i] = v / float64(K)
		}
		kernel.Exp(p, m)
		for i, x := range m {
			m[i] = -x
		}
		kernel.Exp(m, m)
		return p, m
	}
	st.wp, st.wn = make([][]float64, len(e.wt)), make([][]float64, len(e.wt))
	for l := 1; l < len(e.wt); l++ {
		if st.wp[l], st.wn[l] = mk(e.wt[l]); st.wp[l] == nil {
			return nil
		}
	}
	if e.st != nil {
		st.sp, st.sn = make([][]float64, len(e.st)), make([][]float64, len(e.st))
		for l := range e.st {
			if st.sp[l], st.sn[l] = mk(e.st[l]); st.sp[l] == nil {
				return nil
			}
		}
	}
	return st
}

// stepBeta moves the table from β_{k−1} to β_k = β_{k−1} ± 1/K
// (sign +1 upwards) by the factors of steps: e^{±β_k w} =
// e^{±β_{k−1} w}·e^{±w/K} to rounding (the one-chain anneal takes
// e^{β_k w} afresh; the lanes take it afresh every estRecompute steps).
func (w *aisLanes) stepBeta(beta float64, steps *aisSteps, up bool) {
	mul := func(ep, en, fp, fn []float64) {
		if !up {
			fp, fn = fn, fp
		}
		fp, fn, en = fp[:len(ep)], fn[:len(ep)], en[:len(ep)]
		for i := range ep {
			ep[i] *= fp[i]
			en[i] *= fn[i]
		}
	}
	for l := 1; l < len(w.ep); l++ {
		mul(w.ep[l], w.en[l], steps.wp[l], steps.wn[l])
	}
	for l := range w.eps {
		mul(w.eps[l], w.ens[l], steps.sp[l], steps.sn[l])
	}
	w.beta = beta
}

// anneal runs the first `active` lanes (their states loaded) over β_k =
// k/K, k = 0 … K, or the reverse β_k = (K−k)/K, as the one-chain anneal
// does, and sets logw[k] to the sum of the lane's log weight ratios.
func (w *aisLanes) anneal(active, K, sweeps int, reverse bool, steps *aisSteps) {
	beta := func(k int) float64 {
		if reverse {
			k = K - k
		}
		return float64(k) / float64(K)
	}
	for k := active; k < w.lanes; k++ {
		w.clear(k)
	}
	ng := (active + 3) / 4
	for k := range w.lanes {
		w.logw[k] = 0
	}
	// the fast path of the visible layer needs no NaN in the tables
	w.fuse = steps != nil
	if w.fuse {
		w.setDots()
	}
	for k := 1; k <= K; k++ {
		b0, b := beta(k-1), beta(k)
		if k%estRecompute == 0 {
			for m := range active {
				w.recompute(m)
			}
		}
		switch {
		case k == K:
		case steps != nil && k > 1 && k%estRecompute != 0:
			w.stepBeta(b, steps, !reverse)
		default:
			w.setBeta(b)
		}
		for g := 0; g < ng; g += 2 {
			pair := g+1 < ng
			for gi := range 1 + b2i(pair) {
				w.weights(g+gi, b0, b)
			}
			if k < K {
				for range sweeps {
					w.sweep(g, active, pair)
				}
			}
		}
	}
}

// weights adds log f_{b1}(z) − log f_{b0}(z) to the log weights of group
// g's lanes and leaves their σ pairs at b1.
func (w *aisLanes) weights(g int, b0, b1 float64) {
	var lin, lsp, p [4]float64
	for l, inl := range w.in {
		n := len(inl) / (4 * w.ng)
		o := g * n * 4
		in, h, s, t := inl[o:o+4*n], w.h[l][o:o+4*n], w.s[l][o:o+4*n], w.t[l][o:o+4*n]
		a1, a0, s0, t0 := w.a1[:4*n], w.a0[:4*n], w.s0[:4*n], w.t0[:4*n]
		for i, v := range in {
			a1[i], a0[i] = b1*v, b0*v
		}
		kernel.SigPair(s, t, a1)
		kernel.SigPair(s0, t0, a0)
		if l == 0 {
			var top [4]float64
			for i, v := range in {
				top[i%4] = max(top[i%4], math.Abs(v))
			}
			copy(w.amax0[4*g:4*g+4], top[:])
			// fresh pairs: the fast path starts with N = 1
			w.unnorm[g] = w.fuse && max(top[0], top[1], top[2], top[3]) <= aisUnnormMax
			clear(w.logN[4*g : 4*g+4])
		}
		for lo := 0; lo < n; lo += sigpair.BlockLen {
			hi := min(lo+sigpair.BlockLen, n)
			p = [4]float64{1, 1, 1, 1}
			for i := lo; i < hi; i++ {
				for q := range 4 {
					j := 4*i + q
					lin[q] += h[j] * in[j]
					if math.Abs(a1[j]) > extreme || math.Abs(a0[j]) > extreme {
						lsp[q] += nmath.Softplus(a1[j]) - nmath.Softplus(a0[j])
						if math.Abs(a1[j]) > extreme {
							s[j], t[j] = math.NaN(), math.NaN()
						}
						continue
					}
					p[q] *= t0[j] / t[j]
				}
			}
			for q, r := range p {
				if r > sigpair.ProdLo && r < sigpair.ProdHi {
					lsp[q] += math.Log(r)
					continue
				}
				for i := lo; i < hi; i++ {
					j := 4*i + q
					if math.Abs(a1[j]) <= extreme && math.Abs(a0[j]) <= extreme {
						lsp[q] += nmath.Softplus(a1[j]) - nmath.Softplus(a0[j])
					}
				}
			}
		}
	}
	for q := range 4 {
		w.logw[4*g+q] += (b1-b0)*lin[q] - lsp[q]
	}
}

// sweep runs one Gibbs sweep at the tabulated β over the latent units of
// group g's lanes, layer 1 … L, each in raster order; each lane below
// active draws its own uniform per unit from its stream, as estChain.gibbs.
// pair sweeps groups g and g+1 together: layer 1 unit by unit in
// lockstep, the visible layer's products of both groups in one pass
// (sigpair.Prod2) when both are on the fast path; each group's
// operations are those of its own sweep, in the same order.
func (w *aisLanes) sweep(g, active int, pair bool) {
	from := 1
	if pair && w.fuse {
		n1 := len(w.h[1]) / (4 * w.ng)
		for u := range n1 {
			var d [2][4]float64
			for i := range 2 {
				w.cur = &w.slots[i]
				d[i] = w.own(g+i, 1, u)
			}
			if w.unnorm[g] && w.unnorm[g+1] {
				w.visibleGain2(g, u, d)
			} else {
				for i := range 2 {
					w.cur = &w.slots[i]
					w.visibleGain(g+i, u, d[i])
				}
			}
			for i := range 2 {
				w.cur = &w.slots[i]
				w.within(g+i, 1, u, d[i])
				w.update(g+i, 1, u, d[i], active)
			}
		}
		w.cur = &w.slots[0]
		from = 2
	}
	for gi := range 1 + b2i(pair) {
		for l := from; l < len(w.h); l++ {
			for u := range len(w.h[l]) / (4 * w.ng) {
				d := w.gains(g+gi, l, u)
				w.update(g+gi, l, u, d, active)
			}
		}
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// update draws the Gibbs decisions of unit u of layer l in group g's lanes
// from their gains (cur) and applies the flips.
func (w *aisLanes) update(g, l, u int, d [4]float64, active int) {
	e := w.e
	nl, nc := len(w.h[l])/(4*w.ng), len(w.h[l-1])/(4*w.ng)
	ol, oc := g*nl*4, g*nc*4
	var D, sig [4]float64
	kernel.Sigmoid(sig[:], w.cur.gain[:]) // nmath.Sigmoid's bits
	flips := false
	for q := range 4 {
		k := 4*g + q
		if k < active && w.rngs[k].Float64() < sig[q] {
			D[q], flips = d[q], true
		}
	}
	if !flips {
		return
	}
	if l != 1 || !w.fuse || !w.visibleFlip(g, u, D) {
		w.shift(l-1, oc, 0, nc, e.wt[l][u*nc:(u+1)*nc], w.ep[l][u*nc:(u+1)*nc], w.en[l][u*nc:(u+1)*nc], D)
	}
	if e.st != nil && u+1 < nl {
		w.shift(l, ol, u+1, nl, e.st[l][u*nl+u+1:(u+1)*nl], w.eps[l][u*nl+u+1:(u+1)*nl], w.ens[l][u*nl+u+1:(u+1)*nl], D)
	}
	h := w.h[l][ol : ol+4*nl]
	for q, dq := range D {
		if dq != 0 {
			h[4*u+q] = 1 - h[4*u+q]
		}
	}
}

// gains sets cur.gain[q] to the flip gain of unit u of layer l in lane
// 4g+q, log f_β(state with h_{l,u} flipped) − log f_β(state) (see
// [AIS.LogProb]), and returns the change of the unit's state per lane (+1
// for 0 → 1, −1 for 1 → 0).
func (w *aisLanes) gains(g, l, u int) (d [4]float64) {
	d = w.own(g, l, u)
	if l == 1 && w.fuse {
		w.visibleGain(g, u, d)
	} else {
		nc := len(w.h[l-1]) / (4 * w.ng)
		w.prodGain(l-1, g*nc*4, 0, nc, w.e.wt[l][u*nc:(u+1)*nc], w.ep[l][u*nc:(u+1)*nc], w.en[l][u*nc:(u+1)*nc], d)
	}
	w.within(g, l, u, d)
	return d
}

// own starts the gains with the unit's own term β·d·in and sets the
// selection of e^{±βw} by direction.
func (w *aisLanes) own(g, l, u int) (d [4]float64) {
	c := w.cur
	nl := len(w.h[l]) / (4 * w.ng)
	ol := g * nl * 4
	h, in := w.h[l][ol:ol+4*nl], w.in[l][ol:ol+4*nl]
	for q := range 4 {
		d[q] = 1 - 2*h[4*u+q]
		c.gain[q] = w.beta * d[q] * in[4*u+q]
		c.sel[q] = 0
		if d[q] < 0 {
			c.sel[q] = ^uint64(0)
		}
	}
	return d
}

// within adds the terms of the later units of the unit's own layer (an
// autoregressive net).
func (w *aisLanes) within(g, l, u int, d [4]float64) {
	nl := len(w.h[l]) / (4 * w.ng)
	if w.e.st != nil && u+1 < nl {
		w.prodGain(l, g*nl*4, u+1, nl, w.e.st[l][u*nl+u+1:(u+1)*nl], w.eps[l][u*nl+u+1:(u+1)*nl], w.ens[l][u*nl+u+1:(u+1)*nl], d)
	}
}

// prodGain adds to gain[q] the terms of elements lo … hi−1 of layer l
// (group offset o) that the flip of a unit with outgoing weights row
// (e^{±β row} in ep, en) changes, for the change d[q] of each lane:
// β d Σ h_i w_i − Σ [softplus(a_i + β d w_i) − softplus(a_i)].
func (w *aisLanes) prodGain(l, o, lo, hi int, row, ep, en []float64, d [4]float64) {
	beta := w.beta
	n := hi - lo
	s, t, h := w.s[l][o+4*lo:o+4*hi], w.t[l][o+4*lo:o+4*hi], w.h[l][o+4*lo:o+4*hi]
	c := w.cur
	c.p, c.exp, c.dot = [4]float64{1, 1, 1, 1}, [4]int64{}, [4]float64{}
	bad := c.bad[:(n+sigpair.BlockLen-1)/sigpair.BlockLen]
	clear(bad)
	pr := &c.pr
	*pr = sigpair.ProdArgs{T: t, S: s, Stride: 4, EP: ep, EN: en, Sel: c.sel[:], X: h, W: row,
		P: c.p[:], Exp: c.exp[:], Dot: c.dot[:], Bad: bad}
	anyBad := sigpair.Prod(1, pr)
	for q := range 4 {
		c.gain[q] += beta*d[q]*c.dot[q] - (math.Log(c.p[q]) + float64(c.exp[q])*math.Ln2)
	}
	if anyBad {
		w.badBlocks(w.in[l][o+4*lo:o+4*hi], row, bad, d)
	}
}

// aisUnnormMax bounds |in| on the visible layer's fast path: below it
// every σ(±β in) and every unnormalised pair, s = σ(βa₀)·e^{β(a−a₀)} with
// t = σ(−βa₀) kept, stay within e^{±600}, normal numbers.
const aisUnnormMax = 300

// visibleGain is prodGain for a layer-1 unit u over the visible layer on
// its fast path, where the σ pairs of the children are kept unnormalised:
// a flip multiplies s by e^{±βw} and leaves t (sigpair.Scale, no division),
// so s/t = e^{βin} still, and the softplus differences are
//
//	Σ_i log((t_i + s_i e_i)/(t_i + s_i)) = log Π_i (t_i + s_i e_i) − log N,
//
// N = Π_i (t_i + s_i) the lane's normaliser, which is 1 after weights
// and, after a flip of unit u, the product just taken for u. A block
// that leaves the product's safe range normalises the group's pairs again
// (and the slow path takes over until the next weights).
func (w *aisLanes) visibleGain(g, u int, d [4]float64) {
	if !w.unnorm[g] || w.visibleProd(g, u).Prod(1) {
		w.visibleSlow(g, u, d)
		return
	}
	w.visibleGains(g, u, d)
}

// visibleProd sets up cur's product of unit u over group g's visible
// layer (no dot product: dot1 has it).
func (w *aisLanes) visibleProd(g, u int) laneProd {
	c := w.cur
	n := len(w.h[0]) / (4 * w.ng)
	o := g * n * 4
	c.p, c.exp = [4]float64{1, 1, 1, 1}, [4]int64{}
	bad := c.bad[:(n+sigpair.BlockLen-1)/sigpair.BlockLen]
	clear(bad)
	c.pr = sigpair.ProdArgs{T: w.t[0][o : o+4*n], S: w.s[0][o : o+4*n], Stride: 4, EP: w.ep[1][u*n : (u+1)*n], EN: w.en[1][u*n : (u+1)*n],
		Sel: c.sel[:], P: c.p[:], Exp: c.exp[:], Dot: c.dot[:], Bad: bad}
	return laneProd{&c.pr}
}

// laneProd is a product set up by visibleProd.
type laneProd struct{ pr *sigpair.ProdArgs }

// Prod runs it, reporting a bad block.
func (p laneProd) Prod(ng int) bool { return sigpair.Prod(ng, p.pr) }

// visibleSlow is the visible layer's part of the gains off the fast path:
// the group's pairs are normalised (again, when a block of the fast
// path's product was bad) and prodGain takes them.
func (w *aisLanes) visibleSlow(g, u int, d [4]float64) {
	n := len(w.h[0]) / (4 * w.ng)
	if w.unnorm[g] {
		w.normalise(g)
	}
	w.prodGain(0, g*n*4, 0, n, w.e.wt[1][u*n:(u+1)*n], w.ep[1][u*n:(u+1)*n], w.en[1][u*n:(u+1)*n], d)
}

// visibleGains adds the fast path's visible terms to cur's gains from its
// product (see visibleGain).
func (w *aisLanes) visibleGains(g, u int, d [4]float64) {
	c := w.cur
	n1 := len(w.h[1]) / (4 * w.ng)
	for q := range 4 {
		c.logP[q] = math.Log(c.p[q]) + float64(c.exp[q])*math.Ln2
		c.gain[q] += w.beta*d[q]*w.dot1[(g*n1+u)*4+q] - (c.logP[q] - w.logN[4*g+q])
	}
}

// visibleGain2 is visibleGain for groups g and g+1 (slots 0 and 1), both on
// the fast path, their products in one pass.
func (w *aisLanes) visibleGain2(g, u int, d [2][4]float64) {
	w.cur = &w.slots[0]
	a := w.visibleProd(g, u)
	w.cur = &w.slots[1]
	b := w.visibleProd(g+1, u)
	badA, badB := sigpair.Prod2(a.pr, b.pr)
	for i, bad := range []bool{badA, badB} {
		w.cur = &w.slots[i]
		if bad {
			w.visibleSlow(g+i, u, d[i])
		} else {
			w.visibleGains(g+i, u, d[i])
		}
	}
}

// normalise sets group g's visible σ pairs to σ(±β in) afresh (NaN beyond
// extreme), leaving the fast path.
func (w *aisLanes) normalise(g int) {
	n := len(w.h[0]) / (4 * w.ng)
	o := g * n * 4
	in, s, t, a := w.in[0][o:o+4*n], w.s[0][o:o+4*n], w.t[0][o:o+4*n], w.a1[:4*n]
	for i, v := range in {
		a[i] = w.beta * v
	}
	kernel.SigPair(s, t, a)
	for i, v := range a {
		if math.Abs(v) > extreme {
			s[i], t[i] = math.NaN(), math.NaN()
		}
	}
	w.unnorm[g] = false
	clear(w.logN[4*g : 4*g+4])
}

// visibleFlip applies the flips D of layer-1 unit u (after its
// visibleGain) to group g's visible layer on the fast path: the inputs
// (in ± w, Shift's additions) and the unnormalised pairs by sigpair.Scale,
// the normalisers becoming the unit's products. It reports false, doing
// nothing, off the fast path or when a flipping lane's bound amax0 +
// wmax1[u] would pass aisUnnormMax (then it normalises the pairs first).
func (w *aisLanes) visibleFlip(g, u int, D [4]float64) bool {
	if !w.unnorm[g] {
		return false
	}
	for q, dq := range D {
		if dq != 0 && w.amax0[4*g+q]+w.wmax1[u] > aisUnnormMax {
			w.normalise(g)
			return false
		}
	}
	n := len(w.h[0]) / (4 * w.ng)
	o := g * n * 4
	sc := &w.sc
	*sc = sigpair.ScaleArgs{A: w.in[0][o : o+4*n], S: w.s[0][o : o+4*n], W: w.e.wt[1][u*n : (u+1)*n],
		EP: w.ep[1][u*n : (u+1)*n], EN: w.en[1][u*n : (u+1)*n], D: D}
	for q, dq := range D {
		if dq < 0 {
			sc.Sel[q] = ^uint64(0)
		}
		if dq != 0 {
			w.amax0[4*g+q] += w.wmax1[u]
			w.logN[4*g+q] = w.cur.logP[q]
		}
	}
	sigpair.Scale(sc)
	return true
}

// badBlocks subtracts from gain[q] the direct softplus differences of the
// blocks of lane q marked in bad (their products were discarded).
func (w *aisLanes) badBlocks(in, row []float64, bad []uint8, d [4]float64) {
	beta := w.beta
	n := len(row)
	for b, bits := range bad {
		if bits == 0 {
			continue
		}
		for q := range 4 {
			if bits>>q&1 == 0 {
				continue
			}
			for i := b * sigpair.BlockLen; i < min((b+1)*sigpair.BlockLen, n); i++ {
				v := in[4*i+q]
				w.cur.gain[q] -= nmath.Softplus(beta*(v+d[q]*row[i])) - nmath.Softplus(beta*v)
			}
		}
	}
}

// shift applies the flips D (±1 per flipping lane, 0 otherwise) of a unit
// with outgoing weights row to elements lo … hi−1 of layer l (group
// offset o): their inputs (in += D·w, the additions of estChain.toggle)
// and σ pairs, recomputed from the inputs where sigpair.Shift cannot
// update them.
func (w *aisLanes) shift(l, o, lo, hi int, row, ep, en []float64, D [4]float64) {
	n := hi - lo
	fb := w.fb[:n]
	clear(fb)
	sh := &w.sh
	*sh = sigpair.ShiftArgs{A: w.in[l][o+4*lo : o+4*hi], S: w.s[l][o+4*lo : o+4*hi], T: w.t[l][o+4*lo : o+4*hi],
		Stride: 4, W: row, EP: ep, EN: en, D: D, Fb: fb}
	for q, dq := range D {
		if dq < 0 {
			sh.Sel[q] = ^uint64(0)
		}
	}
	if !sigpair.Shift(sh) {
		return
	}
	for i, bits := range fb {
		for q := range 4 {
			if bits>>q&1 != 0 {
				j := 4*i + q
				sh.S[j], sh.T[j] = chainPair(w.beta * sh.A[j])
			}
		}
	}
}

// aisBatches splits P chains into batches of at most aisMaxLanes, a
// multiple of four (the last may be smaller), about as many as a multiple
// of the workers; the results do not depend on it.
func aisBatches(P int) (size, count int) {
	if P == 0 {
		return 4, 0
	}
	workers := runtime.GOMAXPROCS(0)
	rounds := (P + aisMaxLanes*workers - 1) / (aisMaxLanes * workers)
	size = (P + rounds*workers - 1) / (rounds * workers)
	size = min(aisMaxLanes, (size+3)/4*4)
	return size, (P + size - 1) / size
}

// aisLane is one chain to anneal: its example and its stream's key.
type aisLane struct {
	ex, m int
}

// annealLanes anneals the chains listed, in batches over GOMAXPROCS
// workers: start loads a chain's start into the worker's scratch chain
// (its stream seeded by the caller through the rng given), done receives
// its summed log weight ratios.
func annealLanes(e *estNet, chains []aisLane, K, sweeps int, reverse bool,
	start func(c *estChain, ln aisLane, pcg *rand.PCG, rng *rand.Rand), done func(ln aisLane, logw float64), progress func(n int)) {
	size, count := aisBatches(len(chains))
	steps := e.newSteps(K)
	estForEach(count, func() func(int) {
		w := e.newLanes(size)
		return func(b int) {
			batch := chains[b*size : min((b+1)*size, len(chains))]
			for k, ln := range batch {
				start(w.c, ln, w.pcgs[k], w.rngs[k])
				w.c.recompute()
				w.load(k)
			}
			w.anneal(len(batch), K, sweeps, reverse, steps)
			for k, ln := range batch {
				done(ln, w.logw[k])
			}
			if progress != nil {
				progress(len(batch))
			}
		}
	})
}
