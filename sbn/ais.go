package sbn

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sync/atomic"

	"github.com/logz-ml/logz/data"
	"github.com/logz-ml/logz/internal/kernel"
	"github.com/logz-ml/logz/internal/nmath"
	"github.com/logz-ml/logz/internal/seeds"
	"github.com/logz-ml/logz/internal/shard"
	"github.com/logz-ml/logz/internal/workgroup"
)

// AIS estimates log p(x) per example by annealed importance sampling over
// a scaling of the generative parameters (Du, Zhu & Zhang 2015, App. B.2,
// eq. 17; Neal 2001). With β_k = k/K, k = 0 … K, the intermediate
// distributions over the latents z = (h_1, …, h_L) of one example x are
//
//	p_k(z) ∝ f_k(z) = p(x, z | β_k θ),
//
// the joint with every generative parameter (W, b, S) multiplied by β_k.
// At β_0 = 0 every Bernoulli has activation 0, so f_0(z) = 2^{−D−Σ_{l≥1} n_l}
// and its normaliser is Z_0 = Σ_z f_0(z) = 2^{−D} (D = n_0 visible units);
// Z_K = Σ_z p(x, z | θ) = p(x). One chain draws z_0 uniformly (an exact
// sample of p_0) and, for k = 1 … K,
//
//	log w += log f_k(z) − log f_{k−1}(z)    (at the state before the transition)
//	z ← T_k(z)                               (k < K; leaves p_k invariant)
//
// starting from log w = log Z_0 = −D log 2, so E[w] = p(x) exactly for any
// K ≥ 1 (K = 1 is importance sampling with a uniform proposal). T_k is
// Sweeps single-site Gibbs sweeps over the latent units, layer 1 … L, each
// layer in raster order (see [AIS.LogProb]). The estimate is
// log p̂(x) = log (1/M) Σ_m w_m over the M chains, a stochastic lower bound
// of log p(x) (Jensen).
type AIS struct {
	Chains int // M, independent chains per example
	Betas  int // K, the number of steps; β_k = k/K
	Seed   uint64
	// Sweeps is the number of Gibbs sweeps per temperature (0 means 1).
	Sweeps int
	// Progress, if set, is called from the worker goroutines with the
	// number of chains finished so far and the total (examples × chains).
	Progress func(done, total int64)
	// Units, if set, shares the examples among the shards of a sharded
	// evaluation (see shard.Units).
	Units shard.Units
}

// AISResult holds per-example AIS estimates.
type AISResult struct {
	LogP []float64 // log p̂(x_n) = log mean_m w_{n,m}
	// LogWeights[n][m] is log w of chain m on example n.
	LogWeights [][]float64
	// ESS[n] is (Σ_m w)² / Σ_m w², in [1, M].
	ESS []float64
}

// LogProb runs AIS on every example, the chains of all examples side by
// side in lanes (see aisLanes), in batches over GOMAXPROCS workers; the
// chain's random stream is keyed by (Seed, example, chain), and a chain's
// arithmetic does not depend on its lane or batch, so the result does not
// depend on GOMAXPROCS or on sharding.
//
// The Gibbs update of latent unit u of layer l at scale β draws it from
// p_β(h_{l,u} | everything else), which is σ(Δ) with
//
//	Δ = log f_β(…, h_{l,u}=1, …) − log f_β(…, h_{l,u}=0, …)
//	  = β·in_{l,u}                                                  (its own term)
//	  + Σ_{i} [h_{l−1,i}·β W_l[i,u] − softplus(a¹_{l−1,i}) + softplus(a⁰_{l−1,i})]   (its children)
//	  + Σ_{i>u} [h_{l,i}·β S_l[i,u] − softplus(a¹_{l,i}) + softplus(a⁰_{l,i})]       (AR: later units of its layer)
//
// where in_{l,i} = b_{l,i} + Σ_j W_{l+1}[i,j] h_{l+1,j} + Σ_{j<i} S_l[i,j] h_{l,j}
// is kept current as units flip and a^c = β·in with h_{l,u} = c. Only the
// terms that involve the unit enter; the others cancel.
func (a AIS) LogProb(n *Net, x data.Examples) (AISResult, error) {
	if err := a.check(n); err != nil {
		return AISResult{}, err
	}
	N := x.Len()
	if err := estCheckRows(n, x); err != nil {
		return AISResult{}, err
	}
	r := AISResult{LogP: make([]float64, N), LogWeights: make([][]float64, N), ESS: make([]float64, N)}
	for i := range r.LogWeights {
		r.LogWeights[i] = make([]float64, a.Chains)
	}
	var done atomic.Int64
	total := int64(N) * int64(a.Chains)
	var chains []aisLane
	for ex := range N {
		if shard.Mine(a.Units, ex) {
			for m := range a.Chains {
				chains = append(chains, aisLane{ex, m})
			}
		}
	}
	logZ0 := -float64(n.Sizes[0]) * math.Ln2
	annealLanes(estPrepare(n), chains, a.Betas, a.sweeps(), false,
		func(c *estChain, ln aisLane, pcg *rand.PCG, rng *rand.Rand) {
			pcg.Seed(seeds.Derive(a.Seed, uint64(ln.ex), uint64(ln.m)), seeds.Derive(a.Seed, uint64(ln.ex), uint64(ln.m), 1))
			c.setVisible(x.Row(ln.ex))
			c.uniformLatents(rng)
		},
		func(ln aisLane, lw float64) { r.LogWeights[ln.ex][ln.m] = lw + logZ0 },
		func(k int) {
			if a.Progress != nil {
				a.Progress(done.Add(int64(k)), total)
			}
		})
	if err := completeRows(a.Units, r.LogWeights); err != nil {
		return AISResult{}, fmt.Errorf("AIS: %w", err)
	}
	for i, lw := range r.LogWeights {
		st := nmath.Summarise(lw)
		r.LogP[i], r.ESS[i] = st.LogMean, st.ESS
	}
	return r, nil
}

