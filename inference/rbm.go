package inference

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/logz-ml/logz/internal/nmath"
	"github.com/logz-ml/logz/internal/rowsum"
	"github.com/logz-ml/logz/models"
)

// RBMPath is the annealing path of Salakhutdinov & Murray (2008, §3.2, eq.
// 13–17) between RBM A (β = 0) and RBM B (β = 1) over a shared visible layer
// of D units, with hidden layers h_A (H_A units) and h_B (H_B units):
//
//	E_β(v, h_A, h_B) = (1−β)·E_A(v, h_A) + β·E_B(v, h_B),
//
// E(v,h) = −vᵀWh − aᵀv − bᵀh. Summing out both hidden layers analytically,
//
//	log f_β(v) = (1−β)·a_Aᵀv + Σ_j softplus((1−β)·x_{A,j}) + β·a_Bᵀv + Σ_j softplus(β·x_{B,j}) − c(β),
//
// with x = b + Wᵀv. The constant c(β) = (1−β)·H_B log 2 + β·H_A log 2 removes
// the 2^{H_B} that the free hidden units of B contribute at β = 0 (and the
// 2^{H_A} of A at β = 1), so that f_0 = f_A and f_1 = f_B exactly, Z_0 = Z_A,
// Z_1 = Z_B, and the weights estimate Z_B/Z_A even when H_A ≠ H_B; c does not
// depend on v, so the distributions p_β are those of eq. 13. The transition T_β is block
// Gibbs on the joint state: h_{A,j} ~ σ((1−β)x_{A,j}), h_{B,j} ~ σ(β x_{B,j}),
// then v_i ~ σ((1−β)(a_{A,i} + W_{A,i:}h_A) + β(a_{B,i} + W_{B,i:}h_B)); its
// v → v′ kernel leaves the marginal p_β(v) ∝ f_β(v) invariant (and is
// reversible, so RAISE uses it unchanged).
//
// The base-rate start is the special case W_A = 0: p_A(v) = Π_i σ(a_{A,i})^{v_i}(1−σ(a_{A,i}))^{1−v_i}
// is sampled exactly and Z_A = Π_j (1+e^{b_{A,j}}) Π_i (1+e^{a_{A,i}}); the
// chain then skips h_A entirely.
//
// The chain keeps x_A, x_B and the visible pre-activation terms W_A h_A,
// W_B h_B, and updates them from the units that flipped since the previous
// step (a sum of the flipped rows of W, or of Wᵀ — both layouts are kept),
// recomputing from scratch every 50 updates, or whenever that is cheaper
// (from the ones, or from the zeros with the precomputed row sums).
type RBMPath struct {
	d      int      // visible units
	la, lb rbmLayer // the RBMs at β = 0 and β = 1
	logZ0  float64
	base   VisibleSampler // exact sampler of p_A; nil when A is weightless
	// fromStates: the chains start at states set by SetVisible
	// (NewRBMPathFromStates); SampleBase is not available.
	fromStates bool
	// baseThr[i] = σ(a_{A,i})·2^32 for the weightless base.
	baseThr []float64
	// hiddenConstA is true when A is weightless with non-zero hidden biases:
	// then Σ_j softplus((1−β)b_{A,j}) depends on β and enters the weights.
	hiddenConstA bool
	recompute    int
	dH           float64 // (H_A − H_B)·log 2 = c(1) − c(0)
	// alwaysIncremental (testing) disables the switch to a recomputation
	// when it would be cheaper than the incremental update.
	alwaysIncremental bool
}

// VisibleSampler draws exact samples of the visible layer from p_A, the β = 0
// end of an RBMPath. It must be safe for concurrent use (it is shared by the
// chains); all randomness comes from rng.
type VisibleSampler interface {
	SampleVisible(v []uint8, rng *rand.Rand)
}

// recomputeEvery is the number of incremental updates of a pre-activation
// vector between recomputations from scratch (to stop rounding drift).
const recomputeEvery = 50

// rbmLayer holds one RBM of the path in the layouts the chain needs.
type rbmLayer struct {
	H          int
	w          []float64 // D×H, row i = W[i,:] (x = b + Σ_{v_i=1} row i)
	wt         []float64 // H×D, row j = W[:,j] (Wh = Σ_{h_j=1} row j)
	a, b       []float64
	aSum       float64   // Σ_i a_i
	colSum     []float64 // Σ_i W[i,:], length H
	rowSum     []float64 // Σ_j W[:,j], length D
	weightless bool      // W = 0: the hidden layer does not influence v
}

