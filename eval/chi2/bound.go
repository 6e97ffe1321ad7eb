// Package chi2 is the estimator of the χ² upper bound on log Z of
// Kuleshov & Ermon (2017; docs/methods.md#chi2-bound): for a target p̃ and
// a proposal q fitted with inference/chi2, Bound estimates
// ½ log E_q[(p̃(x)/q(x))²] (or its auxiliary form) on fresh draws.
//
// The Monte-Carlo estimate ½ log mean w² is biased LOW (Jensen), so a
// single estimate can fall under log Z (docs/methods.md#chi2-bias): Bound
// reports its spread over independent batches and the effective sample size
// of the weights w², and callers say so beside the number. The proposals,
// their fitter and their checkpoint state are in inference/chi2.
package chi2

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sync/atomic"

	ichi2 "github.com/logz-ml/logz/inference/chi2"
	"github.com/logz-ml/logz/internal/nmath"
	"github.com/logz-ml/logz/internal/workgroup"
)

// Estimate is the χ² bound of a proposal estimated on fresh draws.
type Estimate struct {
	// LogZ is ½ log mean w² over all draws: the estimate of the upper
	// bound (2)/(3). It is biased low, and can fall under log Z.
	LogZ float64
	// SE is the standard error of LogZ from the spread of the per-batch
	// estimates: sd(BatchLogZ)/√Batches.
	SE        float64
	BatchLogZ []float64
	Samples   int
	// ESS is the effective sample size of the weights w² the bound
	// averages, (Σ w²)²/Σ w⁴, in [1, Samples].
	ESS float64
	// LogZIS is log mean w, the importance-sampling estimate of log Z (a
	// stochastic lower bound), and SEIS its standard error from the batches.
	LogZIS, SEIS float64
}

// Bound estimates the χ² bound of q for t with samples fresh draws split
// into batches independent batches; batch b draws from
// rand.New(rand.NewPCG(seed, b)), so the result does not depend on workers.
func Bound(t ichi2.Target, q ichi2.Proposal, samples, batches int, seed uint64, workers int) (Estimate, error) {
	return BoundProgress(t, q, samples, batches, seed, workers, nil)
}

// BoundProgress is Bound telling progress, if set, from the workers the
// cumulative number of draws done (of samples) after each batch.
func BoundProgress(t ichi2.Target, q ichi2.Proposal, samples, batches int, seed uint64, workers int, progress func(done, total int64)) (Estimate, error) {
	if t.Dim() != q.Dim() {
		return Estimate{}, fmt.Errorf("chi2: the proposal has %d units, the model %d", q.Dim(), t.Dim())
	}
	if batches < 2 || samples < batches {
		return Estimate{}, fmt.Errorf("chi2: need at least 2 batches and a draw per batch, got %d samples in %d batches", samples, batches)
	}
	workers = max(1, min(workers, batches))
	logw := make([]float64, samples)
	errs := make([]error, batches)
	start := func(b int) int { return b * samples / batches }
	var g workgroup.Group
	var done atomic.Int64
	next := make(chan int, batches)
	for b := range batches {
		next <- b
	}
	close(next)
	for range workers {
		g.Go(func() {
			logp := t.NewLogP()
			d := q.NewDraw()
			for b := range next {
				rng := rand.New(rand.NewPCG(seed, uint64(b)))
				for i := start(b); i < start(b+1); i++ {
					q.Sample(d, rng)
					lw := logp(d.X) - d.LogQ
					if math.IsNaN(lw) || math.IsInf(lw, 1) {
						errs[b] = fmt.Errorf("%w (log p̃ = %g, log q = %g)", ichi2.ErrNonFinite, lw+d.LogQ, d.LogQ)
						break
					}
					logw[i] = lw
				}
				if progress != nil {
					progress(done.Add(int64(start(b+1)-start(b))), int64(samples))
				}
			}
		})
	}
	g.Wait()
	for _, err := range errs {
		if err != nil {
			return Estimate{}, err
		}
	}
	two := make([]float64, samples)
	for i, v := range logw {
		two[i] = 2 * v
	}
	e := Estimate{Samples: samples, LogZ: 0.5 * nmath.LogMeanExp(two), LogZIS: nmath.LogMeanExp(logw)}
	four := make([]float64, samples)
	for i, v := range two {
		four[i] = 2 * v
	}
	e.ESS = math.Exp(2*nmath.LogSumExp(two) - nmath.LogSumExp(four))
	e.BatchLogZ = make([]float64, batches)
	is := make([]float64, batches)
	for b := range batches {
		e.BatchLogZ[b] = 0.5 * nmath.LogMeanExp(two[start(b):start(b+1)])
		is[b] = nmath.LogMeanExp(logw[start(b):start(b+1)])
	}
	e.SE = stdErr(e.BatchLogZ)
	e.SEIS = stdErr(is)
	return e, nil
}

// stdErr is the standard error of the mean of x, sd(x)/√n.
func stdErr(x []float64) float64 {
	n := float64(len(x))
	m := 0.0
	for _, v := range x {
		m += v
	}
	m /= n
	ss := 0.0
	for _, v := range x {
		ss += (v - m) * (v - m)
	}
	return math.Sqrt(ss / (n - 1) / n)
}
