package inference

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/logz-ml/logz/internal/kernel"
	"github.com/logz-ml/logz/internal/nmath"
	"github.com/logz-ml/logz/models"
)

// DBMPath is the AIS path for a DBM with layers x_0 = v, x_1, …, x_L
// (models.DBM; docs/methods.md#dbm, Salakhutdinov & Hinton 2009): the chain state is
// the even layers x_E = (v, h2, h4, …), the odd layers are summed out, and
//
//	log f_β(x_E) = β Σ_{l even} b_lᵀx_l + (1−β) Σ_{l even} a_lᵀx_l + Σ_{l odd} Σ_j softplus(β z_{l,j}(x_E)),
//
// with z_l = b_l + W_{l−1}ᵀx_{l−1} + W_l x_{l+1}: the marginal of the DBM with
// all parameters scaled by β times a base with no weights, biases a_l on the
// even layers (a_0 the data base rate of v, a_2, a_4, … the base rates of the
// even hidden layers, or zeros) and zero biases on the odd ones. The base is
// tractable: log Z_0 = Σ_{l even} Σ_i softplus(a_{l,i}) + (Σ_{l odd} n_l) log 2,
// with exact draws x_l ~ Bern(σ(a_l)) of the even layers.
//
// The transition T_β samples the odd layers given the even ones, then the
// even layers given the odd ones (pre-activation β z_l + (1−β)a_l), from
// the joint at β. As a kernel on x_E it is a data-augmentation kernel,
// T(x_E'|x_E) = Σ_{x_O} p_β(x_O|x_E) p_β(x_E'|x_O), so p_β(x_E)T(x_E'|x_E) =
// Σ_{x_O} p_β(x_O) p_β(x_E|x_O) p_β(x_E'|x_O) is symmetric: T_β is reversible
// with respect to p_β(x_E) ∝ f_β(x_E). The clamped transition T_β^{(v)}
// (StepClamped, TransitionClamped) does the same but leaves v as it is; it is
// reversible with respect to p_β(h_E|v) for the same reason.
//
// Like RBMPath's chain, a DBMChain keeps the states as bytes and the
// pre-activations z_l of every layer, updated from the units of the
// neighbouring layers that flipped since the last update (sums of rows of
// W_l for the input from below and of W_lᵀ for the input from above; both
// layouts are stored), recomputed from scratch every 50 updates or whenever
// that is cheaper. One exponential e^{−β|z|} per unit serves both the weight
// (softplus) and the Bernoulli draw (32-bit uniforms). Log weights are float64.
type DBMPath struct {
	sizes []int
	b     [][]float64 // b_l
	feeds [][]dbmFeed // feeds[l]: the inputs of layer l from its neighbours
	a     [][]float64 // a[l]: base biases of even layer l (zeros if none); nil for odd l
	thr   [][]float64 // thr[l][i] = σ(a_{l,i})·2^32, even l
	hasA  []bool      // hasA[l]: some a_{l,i} ≠ 0
	spA   float64     // Σ_i softplus(a_{0,i}), the visible part of log Z_0
	logZ0 float64
	maxN  int

	recompute int
	// alwaysIncremental (testing) disables the switch to a recomputation
	// when it would be cheaper than the incremental update.
	alwaysIncremental bool
}

// dbmFeed is the input that a layer l receives from one neighbour s:
// Σ_{i: x_{s,i}=1} row i of m, with rows of length n_l.
type dbmFeed struct {
	src int
	m   []float64 // n_s × n_l row-major: W_{l−1} (s = l−1) or W_lᵀ (s = l+1)
	all []float64 // Σ_i row i, for a recomputation from the zeros of x_s
}

// NewDBMPath builds the path from the base with visible biases baseVBias
// (nil meaning zeros) and uniform even hidden layers to d. The parameters
// are copied.
func NewDBMPath(d *models.DBM, baseVBias []float64) (*DBMPath, error) {
	return NewDBMPathBase(d, [][]float64{baseVBias})
}