// completeRows hands the rows of w (one unit per row, all rows of one
// length) to units (see shard.Units).
func completeRows(units shard.Units, w [][]float64) error {
	if units == nil || len(w) == 0 {
		return nil
	}
	width := len(w[0])
	vals := make([]float64, len(w)*width)
	for u, row := range w {
		copy(vals[u*width:], row)
	}
	if err := units.Complete(len(w), width, vals); err != nil {
		return err
	}
	for u, row := range w {
		copy(row, vals[u*width:])
	}
	return nil
}

func (a AIS) sweeps() int {
	if a.Sweeps == 0 {
		return 1
	}
	return a.Sweeps
}

func (a AIS) check(n *Net) error {
	if err := n.Validate(); err != nil {
		return err
	}
	return estCheckSchedule("AIS", a.Chains, a.Betas, a.Sweeps)
}

func estCheckSchedule(name string, chains, betas, sweeps int) error {
	if chains < 1 {
		return fmt.Errorf("%s: chains is %d; want at least 1", name, chains)
	}
	if betas < 1 {
		return fmt.Errorf("%s: betas (K) is %d; want at least 1", name, betas)
	}
	if sweeps < 0 {
		return fmt.Errorf("%s: sweeps is %d; want at least 1 (0 means 1)", name, sweeps)
	}
	return nil
}

// estRecompute is how many annealing steps (or flips in enumeration) pass
// between two recomputations of the incrementally updated inputs from
// scratch, which stops rounding drift.
const estRecompute = 64

// anneal is the one-chain reference of the annealing (the lanes of aisLanes
// are tested against it): it runs AIS chains in lockstep (they share the
// table of e^{βW} of their group) from their current states over β_k = k/K (k = 0 … K), or
// the reverse β_k = (K−k)/K, and sets logw[m] to
// Σ_k [log f_{β_k}(z_{k−1}) − log f_{β_{k−1}}(z_{k−1})] for chain m: each
// ratio is taken at the state before the transition at β_k, and no
// transition follows the last step. The caller adds log Z_0 (forward) or
// subtracts the sum from it (reverse).
func anneal(cs []*estChain, rngs []*rand.Rand, K, sweeps int, reverse bool, logw []float64) {
	beta := func(k int) float64 {
		if reverse {
			k = K - k
		}
		return float64(k) / float64(K)
	}
	for m, c := range cs {
		c.recompute()
		logw[m] = 0
	}
	for k := 1; k <= K; k++ {
		b0, b := beta(k-1), beta(k)
		for m, c := range cs {
			if k%estRecompute == 0 {
				c.recompute()
			}
			logw[m] += c.logRatio(b0, b)
			if k < K {
				for range sweeps {
					c.sweep(nil, rngs[m])
				}
			}
		}
	}
}

// ---------------------------------------------------------------------------
// The chain machinery shared by the estimators.

