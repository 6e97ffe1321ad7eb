package chi2

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/logz-ml/logz/internal/mlp"
)

// Default sizes of the aux proposal: the paper's (§5: 10 auxiliary
// Gaussians, one hidden layer of 32).
const (
	AuxDefaultA = 10
	AuxDefaultH = 32
)

// The scale of r(a|x) is parametrised by a smooth clamp of the net's raw
// output ρ,
//
//	log σ = m + h·tanh((ρ − m)/h),  m = −1, h = 6,
//
// so log σ ∈ (−7, 5) always (no overflow of 1/σ² or e^{log σ}), ≈ ρ near
// ρ = m (slope 0.97 at ρ = 0) and, unlike a hard clamp, never with a zero
// gradient that could strand a unit at the edge.
const (
	auxLogSigmaMid  = -1.0
	auxLogSigmaHalf = 6.0
)

// auxLog2Pi is log 2π.
var auxLog2Pi = math.Log(2 * math.Pi)

// Aux is the auxiliary-variable neural proposal of Kuleshov & Ermon (2017,
// §3.3): with a ∈ R^A,
//
//	q(a) = N(a; 0, I_A),
//	q(x|a) = Π_d Bernoulli(x_d; σ(ℓ_d(a))),   ℓ = MLP A→H(tanh)→D,
//	r(a|x) = N(a; μ(x), diag σ(x)²),          [μ, ρ] = MLP D→H(tanh)→2A,
//
// with log σ = −1 + 6·tanh((ρ+1)/6) ∈ (−7, 5) (see auxLogSigmaMid). A draw
// reports (docs/methods.md#chi2-auxiliary: log r enters the weight used everywhere)
//
//	LogQ = log q(a) + log q(x|a) − log r(a|x),
//	log q(x|a) = Σ_d x_d ℓ_d − softplus(ℓ_d),
//	log r(a|x) = Σ_k −½ log 2π − log σ_k − ½ ε_k²,  ε_k = (a_k − μ_k)/σ_k,
//
// so that E_{q(x,a)}[w²], w = p̃(x)/e^{LogQ}, is bound (3). Its parameters are
// one flat vector [φ | ψ]: φ those of the q(x|a) net (W1, b1, W2, b2 as in
// internal/mlp), then ψ those of the r(a|x) net. Grad uses
//
//	∂ log q(x|a)/∂ℓ_d = x_d − σ(ℓ_d),
//	∂ log r(a|x)/∂μ_k = ε_k/σ_k,   ∂ log r(a|x)/∂log σ_k = ε_k² − 1,
//
// backpropagated through the nets (q(a) has no parameters; a is drawn from
// it, not reparametrised, so the q side is a pure score-function gradient).
type Aux struct {
	d, a, h int
	params  []float64
	qNet    *mlp.Net // A → H → D: the logits ℓ of q(x|a)
	rNet    *mlp.Net // D → H → 2A: μ then ρ of r(a|x)
	nq      int      // len(φ)
	// Offsets into Draw.Cache: the two nets' scratch, σ(ℓ), and the two
	// output gradients.
	offR, offP, offDQ, offDR, cacheLen int
}

var _ Proposal = (*Aux)(nil)

// NewAux returns an aux proposal over {0,1}^D with A auxiliary Gaussians
// and H hidden units in each net, its weights drawn by mlp.Net.Init
// (N(0, 1/fan_in), zero biases) from rng: at the start q(x|a) has logits
// near 0 and r(a|x) ≈ N(0, I). It panics unless D, A, H > 0.
func NewAux(D, A, H int, rng *rand.Rand) *Aux {
	q, err := newAuxFromShape([]int{D, A, H})
	if err != nil {
		panic(err)
	}
	q.qNet.Init(rng)
	q.rNet.Init(rng)
	// r's output layer starts at zero: μ = 0 and ρ = 0, i.e. log σ =
	// −1 + 6·tanh(1/6) ≈ −0.0055, so r ≈ q(a) = N(0, I) for every x and
	// the first weights are ≈ p̃(x)/q(x|a). A random r that is wider than
	// q(a|x) somewhere would give w² infinite variance from the first step.
	// (The zero layer still learns: its gradient is the hidden activations
	// times δ, and those are not zero.)
	clear(q.rNet.W[1])
	clear(q.rNet.B[1])
	return q
}

