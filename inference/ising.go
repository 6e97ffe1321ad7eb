package inference

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/logz-ml/logz/internal/nmath"
	"github.com/logz-ml/logz/models"
)

// IsingPath anneals from independent bits to an Ising model m:
//
//	f_β(x) = exp((1−β)·bᵀx + β·log p̃(x)),
//
// with base logits b (nil = 0, the uniform start: f_0 = 1 and
// log Z_0 = D log 2; else log Z_0 = Σ_i softplus(b_i)). The transition at
// β is one Gibbs sweep in raster order, x_i ~ Bernoulli(σ(β·Δ_i + (1−β)·b_i)),
// which leaves f_β/Z_β invariant, and the weight factor of a step is
// log f_next(x) − log f_prev(x) = (next − prev)·(log p̃(x) − bᵀx).
type IsingPath struct {
	m     *models.Ising
	base  []float64
	logZ0 float64
}

// NewIsingPath returns the path from base logits b (nil = uniform) to m.
func NewIsingPath(m *models.Ising, base []float64) (*IsingPath, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	D := m.NumVisible()
	p := &IsingPath{m: m, logZ0: float64(D) * math.Ln2}
	if base != nil {
		if len(base) != D {
			return nil, fmt.Errorf("ising path: %d base logits for %d sites", len(base), D)
		}
		p.base, p.logZ0 = base, 0
		for i, b := range base {
			if math.IsNaN(b) || math.IsInf(b, 0) {
				return nil, fmt.Errorf("ising path: base logit %d is %v", i, b)
			}
			p.logZ0 += nmath.Softplus(b)
		}
	}
	return p, nil
}

// LogZ0 implements Path.
func (p *IsingPath) LogZ0() float64 { return p.logZ0 }

// NewChain implements Path.
func (p *IsingPath) NewChain() Chain { return &IsingChain{p: p, x: make([]uint8, p.m.NumVisible())} }

// IsingChain is one chain on an IsingPath.
type IsingChain struct {
	p *IsingPath
	x []uint8
}

// State returns the chain's current x (aliased).
func (c *IsingChain) State() []uint8 { return c.x }

// SampleBase draws x_i ~ Bernoulli(σ(b_i)), one uniform per site.
func (c *IsingChain) SampleBase(rng *rand.Rand) {
	for i := range c.x {
		b := 0.0
		if c.p.base != nil {
			b = c.p.base[i]
		}
		c.x[i] = 0
		if rng.Float64() < nmath.Sigmoid(b) {
			c.x[i] = 1
		}
	}
}

// baseDot returns bᵀx.
func (c *IsingChain) baseDot() float64 {
	s := 0.0
	if c.p.base != nil {
		for i, x := range c.x {
			if x == 1 {
				s += c.p.base[i]
			}
		}
	}
	return s
}

// Step implements Chain: the weight factor at the current x, then a sweep at next.
func (c *IsingChain) Step(prev, next float64, rng *rand.Rand) float64 {
	w := (next - prev) * (c.p.m.LogUnnorm(c.x) - c.baseDot())
	c.p.m.GibbsSweep(c.x, next, c.p.base, rng)
	return w
}

// Transition implements Chain.
func (c *IsingChain) Transition(beta float64, rng *rand.Rand) {
	c.p.m.GibbsSweep(c.x, beta, c.p.base, rng)
}

// LogUnnorm implements Chain: (1−β)·bᵀx + β·log p̃(x).
func (c *IsingChain) LogUnnorm(beta float64) float64 {
	return (1-beta)*c.baseDot() + beta*c.p.m.LogUnnorm(c.x)
}
