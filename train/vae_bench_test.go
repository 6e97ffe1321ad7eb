package train

import (
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/logz-ml/logz/data"
	"github.com/logz-ml/logz/internal/kernel"
	"github.com/logz-ml/logz/models"
)

// benchVAEStep times one minibatch step (q steps, gradient, Adam) of a
// 784-500-Z VAE with an RBM(Z,H) prior on 100 MNIST-like examples.
func benchVAEStep(b *testing.B, Z int, prior string, workers int, H ...int) {
	benchVAEStepPrec(b, Z, prior, workers, "", H...)
}

// benchVAEStepPrec is benchVAEStep in a precision; H = 0 is a Bernoulli prior.
func benchVAEStepPrec(b *testing.B, Z int, prior string, workers int, prec kernel.Precision, H ...int) {
	benchVAEStepAux(b, Z, prior, workers, prec, 0, H...)
}

// benchVAEStepAux is benchVAEStepPrec with aux auxiliary variables (nets
// of 32 hidden units; 0: none).
func benchVAEStepAux(b *testing.B, Z int, prior string, workers int, prec kernel.Precision, aux int, H ...int) {
	var data data.Examples = mnistLike(100) // boxed once: a slice → interface conversion allocates
	ph := 8
	if len(H) > 0 {
		ph = H[0]
	}
	m, err := models.NewVAE(784, Z, []int{500}, ph)
	if err != nil {
		b.Fatal(err)
	}
	if aux > 0 {
		if err := m.AddAux(aux, 32); err != nil {
			b.Fatal(err)
		}
	}
	opt := VAEOptions{BatchSize: 100, LearningRate: 3e-4, Samples: 1, Workers: workers, PriorTraining: prior,
		QSteps: 10, QSamples: 30, QComponents: 10, QLearningRate: 0.01, QDecay: 0.9, QInitStd: 0.1, Linearise: true,
		Chains: 100, GibbsSteps: 1, BaselineHidden: 100, SignalDecay: 0.8, SignalClip: 10, Precision: prec}
	tr, err := NewVAETrainer(m, opt, 1)
	if err != nil {
		b.Fatal(err)
	}
	if err := tr.InitParams(nil, 0.01); err != nil {
		b.Fatal(err)
	}
	idx := make([]int, 100)
	for i := range idx {
		idx[i] = i
	}
	if _, err := tr.Step(data, idx, 1, 0); err != nil { // warm-up: allocate the tasks
		b.Fatal(err)
	}
	b.ReportAllocs()
	cpu0 := cpuTime()
	b.ResetTimer()
	for i := range b.N {
		if _, err := tr.Step(data, idx, 1, i+1); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(cpuTime()-cpu0)/1e6/float64(b.N), "cpu-ms/op")
}

func BenchmarkVAEStep784x500x200RBM8Chi2(b *testing.B) { benchVAEStep(b, 200, PriorTrainingChi2, 1) }
func BenchmarkVAEStep784x500x64RBM8Chi2(b *testing.B)  { benchVAEStep(b, 64, PriorTrainingChi2, 1) }
func BenchmarkVAEStep784x500x64RBM8PCD(b *testing.B)   { benchVAEStep(b, 64, PriorTrainingPCD, 1) }

// The shape: 784-500-64 with an RBM(64,64) prior and its χ² step.
func BenchmarkVAEStep784x500x64RBM64Chi2(b *testing.B) { benchVAEStep(b, 64, PriorTrainingChi2, 1, 64) }
func BenchmarkVAEStep784x500x200RBM8Chi2Workers2(b *testing.B) {
	benchVAEStep(b, 200, PriorTrainingChi2, 2)
}

// The issue-28 shapes with the family's defaults (two workers), in each
// precision: Ber(200) 784-500-200 and RBM(64,64) 784-500-64 (chi2).
func BenchmarkVAEStepBer200Float64(b *testing.B) {
	benchVAEStepPrec(b, 200, PriorTrainingChi2, 2, kernel.Float64, 0)
}
func BenchmarkVAEStepBer200Float32(b *testing.B) {
	benchVAEStepPrec(b, 200, PriorTrainingChi2, 2, kernel.Float32, 0)
}
func BenchmarkVAEStepRBM64x64Float64(b *testing.B) {
	benchVAEStepPrec(b, 64, PriorTrainingChi2, 2, kernel.Float64, 64)
}
func BenchmarkVAEStepRBM64x64Float32(b *testing.B) {
	benchVAEStepPrec(b, 64, PriorTrainingChi2, 2, kernel.Float32, 64)
}

// The same with 10 auxiliary variables (ADGM), in each precision.
func BenchmarkVAEStepBer200AuxFloat64(b *testing.B) {
	benchVAEStepAux(b, 200, PriorTrainingChi2, 2, kernel.Float64, 10, 0)
}
func BenchmarkVAEStepBer200AuxFloat32(b *testing.B) {
	benchVAEStepAux(b, 200, PriorTrainingChi2, 2, kernel.Float32, 10, 0)
}
func BenchmarkVAEStepRBM64x64AuxFloat64(b *testing.B) {
	benchVAEStepAux(b, 64, PriorTrainingChi2, 2, kernel.Float64, 10, 64)
}
func BenchmarkVAEStepRBM64x64AuxFloat32(b *testing.B) {
	benchVAEStepAux(b, 64, PriorTrainingChi2, 2, kernel.Float32, 10, 64)
}