// NewAuxBase is NewAux with q(x|a)'s output bias set to base (len D),
// e.g. the logits of the data's marginals, so that q starts near a product
// of those marginals.
func NewAuxBase(base []float64, A, H int, rng *rand.Rand) *Aux {
	q := NewAux(len(base), A, H, rng)
	copy(q.qNet.B[1], base)
	return q
}

// newAuxFromShape returns an aux proposal with Shape() = shape = [D, A, H]
// and zero parameters, to be filled from a checkpoint's Params.
func newAuxFromShape(shape []int) (*Aux, error) {
	if len(shape) != 3 {
		return nil, fmt.Errorf("chi2: aux shape %v, want [D, A, H]", shape)
	}
	D, A, H := shape[0], shape[1], shape[2]
	if D <= 0 || A <= 0 || H <= 0 {
		return nil, fmt.Errorf("chi2: aux shape [D, A, H] = %v, want every size > 0", shape)
	}
	if D > MaxDim || A > MaxDim || H > MaxDim || (A+D)*H > MaxParams {
		return nil, fmt.Errorf("chi2: aux shape [D, A, H] = %v is too large (at most %d parameters)", shape, MaxParams)
	}
	qs, rs := []int{A, H, D}, []int{D, H, 2 * A}
	nq, nr := mlp.NumParams(qs), mlp.NumParams(rs)
	p := make([]float64, nq+nr)
	q := &Aux{d: D, a: A, h: H, params: p, nq: nq,
		qNet: mlp.MustNew(qs, p[:nq:nq]), rNet: mlp.MustNew(rs, p[nq:])}
	q.offR = q.qNet.ScratchLen()
	q.offP = q.offR + q.rNet.ScratchLen()
	q.offDQ = q.offP + D
	q.offDR = q.offDQ + D
	q.cacheLen = q.offDR + 2*A
	return q, nil
}

// Kind is "aux".
func (q *Aux) Kind() string { return KindAux }

// Dim is D.
func (q *Aux) Dim() int { return q.d }

// Shape is [D, A, H].
func (q *Aux) Shape() []int { return []int{q.d, q.a, q.h} }

// Params is the live vector [φ | ψ]; see the type's doc.
func (q *Aux) Params() []float64 { return q.params }

// Changed does nothing: the nets read Params directly.
func (q *Aux) Changed() {}

// NewDraw allocates a draw with X (len D), A (len A) and the nets' scratch.
func (q *Aux) NewDraw() *Draw {
	return &Draw{X: make([]uint8, q.d), A: make([]float64, q.a), Cache: make([]float64, q.cacheLen)}
}

// Sample draws a ~ q(a), x ~ q(x|a) and sets d.LogQ = log q(a) +
// log q(x|a) − log r(a|x), keeping the activations in d.Cache for Grad.
func (q *Aux) Sample(d *Draw, rng *rand.Rand) {
	for k := range d.A {
		d.A[k] = rng.NormFloat64()
	}
	d.LogQ = q.logQ(d, rng)
}

// logQ runs both nets for the draw's a and returns its LogQ; with rng not
// nil it first draws x ~ q(x|a) into d.X, otherwise it scores d.X.
func (q *Aux) logQ(d *Draw, rng *rand.Rand) float64 {
	lqa, lqx, lr := q.logParts(d, rng)
	return lqa + lqx - lr
}