// estNet is a net prepared for column access: wt[l] = W_lᵀ (n_l × n_{l−1},
// row u holds unit u's weights to its children), st[l] = S_lᵀ (row u holds
// S_l[i,u] for every i).
type estNet struct {
	n      *Net
	wt, st [][]float64
	maxN   int
	// colSum[l][u] = Σ_i W_l[i,u]; fast reports max |W| ≤ estFastMax, when
	// the Gibbs update sums its children's softplus differences as the log
	// of a product (see flipGain).
	colSum [][]float64
	fast   bool
}

// estFastMax bounds |W| for the product form of the flip gain: each factor
// lies within e^{±|βw|}, so a run of 8 factors stays within e^{±240}.
const estFastMax = 30

func estPrepare(n *Net) *estNet {
	L := n.Layers()
	e := &estNet{n: n, wt: make([][]float64, L+1)}
	transpose := func(a []float64, rows, cols int) []float64 {
		t := make([]float64, len(a))
		for i := range rows {
			for j := range cols {
				t[j*rows+i] = a[i*cols+j]
			}
		}
		return t
	}
	e.colSum = make([][]float64, L+1)
	e.fast = true
	for l := 1; l <= L; l++ {
		e.wt[l] = transpose(n.W[l], n.Sizes[l-1], n.Sizes[l])
		k := n.Sizes[l-1]
		e.colSum[l] = make([]float64, n.Sizes[l])
		for u := range e.colSum[l] {
			for _, w := range e.wt[l][u*k : (u+1)*k] {
				e.colSum[l][u] += w
				if math.Abs(w) > estFastMax {
					e.fast = false
				}
			}
		}
	}
	if n.S != nil {
		e.st = make([][]float64, L+1)
		for l := 0; l <= L; l++ {
			e.st[l] = transpose(n.S[l], n.Sizes[l], n.Sizes[l])
		}
	}
	for _, s := range n.Sizes {
		e.maxN = max(e.maxN, s)
	}
	return e
}

// estChain is one joint state (h_0 = x, h_1, …, h_L), binary, with the
// unscaled inputs in_l[i] = b_l[i] + Σ_j W_{l+1}[i,j] h_{l+1,j} +
// Σ_{j<i} S_l[i,j] h_{l,j} (the activation at scale β is β·in_l[i]) and
// sp_l[i] = softplus(β·in_l[i]) at the chain's current β.
//
// For the product form of the flip gain it also keeps s1_l[i] = σ(β in_l[i])
// and s0_l[i] = σ(−β in_l[i]) (both, so that neither is computed as 1 minus
// the other), and reads e^{β W} from a table shared by the chains of a
// group, which all sit at the same β.
type estChain struct {
	e            *estNet
	h, in, sp    [][]float64
	s1, s0       [][]float64
	beta         float64
	altB, altS   []float64 // softplus of the children's / later units' activations if the unit flipped
	fac          []float64 // the children's product factors (fast path)
	tab          *estTable
	scratch      *Scratch
	sinceRefresh int
	qFirst       qFirst     // importance sampling: Q's first layer for the current x
	on           []int32    // recompute: the units of a layer that are on
	span         [2]int32   // recompute: on's span for seqsum
	ex           []float64  // logJoint: e^{−|a|} of a layer's activations
	isb          *isBuffers // importance sampling's batch (made on first use)
}

// estTable holds e[l][u·n_{l−1}+i] = e^{β W_l[i,u]} for one β.
type estTable struct {
	beta float64
	e    [][]float64
}

// set fills the table for β (no work when it is already there).
func (t *estTable) set(e *estNet, beta float64) {
	if t.beta == beta || !e.fast {
		return
	}
	if t.e == nil {
		t.e = make([][]float64, len(e.wt))
		for l := 1; l < len(e.wt); l++ {
			t.e[l] = make([]float64, len(e.wt[l]))
		}
	}
	for l := 1; l < len(e.wt); l++ {
		dst := t.e[l]
		for i, w := range e.wt[l] {
			dst[i] = math.Exp(beta * w)
		}
	}
	t.beta = beta
}

func (e *estNet) newChain() *estChain {
	return e.newGroup(1)[0]
}

// newGroup returns m chains that share one table of e^{βW}.
func (e *estNet) newGroup(m int) []*estChain {
	n := e.n
	tab := &estTable{beta: math.NaN()}
	cs := make([]*estChain, m)
	for i := range cs {
		cs[i] = &estChain{e: e, h: n.States(), in: n.States(), sp: n.States(), s1: n.States(), s0: n.States(),
			altB: make([]float64, e.maxN), altS: make([]float64, e.maxN), fac: make([]float64, e.maxN),
			tab: tab, scratch: n.NewScratch(), on: make([]int32, e.maxN), ex: make([]float64, e.maxN)}
	}
	return cs
}