// NewDBMPathBase builds the path from the base with biases base[l] on the
// even layers l (base[0] = a_0 on v; a missing or nil entry means zeros,
// and odd entries must be nil) to d. The parameters are copied.
func NewDBMPathBase(d *models.DBM, base [][]float64) (*DBMPath, error) {
	if d == nil {
		return nil, fmt.Errorf("DBM path: nil model")
	}
	if err := d.Validate(); err != nil {
		return nil, err
	}
	L := d.NumLayers()
	if len(base) > L+1 {
		return nil, fmt.Errorf("DBM path: base biases for %d layers, the model has %d", len(base), L+1)
	}
	n := len(d.Sizes)
	p := &DBMPath{sizes: append([]int(nil), d.Sizes...), a: make([][]float64, n), thr: make([][]float64, n), hasA: make([]bool, n), recompute: recomputeEvery}
	for l := 0; l <= L; l++ {
		var bl []float64
		if l < len(base) {
			bl = base[l]
		}
		if l%2 == 1 {
			if bl != nil {
				return nil, fmt.Errorf("DBM path: base biases given for layer %d; the odd layers are summed out and have none", l)
			}
			p.logZ0 += float64(d.Sizes[l]) * math.Ln2
			continue
		}
		what := fmt.Sprintf("layer %d", l)
		if l == 0 {
			what = "visible"
		}
		if bl != nil && len(bl) != d.Sizes[l] {
			return nil, fmt.Errorf("DBM path: base %s biases have length %d, the model has %d units there", what, len(bl), d.Sizes[l])
		}
		for i, a := range bl {
			if math.IsNaN(a) || math.IsInf(a, 0) {
				return nil, fmt.Errorf("DBM path: base %s bias %d is %v; want a finite number (smooth the base rates away from 0 and 1)", what, i, a)
			}
		}
		p.a[l], p.thr[l] = make([]float64, d.Sizes[l]), make([]float64, d.Sizes[l])
		copy(p.a[l], bl)
		sp := 0.0
		for i, a := range p.a[l] {
			p.thr[l][i] = nmath.Sigmoid(a) * two32
			sp += nmath.Softplus(a)
			p.hasA[l] = p.hasA[l] || a != 0
		}
		if l > 0 && !p.hasA[l] {
			sp = float64(d.Sizes[l]) * math.Ln2 // uniform, as the odd layers
		}
		p.logZ0 += sp
		if l == 0 {
			p.spA = sp
		}
	}
	for l, n := range d.Sizes {
		p.maxN = max(p.maxN, n)
		p.b = append(p.b, append([]float64(nil), d.B[l]...))
	}
	p.feeds = make([][]dbmFeed, L+1)
	for l := 0; l < L; l++ {
		n, m := d.Sizes[l], d.Sizes[l+1]
		w := append([]float64(nil), d.W[l]...) // n×m: row i feeds layer l+1
		wt := make([]float64, m*n)             // m×n: row j feeds layer l
		for i := range n {
			for j := range m {
				wt[j*n+i] = w[i*m+j]
			}
		}
		p.feeds[l+1] = append(p.feeds[l+1], dbmFeed{src: l, m: w, all: rowTotals(w, m)})
		p.feeds[l] = append(p.feeds[l], dbmFeed{src: l + 1, m: wt, all: rowTotals(wt, n)})
	}
	return p, nil
}

// rowTotals returns the sum of the rows (of length n) of the row-major w.
func rowTotals(w []float64, n int) []float64 {
	s := make([]float64, n)
	for i := 0; i < len(w); i += n {
		for j, x := range w[i : i+n] {
			s[j] += x
		}
	}
	return s
}

// LogZ0 implements Path.
func (p *DBMPath) LogZ0() float64 { return p.logZ0 }

// NewChain implements Path.
func (p *DBMPath) NewChain() Chain { return p.NewDBMChain() }

// NewDBMChain returns a chain on p with every slice allocated; its state is
// undefined until SampleBase, or SetVisible and SampleBaseHidden.
func (p *DBMPath) NewDBMChain() *DBMChain {
	n := len(p.sizes)
	c := &DBMChain{
		p: p, x: make([][]uint8, n), on: make([]int, n), up: make([][]int32, n), down: make([][]int32, n),
		z: make([][]float64, n), stale: make([]bool, n), since: make([]int, n),
		idx: make([]int32, p.maxN), e: make([]float64, p.maxN), e2: make([]float64, p.maxN), t: make([]float64, p.maxN),
	}
	for l, m := range p.sizes {
		c.x[l] = make([]uint8, m)
		c.up[l] = make([]int32, 0, m)
		c.down[l] = make([]int32, 0, m)
		c.z[l] = make([]float64, m)
		c.stale[l] = true
	}
	return c
}

// DBMChain is one chain on a DBMPath. It implements Chain (the even layers
// are the state; the odd layers are scratch of the transition) and has what
// RAISE for DBMs needs: SetVisible, SampleBaseHidden, the clamped transition
// and LogBaseVisible.
type DBMChain struct {
	p  *DBMPath
	x  [][]uint8 // every layer; the odd ones hold the last draw
	on []int     // number of ones per layer
	// up[l], down[l] list the units of layer l that turned on and off since
	// the pre-activations of its neighbours last took them in.
	up, down [][]int32
	// z[l] = b_l + W_{l−1}ᵀx_{l−1} + W_l x_{l+1}, up to the pending flips;
	// stale[l] forces a recomputation, since[l] counts incremental updates.
	z     [][]float64
	stale []bool
	since []int
	// evenT = Σ_{l even} b_lᵀx_l and evenB = Σ_{l even} a_lᵀx_l, updated
	// from the flips and recomputed every recompute transitions (sinceSums).
	evenT, evenB float64
	sinceSums    int
	idx          []int32
	e, e2, t     []float64 // scratch
}

