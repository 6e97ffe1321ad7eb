package eval

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/logz-ml/logz/inference"
	"github.com/logz-ml/logz/internal/kernel"
)

// BenchmarkAISStep784x500 measures one annealing step (weight update, h | v
// and v | h at β) of 100 chains on the 784×500 benchmark model, split over
// GOMAXPROCS goroutines as in AIS.Run, at three inverse temperatures (the
// 2008 schedule spends 500, 4,000 and 10,000 steps in [0,0.5), [0.5,0.9) and
// [0.9,1]). The chains are first annealed to β over 300 steps. float32 is
// the default of the rbm's ais.
func BenchmarkAISStep784x500(b *testing.B) {
	m, base := benchModel(b)
	for _, prec := range []kernel.Precision{kernel.Float32, kernel.Float64} {
		path, err := inference.NewBaseRatePathIn(prec, m, base)
		if err != nil {
			b.Fatal(err)
		}
		benchAISStep(b, path, prec)
	}
}

func benchAISStep(b *testing.B, path *inference.RBMPath, prec kernel.Precision) {
	const nchains = 100
	for _, beta := range []float64{0.25, 0.7, 0.95} {
		b.Run(fmt.Sprintf("%s/beta=%v", prec, beta), func(b *testing.B) {
			chains := make([]*inference.RBMChain, nchains)
			rngs := make([]*rand.Rand, nchains)
			for c := range chains {
				chains[c] = path.NewRBMChain()
				rngs[c] = rand.New(rand.NewPCG(1, uint64(c)))
				chains[c].SampleBase(rngs[c])
			}
			// Persistent workers, each owning the chains c ≡ w (mod workers),
			// driven step by step through channels (no allocation per step).
			workers := runtime.GOMAXPROCS(0)
			type span struct{ prev, next float64 }
			work := make([]chan span, workers)
			done := make(chan struct{}, workers)
			for w := range workers {
				work[w] = make(chan span)
				go func() {
					for sp := range work[w] {
						for c := w; c < nchains; c += workers {
							chains[c].Step(sp.prev, sp.next, rngs[c])
						}
						done <- struct{}{}
					}
				}()
			}
			defer func() {
				for _, ch := range work {
					close(ch)
				}
			}()
			step := func(prev, next float64) {
				for _, ch := range work {
					ch <- span{prev, next}
				}
				for range workers {
					<-done
				}
			}
			const warm = 300
			for k := 1; k <= warm; k++ {
				step(beta*float64(k-1)/warm, beta*float64(k)/warm)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				step(beta-1e-5, beta)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/step")
		})
	}
}

// BenchmarkAISFull784x500 is a full AIS estimate: 100 runs × Schedule2008
// (14,499 steps) on the 784×500 benchmark model. Run it with -benchtime=1x.
func BenchmarkAISFull784x500(b *testing.B) {
	m, base := benchModel(b)
	b.ReportAllocs()
	var r AISResult
	for b.Loop() {
		var err error
		r, err = AIS{Runs: 100, BaseVBias: base, Seed: 1}.LogZ(m)
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(r.LogZ, "logZ")
	b.ReportMetric(r.LogZHi3-r.LogZ, "+3σ")
	b.ReportMetric(r.ESS, "ESS")
	b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/estimate")
}

// BenchmarkAIS1000x784x500 is the estimate the peers are timed on
// (scripts/bench-ais.sh): 100 runs × 1,000 β (inference.LinearSchedule)
// on the 784×500 benchmark model, in float32 (the default of the rbm's
// ais) and float64. Run it with -benchtime=1x or 3x.
func BenchmarkAIS1000x784x500(b *testing.B) {
	m, base := benchModel(b)
	betas := inference.LinearSchedule(999)
	for _, prec := range []kernel.Precision{kernel.Float32, kernel.Float64} {
		b.Run(string(prec), func(b *testing.B) {
			b.ReportAllocs()
			var r AISResult
			for b.Loop() {
				var err error
				r, err = AIS{Runs: 100, Betas: betas, BaseVBias: base, Seed: 1, Precision: prec}.LogZ(m)
				if err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(r.LogZ, "logZ")
			b.ReportMetric(r.LogZHi1-r.LogZ, "+1σ")
			b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/estimate")
		})
	}
}
