package inference

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/logz-ml/logz/internal/kernel"
	"github.com/logz-ml/logz/internal/nmath"
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
//
// The chain computes in the path's precision (NewBaseRatePathIn and the
// other …In constructors; float64 otherwise): W, Wᵀ, the pre-activations and
// the exponentials are float64 or float32, while the log weight (the biases'
// products with v, the softplus sums and their products of 1 + e) is
// accumulated in float64 either way.
type RBMPath struct {
	prec kernel.Precision
	core pathCore
}

// pathCore is an rbmPath in one precision.
type pathCore interface {
	newChain() chainCore
	logZ0() float64
}

// chainCore is an rbmChain in one precision: RBMChain's methods.
type chainCore interface {
	SampleBase(rng *rand.Rand)
	Step(prev, next float64, rng *rand.Rand) float64
	Transition(beta float64, rng *rand.Rand)
	LogUnnorm(beta float64) float64
	SetVisible(v []uint8)
	Visible() []uint8
	VisibleProbs(dst []float64)
}

// rbmPath is RBMPath's path in the precision F.
type rbmPath[F kernel.Float] struct {
	d      int         // visible units
	la, lb rbmLayer[F] // the RBMs at β = 0 and β = 1
	lz0    float64
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

// rbmLayer holds one RBM of the path in the layouts the chain needs, in
// the precision F; the biases are kept in float64 too, for the log weights.
type rbmLayer[F kernel.Float] struct {
	H          int
	w          []F // D×H, row i = W[i,:] (x = b + Σ_{v_i=1} row i)
	wt         []F // H×D, row j = W[:,j] (Wh = Σ_{h_j=1} row j)
	a, b       []float64
	aF, bF     []F
	aSum       float64 // Σ_i a_i
	colSum     []F     // Σ_i W[i,:], length H (summed in float64)
	rowSum     []F     // Σ_j W[:,j], length D (summed in float64)
	weightless bool    // W = 0: the hidden layer does not influence v
}

// layer64 is an RBM of the path before its conversion to a precision: the
// biases (W_A = 0 for a base-rate RBM) and the model, nil when weightless.
type layer64 struct {
	a, b []float64
	m    *models.RBM
}

func modelLayer(m *models.RBM) layer64 {
	L := layer64{a: m.VBias, b: m.HBias}
	for _, w := range m.W {
		if w != 0 {
			L.m = m
			break
		}
	}
	return L
}

func toF[F kernel.Float](x []float64) []F {
	y := make([]F, len(x))
	for i, v := range x {
		y[i] = F(v)
	}
	return y
}

func newLayer[F kernel.Float](src layer64) rbmLayer[F] {
	L := rbmLayer[F]{H: len(src.b), a: append([]float64(nil), src.a...), b: append([]float64(nil), src.b...), weightless: src.m == nil}
	L.aF, L.bF = toF[F](L.a), toF[F](L.b)
	for _, a := range L.a {
		L.aSum += a
	}
	if L.weightless {
		return L
	}
	m := src.m
	D, H := m.NVis, m.NHid
	wt := make([]float64, H*D)
	colSum := make([]float64, H)
	rowSum := make([]float64, D)
	for i := range D {
		for j := range H {
			w := m.W[i*H+j]
			wt[j*D+i] = w
			colSum[j] += w
			rowSum[i] += w
		}
	}
	L.w, L.wt, L.colSum, L.rowSum = toF[F](m.W), toF[F](wt), toF[F](colSum), toF[F](rowSum)
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
// The path computes in float64 (NewBaseRatePathIn chooses).
func NewBaseRatePath(m *models.RBM, baseVBias []float64) (*RBMPath, error) {
	return NewBaseRatePathIn(kernel.Float64, m, baseVBias)
}

// NewBaseRatePathIn is NewBaseRatePath computing in precision prec.
func NewBaseRatePathIn(prec kernel.Precision, m *models.RBM, baseVBias []float64) (*RBMPath, error) {
	if m == nil {
		return nil, fmt.Errorf("annealing path: nil model")
	}
	if err := m.Validate(); err != nil {
		return nil, fmt.Errorf("annealing path: %w", err)
	}
	A := layer64{a: make([]float64, m.NVis), b: make([]float64, m.NHid)}
	if baseVBias != nil {
		if len(baseVBias) != m.NVis {
			return nil, fmt.Errorf("annealing path: base visible biases have length %d, want %d (the model's visible units)", len(baseVBias), m.NVis)
		}
		for i, x := range baseVBias {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return nil, fmt.Errorf("annealing path: base visible bias [%d] is %v; it must be finite (smooth the base rates away from 0 and 1)", i, x)
			}
		}
		copy(A.a, baseVBias)
	}
	return newPath(prec, A, modelLayer(m), nil, 0, false)
}

// NewRBMPath returns the path from RBM a (β = 0) to RBM b (β = 1), which must
// have the same number of visible units (their hidden layers may differ). If
// a has no non-zero weight, its exact independent sampler and normaliser are
// used and base and logZA are ignored. Otherwise base must draw exact samples
// from p_A and logZA must be log Z_A. The path computes in float64
// (NewRBMPathIn chooses).
func NewRBMPath(a, b *models.RBM, base VisibleSampler, logZA float64) (*RBMPath, error) {
	return NewRBMPathIn(kernel.Float64, a, b, base, logZA)
}

// NewRBMPathIn is NewRBMPath computing in precision prec.
func NewRBMPathIn(prec kernel.Precision, a, b *models.RBM, base VisibleSampler, logZA float64) (*RBMPath, error) {
	if err := checkPair(a, b); err != nil {
		return nil, err
	}
	LA := modelLayer(a)
	if LA.m != nil {
		if base == nil {
			return nil, fmt.Errorf("annealing path: model A has non-zero weights, so an exact sampler of p_A is needed")
		}
		if math.IsNaN(logZA) || math.IsInf(logZA, 0) {
			return nil, fmt.Errorf("annealing path: log Z_A = %v must be finite", logZA)
		}
	}
	return newPath(prec, LA, modelLayer(b), base, logZA, false)
}

// NewRBMPathFromStates returns the path from RBM a (β = 0) to RBM b (β = 1)
// for chains that the caller starts at visible states of its own with
// RBMChain.SetVisible — approximate draws of p_A such as the ends of long
// Gibbs chains of a (eval.AIS.LogRatioGibbs) — instead of SampleBase, which
// panics on this path. Z_A is not computed: LogZ0 is 0, so an AIS estimate
// on this path is log(Z_B/Z_A) itself. The models must have the same number
// of visible units. The path computes in float64 (NewRBMPathFromStatesIn
// chooses).
func NewRBMPathFromStates(a, b *models.RBM) (*RBMPath, error) {
	return NewRBMPathFromStatesIn(kernel.Float64, a, b)
}

// NewRBMPathFromStatesIn is NewRBMPathFromStates computing in precision prec.
func NewRBMPathFromStatesIn(prec kernel.Precision, a, b *models.RBM) (*RBMPath, error) {
	if err := checkPair(a, b); err != nil {
		return nil, err
	}
	return newPath(prec, modelLayer(a), modelLayer(b), nil, 0, true)
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

func newPath(prec kernel.Precision, A, B layer64, base VisibleSampler, logZA float64, fromStates bool) (*RBMPath, error) {
	switch prec.Or(kernel.Float64) {
	case kernel.Float64:
		return &RBMPath{kernel.Float64, newPathF[float64](A, B, base, logZA, fromStates)}, nil
	case kernel.Float32:
		return &RBMPath{kernel.Float32, newPathF[float32](A, B, base, logZA, fromStates)}, nil
	}
	return nil, fmt.Errorf("annealing path: precision %q: expected %s or %s", prec, kernel.Float32, kernel.Float64)
}

func newPathF[F kernel.Float](A, B layer64, base VisibleSampler, logZA float64, fromStates bool) *rbmPath[F] {
	p := &rbmPath[F]{d: len(B.a), la: newLayer[F](A), lb: newLayer[F](B), recompute: recomputeEvery}
	p.dH = float64(p.la.H-p.lb.H) * math.Ln2
	if p.la.weightless {
		p.baseThr = make([]float64, p.d)
		lz := 0.0
		for i, a := range p.la.a {
			p.baseThr[i] = nmath.Sigmoid(a) * two32
			lz += nmath.Softplus(a)
		}
		for _, b := range p.la.b {
			lz += nmath.Softplus(b)
			if b != 0 {
				p.hiddenConstA = true
			}
		}
		p.lz0 = lz
	} else {
		p.base = base
		p.lz0 = logZA
	}
	if fromStates {
		p.base, p.lz0, p.fromStates = nil, 0, true
	}
	return p
}

// Precision returns the precision the path's chains compute in.
func (p *RBMPath) Precision() kernel.Precision { return p.prec }

// LogZ0 implements Path: log Z_A.
func (p *RBMPath) LogZ0() float64 { return p.core.logZ0() }

func (p *rbmPath[F]) logZ0() float64 { return p.lz0 }

// NewChain implements Path.
func (p *RBMPath) NewChain() Chain { return p.NewRBMChain() }

// NewRBMChain returns a chain on p with every slice allocated; its state is
// undefined until SampleBase or SetVisible.
func (p *RBMPath) NewRBMChain() *RBMChain { return &RBMChain{p.core.newChain()} }

func (p *rbmPath[F]) newChain() chainCore {
	D := p.d
	c := &rbmChain[F]{
		p:     p,
		v:     make([]uint8, D),
		vUp:   make([]int32, 0, D),
		vDown: make([]int32, 0, D),
		idx:   make([]int32, 0, max(D, p.la.H, p.lb.H)),
		z:     make([]F, D),
		e:     make([]F, max(D, p.la.H, p.lb.H)),
		e2:    make([]F, max(p.la.H, p.lb.H)),
	}
	c.sb = newLayerState(&p.lb, D)
	if !p.la.weightless {
		c.sa = newLayerState(&p.la, D)
	}
	c.xStale = true
	return c
}

func newLayerState[F kernel.Float](L *rbmLayer[F], D int) layerState[F] {
	return layerState[F]{
		x: make([]F, L.H), h: make([]uint8, L.H), y: make([]F, D),
		hUp: make([]int32, 0, L.H), hDown: make([]int32, 0, L.H), yStale: true,
	}
}

// RBMChain is one chain on an RBMPath: the visible state v plus the cached
// pre-activations, in the path's precision. It implements Chain;
// SetVisible and Visible give RAISE access to v.
type RBMChain struct{ c chainCore }

// SampleBase implements Chain: v ~ p_A exactly. It panics on a path made
// by NewRBMPathFromStates, whose chains are started by SetVisible.
func (c *RBMChain) SampleBase(rng *rand.Rand) { c.c.SampleBase(rng) }

// SetVisible sets the visible state to v (0/1 values; RAISE starts from a
// data vector this way).
func (c *RBMChain) SetVisible(v []uint8) { c.c.SetVisible(v) }

// Visible returns the current visible state (read-only; valid until the next
// call that changes the chain).
func (c *RBMChain) Visible() []uint8 { return c.c.Visible() }

// Step implements Chain: it returns log f_next(v) − log f_prev(v) and then
// makes one block-Gibbs transition at β = next.
func (c *RBMChain) Step(prev, next float64, rng *rand.Rand) float64 {
	return c.c.Step(prev, next, rng)
}

// Transition implements Chain: one block-Gibbs transition at β.
func (c *RBMChain) Transition(beta float64, rng *rand.Rand) { c.c.Transition(beta, rng) }

// VisibleProbs sets dst_i = σ(z_i), the conditional probabilities
// p_β(v_i = 1 | h) of the last visible draw, z = (1−β)(a_A + W_A h_A) +
// β(a_B + W_B h_B) (at β = 1 the model's p(v_i = 1 | h) = σ(a_i + W_{i,:}h),
// the "mean-field" image of a Gibbs sweep). It is defined only after a
// Transition or Step; len(dst) must be D.
func (c *RBMChain) VisibleProbs(dst []float64) { c.c.VisibleProbs(dst) }

// LogUnnorm implements Chain: log f_β(v).
func (c *RBMChain) LogUnnorm(beta float64) float64 { return c.c.LogUnnorm(beta) }

// rbmChain is RBMChain in the precision F.
type rbmChain[F kernel.Float] struct {
	p          *rbmPath[F]
	v          []uint8
	vOn        int
	vUp, vDown []int32       // visible units turned on/off since x was last synced
	xStale     bool          // x must be recomputed from scratch
	sinceX     int           // incremental updates of x since the last recomputation
	aAv, aBv   float64       // a_Aᵀv, a_Bᵀv, synced with x
	sa, sb     layerState[F] // hidden layers of A and B
	idx        []int32       // scratch
	z, e, e2   []F           // scratch
}

type layerState[F kernel.Float] struct {
	x          []F // b + Wᵀv
	h          []uint8
	hOn        int
	hUp, hDown []int32 // hidden units turned on/off since y was last synced
	y          []F     // W h
	yStale     bool
	sinceY     int
}

func (c *rbmChain[F]) SampleBase(rng *rand.Rand) {
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

func (c *rbmChain[F]) SetVisible(v []uint8) {
	for i := range c.v {
		c.v[i] = b2u(v[i] != 0)
	}
	c.resetVisible()
}

func (c *rbmChain[F]) Visible() []uint8 { return c.v }

func (c *rbmChain[F]) resetVisible() {
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
func (c *rbmChain[F]) syncX() {
	p := c.p
	nf := len(c.vUp) + len(c.vDown)
	switch {
	case c.xStale || c.sinceX >= p.recompute || !p.alwaysIncremental && nf >= min(c.vOn, p.d-c.vOn):
		c.fullX()
	case nf > 0:
		for _, L := range [2]struct {
			st *layerState[F]
			l  *rbmLayer[F]
		}{{&c.sb, &p.lb}, {&c.sa, &p.la}} {
			if L.l.weightless {
				continue
			}
			addRows(L.st.x, L.l.w, c.vUp)
			subRows(L.st.x, L.l.w, c.vDown)
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
func (c *rbmChain[F]) fullX() {
	p := c.p
	fromOnes := c.vOn <= p.d-c.vOn
	idx := gatherIndices(c.idx, c.v, fromOnes)
	for _, L := range [2]struct {
		st *layerState[F]
		l  *rbmLayer[F]
	}{{&c.sb, &p.lb}, {&c.sa, &p.la}} {
		if L.l.weightless {
			continue
		}
		if fromOnes {
			copy(L.st.x, L.l.bF)
			addRows(L.st.x, L.l.w, idx)
		} else {
			x := L.st.x
			for j := range x {
				x[j] = L.l.bF[j] + L.l.colSum[j]
			}
			subRows(x, L.l.w, idx)
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
func (c *rbmChain[F]) syncY(st *layerState[F], L *rbmLayer[F]) {
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
			addRows(st.y, L.wt, idx)
		} else {
			copy(st.y, L.rowSum)
			subRows(st.y, L.wt, idx)
		}
		st.yStale = false
		st.sinceY = 0
	case nf > 0:
		addRows(st.y, L.wt, st.hUp)
		subRows(st.y, L.wt, st.hDown)
		st.sinceY++
	}
	st.hUp, st.hDown = st.hUp[:0], st.hDown[:0]
}

// hidden draws h ~ σ(βn·x) for one layer; if weight is set it also returns
// Σ_j softplus(βn x_j) − softplus(βp x_j), sharing the exponentials.
func (c *rbmChain[F]) hidden(st *layerState[F], bp, bn float64, weight bool, rng *rand.Rand) float64 {
	H := len(st.x)
	en := c.e[:H]
	expNegAbsF(en, st.x, bn)
	d := 0.0
	if weight {
		ep := c.e2[:H]
		expNegAbsF(ep, st.x, bp)
		d = softplusDiff(st.x, en, ep, bn, bp)
	}
	var delta int
	st.hUp, st.hDown, delta = sampleUnits(st.h, st.x, en, rng, st.hUp, st.hDown)
	st.hOn += delta
	return d
}

// visible draws v ~ σ((1−β)(a_A + W_A h_A) + β(a_B + W_B h_B)).
func (c *rbmChain[F]) visible(beta float64, rng *rand.Rand) {
	p := c.p
	z := c.z
	aA, aB, yB := p.la.aF[:len(z)], p.lb.aF[:len(z)], c.sb.y[:len(z)]
	ob, b := F(1-beta), F(beta)
	if p.la.weightless {
		for i := range z {
			z[i] = ob*aA[i] + b*(aB[i]+yB[i])
		}
	} else {
		yA := c.sa.y[:len(z)]
		for i := range z {
			z[i] = ob*(aA[i]+yA[i]) + b*(aB[i]+yB[i])
		}
	}
	e := c.e[:len(z)]
	expNegAbsF(e, z, 1)
	var delta int
	c.vUp, c.vDown, delta = sampleUnits(c.v, z, e, rng, c.vUp, c.vDown)
	c.vOn += delta
}

func (c *rbmChain[F]) Step(prev, next float64, rng *rand.Rand) float64 {
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

func (c *rbmChain[F]) Transition(beta float64, rng *rand.Rand) {
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

func (c *rbmChain[F]) VisibleProbs(dst []float64) {
	for i, z := range c.z[:len(dst)] {
		dst[i] = nmath.Sigmoid(float64(z))
	}
}

func (c *rbmChain[F]) LogUnnorm(beta float64) float64 {
	p := c.p
	c.syncX()
	l := (1-beta)*c.aAv + beta*c.aBv - ((1-beta)*float64(p.lb.H)+beta*float64(p.la.H))*math.Ln2
	e := c.e[:p.lb.H]
	expNegAbsF(e, c.sb.x, beta)
	l += softplusSumScaled(c.sb.x, e, beta)
	if p.la.weightless {
		for _, b := range p.la.b {
			l += nmath.Softplus((1 - beta) * b)
		}
	} else {
		e := c.e[:p.la.H]
		expNegAbsF(e, c.sa.x, 1-beta)
		l += softplusSumScaled(c.sa.x, e, 1-beta)
	}
	return l
}

var _ Path = (*RBMPath)(nil)
var _ Chain = (*RBMChain)(nil)
