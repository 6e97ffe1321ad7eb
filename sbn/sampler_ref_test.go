package sbn

import (
	"math"
	"math/rand/v2"

	"github.com/logz-ml/logz/internal/nmath"
	"github.com/logz-ml/logz/internal/seeds"
)

// The one-chain Gibbs sampler the lanes replaced, in float64, kept as the
// reference of the trainer's dynamics step (TestGibbsTaskMatchesOneChain:
// same draws ⇒ same states, and the gradients within rounding) and of the
// sweep's speed (BenchmarkGibbsSweepOneChain).

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

// chainActivations computes, for the joint state h of one chain (on its
// on-lists, h[0] = x), every layer's activations a and σ(a), σ(−a) into
// a, sp, sn: a_l = b_l + (Σ_{j on} W_{l+1}[i,j]) + Σ_{j<i on} S_l[i,j].
func (n *Net) chainActivations(on [][]int32, a, sp, sn [][]float64) {
	L := n.Layers()
	for l := 0; l <= L; l++ {
		k := n.Sizes[l]
		al := a[l][:k]
		copy(al, n.B[l])
		if l < L {
			w, cols := n.W[l+1], n.Sizes[l+1]
			for i := range k {
				row := w[i*cols : (i+1)*cols]
				s := 0.0
				for _, j := range on[l+1] {
					s += row[j]
				}
				al[i] += s
			}
		}
		if n.S != nil {
			s := n.S[l]
			for i := range k {
				row := s[i*k : i*k+i]
				for _, j := range on[l] {
					if int(j) >= i {
						break
					}
					al[i] += row[j]
				}
			}
		}
		for i, x := range al {
			sp[l][i], sn[l][i] = chainPair(x)
		}
	}
}

// refresh recomputes every activation from the states.
func (c *gibbsChain) refresh() {
	for l := range c.h {
		c.on[l] = onUnits(c.h[l], c.on[l])
	}
	c.n.chainActivations(c.on, c.a, c.sp, c.sn)
}

// softplusTerms returns Σ_i [x_i w_i − log(t_i + s_i e_i)] where e_i =
// e^{sign·w_i}, as one product renormalised every 32 factors.
func softplusTerms(x, w, e, a, s, t []float64, sign float64) (dot, lg float64) {
	n := len(w)
	x, e, a, s, t = x[:n], e[:n], a[:n], s[:n], t[:n]
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

// logOdds is Δ_{l,j} at the chain's state (l ≥ 1).
func (c *gibbsChain) logOdds(g *gibbsTables, l, j int) float64 {
	n := c.n
	d := c.a[l][j]
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

// set sets h_{l,j} to v, updating the activations it feeds.
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
	shiftRef(c.a[l-1][:m], c.sp[l-1][:m], c.sn[l-1][:m], g.wt[l][lo:hi], ep[l][lo:hi], d)
	if c.n.S != nil {
		k := c.n.Sizes[l]
		lo, hi := j*k+j+1, (j+1)*k
		shiftRef(c.a[l][j+1:], c.sp[l][j+1:], c.sn[l][j+1:], g.st[l][lo:hi], eps[l][lo:hi], d)
	}
}

// shiftRef adds d·w to the activations a and updates s = σ(a), t = σ(−a).
func shiftRef(a, s, t, w, e []float64, d float64) {
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

// sweep updates every latent unit once from its conditional.
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

// refBufs are the buffers of runTaskRef: the current example and the
// kept states with the buffers of their gradients.
type refBufs struct {
	x   []float64
	xon []int32
	smp []latentSample
}

// latentSample is one joint state with the buffers of its gradient.
type latentSample struct {
	h, p [][]float64
	on   [][]int32
}

func (t *Trainer) newRefBufs() *refBufs {
	n := t.net
	r := &refBufs{x: make([]float64, n.Sizes[0]), xon: make([]int32, 0, n.Sizes[0])}
	for range t.opt.Samples {
		s := latentSample{h: n.States(), p: layerBufs(n.Sizes), on: make([][]int32, len(n.Sizes))}
		for l, k := range n.Sizes {
			s.on[l] = make([]int32, 0, k)
		}
		r.smp = append(r.smp, s)
	}
	return r
}

// runTaskRef is runTask of the Gibbs sampler as it was: one chain per
// example, example after example.
func (t *Trainer) runTaskRef(tk *trainTask, ch *gibbsChain, rb *refBufs) {
	o := t.opt
	zeroNet(tk.gGen)
	tk.signal = 0
	c := &t.cur
	for k, row := range tk.rows {
		tk.src.Seed(seeds.Derive(o.Seed, keyExample, uint64(c.epoch), uint64(c.batch), uint64(c.step), uint64(row)), 0)
		for i, v := range c.data.Row(row) {
			rb.x[i] = float64(v)
		}
		rb.xon = onUnits(rb.x, rb.xon)
		for s := range rb.smp {
			rb.smp[s].h[0], rb.smp[s].on[0] = rb.x, rb.xon
		}
		t.gibbsExampleRef(tk, ch, rb, row, tk.pos+k)
	}
}

func (t *Trainer) gibbsExampleRef(tk *trainTask, ch *gibbsChain, rb *refBufs, row, pos int) {
	n, o := t.net, t.opt
	var st []uint8
	fresh := false
	if t.persist != nil {
		st = t.persist[row*t.latent : (row+1)*t.latent]
		fresh = t.seen[row] == 0
		t.seen[row] = 1
	} else {
		st = t.batchSt[pos*t.latent : (pos+1)*t.latent]
		fresh = t.cur.step == 0
	}
	copy(ch.h[0], rb.x)
	if fresh {
		n.samplePrior(ch.h, tk.rng, tk.sc)
	} else {
		o := 0
		for l := 1; l <= n.Layers(); l++ {
			for i := range ch.h[l] {
				ch.h[l][i] = float64(st[o])
				o++
			}
		}
	}
	ch.refresh()
	if t.cur.step == 0 {
		for range o.BurnIn {
			ch.sweep(t.gibbs, tk.rng)
		}
	}
	w := 1 / float64(o.Samples)
	for s := range rb.smp {
		for range o.GibbsSweeps {
			ch.sweep(t.gibbs, tk.rng)
		}
		sm := &rb.smp[s]
		for l := 1; l <= n.Layers(); l++ {
			copy(sm.h[l], ch.h[l])
			sm.on[l] = onUnits(sm.h[l], sm.on[l])
		}
		lp := n.forward(sm.h, sm.p, sm.on, t.gibbs.wt)
		n.addGrad(sm.h, sm.p, sm.on, w, tk.gGen)
		if t.cur.step == o.Steps-1 {
			tk.signal += w * lp
		}
	}
	k := 0
	for l := 1; l <= n.Layers(); l++ {
		for _, v := range ch.h[l] {
			st[k] = uint8(v)
			k++
		}
	}
}