// logParts returns log q(a), log q(x|a) and log r(a|x) for the draw's a
// (and x, drawn first from q(x|a) when rng is not nil), leaving the nets'
// activations and σ(ℓ) in d.Cache.
func (q *Aux) logParts(d *Draw, rng *rand.Rand) (lqa, lqx, lr float64) {
	c := d.Cache
	logit := q.qNet.Forward(c[:q.offR], d.A)
	p := c[q.offP : q.offP+q.d]
	x := d.X[:q.d]
	// log q(x|a) = Σ_d x_d ℓ_d − max(ℓ_d, 0) − log(1 + e^{−|ℓ_d|}): one exp
	// per unit serves σ(ℓ_d) and the softplus, and the log1p terms are
	// multiplied in blocks (each factor is in (1, 2], so 512 of them cannot
	// overflow) and logged once per block.
	prod := 1.0
	for i, l := range logit {
		e := math.Exp(-math.Abs(l))
		if l >= 0 {
			p[i] = 1 / (1 + e)
			lqx -= l
		} else {
			p[i] = e / (1 + e)
		}
		if rng != nil {
			x[i] = 0
			if rng.Float64() < p[i] {
				x[i] = 1
			}
		}
		if x[i] != 0 {
			lqx += l
		}
		prod *= 1 + e
		if i&511 == 511 {
			lqx -= math.Log(prod)
			prod = 1
		}
	}
	lqx -= math.Log(prod)
	lr = q.logR(q.rNet.ForwardBinary(c[q.offR:q.offP], x), d.A)
	return q.logPrior(d.A), lqx, lr
}

// logPrior is log N(a; 0, I).
func (q *Aux) logPrior(a []float64) float64 {
	s := 0.0
	for _, v := range a {
		s += v * v
	}
	return -0.5*s - 0.5*float64(len(a))*auxLog2Pi
}

// auxLogSigma maps the raw output ρ to log σ ∈ (−7, 5) and returns
// d log σ/dρ too.
func auxLogSigma(rho float64) (ls, dls float64) {
	t := math.Tanh((rho - auxLogSigmaMid) / auxLogSigmaHalf)
	return auxLogSigmaMid + auxLogSigmaHalf*t, 1 - t*t
}

// logR is log r(a|x) for the r net's output out = [μ, ρ].
func (q *Aux) logR(out, a []float64) float64 {
	s := 0.0
	for k, ak := range a {
		ls, _ := auxLogSigma(out[q.a+k])
		eps := (ak - out[k]) * math.Exp(-ls)
		s -= ls + 0.5*eps*eps
	}
	return s - 0.5*float64(len(a))*auxLog2Pi
}

// Grad adds to g the draw's contribution to the gradient of E_q[w²]/γ
// (see Proposal.Grad and the type's doc):
//
//	g_φ += −score · ∇_φ log q(x|a),   g_ψ += 2·path · ∇_ψ log r(a|x),
//
// using the activations Sample kept in d.Cache (so Params must not have
// changed since d was drawn). It does not allocate.
func (q *Aux) Grad(d *Draw, score, path float64, g []float64) {
	c := d.Cache
	if score != 0 {
		p := c[q.offP : q.offP+q.d]
		dq := c[q.offDQ : q.offDQ+q.d]
		for i, xi := range d.X[:q.d] {
			dq[i] = score * p[i] // −score·(x − p)
			if xi != 0 {
				dq[i] -= score
			}
		}
		q.qNet.Backward(g[:q.nq], nil, c[:q.offR], d.A, dq)
	}
	if path != 0 {
		rs := c[q.offR:q.offP]
		out := q.rNet.Output(rs)
		dr := c[q.offDR : q.offDR+2*q.a]
		for k, ak := range d.A {
			ls, dls := auxLogSigma(out[q.a+k])
			inv := math.Exp(-ls)
			eps := (ak - out[k]) * inv
			dr[k] = 2 * path * eps * inv
			dr[q.a+k] = 2 * path * (eps*eps - 1) * dls
		}
		q.rNet.BackwardBinary(g[q.nq:len(q.params)], nil, rs, d.X, dr)
	}
}
