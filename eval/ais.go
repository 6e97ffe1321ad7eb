package eval

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sort"
	"sync/atomic"

	"github.com/logz-ml/logz/inference"
	"github.com/logz-ml/logz/internal/nmath"
	"github.com/logz-ml/logz/internal/workgroup"
	"github.com/logz-ml/logz/models"
)

// AIS estimates log partition functions by annealed importance sampling
// (Neal 2001; Salakhutdinov & Murray 2008, §3). Each of the Runs chains starts
// from an exact draw x_0 ~ p_0 of the tractable base and is annealed through
// the schedule 0 = β_0 < … < β_K = 1 by block-Gibbs transitions; its log
// weight is
//
//	log w = Σ_{k=1}^{K} [log f_{β_k}(x_{k−1}) − log f_{β_{k−1}}(x_{k−1})],
//
// with E[w] = Z_1/Z_0 for any K, and
//
//	log Ẑ_1 = log Z_0 + log( (1/M) Σ_m w_m ),
//
// all in log space. The error bars are those of the 2008 paper (Table 1):
// log(Ẑ ± σ̂) and log(Ẑ ± 3σ̂) with σ̂ the standard error of the mean weight
// (scaled by Z_0). AIS is a stochastic lower bound: log Ẑ tends to
// underestimate log Z, and so to overestimate log-likelihoods.
//
// Chain c draws all its random numbers from rand.New(rand.NewPCG(Seed, c)),
// so the result is identical whatever Workers or GOMAXPROCS.
type AIS struct {
	Runs int // M independent chains; 0 means 100
	// Betas is the schedule β_0 = 0 < … < β_K = 1; nil means
	// inference.Schedule2008() (14,500 values).
	Betas []float64
	// BaseVBias are the visible biases of the base-rate RBM used by LogZ:
	// the smoothed log-odds of the data's pixel means ("data base rate");
	// nil means zeros (the uniform start).
	BaseVBias []float64
	Seed      uint64
	Workers   int // goroutines; 0 means GOMAXPROCS. Results do not depend on it.
	// Progress, if set, is called from the worker goroutines with the number
	// of annealing steps done so far and the total (Runs·K), roughly every
	// 1,024 steps of a chain. It must be cheap and safe for concurrent use.
	Progress func(done, total int64)
}

// AISResult is an AIS estimate with its error bars and diagnostics.
type AISResult struct {
	// LogZ is the estimate of log Z of the target (model B): LogZBase + LogRatio.
	LogZ float64
	// LogZBase is the exact log Z_0 of the base: H log 2 + Σ_i softplus(a_{A,i})
	// for the base-rate RBM, log Z_A for LogRatio.
	LogZBase float64
	// LogRatio = log((1/M) Σ_m w_m) estimates log(Z_B/Z_A).
	LogRatio float64
	// LogZLo1, LogZHi1 are log(Ẑ−σ̂) and log(Ẑ+σ̂), σ̂ the standard error of
	// the mean weight times Z_0; LogZLo1 is −Inf when Ẑ−σ̂ ≤ 0.
	LogZLo1, LogZHi1 float64
	// LogZLo3, LogZHi3 are log(Ẑ−3σ̂) and log(Ẑ+3σ̂).
	LogZLo3, LogZHi3 float64
	// ESS is the effective sample size (Σw)²/Σw² of the weights, in [1, Runs].
	ESS float64
	// LogW holds the log weights of the runs (without log Z_0).
	LogW        []float64
	Runs, Steps int
	// Warnings say when the numbers should not be trusted.
	Warnings []string
}

// maxExactBaseUnits bounds the smaller layer of a weighted base RBM A in
// LogRatio: its exact samples come from a table of all 2^min(D,H_A) states.
const maxExactBaseUnits = 20

// LogZ estimates log Z of m, annealing from the base-rate RBM with the same
// hidden units, zero weights and visible biases BaseVBias (2008, §3.3).
func (a AIS) LogZ(m *models.RBM) (AISResult, error) {
	if err := a.check(); err != nil {
		return AISResult{}, err
	}
	path, err := inference.NewBaseRatePath(m, a.BaseVBias)
	if err != nil {
		return AISResult{}, fmt.Errorf("AIS: %w", err)
	}
	return a.Run(path)
}

