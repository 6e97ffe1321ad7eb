package train

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"testing"
	"time"

	"github.com/logz-ml/logz/eval"
	"github.com/logz-ml/logz/inference"
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

// BenchmarkChi2TrackVsAIS784x100 compares the cost of the χ² tracker over
// one MNIST epoch (600 θ steps, each with q_steps = 10 fitter steps and 30
// fresh draws) with AIS runs of 100 chains whose standard error matches
// the spread of the tracked estimate. θ is held fixed so that the spread
// is the estimator's own. The model is $LOGZ_CHI2_MODEL (an RBM model.npz,
// e.g. one trained on MNIST; q starts at its visible biases) or a
// synthetic 784×100 RBM (weights N(0, 0.05²), visible biases N(−2, 0.5²)).
// Run with -benchtime 1x; the figures are in the log and the metrics.
func BenchmarkChi2TrackVsAIS784x100(b *testing.B) {
	m := models.NewRBM(784, 100)
	if p := os.Getenv("LOGZ_CHI2_MODEL"); p != "" {
		c, err := models.Load(p, codecs)
		if err != nil {
			b.Fatal(err)
		}
		var ok bool
		if m, ok = c.Model.(*models.RBM); !ok {
			b.Fatalf("%s holds a %s, not an rbm", p, c.Model.TypeName())
		}
	} else {
		rng := rand.New(rand.NewPCG(2024, 1))
		for i := range m.W {
			m.W[i] = 0.05 * rng.NormFloat64()
		}
		for i := range m.VBias {
			m.VBias[i] = -2 + 0.5*rng.NormFloat64()
		}
	}
	base := append([]float64(nil), m.VBias...)
	for range b.N {
		opt := Chi2Options{BatchSize: 100, Schedule: constSchedule{lr: 1e-3},
			QSteps: 10, QSamples: 30, QComponents: 10, QLearningRate: 0.01, QDecay: 0.9, QInitStd: 0.1, Linearise: true}
		tr, err := NewRBMChi2Trainer(m, opt, base, 1)
		if err != nil {
			b.Fatal(err)
		}
		const steps = 600
		est := make([]float64, 0, steps)
		start := time.Now()
		for range steps {
			for range opt.QSteps {
				if _, err := tr.QStep(); err != nil {
					b.Fatal(err)
				}
			}
			v, err := tr.Fit.Draw(tr.logp, tr.qrng)
			if err != nil {
				b.Fatal(err)
			}
			est = append(est, v)
		}
		chi2Secs := time.Since(start).Seconds()
		// Spread of the per-step estimate over the second half of the epoch
		// (q settled), and of the epoch's mean of the second half.
		tail := est[steps/2:]
		mean, sd := meanSD(tail)
		b.Logf("χ² tracking, one epoch (600 × (10 q steps + 30 draws)): %.2f s; per-step ½ log mean w² over the last 300: mean %.3f, sd %.3f (sd of their mean %.3f, ignoring autocorrelation)",
			chi2Secs, mean, sd, sd/math.Sqrt(float64(len(tail))))
		b.ReportMetric(chi2Secs, "chi2-s/epoch")
		b.ReportMetric(sd, "chi2-sd")
		for _, k := range []int{100, 300, 1000, 3000} {
			start := time.Now()
			r, err := eval.AIS{Runs: 100, Betas: inference.PiecewiseSchedule(k), BaseVBias: base, Seed: 7}.LogZ(m)
			if err != nil {
				b.Fatal(err)
			}
			secs := time.Since(start).Seconds()
			b.Logf("AIS 100 runs × %d β: %.2f s, log Z %.3f, SE ≈ %.3f (log(Ẑ+σ̂) − log Ẑ)", k, secs, r.LogZ, r.LogZHi1-r.LogZ)
		}
	}
}

func meanSD(xs []float64) (float64, float64) {
	s, s2 := 0.0, 0.0
	for _, x := range xs {
		s += x
		s2 += x * x
	}
	n := float64(len(xs))
	mean := s / n
	return mean, math.Sqrt(max(s2/n-mean*mean, 0) * n / (n - 1))
}

// BenchmarkDigitsUpdate64x100 compares, side by side in one run, a
// minibatch update of the digits-chi2 config's three trainers on a 64×100
// RBM (minibatch 100, digits-like data with about 30% of the pixels on):
// PCD-1 with 100 chains, χ² learning with 10 and with 2 fitter steps of 30
// draws on a 10-component mixture. Kuleshov & Ermon (§5.2) report χ²
// learning about 8× slower than PCD with 10 q steps and 50% slower with 2.
// The metric s/epoch is for the 75 updates of an epoch of the shifted
// training set (7,500 images). Sub-benchmarks run one after the other:
// compare them within one run (-count to interleave repeats).
func BenchmarkDigitsUpdate64x100(b *testing.B) {
	data := bernoulliRows(100, 64, 0.3, rand.New(rand.NewPCG(5, 6)))
	base := make([]float64, 64)
	for i := range base {
		base[i] = -0.85 // σ(−0.85) ≈ 0.3
	}
	perEpoch := func(b *testing.B) {
		b.StopTimer()
		b.ReportMetric(b.Elapsed().Seconds()/float64(b.N)*75, "s/epoch")
	}
	b.Run("PCD1", func(b *testing.B) {
		m := models.NewRBM(64, 100)
		tr, err := NewRBMTrainer(m, RBMOptions{Persistent: true, Chains: 100, BatchSize: 100, Schedule: constSchedule{k: 1, lr: 0.01, mom: 0.5}}, 1)
		if err != nil {
			b.Fatal(err)
		}
		tr.InitParams(0.01, base)
		tr.setup()
		benchBatches(b, 100, func(idx []int) { tr.batch(data, idx, 1, 0.01, 0.5) })
		perEpoch(b)
	})
	for _, q := range []int{10, 2} {
		b.Run(fmt.Sprintf("Chi2Q%d", q), func(b *testing.B) {
			m := models.NewRBM(64, 100)
			opt := Chi2Options{BatchSize: 100, Schedule: constSchedule{lr: 1e-3},
				QSteps: q, QSamples: 30, QComponents: 10, QLearningRate: 0.01, QDecay: 0.9, QInitStd: 0.1, Linearise: true}
			tr, err := NewRBMChi2Trainer(m, opt, base, 1)
			if err != nil {
				b.Fatal(err)
			}
			tr.InitParams(0.01, base)
			tr.adamW.LR, tr.adamA.LR, tr.adamB.LR = 1e-3, 1e-3, 1e-3
			if _, err := tr.QStep(); err != nil {
				b.Fatal(err)
			}
			benchBatches(b, 100, func(idx []int) {
				if _, err := tr.Step(data, idx); err != nil {
					b.Fatal(err)
				}
			})
			perEpoch(b)
		})
	}
}