func newLayer(m *models.RBM) rbmLayer {
	D, H := m.NVis, m.NHid
	L := rbmLayer{H: H, a: append([]float64(nil), m.VBias...), b: append([]float64(nil), m.HBias...), weightless: true}
	for _, a := range L.a {
		L.aSum += a
	}
	for _, w := range m.W {
		if w != 0 {
			L.weightless = false
			break
		}
	}
	if L.weightless {
		return L
	}
	L.w = append([]float64(nil), m.W...)
	L.wt = make([]float64, H*D)
	L.colSum = make([]float64, H)
	L.rowSum = make([]float64, D)
	for i := range D {
		for j := range H {
			w := m.W[i*H+j]
			L.wt[j*D+i] = w
			L.colSum[j] += w
			L.rowSum[i] += w
		}
	}
	return L
}

// NewBaseRatePath returns the path from the base-rate RBM to m: A has the
// same H hidden units with W_A = 0 and zero hidden biases, and visible biases
// baseVBias (the smoothed log-odds of the data's pixel means for the "data
// base rate" start; nil means zeros, the uniform start). Its normaliser is
//
//	log Z_0 = H log 2 + Σ_i softplus(a_{A,i}),
//
// the 2008 formulation over (v, h_A, h_B); the H log 2 also appears in every
// f_β and cancels in the weights.
func NewBaseRatePath(m *models.RBM, baseVBias []float64) (*RBMPath, error) {
	if m == nil {
		return nil, fmt.Errorf("annealing path: nil model")
	}
	if err := m.Validate(); err != nil {
		return nil, fmt.Errorf("annealing path: %w", err)
	}
	L := rbmLayer{H: m.NHid, a: make([]float64, m.NVis), b: make([]float64, m.NHid), weightless: true}
	if baseVBias != nil {
		if len(baseVBias) != m.NVis {
			return nil, fmt.Errorf("annealing path: base visible biases have length %d, want %d (the model's visible units)", len(baseVBias), m.NVis)
		}
		for i, x := range baseVBias {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return nil, fmt.Errorf("annealing path: base visible bias [%d] is %v; it must be finite (smooth the base rates away from 0 and 1)", i, x)
			}
		}
		copy(L.a, baseVBias)
		for _, a := range L.a {
			L.aSum += a
		}
	}
	return newPath(L, newLayer(m), nil, 0)
}

// NewRBMPath returns the path from RBM a (β = 0) to RBM b (β = 1), which must
// have the same number of visible units (their hidden layers may differ). If
// a has no non-zero weight, its exact independent sampler and normaliser are
// used and base and logZA are ignored. Otherwise base must draw exact samples
// from p_A and logZA must be log Z_A.
func NewRBMPath(a, b *models.RBM, base VisibleSampler, logZA float64) (*RBMPath, error) {
	if err := checkPair(a, b); err != nil {
		return nil, err
	}
	LA := newLayer(a)
	if !LA.weightless {
		if base == nil {
			return nil, fmt.Errorf("annealing path: model A has non-zero weights, so an exact sampler of p_A is needed")
		}
		if math.IsNaN(logZA) || math.IsInf(logZA, 0) {
			return nil, fmt.Errorf("annealing path: log Z_A = %v must be finite", logZA)
		}
	}
	return newPath(LA, newLayer(b), base, logZA)
}

// NewRBMPathFromStates returns the path from RBM a (β = 0) to RBM b (β = 1)
// for chains that the caller starts at visible states of its own with
// RBMChain.SetVisible — approximate draws of p_A such as the ends of long
// Gibbs chains of a (eval.AIS.LogRatioGibbs) — instead of SampleBase, which
// panics on this path. Z_A is not computed: LogZ0 is 0, so an AIS estimate
// on this path is log(Z_B/Z_A) itself. The models must have the same number
// of visible units.
func NewRBMPathFromStates(a, b *models.RBM) (*RBMPath, error) {
	if err := checkPair(a, b); err != nil {
		return nil, err
	}
	p, err := newPath(newLayer(a), newLayer(b), nil, 0)
	if err != nil {
		return nil, err
	}
	p.base, p.logZ0, p.fromStates = nil, 0, true
	return p, nil
}

