package eval

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sync/atomic"

	"github.com/logz-ml/logz/data"
	"github.com/logz-ml/logz/inference"
	"github.com/logz-ml/logz/internal/kernel"
	"github.com/logz-ml/logz/internal/nmath"
	"github.com/logz-ml/logz/internal/workgroup"
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
	// Units, if set, shares the (example, chain) pairs among the shards of
	// a sharded evaluation (unit n·Chains + c; see Units).
	Units Units
	// Precision is the arithmetic of LogProb's chains (AIS.Precision);
	// unset means float64. Run takes the path's own.
	Precision kernel.Precision
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
	// Precision is the arithmetic the chains ran in.
	Precision kernel.Precision
	Warnings  []string
}

// raiseChain is what RAISE needs of an annealing chain: the AIS operations
// plus setting the visible state to a data vector.
type raiseChain interface {
	inference.Chain
	SetVisible(v []uint8)
}

// LogProb estimates log p_ann(v) for every example of x.
func (r RAISE) LogProb(m *models.RBM, x data.Examples) (RAISEResult, error) {
	path, err := inference.NewBaseRatePathIn(r.Precision, m, r.BaseVBias)
	if err != nil {
		return RAISEResult{}, fmt.Errorf("RAISE: %w", err)
	}
	return r.Run(path, x)
}

// Run runs RAISE on any annealing path whose chains can be set to a visible
// vector.
func (r RAISE) Run(path inference.Path, x data.Examples) (RAISEResult, error) {
	betas, M, N, err := raiseParams("RAISE", r.Betas, r.Chains, x)
	if err != nil {
		return RAISEResult{}, err
	}
	if _, ok := path.NewChain().(raiseChain); !ok {
		return RAISEResult{}, errors.New("RAISE: this model's annealing chain cannot start from a data vector")
	}
	K := len(betas) - 1
	logZ0 := path.LogZ0()
	logw, err := raiseItems(N, M, K, r.Seed, r.Workers, r.Progress, r.Units, func() raiseItem {
		ch := path.NewChain().(raiseChain)
		return func(n int, rng *rand.Rand) float64 {
			ch.SetVisible(x.Row(n))
			return raiseCool(ch, betas, ch.LogUnnorm(1)-logZ0, rng)
		}
	})
	if err != nil {
		return RAISEResult{}, fmt.Errorf("RAISE: %w", err)
	}
	res, err := summariseRAISE("RAISE", logw, N, M, K)
	res.Precision = pathPrecision(path)
	return res, err
}

// raiseParams returns the schedule (nil: inference.Schedule2008()), the
// number of chains per example (0: 50) and the number of examples, or an
// error that begins with what.
func raiseParams(what string, betas []float64, chains int, x data.Examples) ([]float64, int, int, error) {
	if betas == nil {
		betas = inference.Schedule2008()
	}
	if err := inference.ValidateSchedule(betas); err != nil {
		return nil, 0, 0, fmt.Errorf("%s: %w", what, err)
	}
	M := chains
	if M == 0 {
		M = 50
	}
	if M < 1 {
		return nil, 0, 0, fmt.Errorf("%s: chains must be positive, got %d", what, M)
	}
	N := x.Len()
	if N == 0 {
		return nil, 0, 0, fmt.Errorf("%s: no examples", what)
	}
	return betas, M, N, nil
}

// raiseCool runs the reverse (cooling) chain of RAISE from the current state
// x_K of ch and returns lw plus its part of the log weight: x_{K−1} ~
// T_K(·|x_K), then for k = K−1 … 0 it adds log f_k(x_k) − log f_{k+1}(x_k) and
// draws x_{k−1} ~ T_k(·|x_k) (the last transition, at β_0, is not needed but
// harmless). The kernels must be reversible, so that each is its own
// reverse.
func raiseCool(ch inference.Chain, betas []float64, lw float64, rng *rand.Rand) float64 {
	K := len(betas) - 1
	ch.Transition(betas[K], rng)
	for k := K - 1; k >= 0; k-- {
		lw += ch.Step(betas[k+1], betas[k], rng)
	}
	return lw
}