// SampleBase implements Chain: x_l ~ Bern(σ(a_l)) for every even layer l
// (uniform where a_l = 0), an exact draw from p_0.
func (c *DBMChain) SampleBase(rng *rand.Rand) {
	sampleThresholds(c.x[0], c.p.thr[0], rng)
	c.visibleChanged()
	c.SampleBaseHidden(rng)
}

// SetVisible sets v to a data vector (values 0/1; any non-zero byte counts
// as 1), leaving the even hidden layers as they are.
func (c *DBMChain) SetVisible(v []uint8) {
	for i := range c.x[0] {
		c.x[0][i] = b2u(v[i] != 0)
	}
	c.visibleChanged()
}

func (c *DBMChain) visibleChanged() {
	c.on[0] = countOnes(c.x[0])
	c.up[0], c.down[0] = c.up[0][:0], c.down[0][:0]
	c.stale[1] = true
	c.recomputeSums()
}

// SampleBaseHidden draws the even hidden layers from p_0(h_E | v) =
// Π_{l even, l ≥ 2} Bern(h_l; σ(a_l)) (uniform where a_l = 0), leaving v as
// it is.
func (c *DBMChain) SampleBaseHidden(rng *rand.Rand) {
	for l := 2; l < len(c.x); l += 2 {
		if c.p.hasA[l] {
			sampleThresholds(c.x[l], c.p.thr[l], rng)
		} else {
			sampleUniformBits(c.x[l], rng)
		}
		c.on[l] = countOnes(c.x[l])
		c.up[l], c.down[l] = c.up[l][:0], c.down[l][:0]
		c.stale[l-1] = true
		if l+1 < len(c.x) {
			c.stale[l+1] = true
		}
	}
	c.recomputeSums()
}

// Visible returns the current visible state (read-only; valid until the next
// call that changes the chain).
func (c *DBMChain) Visible() []uint8 { return c.x[0] }

// Layer returns the current state of layer l (read-only). For odd l it is
// the last draw of the transition, which is not part of the chain's state.
func (c *DBMChain) Layer(l int) []uint8 { return c.x[l] }

// LogBaseVisible returns log p_0(v) = a_0ᵀv − Σ_i softplus(a_{0,i}) at the
// current v.
func (c *DBMChain) LogBaseVisible() float64 {
	s := 0.0
	for i, x := range c.x[0] {
		if x != 0 {
			s += c.p.a[0][i]
		}
	}
	return s - c.p.spA
}

// LogUnnorm implements Chain: log f_β(x_E) at the current even state.
func (c *DBMChain) LogUnnorm(beta float64) float64 {
	c.syncOdd()
	s := beta*c.evenT + (1-beta)*c.evenB
	for l := 1; l < len(c.x); l += 2 {
		z := c.z[l]
		e := c.e[:len(z)]
		expNegAbs(e, z, beta)
		s += softplusSumScaled(z, e, beta)
	}
	return s
}

// Step implements Chain: it returns log f_next(x_E) − log f_prev(x_E) and then
// makes the transition T_next.
func (c *DBMChain) Step(prev, next float64, rng *rand.Rand) float64 {
	return c.step(prev, next, true, false, rng)
}

// Transition implements Chain: x_E ~ T_β(·|x_E).
func (c *DBMChain) Transition(beta float64, rng *rand.Rand) {
	c.step(beta, beta, false, false, rng)
}

// StepClamped returns log f_next(x_E) − log f_prev(x_E) and then makes the
// clamped transition T_next^{(v)}: the odd layers given the even ones, then
// the even hidden layers given the odd ones; v does not change.
func (c *DBMChain) StepClamped(prev, next float64, rng *rand.Rand) float64 {
	return c.step(prev, next, true, true, rng)
}

// TransitionClamped makes the clamped transition T_β^{(v)} without a weight.
func (c *DBMChain) TransitionClamped(beta float64, rng *rand.Rand) {
	c.step(beta, beta, false, true, rng)
}

func (c *DBMChain) step(prev, next float64, weight, clamped bool, rng *rand.Rand) float64 {
	p := c.p
	c.syncOdd()
	d := 0.0
	if weight {
		d = (next - prev) * (c.evenT - c.evenB)
	}
	for l := 1; l < len(c.x); l += 2 {
		z := c.z[l]
		en := c.e[:len(z)]
		expNegAbs(en, z, next)
		if weight {
			ep := c.e2[:len(z)]
			expNegAbs(ep, z, prev)
			d += softplusDiff(z, en, ep, next, prev)
		}
		c.sample(l, z, en, rng)
	}
	c.syncEven(clamped)
	if !clamped {
		c.sampleEven(0, next, rng)
	}
	for l := 2; l < len(c.x); l += 2 {
		c.sampleEven(l, next, rng)
	}
	if c.sinceSums++; c.sinceSums >= p.recompute {
		c.recomputeSums()
	}
	return d
}

