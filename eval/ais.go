package eval

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"sync/atomic"

	"github.com/logz-ml/logz/inference"
	"github.com/logz-ml/logz/internal/kernel"
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
	// Units, if set, shares the runs among the shards of a sharded
	// evaluation (unit c is run c; see Units).
	Units Units
	// Precision is the arithmetic of the chains of LogZ, LogRatio and
	// LogRatioGibbs: float32 (W, the pre-activations and exponentials in
	// float32, half the bytes per row sum) or float64; unset means float64.
	// The log weights are summed in float64 either way. Run takes the
	// path's own.
	Precision kernel.Precision
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
	// GibbsSweeps is the number of block-Gibbs sweeps of A that made each
	// run's start (LogRatioGibbs), 0 for exact starts. Drift ± DriftSE is
	// then the mean over runs of F_A(v) after all the sweeps minus F_A(v)
	// after half of them (⌊GibbsSweeps/2⌋), with its standard error: about
	// 0 for chains that had reached p_A by the half-way point.
	GibbsSweeps    int
	Drift, DriftSE float64
	// Precision is the arithmetic the chains ran in (float64 for paths
	// other than an RBM's).
	Precision kernel.Precision
	// Warnings say when the numbers should not be trusted.
	Warnings []string
	// Notes say how the run was set up where its settings alone do not
	// (e.g. the β spacing a pilot chose).
	Notes []string
}

// MaxExactStartUnits bounds the smaller layer of a weighted RBM A whose
// exact samples LogRatio draws: they come from a table of all
// 2^min(D,H_A) states.
const MaxExactStartUnits = 20

// HasExactSampler reports whether LogRatio can start its runs from exact
// draws of m: m has no non-zero weight (independent Bernoulli visible
// units), or its smaller layer has at most MaxExactStartUnits units.
func HasExactSampler(m *models.RBM) bool {
	return min(m.NVis, m.NHid) <= MaxExactStartUnits || weightless(m)
}

// weightless reports whether every weight of m is zero.
func weightless(m *models.RBM) bool {
	for _, w := range m.W {
		if w != 0 {
			return false
		}
	}
	return true
}

// LogZ estimates log Z of m, annealing from the base-rate RBM with the same
// hidden units, zero weights and visible biases BaseVBias (2008, §3.3).
func (a AIS) LogZ(m *models.RBM) (AISResult, error) {
	if err := a.check(); err != nil {
		return AISResult{}, err
	}
	path, err := inference.NewBaseRatePathIn(a.Precision, m, a.BaseVBias)
	if err != nil {
		return AISResult{}, fmt.Errorf("AIS: %w", err)
	}
	return a.Run(path)
}

// LogRatio estimates log(Z_B/Z_A) for two RBMs over the same visible units
// (their hidden sizes may differ) along the joint path of 2008 §3.2
// (E_β = (1−β)E_A + βE_B). The chains need exact draws from p_A: if mA has
// no non-zero weight they are independent Bernoulli draws; otherwise the
// smaller layer of mA is enumerated (at most MaxExactStartUnits units, else
// an error: see LogRatioGibbs for the 2008 paper's alternative, long Gibbs
// chains) and Z_A is computed exactly on the way. The result has LogZBase =
// log Z_A, LogRatio = log r̂ and LogZ = log Z_A + log r̂.
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
	if !weightless(mA) {
		var err error
		base, logZA, err = newEnumSampler(mA, a.workers())
		if err != nil {
			return AISResult{}, err
		}
	}
	path, err := inference.NewRBMPathIn(a.Precision, mA, mB, base, logZA)
	if err != nil {
		return AISResult{}, fmt.Errorf("AIS: %w", err)
	}
	return a.Run(path)
}