// checkPair checks the two models of a joint path.
func checkPair(a, b *models.RBM) error {
	if a == nil || b == nil {
		return fmt.Errorf("annealing path: nil model")
	}
	if err := a.Validate(); err != nil {
		return fmt.Errorf("annealing path: model A: %w", err)
	}
	if err := b.Validate(); err != nil {
		return fmt.Errorf("annealing path: model B: %w", err)
	}
	if a.NVis != b.NVis {
		return fmt.Errorf("annealing path: model A has %d visible units and model B %d; they must match", a.NVis, b.NVis)
	}
	return nil
}

func newPath(A, B rbmLayer, base VisibleSampler, logZA float64) (*RBMPath, error) {
	p := &RBMPath{d: len(B.a), la: A, lb: B, recompute: recomputeEvery}
	p.dH = float64(A.H-B.H) * math.Ln2
	if A.weightless {
		p.base = nil
		p.baseThr = make([]float64, p.d)
		lz := 0.0
		for i, a := range A.a {
			p.baseThr[i] = nmath.Sigmoid(a) * two32
			lz += nmath.Softplus(a)
		}
		for _, b := range A.b {
			lz += nmath.Softplus(b)
			if b != 0 {
				p.hiddenConstA = true
			}
		}
		p.logZ0 = lz
	} else {
		p.base = base
		p.logZ0 = logZA
	}
	return p, nil
}

// LogZ0 implements Path: log Z_A.
func (p *RBMPath) LogZ0() float64 { return p.logZ0 }

// NewChain implements Path.
func (p *RBMPath) NewChain() Chain { return p.NewRBMChain() }

// NewRBMChain returns a chain on p with every slice allocated; its state is
// undefined until SampleBase or SetVisible.
func (p *RBMPath) NewRBMChain() *RBMChain {
	D := p.d
	c := &RBMChain{
		p:     p,
		v:     make([]uint8, D),
		vUp:   make([]int32, 0, D),
		vDown: make([]int32, 0, D),
		idx:   make([]int32, 0, max(D, p.la.H, p.lb.H)),
		z:     make([]float64, D),
		e:     make([]float64, max(D, p.la.H, p.lb.H)),
		e2:    make([]float64, max(p.la.H, p.lb.H)),
	}
	c.sb = newLayerState(&p.lb, D)
	if !p.la.weightless {
		c.sa = newLayerState(&p.la, D)
	}
	c.xStale = true
	return c
}

func newLayerState(L *rbmLayer, D int) layerState {
	return layerState{
		x: make([]float64, L.H), h: make([]uint8, L.H), y: make([]float64, D),
		hUp: make([]int32, 0, L.H), hDown: make([]int32, 0, L.H), yStale: true,
	}
}

// RBMChain is one chain on an RBMPath: the visible state v plus the cached
// pre-activations. It implements Chain; SetVisible and Visible give RAISE
// access to v.
type RBMChain struct {
	p          *RBMPath
	v          []uint8
	vOn        int
	vUp, vDown []int32    // visible units turned on/off since x was last synced
	xStale     bool       // x must be recomputed from scratch
	sinceX     int        // incremental updates of x since the last recomputation
	aAv, aBv   float64    // a_Aᵀv, a_Bᵀv, synced with x
	sa, sb     layerState // hidden layers of A and B
	idx        []int32    // scratch
	z, e, e2   []float64  // scratch
}

type layerState struct {
	x          []float64 // b + Wᵀv
	h          []uint8
	hOn        int
	hUp, hDown []int32   // hidden units turned on/off since y was last synced
	y          []float64 // W h
	yStale     bool
	sinceY     int
}

// SampleBase implements Chain: v ~ p_A exactly. It panics on a path made
// by NewRBMPathFromStates, whose chains are started by SetVisible.
func (c *RBMChain) SampleBase(rng *rand.Rand) {
	p := c.p
	if p.fromStates {
		panic("inference: SampleBase on an RBMPath from NewRBMPathFromStates; start its chains with SetVisible")
	}
	if p.base != nil {
		p.base.SampleVisible(c.v, rng)
	} else {
		sampleThresholds(c.v, p.baseThr, rng)
	}
	c.resetVisible()
}

func b2u(b bool) uint8 {
	if b {
		return 1
	}
	return 0
}

// SetVisible sets the visible state to v (0/1 values; RAISE starts from a
// data vector this way).
func (c *RBMChain) SetVisible(v []uint8) {
	for i := range c.v {
		c.v[i] = b2u(v[i] != 0)
	}
	c.resetVisible()
}

// Visible returns the current visible state (read-only; valid until the next
// call that changes the chain).
func (c *RBMChain) Visible() []uint8 { return c.v }

