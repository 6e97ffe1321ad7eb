package chi2

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/logz-ml/logz/internal/nmath"
)

// Mixture is the paper's non-parametric proposal: a uniform mixture of K
// products of Bernoullis,
//
//	q(x) = (1/K) Σ_k Π_d σ(η_kd)^{x_d} σ(−η_kd)^{1−x_d},
//
// whose marginal is exact, so LogQ = log q(x) and bound (2) is used
// directly. Its parameters are the logits η (K×D, row k = component k). The
// score of a draw is
//
//	∂ log q(x)/∂η_kd = ρ_k(x) (x_d − σ(η_kd)),
//
// with ρ_k(x) the posterior responsibility of component k.
type Mixture struct {
	D, K   int
	eta    []float64 // K×D logits (the parameters)
	p      []float64 // σ(η)
	lp, ln []float64 // log σ(η), log σ(−η): the log-probabilities of x_d = 1 and 0
}

// NewMixture returns a mixture of K components over D units whose logits
// are base[d] (nil: 0, the uniform distribution) plus N(0, std²) noise
// drawn from rng (the noise breaks the components' symmetry).
func NewMixture(D, K int, base []float64, std float64, rng *rand.Rand) (*Mixture, error) {
	m, err := newMixture(D, K)
	if err != nil {
		return nil, err
	}
	if base != nil && len(base) != D {
		return nil, fmt.Errorf("chi2: mixture base logits have %d values for %d units", len(base), D)
	}
	for k := range K {
		for d := range D {
			v := std * rng.NormFloat64()
			if base != nil {
				v += base[d]
			}
			m.eta[k*D+d] = v
		}
	}
	m.Changed()
	return m, nil
}

func newMixture(D, K int) (*Mixture, error) {
	if D < 1 || K < 1 {
		return nil, fmt.Errorf("chi2: a mixture needs D ≥ 1 units and K ≥ 1 components, got D = %d, K = %d", D, K)
	}
	if K > MaxComponents || D > MaxDim || K*D > MaxParams {
		return nil, fmt.Errorf("chi2: a mixture of %d components over %d units is too large (at most %d components, %d parameters)", K, D, MaxComponents, MaxParams)
	}
	n := K * D
	return &Mixture{D: D, K: K, eta: make([]float64, n), p: make([]float64, n), lp: make([]float64, n), ln: make([]float64, n)}, nil
}

// Limits on the proposals' sizes (far above any sensible use; they keep a
// typo from allocating gigabytes).
const (
	MaxComponents = 1 << 14
	MaxDim        = 1 << 20
	MaxParams     = 1 << 26
)

// Kind is "mixture".
func (m *Mixture) Kind() string { return KindMixture }

// Dim is D.
func (m *Mixture) Dim() int { return m.D }

// Shape is [D, K].
func (m *Mixture) Shape() []int { return []int{m.D, m.K} }

// Params is the K×D logit matrix, row-major.
func (m *Mixture) Params() []float64 { return m.eta }

// Changed recomputes the probabilities from the logits.
func (m *Mixture) Changed() {
	for i, e := range m.eta {
		m.p[i] = nmath.Sigmoid(e)
		m.lp[i] = -nmath.Softplus(-e)
		m.ln[i] = -nmath.Softplus(e)
	}
}

// Means returns the K×D probabilities σ(η) (row k = component k's means).
func (m *Mixture) Means() []float64 { return m.p }

// NewDraw allocates a draw; its cache holds the K component log-joints.
func (m *Mixture) NewDraw() *Draw {
	return &Draw{X: make([]uint8, m.D), Cache: make([]float64, m.K)}
}

// Sample draws a component uniformly and x from its Bernoulli product.
func (m *Mixture) Sample(d *Draw, rng *rand.Rand) {
	k := rng.IntN(m.K)
	p := m.p[k*m.D : (k+1)*m.D]
	for i, pi := range p {
		if rng.Float64() < pi {
			d.X[i] = 1
		} else {
			d.X[i] = 0
		}
	}
	d.Comp = k
	d.LogQ = m.logQ(d.X, d.Cache)
}

// LogProb returns log q(x).
func (m *Mixture) LogProb(x []uint8) float64 {
	return m.logQ(x, make([]float64, m.K))
}

// logQ returns log q(x), leaving each component's log-joint
// log q(x|k) in lj.
func (m *Mixture) logQ(x []uint8, lj []float64) float64 {
	D := m.D
	for k := range m.K {
		lp, ln := m.lp[k*D:(k+1)*D], m.ln[k*D:(k+1)*D]
		s := 0.0
		for i, xi := range x {
			if xi != 0 {
				s += lp[i]
			} else {
				s += ln[i]
			}
		}
		lj[k] = s
	}
	return nmath.LogSumExp(lj) - math.Log(float64(m.K))
}

// Grad adds −score·∂log q(x)/∂η (a mixture has no r, so path is unused).
// It needs d.Cache as left by Sample (or Score).
func (m *Mixture) Grad(d *Draw, score, _ float64, g []float64) {
	D := m.D
	lse := nmath.LogSumExp(d.Cache)
	for k := range m.K {
		c := -score * math.Exp(d.Cache[k]-lse) // −score·ρ_k
		if c == 0 {
			continue
		}
		gk, pk := g[k*D:(k+1)*D], m.p[k*D:(k+1)*D]
		for i, xi := range d.X {
			gk[i] += c * (float64(xi) - pk[i])
		}
	}
}

// Score sets d's cache and LogQ for a given x (held in d.X), as Sample
// would have (tests and callers that score external points).
func (m *Mixture) Score(d *Draw) { d.LogQ = m.logQ(d.X, d.Cache) }
