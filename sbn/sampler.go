package sbn

import (
	"math"
	"math/rand/v2"

	"github.com/logz-ml/logz/internal/nmath"
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
// (a_{l,j} itself does not depend on h_{l,j}). The chain keeps every
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

// gibbsChain is the state of one Gibbs chain over the latent layers of a
// net with h[0] = x fixed: the states h, the activations a and σ(a), σ(−a)
// of every layer (NaN where |a| > extreme).
type gibbsChain struct {
	n      *Net
	h, a   [][]float64
	sp, sn [][]float64
	on     [][]int32
}

func (n *Net) newGibbsChain() *gibbsChain {
	c := &gibbsChain{n: n, h: n.States(), a: n.States(), sp: n.States(), sn: n.States(), on: make([][]int32, len(n.Sizes))}
	for l, s := range n.Sizes {
		c.on[l] = make([]int32, 0, s)
	}
	return c
}

// extreme bounds the |a| and |w| whose e^{±a}, e^{±w} enter the product
// form: beyond it σ(−|a|) and e^{−|w|} approach the subnormal range, where
// they lose relative precision, so the chain stores NaN for them and the
// blocks that meet one take the direct softplus formula.
const extreme = 600

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

// refresh recomputes every activation from the states (after h changed
// other than through sweep, or the parameters changed).
func (c *gibbsChain) refresh() {
	n := c.n
	L := n.Layers()
	for l := range c.h {
		c.on[l] = onUnits(c.h[l], c.on[l])
	}
	for l := 0; l <= L; l++ {
		k := n.Sizes[l]
		a := c.a[l]
		copy(a, n.B[l])
		if l < L {
			w, cols := n.W[l+1], n.Sizes[l+1]
			for i := range k {
				row := w[i*cols : (i+1)*cols]
				s := 0.0
				for _, j := range c.on[l+1] {
					s += row[j]
				}
				a[i] += s
			}
		}
		if n.S != nil {
			s := n.S[l]
			for i := range k {
				row := s[i*k : i*k+i]
				for _, j := range c.on[l] {
					if int(j) >= i {
						break
					}
					a[i] += row[j]
				}
			}
		}
		for i, x := range a {
			c.sp[l][i], c.sn[l][i] = chainPair(x)
		}
	}
}

// softplusTerms returns Σ_i [x_i w_i − log(t_i + s_i e_i)] where e_i =
// e^{sign·w_i}: the contribution of one unit's outgoing weights w to its
// log-odds, up to the sign of the log term (see logOdds). a are the
// children's current activations, s = σ(a), t = σ(−a).
func softplusTerms(x, w, e, a, s, t []float64, sign float64) (dot, lg float64) {
	n := len(w)
	x, e, a, s, t = x[:n], e[:n], a[:n], s[:n], t[:n]
	// The product is kept as p·2^exp with p in [½, 1) after each block of
	// 32 (math.Frexp: exact), so one log serves the whole row.
	p, exp := 1.0, 0
	for lo := 0; lo < n; lo += 32 {
		hi := min(lo+32, n)
		q := p
		for i := lo; i < hi; i++ {
			dot += x[i] * w[i]
			q *= t[i] + s[i]*e[i]
		}
		if q > 1e-280 && q < 1e280 {
			f, k := math.Frexp(q)
			p, exp = f, exp+k
			continue
		}
		for i := lo; i < hi; i++ { // out of range (or NaN): term by term
			lg += nmath.Softplus(a[i]+sign*w[i]) - nmath.Softplus(a[i])
		}
	}
	return dot, lg + math.Log(p) + float64(exp)*math.Ln2
}

// logOdds is Δ_{l,j} = log p(h_{l,j} = 1 | rest) − log p(h_{l,j} = 0 | rest)
// at the chain's state (l ≥ 1).
func (c *gibbsChain) logOdds(g *gibbsTables, l, j int) float64 {
	n := c.n
	d := c.a[l][j]
	// At h = 0 the current activations are a⁰: the terms are
	// x·w − [softplus(a + w) − softplus(a)] = x·w − log(t + s e^{w}).
	// At h = 1 they are a⁰ + w: softplus(a) − softplus(a − w) = −log(t + s e^{−w}).
	e, sign := g.ep, 1.0
	es := g.eps
	if c.h[l][j] != 0 {
		e, sign, es = g.en, -1, g.ens
	}
	m := n.Sizes[l-1]
	dot, lg := softplusTerms(c.h[l-1], g.wt[l][j*m:(j+1)*m], e[l][j*m:(j+1)*m], c.a[l-1], c.sp[l-1], c.sn[l-1], sign)
	d += dot - sign*lg
	if n.S != nil {
		k := n.Sizes[l]
		lo, hi := j*k+j+1, (j+1)*k
		dot, lg := softplusTerms(c.h[l][j+1:], g.st[l][lo:hi], es[l][lo:hi], c.a[l][j+1:], c.sp[l][j+1:], c.sn[l][j+1:], sign)
		d += dot - sign*lg
	}
	return d
}

// set sets h_{l,j} to v (0 or 1), updating the activations it feeds. The
// sigmoids follow without an exp: adding d·w to a multiplies e^{a} by
// e = e^{d·w}, so with r = σ(−a) + σ(a)·e, σ(a) ← σ(a)·e/r and σ(−a) ← σ(−a)/r
// (recomputed from a when r leaves the finite positive range, NaN beyond
// extreme).
func (c *gibbsChain) set(g *gibbsTables, l, j int, v float64) {
	d := v - c.h[l][j]
	if d == 0 {
		return
	}
	c.h[l][j] = v
	ep, eps := g.ep, g.eps
	if d < 0 {
		ep, eps = g.en, g.ens
	}
	m := c.n.Sizes[l-1]
	lo, hi := j*m, (j+1)*m
	shift(c.a[l-1][:m], c.sp[l-1][:m], c.sn[l-1][:m], g.wt[l][lo:hi], ep[l][lo:hi], d)
	if c.n.S != nil {
		k := c.n.Sizes[l]
		lo, hi := j*k+j+1, (j+1)*k
		shift(c.a[l][j+1:], c.sp[l][j+1:], c.sn[l][j+1:], g.st[l][lo:hi], eps[l][lo:hi], d)
	}
}

// shift adds d·w to the activations a and updates s = σ(a), t = σ(−a);
// e is e^{d·w}.
func shift(a, s, t, w, e []float64, d float64) {
	n := len(w)
	a, s, t, e = a[:n], s[:n], t[:n], e[:n]
	for i, x := range w {
		a[i] += d * x
		r := t[i] + s[i]*e[i]
		if r > 0 && r <= math.MaxFloat64 && math.Abs(a[i]) <= extreme {
			inv := 1 / r
			s[i] *= e[i] * inv
			t[i] *= inv
		} else {
			s[i], t[i] = chainPair(a[i])
		}
	}
}

// sweep updates every latent unit once from its conditional, layer 1 to L,
// units in raster order within a layer.
func (c *gibbsChain) sweep(g *gibbsTables, rng *rand.Rand) {
	for l := 1; l <= c.n.Layers(); l++ {
		for j := range c.n.Sizes[l] {
			v := 0.0
			if rng.Float64() < nmath.Sigmoid(c.logOdds(g, l, j)) {
				v = 1
			}
			c.set(g, l, j, v)
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