func (c *RBMChain) resetVisible() {
	c.vOn = 0
	for _, b := range c.v {
		c.vOn += int(b)
	}
	c.vUp, c.vDown = c.vUp[:0], c.vDown[:0]
	c.xStale = true
	c.sb.yStale = true
	c.sa.yStale = true
}

// syncX brings x_A, x_B, a_Aᵀv and a_Bᵀv up to date with v.
func (c *RBMChain) syncX() {
	p := c.p
	nf := len(c.vUp) + len(c.vDown)
	switch {
	case c.xStale || c.sinceX >= p.recompute || !p.alwaysIncremental && nf >= min(c.vOn, p.d-c.vOn):
		c.fullX()
	case nf > 0:
		for _, L := range [2]struct {
			st *layerState
			l  *rbmLayer
		}{{&c.sb, &p.lb}, {&c.sa, &p.la}} {
			if L.l.weightless {
				continue
			}
			rowsum.AddRows(L.st.x, L.l.w, c.vUp)
			rowsum.SubRows(L.st.x, L.l.w, c.vDown)
		}
		aA, aB := p.la.a, p.lb.a
		for _, i := range c.vUp {
			c.aAv += aA[i]
			c.aBv += aB[i]
		}
		for _, i := range c.vDown {
			c.aAv -= aA[i]
			c.aBv -= aB[i]
		}
		c.sinceX++
	}
	c.vUp, c.vDown = c.vUp[:0], c.vDown[:0]
}

// fullX recomputes x from the ones of v, or from the zeros when fewer.
func (c *RBMChain) fullX() {
	p := c.p
	fromOnes := c.vOn <= p.d-c.vOn
	idx := gatherIndices(c.idx, c.v, fromOnes)
	for _, L := range [2]struct {
		st *layerState
		l  *rbmLayer
	}{{&c.sb, &p.lb}, {&c.sa, &p.la}} {
		if L.l.weightless {
			continue
		}
		if fromOnes {
			copy(L.st.x, L.l.b)
			rowsum.AddRows(L.st.x, L.l.w, idx)
		} else {
			x := L.st.x
			for j := range x {
				x[j] = L.l.b[j] + L.l.colSum[j]
			}
			rowsum.SubRows(x, L.l.w, idx)
		}
	}
	aA, aB := p.la.a, p.lb.a
	sA, sB := 0.0, 0.0
	for _, i := range idx {
		sA += aA[i]
		sB += aB[i]
	}
	if fromOnes {
		c.aAv, c.aBv = sA, sB
	} else {
		c.aAv, c.aBv = p.la.aSum-sA, p.lb.aSum-sB
	}
	c.xStale = false
	c.sinceX = 0
}

// gatherIndices returns the indices i with s[i] = 1 (ones) or s[i] = 0,
// written into buf (capacity ≥ len(s)) without a data-dependent branch.
func gatherIndices(buf []int32, s []uint8, ones bool) []int32 {
	buf = buf[:len(s)]
	var flip uint8 = 1
	if ones {
		flip = 0
	}
	n := 0
	for i, b := range s {
		buf[n] = int32(i)
		n += int(b ^ flip)
	}
	return buf[:n]
}

// syncY brings y = W h up to date with h for one layer.
func (c *RBMChain) syncY(st *layerState, L *rbmLayer) {
	if L.weightless {
		// W h = 0 whatever h is (and the layer keeps no weight tables):
		// y stays at its zeros.
		st.hUp, st.hDown = st.hUp[:0], st.hDown[:0]
		st.yStale = false
		return
	}
	nf := len(st.hUp) + len(st.hDown)
	switch {
	case st.yStale || st.sinceY >= c.p.recompute || !c.p.alwaysIncremental && nf >= min(st.hOn, L.H-st.hOn):
		fromOnes := st.hOn <= L.H-st.hOn
		idx := gatherIndices(c.idx, st.h, fromOnes)
		if fromOnes {
			clear(st.y)
			rowsum.AddRows(st.y, L.wt, idx)
		} else {
			copy(st.y, L.rowSum)
			rowsum.SubRows(st.y, L.wt, idx)
		}
		st.yStale = false
		st.sinceY = 0
	case nf > 0:
		rowsum.AddRows(st.y, L.wt, st.hUp)
		rowsum.SubRows(st.y, L.wt, st.hDown)
		st.sinceY++
	}
	st.hUp, st.hDown = st.hUp[:0], st.hDown[:0]
}