// sampleEven draws even layer l at β (pre-activation β z_l + (1−β) a_l) and
// updates the bias sums from its flips.
func (c *DBMChain) sampleEven(l int, beta float64, rng *rand.Rand) {
	p := c.p
	z := c.z[l]
	e := c.e[:len(z)]
	if p.hasA[l] {
		t := c.t[:len(z)]
		a := p.a[l][:len(z)]
		ob := 1 - beta
		for i, zi := range z {
			t[i] = beta*zi + ob*a[i]
		}
		expNegAbs(e, t, 1)
		z = t
	} else {
		expNegAbs(e, z, beta)
	}
	c.sample(l, z, e, rng)
	b, a := p.b[l], p.a[l]
	for _, i := range c.up[l] {
		c.evenT += b[i]
		c.evenB += a[i]
	}
	for _, i := range c.down[l] {
		c.evenT -= b[i]
		c.evenB -= a[i]
	}
}

// sample draws layer l from Bernoulli(σ(pre)) given e = e^{−|scaled pre|},
// recording the flips.
func (c *DBMChain) sample(l int, pre, e []float64, rng *rand.Rand) {
	var delta int
	c.up[l], c.down[l], delta = sampleUnits(c.x[l], pre, e, rng, c.up[l], c.down[l])
	c.on[l] += delta
}

// syncOdd brings the odd layers' pre-activations up to date with the even
// layers and forgets the even layers' flips.
func (c *DBMChain) syncOdd() {
	for l := 1; l < len(c.x); l += 2 {
		c.sync(l)
	}
	for l := 0; l < len(c.x); l += 2 {
		c.up[l], c.down[l] = c.up[l][:0], c.down[l][:0]
	}
}

// syncEven brings the even layers' pre-activations up to date with the odd
// layers (v's only marked stale if clamped) and forgets the odd layers' flips.
func (c *DBMChain) syncEven(clamped bool) {
	for l := 0; l < len(c.x); l += 2 {
		if l == 0 && clamped {
			c.stale[0] = true
			continue
		}
		c.sync(l)
	}
	for l := 1; l < len(c.x); l += 2 {
		c.up[l], c.down[l] = c.up[l][:0], c.down[l][:0]
	}
}

// sync updates z[l] from the pending flips of its neighbours, or recomputes
// it when it is stale, after recompute updates, or when that is cheaper.
func (c *DBMChain) sync(l int) {
	p := c.p
	nf, full := 0, 0
	for _, f := range p.feeds[l] {
		s := f.src
		nf += len(c.up[s]) + len(c.down[s])
		full += min(c.on[s], len(c.x[s])-c.on[s])
	}
	switch {
	case c.stale[l] || c.since[l] >= p.recompute || !p.alwaysIncremental && nf >= full:
		c.recomputeZ(l)
	case nf > 0:
		z := c.z[l]
		for _, f := range p.feeds[l] {
			kernel.AddRows(z, f.m, c.up[f.src])
			kernel.SubRows(z, f.m, c.down[f.src])
		}
		c.since[l]++
	}
}

// recomputeZ computes z[l] from scratch, summing the rows of the ones of each
// neighbour, or subtracting those of its zeros from the total when fewer.
func (c *DBMChain) recomputeZ(l int) {
	z := c.z[l]
	copy(z, c.p.b[l])
	for _, f := range c.p.feeds[l] {
		s := f.src
		ones := c.on[s] <= len(c.x[s])-c.on[s]
		idx := gatherIndices(c.idx, c.x[s], ones)
		if ones {
			kernel.AddRows(z, f.m, idx)
			continue
		}
		for j, t := range f.all[:len(z)] {
			z[j] += t
		}
		kernel.SubRows(z, f.m, idx)
	}
	c.stale[l] = false
	c.since[l] = 0
}

// recomputeSums recomputes evenT and evenB from the even layers.
func (c *DBMChain) recomputeSums() {
	p := c.p
	c.evenT, c.evenB = 0, 0
	for l := 0; l < len(c.x); l += 2 {
		b, a := p.b[l], p.a[l]
		for i, s := range c.x[l] {
			if s != 0 {
				c.evenT += b[i]
				c.evenB += a[i]
			}
		}
	}
	c.sinceSums = 0
}

func countOnes(s []uint8) int {
	n := 0
	for _, b := range s {
		n += int(b)
	}
	return n
}

var _ Path = (*DBMPath)(nil)
var _ Chain = (*DBMChain)(nil)