// TestVAEStepNoAllocation requires a single-worker step to allocate
// nothing once its tasks exist, in either precision.
func TestVAEStepNoAllocation(t *testing.T) {
	var data data.Examples = vaePlanted(60, 5)
	for _, c := range []struct {
		prior string
		prec  kernel.Precision
		aux   bool
	}{
		{PriorTrainingChi2, "", false}, {PriorTrainingPCD, "", false}, {PriorTrainingChi2, kernel.Float32, false}, {PriorTrainingPCD, kernel.Float32, false},
		{PriorTrainingChi2, "", true}, {PriorTrainingPCD, "", true}, {PriorTrainingChi2, kernel.Float32, true}, {PriorTrainingPCD, kernel.Float32, true}} {
		prior := c.prior + " " + string(c.prec)
		opt := vaeTestOptions(c.prior, 1)
		opt.Precision = c.prec
		var tr *VAETrainer
		if c.aux {
			tr = newTinyAuxTrainer(t, 3, opt, 2, nil)
			prior += " auxiliary"
		} else {
			tr = newTinyTrainer(t, 3, opt, 2, nil)
		}
		idx := []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29}
		if _, err := tr.Step(data, idx, 1, 0); err != nil {
			t.Fatal(err)
		}
		b := 1
		if a := testing.AllocsPerRun(20, func() {
			if _, err := tr.Step(data, idx, 1, b); err != nil {
				t.Fatal(err)
			}
			b++
		}); a != 0 {
			t.Errorf("%s: a step allocates %v times", prior, a)
		}
	}
}

// One worker, for the scaling over the two cores.
func BenchmarkVAEStepBer200Float32Workers1(b *testing.B) {
	benchVAEStepPrec(b, 200, PriorTrainingChi2, 1, kernel.Float32, 0)
}

// benchVAEEpoch times TrainEpoch (steps and the per-step divergence check)
// of the Ber(200) VAE 784-500-200 with the family's defaults (2 workers,
// minibatch 100, a 100-unit baseline) on 1,000 MNIST-like examples, and
// reports the process's CPU time per epoch too (cpu-ms/op: the work, which
// a loaded machine's waiting does not inflate as much as the wall time).
func benchVAEEpoch(b *testing.B, prec kernel.Precision) {
	var data data.Examples = mnistLike(1000)
	m, err := models.NewVAE(784, 200, []int{500}, 0)
	if err != nil {
		b.Fatal(err)
	}
	opt := VAEOptions{BatchSize: 100, LearningRate: 3e-4, Samples: 1, Workers: 2, PriorTraining: PriorTrainingChi2,
		QSteps: 10, QSamples: 30, QComponents: 10, QLearningRate: 0.01, QDecay: 0.9, QInitStd: 0.1, Linearise: true,
		BaselineHidden: 100, SignalDecay: 0.8, SignalClip: 10, Shuffle: true, Precision: prec}
	tr, err := NewVAETrainer(m, opt, 1)
	if err != nil {
		b.Fatal(err)
	}
	if err := tr.InitParams(nil, 0.01); err != nil {
		b.Fatal(err)
	}
	if _, err := tr.TrainEpoch(data); err != nil { // warm-up
		b.Fatal(err)
	}
	b.ReportAllocs()
	cpu0 := cpuTime()
	b.ResetTimer()
	for range b.N {
		if _, err := tr.TrainEpoch(data); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(cpuTime()-cpu0)/1e6/float64(b.N), "cpu-ms/op")
}

// cpuTime is the process's user and system time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func BenchmarkVAEEpochBer200Float32(b *testing.B) { benchVAEEpoch(b, kernel.Float32) }
func BenchmarkVAEEpochBer200Float64(b *testing.B) { benchVAEEpoch(b, kernel.Float64) }

// TestVAEEpochReleasesHelpers requires TrainEpoch to stop the engine's
// helpers, which live from one step to the next within an epoch of a
// Bernoulli-prior VAE (keepPool), in either precision: no goroutine is
// left behind (goroutines that have finished may take a moment to exit,
// so the count is awaited for up to a second).
func TestVAEEpochReleasesHelpers(t *testing.T) {
	var data data.Examples = vaePlanted(60, 5)
	for _, prec := range []kernel.Precision{kernel.Float64, kernel.Float32} {
		opt := vaeTestOptions(PriorTrainingChi2, 2)
		opt.Precision = prec
		tr := newTinyTrainer(t, 0, opt, 2, nil)
		before := runtime.NumGoroutine()
		if _, err := tr.TrainEpoch(data); err != nil {
			t.Fatal(err)
		}
		after := runtime.NumGoroutine()
		for wait := 0; after != before && wait < 100; wait++ {
			time.Sleep(10 * time.Millisecond)
			after = runtime.NumGoroutine()
		}
		if after != before {
			t.Errorf("%s: %d goroutines before the epoch, %d after", prec, before, after)
		}
	}
}