// LogRatio estimates log(Z_B/Z_A) for two RBMs over the same visible units
// (their hidden sizes may differ) along the joint path of 2008 §3.2
// (E_β = (1−β)E_A + βE_B). The chains need exact draws from p_A: if mA has
// no non-zero weight they are independent Bernoulli draws; otherwise the
// smaller layer of mA is enumerated (at most 20 units, else an error: the
// 2008 paper's alternative, long Gibbs chains, gives no exact samples and no
// trustworthy error bars) and Z_A is computed exactly on the way. The result
// has LogZBase = log Z_A, LogRatio = log r̂ and LogZ = log Z_A + log r̂.
func (a AIS) LogRatio(mA, mB *models.RBM) (AISResult, error) {
	if err := a.check(); err != nil {
		return AISResult{}, err
	}
	if mA == nil || mB == nil {
		return AISResult{}, fmt.Errorf("AIS: nil model")
	}
	if err := mA.Validate(); err != nil {
		return AISResult{}, fmt.Errorf("AIS: model A: %w", err)
	}
	var base inference.VisibleSampler
	logZA := 0.0
	weightless := true
	for _, w := range mA.W {
		if w != 0 {
			weightless = false
			break
		}
	}
	if !weightless {
		var err error
		base, logZA, err = newEnumSampler(mA, a.workers())
		if err != nil {
			return AISResult{}, err
		}
	}
	path, err := inference.NewRBMPath(mA, mB, base, logZA)
	if err != nil {
		return AISResult{}, fmt.Errorf("AIS: %w", err)
	}
	return a.Run(path)
}

func (a AIS) check() error {
	if a.Runs < 0 {
		return fmt.Errorf("AIS: Runs = %d; want a positive number of chains (0 means 100)", a.Runs)
	}
	if a.Workers < 0 {
		return fmt.Errorf("AIS: Workers = %d; want ≥ 0 (0 means GOMAXPROCS)", a.Workers)
	}
	if a.Betas != nil {
		if err := inference.ValidateSchedule(a.Betas); err != nil {
			return fmt.Errorf("AIS: %w", err)
		}
	}
	return nil
}

func (a AIS) workers() int {
	if a.Workers > 0 {
		return a.Workers
	}
	return runtime.GOMAXPROCS(0)
}

// Run anneals Runs chains along any path and summarises their weights.
func (a AIS) Run(path inference.Path) (AISResult, error) {
	if err := a.check(); err != nil {
		return AISResult{}, err
	}
	betas := a.Betas
	if betas == nil {
		betas = inference.Schedule2008()
	}
	runs := a.Runs
	if runs == 0 {
		runs = 100
	}
	K := len(betas) - 1
	logw := make([]float64, runs)
	total := int64(runs) * int64(K)
	var next, done atomic.Int64
	var wg workgroup.Group
	for range max(1, min(a.workers(), runs)) {
		wg.Go(func() {
			ch := path.NewChain()
			for {
				c := int(next.Add(1) - 1)
				if c >= runs {
					return
				}
				rng := rand.New(rand.NewPCG(a.Seed, uint64(c)))
				ch.SampleBase(rng)
				lw := 0.0
				for k := 1; k <= K; k++ {
					lw += ch.Step(betas[k-1], betas[k], rng)
					if a.Progress != nil && k&1023 == 0 {
						a.Progress(done.Add(1024), total)
					}
				}
				if a.Progress != nil {
					a.Progress(done.Add(int64(K&1023)), total)
				}
				logw[c] = lw
			}
		})
	}
	wg.Wait()
	return summariseAIS(logw, path.LogZ0(), K), nil
}