// setVisible copies an example (already checked to be 0/1) into h_0.
func (c *estChain) setVisible(row []uint8) {
	for i, b := range row {
		c.h[0][i] = float64(b)
	}
}

// uniformLatents draws every latent unit uniformly: an exact sample of
// p_0(z | x).
func (c *estChain) uniformLatents(rng *rand.Rand) {
	for l := 1; l < len(c.h); l++ {
		for i := range c.h[l] {
			c.h[l][i] = float64(rng.Uint64() & 1)
		}
	}
}

// recompute sets in from the state, from scratch.
func (c *estChain) recompute() {
	n := c.e.n
	L := n.Layers()
	for l := 0; l <= L; l++ {
		in := c.in[l]
		copy(in, n.B[l])
		if l < L {
			// in += W_{l+1}ᵀ rows of the units on, one after another (the
			// additions of a plain loop in its order: seqsum keeps its bits).
			on := c.on[:0]
			for j, hj := range c.h[l+1] {
				if hj != 0 {
					on = append(on, int32(j))
				}
			}
			k := n.Sizes[l]
			c.span[1] = int32(len(on))
			kernel.AddSelected(in, k, c.e.wt[l+1], k, k, on, c.span[:])
		}
		if c.e.st != nil {
			c.addWithin(l, in, c.h[l])
		}
	}
	c.sinceRefresh = 0
}

// addWithin adds to the inputs in of layer l the within-layer terms
// Σ_{j<i} S_l[i,j] h_j of an autoregressive net, unit j's column after
// unit j−1's.
func (c *estChain) addWithin(l int, in, h []float64) {
	st, k := c.e.st[l], c.e.n.Sizes[l]
	for j, hj := range h {
		if hj != 0 {
			estAdd(in[j+1:], st[j*k+j+1:(j+1)*k])
		}
	}
}

// estAdd adds b to a (len(b) ≥ len(a)).
func estAdd(a, b []float64) {
	b = b[:len(a)]
	i := 0
	for ; i+4 <= len(a); i += 4 {
		a[i] += b[i]
		a[i+1] += b[i+1]
		a[i+2] += b[i+2]
		a[i+3] += b[i+3]
	}
	for ; i < len(a); i++ {
		a[i] += b[i]
	}
}

// estSub subtracts b from a (len(b) ≥ len(a)).
func estSub(a, b []float64) {
	b = b[:len(a)]
	for i := range a {
		a[i] -= b[i]
	}
}

// logJoint is log f_β(x, z) = Σ_l Σ_i h_{l,i}·β in_{l,i} − softplus(β in_{l,i})
// from the current inputs.
func (c *estChain) logJoint(beta float64) float64 { return logJointOf(c.in, c.h, beta, c.ex) }

// logJointOf is Σ_l Σ_i h_{l,i}·βin_{l,i} − softplus(βin_{l,i}) (ex:
// scratch of the widest layer's size).
func logJointOf(ins, hs [][]float64, beta float64, ex []float64) float64 {
	lp := 0.0
	for l, in := range ins {
		h := hs[l]
		// softplus(a) = max(a, 0) + log1p(e^{−|a|}), nmath.Softplus's
		// arithmetic with the exponentials taken a vector at a time (expvec:
		// math.Exp's bits).
		e := ex[:len(in)]
		for i, v := range in {
			e[i] = -math.Abs(beta * v)
		}
		kernel.Exp(e, e)
		for i, v := range in {
			a := beta * v
			sp := math.Log1p(e[i])
			if a > 0 {
				sp = a + sp
			}
			lp += h[i]*a - sp
		}
	}
	return lp
}

// logRatio returns log f_{b1}(state) − log f_{b0}(state) and leaves the
// softplus cache at β = b1, ready for Gibbs sweeps at b1.
func (c *estChain) logRatio(b0, b1 float64) float64 {
	lin, lsp := 0.0, 0.0
	for l, in := range c.in {
		h, sp, s1, s0 := c.h[l], c.sp[l], c.s1[l], c.s0[l]
		for i, v := range in {
			sp[i], s1[i], s0[i] = estSoftplusSigmoids(b1 * v)
			lin += h[i] * v
			lsp += sp[i] - nmath.Softplus(b0*v)
		}
	}
	c.beta = b1
	return (b1-b0)*lin - lsp
}