// LogRatioGibbs estimates log(Z_B/Z_A) along the same joint path as
// LogRatio, for an A without an exact sampler (the 2008 paper's two
// 784×500 RBMs): run m starts from an approximate draw of p_A, the state
// of its own block-Gibbs chain of A (v → h ~ p_A(h|v) → v′ ~ p_A(v|h))
// after sweeps sweeps from a uniform random visible state. The paper
// (§3.2, "We also estimated the ratio") continued one chain for 10,000
// steps between samples; here the M chains are independent, so the runs
// are too and σ̂ keeps its meaning. E[w] = Z_B/Z_A holds only to the
// extent the chains have reached p_A: with starts v_0 ~ q,
//
//	E[w] = Σ_v q(v) E[w | v_0 = v] = Z_B/Z_A + Σ_v (q(v) − p_A(v)) E[w | v_0 = v],
//
// an error of either sign that no error bar shows. Result.Drift is a
// partial check (chains still moving show a drift; chains stuck in one
// mode do not), and a warning is raised when it is beyond 3 standard
// errors.
//
// Run m draws its start, its sweeps and then its annealing from the one
// generator rand.NewPCG(Seed, m), as LogRatio's runs do, so the result
// depends on Seed alone, not on Workers or GOMAXPROCS. Z_A is not
// computed: LogZBase is 0, so LogZ and the LogZLo/LogZHi bands are those
// of the log ratio itself. Progress counts the sweeps of the starts with
// the annealing steps (total Runs·(sweeps + K)).
func (a AIS) LogRatioGibbs(mA, mB *models.RBM, sweeps int) (AISResult, error) {
	if err := a.check(); err != nil {
		return AISResult{}, err
	}
	if sweeps < 1 || sweeps > MaxGibbsSteps {
		return AISResult{}, fmt.Errorf("AIS: %d Gibbs sweeps for the start of each run; want an integer in [1, %d]", sweeps, MaxGibbsSteps)
	}
	path, err := inference.NewRBMPathFromStatesIn(a.Precision, mA, mB)
	if err != nil {
		return AISResult{}, fmt.Errorf("AIS: %w", err)
	}
	// At β = 1 the base-rate path's chain is A's own block-Gibbs kernel
	// (as in Gibbs.Run), without the B half of the joint chain.
	kernelA, err := inference.NewBaseRatePathIn(a.Precision, mA, nil)
	if err != nil {
		return AISResult{}, fmt.Errorf("AIS: %w", err)
	}
	g := &gibbsStart{kernel: kernelA, sweeps: sweeps, drift: make([]float64, a.runs())}
	r, err := a.run(path, g, int64(sweeps))
	if err != nil {
		return AISResult{}, err
	}
	r.GibbsSweeps = sweeps
	r.Drift, r.DriftSE = meanSE(g.drift)
	if len(g.drift) >= 2 && math.Abs(r.Drift) > 3*r.DriftSE {
		r.Warnings = append(r.Warnings, fmt.Sprintf("the Gibbs chains of A had not settled: their mean free energy moved by %+.3g ± %.2g between sweeps %d and %d; the starts are not yet draws of p_A (use more sweeps)",
			r.Drift, r.DriftSE, sweeps/2, sweeps))
	}
	return r, nil
}

// gibbsStart is the start of LogRatioGibbs: a uniform random visible
// state, then sweeps block-Gibbs sweeps of A, drawn from the run's
// generator. drift[c] receives F_A(v) after all the sweeps minus after
// ⌊sweeps/2⌋ of them.
type gibbsStart struct {
	kernel *inference.RBMPath // base-rate path to A, used at β = 1
	sweeps int
	drift  []float64
}

// NewStarter implements Start: each worker gets its own chain of A.
func (g *gibbsStart) NewStarter() func(c int, v []uint8, rng *rand.Rand) {
	ch := g.kernel.NewRBMChain()
	uniform := UniformStart.NewStarter()
	return func(c int, v []uint8, rng *rand.Rand) {
		uniform(c, v, rng)
		ch.SetVisible(v)
		half := g.sweeps / 2
		mid := 0.0
		for t := 1; t <= g.sweeps; t++ {
			if t-1 == half {
				mid = ch.LogUnnorm(1) // −F_A(v) after half the sweeps
			}
			ch.Transition(1, rng)
		}
		g.drift[c] = mid - ch.LogUnnorm(1)
		copy(v, ch.Visible())
	}
}