// summariseAIS turns log weights into an AISResult.
func summariseAIS(logw []float64, logZ0 float64, steps int) AISResult {
	r := AISResult{LogW: logw, Runs: len(logw), Steps: steps, LogZBase: logZ0}
	for i, l := range logw {
		if math.IsNaN(l) || math.IsInf(l, 0) {
			r.LogZ, r.LogRatio = math.NaN(), math.NaN()
			r.LogZLo1, r.LogZHi1, r.LogZLo3, r.LogZHi3 = math.NaN(), math.NaN(), math.NaN(), math.NaN()
			r.Warnings = append(r.Warnings, fmt.Sprintf("run %d has log weight %v: the estimate is undefined", i, l))
			return r
		}
	}
	st := nmath.Summarise(logw)
	r.LogRatio = st.LogMean
	r.LogZ = logZ0 + st.LogMean
	r.ESS = st.ESS
	lo := func(ls float64) float64 {
		d := nmath.LogSubExp(st.LogMean, ls)
		if math.IsNaN(d) {
			d = math.Inf(-1)
		}
		return logZ0 + d
	}
	r.LogZLo1, r.LogZHi1 = lo(st.LogStdErr), logZ0+nmath.LogAddExp(st.LogMean, st.LogStdErr)
	ls3 := st.LogStdErr + math.Log(3)
	r.LogZLo3, r.LogZHi3 = lo(ls3), logZ0+nmath.LogAddExp(st.LogMean, ls3)
	M := len(logw)
	if M < 2 {
		r.Warnings = append(r.Warnings, "a single AIS run: no error bars")
	} else {
		if r.ESS < math.Max(2, 0.1*float64(M)) {
			r.Warnings = append(r.Warnings, fmt.Sprintf("ESS %.1f of %d runs: the estimate is dominated by a few chains; use more runs or more intermediate distributions", r.ESS, M))
		}
		if math.IsInf(r.LogZLo3, -1) {
			r.Warnings = append(r.Warnings, "the lower end of the ±3σ interval is non-positive (Ẑ ≤ 3σ̂): log Z has no lower error bar")
		}
	}
	return r
}

// enumSampler draws exact visible samples of an RBM from a table of all
// states of its smaller layer: if that layer is the hidden one, h is drawn
// from p(h) ∝ e^{bᵀh} Π_i (1+e^{a_i + W_{i:}h}) and then v ~ p(v|h).
type enumSampler struct {
	m      *models.RBM
	hidden bool      // the table is over h (else over v)
	cdf    []float64 // cumulative probabilities of the 2^K states
}

func newEnumSampler(m *models.RBM, workers int) (*enumSampler, float64, error) {
	k := min(m.NVis, m.NHid)
	if k > maxExactBaseUnits {
		return nil, 0, fmt.Errorf("AIS: model A (%d visible × %d hidden) has non-zero weights and its smaller layer has %d units, more than %d: exact samples from p_A would need a table of 2^%d states; anneal each model from a base-rate RBM instead (AIS.LogZ) and subtract",
			m.NVis, m.NHid, k, maxExactBaseUnits, k)
	}
	p := newEnumProblem(m)
	table := make([]float64, 1<<p.K)
	lz := p.logZ(workers, pathAuto, table)
	cdf := table // reuse: cumulative probabilities, in state order
	acc := 0.0
	for s, l := range table {
		acc += math.Exp(l - lz)
		cdf[s] = acc
	}
	return &enumSampler{m: m, hidden: p.hiddenEnumerated, cdf: cdf}, lz, nil
}

// SampleVisible implements inference.VisibleSampler.
func (e *enumSampler) SampleVisible(v []uint8, rng *rand.Rand) {
	u := rng.Float64() * e.cdf[len(e.cdf)-1]
	s := sort.SearchFloat64s(e.cdf, u)
	for s < len(e.cdf)-1 && e.cdf[s] <= u { // SearchFloat64s finds cdf[s] ≥ u; we need cdf[s] > u
		s++
	}
	m := e.m
	if !e.hidden {
		for i := range v {
			v[i] = uint8(s >> i & 1)
		}
		return
	}
	h := make([]float64, m.NHid)
	for j := range h {
		h[j] = float64(s >> j & 1)
	}
	pre := make([]float64, m.NVis)
	m.VisiblePreact(pre, h)
	for i, x := range pre {
		v[i] = 0
		if rng.Float64() < nmath.Sigmoid(x) {
			v[i] = 1
		}
	}
}