// estSoftplusSigmoids returns softplus(a), σ(a) and σ(−a) from one exp.
func estSoftplusSigmoids(a float64) (sp, s1, s0 float64) {
	e := math.Exp(-math.Abs(a))
	r := 1 / (1 + e)
	if a >= 0 {
		return a + math.Log1p(e), r, e * r
	}
	return math.Log1p(e), e * r, r
}

// setBeta fills the softplus cache at β.
func (c *estChain) setBeta(beta float64) {
	for l, in := range c.in {
		sp, s1, s0 := c.sp[l], c.s1[l], c.s0[l]
		for i, v := range in {
			sp[i], s1[i], s0[i] = estSoftplusSigmoids(beta * v)
		}
	}
	c.beta = beta
}

// flipGain returns log f_β(state with h_{l,u} flipped) − log f_β(state),
// from the terms that involve h_{l,u} only (see [AIS.LogProb]), and leaves
// in altB / altS the softplus values the flip would give its children and
// the later units of its layer.
func (c *estChain) flipGain(l, u int) float64 {
	e, beta := c.e, c.beta
	d := 1 - 2*c.h[l][u] // +1 for 0 → 1, −1 for 1 → 0
	bd := beta * d
	g := bd * c.in[l][u]
	if l > 0 && e.fast {
		g += c.childGain(l, u, d)
	} else if l > 0 {
		k := len(c.h[l-1])
		col := e.wt[l][u*k : (u+1)*k]
		in, sp, h, alt := c.in[l-1][:k], c.sp[l-1][:k], c.h[l-1][:k], c.altB[:k]
		for i, w := range col {
			s := nmath.Softplus(beta * (in[i] + d*w))
			alt[i] = s
			g += h[i]*bd*w - s + sp[i]
		}
	}
	if e.st != nil {
		k := len(c.h[l])
		row := e.st[l][u*k+u+1 : (u+1)*k]
		in, sp, h, alt := c.in[l][u+1:k], c.sp[l][u+1:k], c.h[l][u+1:k], c.altS[u+1:k]
		for i, w := range row {
			s := nmath.Softplus(beta * (in[i] + d*w))
			alt[i] = s
			g += h[i]*bd*w - s + sp[i]
		}
	}
	return g
}

// childGain is the children's part of the flip gain in product form:
// with σ_i = σ(a_i), E_i = e^{β W_l[i,u]}, the children's softplus terms
// change by
//
//	0 → 1:  softplus(a_i + βw_i) − softplus(a_i) = log(σ(−a_i) + σ(a_i) E_i)
//	1 → 0:  softplus(a_i − βw_i) − softplus(a_i) = log(σ(−a_i) E_i + σ(a_i)) − βw_i
//
// so their sum needs one log per 8 children instead of a softplus per
// child. The factors are kept in fac for flip.
func (c *estChain) childGain(l, u int, d float64) float64 {
	e, beta := c.e, c.beta
	if c.tab.beta != beta {
		c.tab.set(e, beta)
	}
	k := len(c.h[l-1])
	col := e.wt[l][u*k : (u+1)*k]
	E := c.tab.e[l][u*k : (u+1)*k]
	s1, s0, h, fac := c.s1[l-1][:k], c.s0[l-1][:k], c.h[l-1][:k], c.fac[:k]
	hw, lg, p := 0.0, 0.0, 1.0
	if d > 0 {
		for i, w := range col {
			f := s0[i] + s1[i]*E[i]
			fac[i] = f
			p *= f
			hw += h[i] * w
			if i&7 == 7 {
				lg += math.Log(p)
				p = 1
			}
		}
		return beta*hw - lg - math.Log(p)
	}
	for i, w := range col {
		f := s0[i]*E[i] + s1[i]
		fac[i] = f
		p *= f
		hw += h[i] * w
		if i&7 == 7 {
			lg += math.Log(p)
			p = 1
		}
	}
	return -beta*hw - (lg + math.Log(p) - beta*e.colSum[l][u])
}

// flip flips h_{l,u} after flipGain(l, u), updating the inputs and the
// softplus cache of the units it feeds.
func (c *estChain) flip(l, u int) {
	e := c.e
	d := 1 - 2*c.h[l][u]
	c.toggle(l, u)
	if l > 0 {
		k := len(c.h[l-1])
		if !e.fast {
			copy(c.sp[l-1], c.altB[:k])
		} else {
			c.flipChildren(l, u, d)
		}
	}
	if e.st != nil {
		k := len(c.h[l])
		if e.fast {
			// the later units' σ(±a) feed their parents' product form
			sp, s1, s0 := c.sp[l][:k], c.s1[l][:k], c.s0[l][:k]
			for i := u + 1; i < k; i++ {
				sp[i], s1[i], s0[i] = estSoftplusSigmoids(c.beta * c.in[l][i])
			}
		} else {
			copy(c.sp[l][u+1:], c.altS[u+1:k])
		}
	}
}

