package inference

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/logz-ml/logz/models"
)

// benchPath returns the base-rate path of a synthetic 784×500 RBM with
// weights N(0, 0.05²), visible biases N(−2, 0.5²) (≈12% of pixels on) and
// hidden biases N(−1, 0.5²); the base rate is the model's visible biases.
func benchPath(b *testing.B) *RBMPath {
	rng := rand.New(rand.NewPCG(2024, 1))
	m := models.NewRBM(784, 500)
	for i := range m.W {
		m.W[i] = 0.05 * rng.NormFloat64()
	}
	for i := range m.VBias {
		m.VBias[i] = -2 + 0.5*rng.NormFloat64()
	}
	for j := range m.HBias {
		m.HBias[j] = -1 + 0.5*rng.NormFloat64()
	}
	p, err := NewBaseRatePath(m, m.VBias)
	if err != nil {
		b.Fatal(err)
	}
	return p
}

// BenchmarkRBMChainStep784x500 times the fused step of one chain (one
// goroutine) at a few inverse temperatures, after annealing to β over 300
// steps; it shows that the step does not allocate.
func BenchmarkRBMChainStep784x500(b *testing.B) {
	p := benchPath(b)
	for _, beta := range []float64{0.25, 0.95} {
		b.Run(fmt.Sprintf("beta=%v", beta), func(b *testing.B) {
			c := p.NewRBMChain()
			rng := rand.New(rand.NewPCG(1, 2))
			c.SampleBase(rng)
			for k := 1; k <= 300; k++ {
				c.Step(beta*float64(k-1)/300, beta*float64(k)/300, rng)
			}
			b.ReportAllocs()
			for b.Loop() {
				c.Step(beta-1e-5, beta, rng)
			}
		})
	}
}

// BenchmarkHiddenPhase times the element-wise part of a step for 500 hidden
// units: two exponentials, the weight's softplus products and the draws.
func BenchmarkHiddenPhase(b *testing.B) {
	p := benchPath(b)
	c := p.NewRBMChain()
	rng := rand.New(rand.NewPCG(1, 2))
	c.SampleBase(rng)
	c.Step(0, 0.9, rng)
	c.syncX()
	b.ReportAllocs()
	s := 0.0
	for b.Loop() {
		s += c.hidden(&c.sb, 0.9, 0.9001, true, rng)
		c.sb.hUp, c.sb.hDown = c.sb.hUp[:0], c.sb.hDown[:0]
	}
	sinkF = s
}

// BenchmarkVisiblePhase times the element-wise part of a step for 784
// visible units: pre-activations, exponentials and draws.
func BenchmarkVisiblePhase(b *testing.B) {
	p := benchPath(b)
	c := p.NewRBMChain()
	rng := rand.New(rand.NewPCG(1, 2))
	c.SampleBase(rng)
	c.Step(0, 0.9, rng)
	b.ReportAllocs()
	for b.Loop() {
		c.visible(0.9, rng)
		c.vUp, c.vDown = c.vUp[:0], c.vDown[:0]
	}
}