// MaxReverseChains bounds examples × chains of one RAISE estimate, whose
// log weights it keeps: 2^27, 1 GiB of float64 (the papers' largest,
// 100 examples × 50 chains, is 5,000). A DBN's RAISE also keeps every
// chain's state of the top RBM's lower layer, at most MaxReverseChainBytes.
const (
	MaxReverseChains     = 1 << 27
	MaxReverseChainBytes = 1 << 30
)

// CheckReverseChains reports N examples × M chains per example beyond
// MaxReverseChains, or, with a state of width units kept per chain (0:
// none; a DBN keeps h_{L−1}), beyond MaxReverseChainBytes, before anything
// is allocated; the caller names the estimator.
func CheckReverseChains(N, M, width int) error {
	chains := int64(N) * int64(M)
	if chains > MaxReverseChains {
		return fmt.Errorf("%d examples × %d chains = %d reverse chains is more than the limit of %d (eval.MaxReverseChains, 1 GiB of log weights); lower examples or chains", N, M, chains, MaxReverseChains)
	}
	if width > 0 && float64(chains)*float64(width) > MaxReverseChainBytes {
		return fmt.Errorf("%d examples × %d chains × %d units = %.0f bytes of chain states is more than the limit of %d (eval.MaxReverseChainBytes); lower examples or chains", N, M, width, float64(chains)*float64(width), MaxReverseChainBytes)
	}
	return nil
}

// raiseItem returns the log weight of one reverse chain for example n,
// drawing from rng.
type raiseItem func(n int, rng *rand.Rand) float64

// raiseItems computes the log weights of M chains for each of N examples,
// example-major (item n·M + c), on workers goroutines (0: GOMAXPROCS), each
// with its own raiseItem from newItem. Item i draws from rand.NewPCG(seed,
// i), so the result does not depend on the scheduling. progress, if set,
// gets K more steps per finished item, out of N·M·K. units, if set, shares
// the items among the shards of a sharded evaluation (see Units).
func raiseItems(N, M, K int, seed uint64, workers int, progress func(done, total int64), units Units, newItem func() raiseItem) ([]float64, error) {
	if err := CheckReverseChains(N, M, 0); err != nil {
		return nil, err
	}
	logw := make([]float64, N*M)
	total := int64(N) * int64(M) * int64(K)
	workers = orMaxProcs(workers)
	var next, done atomic.Int64
	var wg workgroup.Group
	for range max(1, min(workers, N*M)) {
		wg.Go(func() {
			item := newItem()
			src := &rand.PCG{}
			rng := rand.New(src)
			for {
				i := int(next.Add(1) - 1)
				if i >= N*M {
					return
				}
				if !Mine(units, i) {
					continue
				}
				src.Seed(seed, uint64(i))
				logw[i] = item(i/M, rng)
				if progress != nil {
					progress(done.Add(int64(K)), total)
				}
			}
		})
	}
	wg.Wait()
	return logw, Complete(units, N*M, 1, logw)
}

// summariseRAISE turns the example-major log weights of M chains for each of
// N examples into a RAISEResult; what names the estimator in the messages.
func summariseRAISE(what string, logw []float64, N, M, K int) (RAISEResult, error) {
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
		return res, fmt.Errorf("%s: %d of %d examples got a non-finite estimate", what, bad, N)
	}
	res.Mean = meanStat(s, s2, N)
	if M > 1 && res.MinESS < 0.1*float64(M) {
		res.Warnings = append(res.Warnings, fmt.Sprintf("%s: the smallest per-example ESS is %.1f of %d chains: some estimates rest on few chains", what, res.MinESS, M))
	}
	return res, nil
}
