package inference

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/logz-ml/logz/internal/kernel"
	"github.com/logz-ml/logz/models"
)

// benchPath returns the base-rate path of a synthetic 784×500 RBM with
// weights N(0, 0.05²), visible biases N(−2, 0.5²) (≈12% of pixels on) and
// hidden biases N(−1, 0.5²); the base rate is the model's visible biases.
func benchPath(b *testing.B, prec kernel.Precision) *RBMPath {
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
	p, err := NewBaseRatePathIn(prec, m, m.VBias)
	if err != nil {
		b.Fatal(err)
	}
	return p
}

// BenchmarkRBMChainStep784x500 times the fused step of one chain (one
// goroutine) at a few inverse temperatures, after annealing to β over 300
// steps; it shows that the step does not allocate.
func BenchmarkRBMChainStep784x500(b *testing.B) {
	for _, prec := range []kernel.Precision{kernel.Float64, kernel.Float32} {
		p := benchPath(b, prec)
		for _, beta := range []float64{0.25, 0.95} {
			b.Run(fmt.Sprintf("%s/beta=%v", prec, beta), func(b *testing.B) {
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
}

// BenchmarkHiddenPhase times the element-wise part of a step for 500 hidden
// units: two exponentials, the weight's softplus products and the draws.
func BenchmarkHiddenPhase(b *testing.B) {
	b.Run("float64", func(b *testing.B) { benchHidden[float64](b) })
	b.Run("float32", func(b *testing.B) { benchHidden[float32](b) })
}

func benchHidden[F kernel.Float](b *testing.B) {
	p := benchPath(b, kernel.Of[F]())
	c := p.NewRBMChain()
	rng := rand.New(rand.NewPCG(1, 2))
	c.SampleBase(rng)
	c.Step(0, 0.9, rng)
	cc := chainOf[F](c)
	cc.syncX()
	b.ReportAllocs()
	s := 0.0
	for b.Loop() {
		s += cc.hidden(&cc.sb, 0.9, 0.9001, true, rng)
		cc.sb.hUp, cc.sb.hDown = cc.sb.hUp[:0], cc.sb.hDown[:0]
	}
	sinkF = s
}

// BenchmarkVisiblePhase times the element-wise part of a step for 784
// visible units: pre-activations, exponentials and draws.
func BenchmarkVisiblePhase(b *testing.B) {
	b.Run("float64", func(b *testing.B) { benchVisible[float64](b) })
	b.Run("float32", func(b *testing.B) { benchVisible[float32](b) })
}

func benchVisible[F kernel.Float](b *testing.B) {
	p := benchPath(b, kernel.Of[F]())
	c := p.NewRBMChain()
	rng := rand.New(rand.NewPCG(1, 2))
	c.SampleBase(rng)
	c.Step(0, 0.9, rng)
	cc := chainOf[F](c)
	b.ReportAllocs()
	for b.Loop() {
		cc.visible(0.9, rng)
		cc.vUp, cc.vDown = cc.vUp[:0], cc.vDown[:0]
	}
}

// chainOf and pathOf are the precision-F chain and path behind c and p.
func chainOf[F kernel.Float](c *RBMChain) *rbmChain[F] { return c.c.(*rbmChain[F]) }

func pathOf[F kernel.Float](p *RBMPath) *rbmPath[F] { return p.core.(*rbmPath[F]) }
