package eval

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/logz-ml/logz/inference"
	"github.com/logz-ml/logz/models"
)

// benchDBM returns a synthetic 784-500-1000 DBM (the MNIST shape of
// Salakhutdinov & Hinton 2009) with W1 ~ N(0, 0.05²), W2 ~ N(0, 0.02²),
// visible biases N(−2, 0.5²) (≈12% of pixels on, like MNIST), hidden biases
// N(−1, 0.5²), and a base-rate start equal to its visible biases.
func benchDBM(b *testing.B) (*models.DBM, []float64) {
	rng := rand.New(rand.NewPCG(2024, 2))
	d, err := models.NewDBM(784, 500, 1000)
	if err != nil {
		b.Fatal(err)
	}
	for l, s := range []float64{0.05, 0.02} {
		for i := range d.W[l] {
			d.W[l][i] = s * rng.NormFloat64()
		}
	}
	for l, mu := range []float64{-2, -1, -1} {
		for i := range d.B[l] {
			d.B[l][i] = mu + 0.5*rng.NormFloat64()
		}
	}
	return d, append([]float64(nil), d.B[0]...)
}

// BenchmarkDBMAISStep784x500x1000 times one AIS step (weight, odd | even and
// even | odd sweeps) of 100 chains of the benchmark DBM; see benchAISSteps.
func BenchmarkDBMAISStep784x500x1000(b *testing.B) {
	d, base := benchDBM(b)
	path, err := NewDBMPath(d, base)
	if err != nil {
		b.Fatal(err)
	}
	benchAISSteps(b, path, []float64{0.25, 0.6, 0.95})
}

// benchAISSteps times one annealing step of 100 chains of path per op,
// spread over GOMAXPROCS persistent goroutines as AIS.Run spreads its chains
// (woken through channels, so the harness allocates nothing per op), at each
// inverse temperature β of betas after annealing every chain to β over 300
// steps. It reports ns/chain-step, the wall time per op over 100.
func benchAISSteps(b *testing.B, path inference.Path, betas []float64) {
	const chains = 100
	workers := runtime.GOMAXPROCS(0)
	for _, beta := range betas {
		b.Run(fmt.Sprintf("beta=%v", beta), func(b *testing.B) {
			chs := make([]inference.Chain, chains)
			rngs := make([]*rand.Rand, chains)
			for c := range chs {
				chs[c] = path.NewChain()
				rngs[c] = rand.New(rand.NewPCG(1, uint64(c)))
				chs[c].SampleBase(rngs[c])
				for k := 1; k <= 300; k++ {
					chs[c].Step(beta*float64(k-1)/300, beta*float64(k)/300, rngs[c])
				}
			}
			start := make([]chan bool, workers)
			var wg sync.WaitGroup
			for w := range workers {
				start[w] = make(chan bool)
				go func() {
					for range start[w] {
						for c := w; c < chains; c += workers {
							chs[c].Step(beta-1e-5, beta, rngs[c])
						}
						wg.Done()
					}
				}()
			}
			defer func() {
				for _, s := range start {
					close(s)
				}
			}()
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				wg.Add(workers)
				for _, s := range start {
					s <- true
				}
				wg.Wait()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*chains), "ns/chain-step")
		})
	}
}

// BenchmarkDBMChainStep784x500x1000 times the step of one chain on one
// goroutine (the per-core cost), annealed to β = 0.95 over 300 steps.
func BenchmarkDBMChainStep784x500x1000(b *testing.B) {
	d, base := benchDBM(b)
	path, err := NewDBMPath(d, base)
	if err != nil {
		b.Fatal(err)
	}
	ch := path.NewDBMChain()
	rng := rand.New(rand.NewPCG(1, 2))
	ch.SampleBase(rng)
	for k := 1; k <= 300; k++ {
		ch.Step(0.95*float64(k-1)/300, 0.95*float64(k)/300, rng)
	}
	b.ReportAllocs()
	for b.Loop() {
		ch.Step(0.95-1e-5, 0.95, rng)
	}
}

// BenchmarkDBMAISFull784x500x1000 times a full DBM AIS estimate, 100 runs ×
// 20,000 β (PiecewiseSchedule), with DBMAISLogZ. It takes minutes, so it runs
// only when the -bench pattern contains "Full" (-bench DBMAISFull -benchtime
// 1x), not with -bench . or -bench DBMAIS.
func BenchmarkDBMAISFull784x500x1000(b *testing.B) {
	if f := flag.Lookup("test.bench"); f == nil || !strings.Contains(f.Value.String(), "Full") {
		b.Skip("runs only when the -bench pattern contains Full: -bench DBMAISFull -benchtime 1x")
	}
	d, base := benchDBM(b)
	a := AIS{Runs: 100, Betas: inference.PiecewiseSchedule(19999), BaseVBias: base, Seed: 1}
	b.ReportAllocs()
	for b.Loop() {
		r, err := DBMAISLogZ(d, a)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(r.LogZ, "logZ")
		b.ReportMetric(r.ESS, "ESS")
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*100*19999), "ns/chain-step")
}