// perRun returns the drift of every run's start, for sharding.
func (g *gibbsStart) perRun() []float64 { return g.drift }

func (a AIS) runs() int {
	if a.Runs == 0 {
		return 100
	}
	return a.Runs
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

func (a AIS) workers() int { return orMaxProcs(a.Workers) }

// Run anneals Runs chains along any path and summarises their weights.
func (a AIS) Run(path inference.Path) (AISResult, error) { return a.run(path, nil, 0) }

// visibleChain is a chain whose visible state can be set (RBMChain).
type visibleChain interface {
	SetVisible(v []uint8)
	Visible() []uint8
}

// run is Run. With a non-nil start, run c begins at the visible state that
// start sets from run c's generator (counted as startSteps steps of
// progress) instead of at SampleBase; path's chains must then have
// SetVisible.
func (a AIS) run(path inference.Path, start Start, startSteps int64) (AISResult, error) {
	if err := a.check(); err != nil {
		return AISResult{}, err
	}
	betas := a.Betas
	if betas == nil {
		betas = inference.Schedule2008()
	}
	runs := a.runs()
	K := len(betas) - 1
	logw := make([]float64, runs)
	total := int64(runs) * (int64(K) + startSteps)
	if start != nil {
		if _, ok := path.NewChain().(visibleChain); !ok {
			return AISResult{}, fmt.Errorf("AIS: the chains of a %T cannot be started at a given state", path)
		}
	}
	var next, done atomic.Int64
	var wg workgroup.Group
	for range max(1, min(a.workers(), runs)) {
		wg.Go(func() {
			ch := path.NewChain()
			var startAt func(c int, v []uint8, rng *rand.Rand)
			var v []uint8
			if start != nil {
				startAt = start.NewStarter()
				v = make([]uint8, len(ch.(visibleChain).Visible()))
			}
			for {
				c := int(next.Add(1) - 1)
				if c >= runs {
					return
				}
				if !Mine(a.Units, c) {
					continue
				}
				rng := rand.New(rand.NewPCG(a.Seed, uint64(c)))
				if startAt == nil {
					ch.SampleBase(rng)
				} else {
					startAt(c, v, rng)
					ch.(visibleChain).SetVisible(v)
					if a.Progress != nil {
						a.Progress(done.Add(startSteps), total)
					}
				}
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
	// A start may keep values of its own per run (a Gibbs start's drift):
	// they are the runs' as much as their log weights.
	cols := [][]float64{logw}
	if s, ok := start.(interface{ perRun() []float64 }); ok {
		cols = append(cols, s.perRun())
	}
	if err := CompleteColumns(a.Units, cols...); err != nil {
		return AISResult{}, fmt.Errorf("AIS: %w", err)
	}
	r := summariseAIS(logw, path.LogZ0(), K)
	r.Precision = pathPrecision(path)
	return r, nil
}

// pathPrecision is the arithmetic of path's chains: an RBM path's own,
// float64 for the others.
func pathPrecision(path inference.Path) kernel.Precision {
	if p, ok := path.(interface{ Precision() kernel.Precision }); ok {
		return p.Precision()
	}
	return kernel.Float64
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
	if k > MaxExactStartUnits {
		return nil, 0, fmt.Errorf("AIS: model A (%d visible × %d hidden) has non-zero weights and its smaller layer has %d units, more than %d: exact samples from p_A would need a table of 2^%d states; anneal each model from a base-rate RBM instead (AIS.LogZ) and subtract",
			m.NVis, m.NHid, k, MaxExactStartUnits, k)
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