// hidden draws h ~ σ(βn·x) for one layer; if weight is set it also returns
// Σ_j softplus(βn x_j) − softplus(βp x_j), sharing the exponentials.
func (c *RBMChain) hidden(st *layerState, bp, bn float64, weight bool, rng *rand.Rand) float64 {
	H := len(st.x)
	en := c.e[:H]
	expNegAbs(en, st.x, bn)
	d := 0.0
	if weight {
		ep := c.e2[:H]
		expNegAbs(ep, st.x, bp)
		d = softplusDiff(st.x, en, ep, bn, bp)
	}
	var delta int
	st.hUp, st.hDown, delta = sampleUnits(st.h, st.x, en, rng, st.hUp, st.hDown)
	st.hOn += delta
	return d
}

// visible draws v ~ σ((1−β)(a_A + W_A h_A) + β(a_B + W_B h_B)).
func (c *RBMChain) visible(beta float64, rng *rand.Rand) {
	p := c.p
	z := c.z
	aA, aB, yB := p.la.a[:len(z)], p.lb.a[:len(z)], c.sb.y[:len(z)]
	ob := 1 - beta
	if p.la.weightless {
		for i := range z {
			z[i] = ob*aA[i] + beta*(aB[i]+yB[i])
		}
	} else {
		yA := c.sa.y[:len(z)]
		for i := range z {
			z[i] = ob*(aA[i]+yA[i]) + beta*(aB[i]+yB[i])
		}
	}
	e := c.e[:len(z)]
	expNegAbs(e, z, 1)
	var delta int
	c.vUp, c.vDown, delta = sampleUnits(c.v, z, e, rng, c.vUp, c.vDown)
	c.vOn += delta
}

// Step implements Chain: it returns log f_next(v) − log f_prev(v) and then
// makes one block-Gibbs transition at β = next.
func (c *RBMChain) Step(prev, next float64, rng *rand.Rand) float64 {
	p := c.p
	c.syncX()
	d := (next - prev) * (c.aBv - c.aAv - p.dH)
	d += c.hidden(&c.sb, prev, next, true, rng)
	if !p.la.weightless {
		d += c.hidden(&c.sa, 1-prev, 1-next, true, rng)
		c.syncY(&c.sa, &p.la)
	} else if p.hiddenConstA {
		for _, b := range p.la.b {
			d += nmath.Softplus((1-next)*b) - nmath.Softplus((1-prev)*b)
		}
	}
	c.syncY(&c.sb, &p.lb)
	c.visible(next, rng)
	return d
}

// Transition implements Chain: one block-Gibbs transition at β.
func (c *RBMChain) Transition(beta float64, rng *rand.Rand) {
	p := c.p
	c.syncX()
	c.hidden(&c.sb, beta, beta, false, rng)
	if !p.la.weightless {
		c.hidden(&c.sa, 1-beta, 1-beta, false, rng)
		c.syncY(&c.sa, &p.la)
	}
	c.syncY(&c.sb, &p.lb)
	c.visible(beta, rng)
}

// VisibleProbs sets dst_i = σ(z_i), the conditional probabilities
// p_β(v_i = 1 | h) of the last visible draw, z = (1−β)(a_A + W_A h_A) +
// β(a_B + W_B h_B) (at β = 1 the model's p(v_i = 1 | h) = σ(a_i + W_{i,:}h),
// the "mean-field" image of a Gibbs sweep). It is defined only after a
// Transition or Step; len(dst) must be D.
func (c *RBMChain) VisibleProbs(dst []float64) {
	for i, z := range c.z[:len(dst)] {
		dst[i] = nmath.Sigmoid(z)
	}
}

// LogUnnorm implements Chain: log f_β(v).
func (c *RBMChain) LogUnnorm(beta float64) float64 {
	p := c.p
	c.syncX()
	l := (1-beta)*c.aAv + beta*c.aBv - ((1-beta)*float64(p.lb.H)+beta*float64(p.la.H))*math.Ln2
	e := c.e[:p.lb.H]
	expNegAbs(e, c.sb.x, beta)
	l += softplusSumScaled(c.sb.x, e, beta)
	if p.la.weightless {
		for _, b := range p.la.b {
			l += nmath.Softplus((1 - beta) * b)
		}
	} else {
		e := c.e[:p.la.H]
		expNegAbs(e, c.sa.x, 1-beta)
		l += softplusSumScaled(c.sa.x, e, 1-beta)
	}
	return l
}

var _ Path = (*RBMPath)(nil)
var _ Chain = (*RBMChain)(nil)
