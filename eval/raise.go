package eval

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/logz-ml/logz/inference"
	"github.com/logz-ml/logz/internal/nmath"
	"github.com/logz-ml/logz/models"
)

// RAISE is the reverse AIS estimator of Burda, Grosse & Salakhutdinov (2015,
// Alg. 2) for RBMs. It runs the annealing chain of AIS backwards from a test
// example and returns, per example, an unbiased estimate of p_ann(v), the
// probability of v under the annealing model — the distribution of the last
// visible state of the AIS forward chain v_0 ~ p_0, v_k ~ T_k(·|v_{k−1}),
// k = 1..K. So log p̂ is a stochastic lower bound on log p_ann(v), and it
// tends to underestimate log p(v) where AIS tends to overestimate it.
//
// The weight, derived as forward density over reverse proposal: the
// visible-marginal block-Gibbs kernel T_k(v'|v) = Σ_h p_k(h|v) p_k(v'|h) is
// reversible with respect to p_k(v) ∝ f_k(v), so its reverse operator is
// itself. With v_K = v and v_{k−1} ~ T_k(·|v_k) for k = K..1,
//
//	w = p_0(v_0) Π_k T_k(v_k|v_{k−1}) / Π_k T_k(v_{k−1}|v_k)
//	  = p_0(v_0) Π_{k=1}^{K} f_k(v_k)/f_k(v_{k−1})
//	  = f_K(v)/Z_0 · Π_{k=0}^{K−1} f_k(v_k)/f_{k+1}(v_k),
//
// and E[w] = p_ann(v). (Alg. 2 as printed draws x_k from T̃_k(·|x_{k+1});
// the derivation needs the reverse of T_{k+1} there. The unbiasedness test
// checks the version implemented here against p_ann summed over every path.)
// Each (example, chain) pair draws from rand.NewPCG(Seed, n·Chains + c), so
// results do not depend on Workers or GOMAXPROCS.
type RAISE struct {
	Chains int // M reverse chains per example; 0 means 50
	// Betas is the schedule β_0 = 0 < … < β_K = 1 (shared with AIS).
	Betas []float64
	// BaseVBias are the visible biases of the base-rate RBM (nil: uniform).
	BaseVBias []float64
	Seed      uint64
	Workers   int // 0 means GOMAXPROCS
	// Progress, if set, gets the cumulative number of annealing steps done
	// and the total, from several goroutines.
	Progress func(done, total int64)
}

// RAISEResult holds per-example estimates and their summary.
type RAISEResult struct {
	// LogP[n] = log((1/M) Σ_c w_{n,c}), the estimate of log p_ann(v_n).
	LogP []float64
	// Mean is the mean of LogP over the examples with its standard error.
	Mean MeanStat
	// LogW holds the log weights, example-major: LogW[n*Chains+c].
	LogW []float64
	// LogPSE[n] is the delta-method standard error of LogP[n] from the
	// spread of its weights, sd(w)/(√M·mean(w)) (NaN for one chain).
	LogPSE []float64
	// MinESS is the smallest effective sample size of an example's weights.
	MinESS        float64
	Chains, Steps int
	Warnings      []string
}

// raiseChain is what RAISE needs of an annealing chain: the AIS operations
// plus setting the visible state to a data vector.
type raiseChain interface {
	inference.Chain
	SetVisible(v []uint8)
}

// LogProb estimates log p_ann(v) for every example of x.
func (r RAISE) LogProb(m *models.RBM, x Examples) (RAISEResult, error) {
	path, err := inference.NewBaseRatePath(m, r.BaseVBias)
	if err != nil {
		return RAISEResult{}, fmt.Errorf("RAISE: %w", err)
	}
	return r.Run(path, x)
}

// Run runs RAISE on any annealing path whose chains can be set to a visible
// vector.
func (r RAISE) Run(path inference.Path, x Examples) (RAISEResult, error) {
	betas := r.Betas
	if betas == nil {
		betas = inference.Schedule2008()
	}
	if err := inference.ValidateSchedule(betas); err != nil {
		return RAISEResult{}, fmt.Errorf("RAISE: %w", err)
	}
	M := r.Chains
	if M == 0 {
		M = 50
	}
	if M < 1 {
		return RAISEResult{}, fmt.Errorf("RAISE: chains must be positive, got %d", M)
	}
	N := x.Len()
	if N == 0 {
		return RAISEResult{}, errors.New("RAISE: no examples")
	}
	if _, ok := path.NewChain().(raiseChain); !ok {
		return RAISEResult{}, errors.New("RAISE: this model's annealing chain cannot start from a data vector")
	}
	K := len(betas) - 1
	logZ0 := path.LogZ0()
	logw := make([]float64, N*M)
	total := int64(N) * int64(M) * int64(K)
	workers := r.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	var next, done atomic.Int64
	var wg sync.WaitGroup
	for range max(1, min(workers, N*M)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ch := path.NewChain().(raiseChain)
			for {
				item := int(next.Add(1) - 1)
				if item >= N*M {
					return
				}
				n := item / M
				rng := rand.New(rand.NewPCG(r.Seed, uint64(item)))
				ch.SetVisible(x.Row(n))
				lw := ch.LogUnnorm(1) - logZ0
				ch.Transition(betas[K], rng) // v_{K−1} ~ T_K(·|v)
				for k := K - 1; k >= 0; k-- {
					// log f_k(v_k) − log f_{k+1}(v_k), then v_{k−1} ~ T_k(·|v_k)
					// (the last transition, at β_0, is not needed but harmless).
					lw += ch.Step(betas[k+1], betas[k], rng)
				}
				logw[item] = lw
				if r.Progress != nil {
					r.Progress(done.Add(int64(K)), total)
				}
			}
		}()
	}
	wg.Wait()
	res := RAISEResult{LogP: make([]float64, N), LogPSE: make([]float64, N), LogW: logw, Chains: M, Steps: K, MinESS: math.Inf(1)}
	var s, s2 float64
	bad := 0
	for n := range N {
		st := nmath.Summarise(logw[n*M : (n+1)*M])
		res.LogP[n] = st.LogMean
		res.LogPSE[n] = math.Exp(st.LogStdErr - st.LogMean)
		if M < 2 {
			res.LogPSE[n] = math.NaN()
		}
		if math.IsNaN(st.LogMean) || math.IsInf(st.LogMean, 0) {
			bad++
		}
		res.MinESS = math.Min(res.MinESS, st.ESS)
		s += st.LogMean
		s2 += st.LogMean * st.LogMean
	}
	if bad > 0 {
		return res, fmt.Errorf("RAISE: %d of %d examples got a non-finite estimate", bad, N)
	}
	res.Mean = meanStat(s, s2, N)
	if M > 1 && res.MinESS < 0.1*float64(M) {
		res.Warnings = append(res.Warnings, fmt.Sprintf("RAISE: the smallest per-example ESS is %.1f of %d chains: some estimates rest on few chains", res.MinESS, M))
	}
	return res, nil
}