// flipChildren updates σ(±a) of the children after a flip from the
// factors of childGain: 0 → 1 gives σ(a') = σ(a)E/f, σ(−a') = σ(−a)/f;
// 1 → 0 gives σ(a') = σ(a)/f, σ(−a') = σ(−a)E/f. The softplus cache of
// the children is needed (and recomputed) only in an autoregressive net.
func (c *estChain) flipChildren(l, u int, d float64) {
	k := len(c.h[l-1])
	E := c.tab.e[l][u*k : (u+1)*k]
	s1, s0, fac := c.s1[l-1][:k], c.s0[l-1][:k], c.fac[:k]
	if d > 0 {
		for i, f := range fac {
			r := 1 / f
			s1[i] *= E[i] * r
			s0[i] *= r
		}
	} else {
		for i, f := range fac {
			r := 1 / f
			s1[i] *= r
			s0[i] *= E[i] * r
		}
	}
	if c.e.st != nil {
		sp, in := c.sp[l-1][:k], c.in[l-1][:k]
		for i, v := range in {
			sp[i] = nmath.Softplus(c.beta * v)
		}
	}
}

// toggle flips h_{l,u} and updates the inputs only (the softplus cache
// goes stale): for enumeration.
func (c *estChain) toggle(l, u int) {
	e := c.e
	d := 1 - 2*c.h[l][u]
	c.h[l][u] = 1 - c.h[l][u]
	if l > 0 {
		k := len(c.h[l-1])
		col := e.wt[l][u*k : (u+1)*k]
		if d > 0 {
			estAdd(c.in[l-1], col)
		} else {
			estSub(c.in[l-1], col)
		}
	}
	if e.st != nil {
		k := len(c.h[l])
		row := e.st[l][u*k+u+1 : (u+1)*k]
		if d > 0 {
			estAdd(c.in[l][u+1:], row)
		} else {
			estSub(c.in[l][u+1:], row)
		}
	}
}

// gibbs resamples h_{l,u} from p_β(h_{l,u} | the rest): it flips with
// probability σ(g), g the flip gain, which is the conditional
// p(flipped) / (p(flipped) + p(current)).
func (c *estChain) gibbs(l, u int, rng *rand.Rand) {
	if rng.Float64() < nmath.Sigmoid(c.flipGain(l, u)) {
		c.flip(l, u)
	}
}

// sweep updates the units of layer 0 listed in vis (none for AIS), then
// every latent unit, layer 1 … L, each layer in raster order.
func (c *estChain) sweep(vis []int, rng *rand.Rand) {
	for _, u := range vis {
		c.gibbs(0, u, rng)
	}
	for l := 1; l < len(c.h); l++ {
		for u := range c.h[l] {
			c.gibbs(l, u, rng)
		}
	}
}

// ---------------------------------------------------------------------------
// Shared helpers.

// estRand returns a generator whose source the caller reseeds per
// (example, chain), so that no draw depends on the goroutine.
func estRand() (*rand.Rand, *rand.PCG) {
	pcg := rand.NewPCG(0, 0)
	return rand.New(pcg), pcg
}

// estForEach runs work items 0 … items−1 on GOMAXPROCS goroutines; each
// goroutine builds its own worker (its buffers) with newWorker.
func estForEach(items int, newWorker func() func(item int)) {
	workgroup.ForEach(items, runtime.GOMAXPROCS(0), newWorker)
}

// estCheckRows checks that every example has n_0 values of 0 or 1.
func estCheckRows(n *Net, x data.Examples) error {
	if x == nil {
		return errors.New(n.TypeName() + ": no examples")
	}
	D := n.NumVisible()
	for i := range x.Len() {
		row := x.Row(i)
		if len(row) != D {
			return fmt.Errorf("%s: example %d has %d values, the model has %d visible units", n.TypeName(), i, len(row), D)
		}
		for j, b := range row {
			if b > 1 {
				return fmt.Errorf("%s: example %d, value %d is %d; want 0 or 1", n.TypeName(), i, j, b)
			}
		}
	}
	return nil
}
