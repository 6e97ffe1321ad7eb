package train

import (
	"testing"

	"github.com/logz-ml/logz/models"
)

// newChi2Bench is a χ² trainer of a 784×500 RBM with MNIST-like biases
// (≈13% on), 30 draws per step, 10 components and minibatches of 100.
func newChi2Bench(b *testing.B) (*RBMChi2Trainer, rows) {
	data := mnistLike(100)
	m := models.NewRBM(784, 500)
	base := make([]float64, 784)
	for i := range base {
		base[i] = -1.9
	}
	opt := Chi2Options{BatchSize: 100, WeightDecay: 2e-4, Schedule: constSchedule{lr: 1e-3},
		QSteps: 10, QSamples: 30, QComponents: 10, QLearningRate: 0.01, QDecay: 0.9, QInitStd: 0.1, Linearise: true}
	tr, err := NewRBMChi2Trainer(m, opt, base, 1)
	if err != nil {
		b.Fatal(err)
	}
	tr.InitParams(0.01, base)
	tr.adamW.LR, tr.adamA.LR, tr.adamB.LR = 1e-3, 1e-3, 1e-3
	if _, err := tr.QStep(); err != nil { // first step sets the averages
		b.Fatal(err)
	}
	return tr, data
}

// BenchmarkChi2QStep784x500 is one fitter step on q (30 draws from a
// mixture of 10, their −F(v), the score-function update).
func BenchmarkChi2QStep784x500(b *testing.B) {
	tr, _ := newChi2Bench(b)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if _, err := tr.QStep(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkChi2ThetaStep784x500 is one θ step: 30 fresh draws, the exact
// data term on a minibatch of 100, the weighted negative phase and Adam.
func BenchmarkChi2ThetaStep784x500(b *testing.B) {
	tr, data := newChi2Bench(b)
	benchBatches(b, 100, func(idx []int) {
		if _, err := tr.ThetaStep(data, idx); err != nil {
			b.Fatal(err)
		}
	})
}

// BenchmarkChi2Update784x500 is a whole update (10 q steps, one θ step):
// the unit of an MNIST epoch (600 per epoch).
func BenchmarkChi2Update784x500(b *testing.B) {
	tr, data := newChi2Bench(b)
	benchBatches(b, 100, func(idx []int) {
		if _, err := tr.Step(data, idx); err != nil {
			b.Fatal(err)
		}
	})
	b.StopTimer()
	ms := b.Elapsed().Seconds() * 1e3 / float64(b.N)
	b.ReportMetric(ms*600/1e3, "s/MNIST-epoch")
}
