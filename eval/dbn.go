package eval

// Estimators for deep belief networks (models.DBN): the variational lower
// bound of Salakhutdinov & Murray (2008, eq. 22–24), importance sampling with
// the recognition model as proposal (Burda et al. 2015, §5.3), RAISE by
// unrolling the top RBM (Burda et al. 2015, §3.3, Fig. 2), and exact
// enumeration for tiny models.
//
// Notation (see models.DBN): x_0 = v, x_1 = h1, …, x_{L−1} the top RBM's
// visible layer; Layers[l] = (W_l, a_l, b_l) joins x_l and x_{l+1}.
//
//	log p*(v, x_{1:L−1}) = Σ_{l=0}^{L−2} log p(x_l | x_{l+1}) + log p*(x_{L−1}),
//	log p(v)             = log Σ_{x_{1:L−1}} p*(v, x_{1:L−1}) − log Z_top,
//	Q(x_{1:L−1} | v)     = Π_{l=1}^{L−1} Q(x_l | x_{l−1}).

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"sync/atomic"

	"github.com/logz-ml/logz/data"
	"github.com/logz-ml/logz/inference"
	"github.com/logz-ml/logz/internal/nmath"
	"github.com/logz-ml/logz/internal/workgroup"
	"github.com/logz-ml/logz/models"
)

// TopLogZ is log Z of a DBN's top RBM, exact or estimated, with its error.
type TopLogZ struct {
	LogZ float64
	// SE is the standard error of ln Ẑ by the delta method, σ̂/Ẑ with σ̂ the
	// standard error of the mean AIS weight (0 when exact). SE² is the
	// Var(ln Ẑ) of 2008 eq. 24.
	SE float64
	// Lo3, Hi3 are ln(Ẑ − 3σ̂) and ln(Ẑ + 3σ̂) (both LogZ when exact; Lo3 is
	// −Inf when Ẑ ≤ 3σ̂).
	Lo3, Hi3 float64
	Exact    bool
	Warnings []string
}

// ExactTopLogZ computes log Z of the top RBM by enumeration (e bounds the size).
func ExactTopLogZ(d *models.DBN, e Exact) (TopLogZ, error) {
	if err := checkDBN(d); err != nil {
		return TopLogZ{}, err
	}
	lz, err := e.LogZ(d.Top())
	if err != nil {
		return TopLogZ{}, fmt.Errorf("DBN top RBM: %w", err)
	}
	return TopLogZ{LogZ: lz, Lo3: lz, Hi3: lz, Exact: true}, nil
}

// AISTopLogZ estimates log Z of the top RBM by AIS (a.BaseVBias, if set, must
// have one entry per unit of h_{L−1}; see TopBaseRate), and returns the AIS
// result too.
func AISTopLogZ(d *models.DBN, a AIS) (TopLogZ, AISResult, error) {
	if err := checkDBN(d); err != nil {
		return TopLogZ{}, AISResult{}, err
	}
	r, err := a.LogZ(d.Top())
	if err != nil {
		return TopLogZ{}, r, fmt.Errorf("DBN top RBM: %w", err)
	}
	z := TopLogZ{LogZ: r.LogZ, Lo3: r.LogZLo3, Hi3: r.LogZHi3, SE: math.NaN(), Warnings: r.Warnings}
	if len(r.LogW) > 1 && !math.IsNaN(r.LogZ) {
		st := nmath.Summarise(r.LogW)
		z.SE = math.Exp(st.LogStdErr - st.LogMean)
	}
	return z, r, nil
}

// TopBaseRate returns smoothed log-odds of the mean activity of h_{L−1}
// under the recognition model over the examples x (e.g. the training set):
// log((Σ_n μ_n + s)/(Σ_n (1−μ_n) + s)), with μ_n = E_Q[h_{L−1} | v_n]
// propagated by mean field through the layers (exact for L = 2). It is a
// "data base rate" for AIS or RAISE on the top RBM; any base gives valid
// estimates, a good one gives better ones.
func TopBaseRate(d *models.DBN, x data.Examples, smoothing float64) ([]float64, error) {
	if err := checkDBN(d); err != nil {
		return nil, err
	}
	if err := checkDBNRows(d, x); err != nil {
		return nil, err
	}
	L := len(d.Layers)
	sum := make([]float64, d.Layers[L-2].NHid)
	bufs := [2][]float64{make([]float64, 0, 64), make([]float64, 0, 64)}
	for n := range x.Len() {
		mu := bufs[0][:0]
		for _, b := range x.Row(n) {
			mu = append(mu, float64(dbnBit(b)))
		}
		bufs[0] = mu
		for l := 0; l < L-1; l++ {
			next := bufs[(l+1)%2]
			if cap(next) < d.Layers[l].NHid {
				next = make([]float64, d.Layers[l].NHid)
			}
			next = next[:d.Layers[l].NHid]
			d.Layers[l].HiddenPreact(next, mu)
			models.SigmoidInPlace(next)
			bufs[(l+1)%2] = next
			mu = next
		}
		for j, m := range mu {
			sum[j] += m
		}
	}
	N := float64(x.Len())
	out := make([]float64, len(sum))
	for j, s := range sum {
		out[j] = math.Log(s+smoothing) - math.Log(N-s+smoothing)
	}
	return out, nil
}

// ---------------------------------------------------------------------------
// (a) The variational lower bound.

// DBNBound is the variational lower bound on log p(v) of Salakhutdinov &
// Murray (2008, eq. 19, 22–24), for any number of layers:
//
//	log p(v) ≥ B(v) = E_Q[log p*(v, x_{1:L−1})] + H(Q(x_{1:L−1}|v)) − log Z_top,
//
// with equality iff Q is the DBN's posterior (as when the top RBM is the
// transpose of the one below, 2008 §5.2). For each example, M draws
// x^(s) ~ Q(·|v) give r_s = log p*(v, x^(s)) + Σ_{l=1}^{L−1} H(Q(x_l | x^(s)_{l−1})),
// whose mean is E_Q[log p*] + H(Q) (for L = 2 the entropy term is the exact
// H(Q(h1|v)), eq. 23; deeper conditional entropies are computed exactly
// given the sampled layer below), and
//
//	B̂(v) = (1/M) Σ_s r_s − ln Ẑ_top,   r̂_Bound = (1/N) Σ_n B̂(v_n)   (eq. 24).
//
// Its error is Var(r̂_Bound) = Var(r̂_B) + Var(ln Ẑ) (2008 §5.2). Example n
// draws from rand.NewPCG(Seed, n), so the result does not depend on Workers.
type DBNBound struct {
	Samples int // M draws from Q per example; 0 means 5 (2008 §5.2)
	Seed    uint64
	Workers int // 0 means GOMAXPROCS
	// Units, if set, shares the examples among the shards of a sharded
	// evaluation (see Units).
	Units Units
	// Progress, if set, is called from the workers with the cumulative
	// number of examples done (of x.Len()).
	Progress func(done, total int64)
}

// DBNBoundResult holds the per-example bounds and their summary.
type DBNBoundResult struct {
	// Bound[n] = B̂(v_n) = (1/M) Σ_s r_{n,s} − ln Ẑ_top.
	Bound []float64
	// MCSE[n] = sd_s(r_{n,s})/√M, the Monte Carlo error of Bound[n] from
	// the draws of Q (without the error of ln Ẑ; NaN when M = 1).
	MCSE []float64
	// Mean is r̂_Bound, the mean of Bound over the examples; Mean.SE is the
	// standard error across examples, √Var(r̂_B) of eq. 24 (it contains the
	// Monte Carlo noise of each B̂(v_n) as well as the spread of the examples).
	Mean MeanStat
	// MeanMCSE = √(Σ_n MCSE[n]²)/N is the part of the error of r̂_Bound
	// that comes from the draws of Q alone, for this set of examples.
	MeanMCSE float64
	// Error = √(Mean.SE² + LogZ.SE²), the error of eq. 24.
	Error    float64
	LogZ     TopLogZ
	Samples  int
	Warnings []string
}

// LogProb computes the bound for every example of x, with log Z_top from z
// (ExactTopLogZ or AISTopLogZ).
func (b DBNBound) LogProb(d *models.DBN, z TopLogZ, x data.Examples) (DBNBoundResult, error) {
	M := b.Samples
	if M == 0 {
		M = 5
	}
	if M < 0 {
		return DBNBoundResult{}, fmt.Errorf("DBN bound: Samples = %d; want a positive number of draws from Q per example (0 means 5)", b.Samples)
	}
	if err := checkDBNInputs("DBN bound", d, x, &z); err != nil {
		return DBNBoundResult{}, err
	}
	prep := newDBNPrep(d)
	N := x.Len()
	res := DBNBoundResult{Bound: make([]float64, N), MCSE: make([]float64, N), LogZ: z, Samples: M, Warnings: append([]string(nil), z.Warnings...)}
	var done atomic.Int64
	workgroup.ForEach(N, orMaxProcs(b.Workers), func() func(int) {
		w := newDBNWalker(prep)
		src := &rand.PCG{}
		rng := rand.New(src)
		return func(n int) {
			if !Mine(b.Units, n) {
				return
			}
			src.Seed(b.Seed, uint64(n))
			w.setVisible(x.Row(n))
			var mean, m2 float64 // Welford
			for s := range M {
				w.sample(rng)
				r := w.logDirected() + w.logTop() + w.entropy()
				dlt := r - mean
				mean += dlt / float64(s+1)
				m2 += dlt * (r - mean)
			}
			res.Bound[n] = mean // − ln Ẑ_top below
			res.MCSE[n] = math.NaN()
			if M > 1 {
				res.MCSE[n] = math.Sqrt(m2 / float64(M-1) / float64(M))
			}
			if b.Progress != nil {
				b.Progress(done.Add(1), int64(N))
			}
		}
	})
	// The units' values do not depend on z, which a shard may not know.
	if err := CompleteColumns(b.Units, res.Bound, res.MCSE); err != nil {
		return res, fmt.Errorf("DBN bound: %w", err)
	}
	for n := range res.Bound {
		res.Bound[n] -= z.LogZ
	}
	var s, s2, v float64
	for n, bn := range res.Bound {
		s += bn
		s2 += bn * bn
		v += res.MCSE[n] * res.MCSE[n]
	}
	res.Mean = meanStat(s, s2, N)
	res.MeanMCSE = math.Sqrt(v) / float64(N)
	res.Error = math.Hypot(res.Mean.SE, z.SE)
	if M == 1 {
		res.Warnings = append(res.Warnings, "DBN bound: one draw from Q per example: no per-example Monte Carlo error")
	}
	return res, nil
}

// ---------------------------------------------------------------------------
// (b) Importance sampling with Q as the proposal.

// DBNIS estimates log p(v) by importance sampling with the recognition model
// as the proposal (Burda et al. 2015, §5.3):
//
//	f̂(v) = (1/S) Σ_s p*(v, x^(s)) / Q(x^(s)|v),  x^(s) ~ Q(·|v),
//	log p̂(v) = log f̂(v) − ln Ẑ_top,
//
// all in log space. f̂ is unbiased for f(v) = Z_top·p(v), so log f̂ is a
// stochastic lower bound on log f(v); with an AIS estimate of ln Z_top, which
// tends to be low, the two biases pull in opposite directions. Example n
// draws from rand.NewPCG(Seed, n).
type DBNIS struct {
	Samples int // S proposals per example; 0 means 500
	Seed    uint64
	Workers int // 0 means GOMAXPROCS
	// Units, if set, shares the examples among the shards of a sharded
	// evaluation (see Units).
	Units Units
	// Progress, if set, is called from the workers with the cumulative
	// number of examples done (of x.Len()).
	Progress func(done, total int64)
}

// DBNISResult holds per-example IS estimates and their summary.
type DBNISResult struct {
	// LogF[n] = log f̂(v_n), the estimate of the unnormalised log f(v_n) =
	// log Σ p*(v_n, x) (a control variate for RAISE, §5.3).
	LogF []float64
	// LogFSE[n] is the delta-method standard error of LogF[n],
	// sd(w)/(√S·mean(w)) (NaN for S = 1).
	LogFSE []float64
	// LogP[n] = LogF[n] − ln Ẑ_top.
	LogP []float64
	// Mean is the mean of LogP over the examples with its standard error
	// across examples; MeanLogF that of LogF.
	Mean, MeanLogF MeanStat
	// MinESS is the smallest per-example effective sample size of the weights.
	MinESS   float64
	LogZ     TopLogZ
	Samples  int
	Warnings []string
}

// LogProb estimates log f(v) and log p(v) for every example of x.
func (s DBNIS) LogProb(d *models.DBN, z TopLogZ, x data.Examples) (DBNISResult, error) {
	S := s.Samples
	if S == 0 {
		S = 500
	}
	if S < 0 {
		return DBNISResult{}, fmt.Errorf("DBN IS: Samples = %d; want a positive number of proposals per example (0 means 500)", s.Samples)
	}
	if err := checkDBNInputs("DBN IS", d, x, &z); err != nil {
		return DBNISResult{}, err
	}
	prep := newDBNPrep(d)
	N := x.Len()
	res := DBNISResult{LogF: make([]float64, N), LogFSE: make([]float64, N), LogP: make([]float64, N),
		LogZ: z, Samples: S, MinESS: math.Inf(1), Warnings: append([]string(nil), z.Warnings...)}
	ess := make([]float64, N)
	var done atomic.Int64
	workgroup.ForEach(N, orMaxProcs(s.Workers), func() func(int) {
		w := newDBNWalker(prep)
		src := &rand.PCG{}
		rng := rand.New(src)
		lw := make([]float64, S)
		return func(n int) {
			if !Mine(s.Units, n) {
				return
			}
			src.Seed(s.Seed, uint64(n))
			w.setVisible(x.Row(n))
			for k := range S {
				w.sample(rng)
				lw[k] = w.logDirected() + w.logTop() - w.logQ()
			}
			st := summariseLogW(lw)
			res.LogF[n] = st.LogMean
			res.LogFSE[n] = math.NaN()
			if S > 1 {
				res.LogFSE[n] = math.Exp(st.LogStdErr - st.LogMean)
			}
			ess[n] = st.ESS
			if s.Progress != nil {
				s.Progress(done.Add(1), int64(N))
			}
		}
	})
	// The units' values do not depend on z, which a shard may not know.
	if err := CompleteColumns(s.Units, res.LogF, res.LogFSE, ess); err != nil {
		return res, fmt.Errorf("DBN IS: %w", err)
	}
	for n, f := range res.LogF {
		res.LogP[n] = f - z.LogZ
	}
	var f, f2, p, p2 float64
	for n := range N {
		f += res.LogF[n]
		f2 += res.LogF[n] * res.LogF[n]
		p += res.LogP[n]
		p2 += res.LogP[n] * res.LogP[n]
		res.MinESS = math.Min(res.MinESS, ess[n])
	}
	res.Mean = meanStat(p, p2, N)
	res.MeanLogF = meanStat(f, f2, N)
	if S > 1 && res.MinESS < math.Max(2, 0.01*float64(S)) {
		res.Warnings = append(res.Warnings, fmt.Sprintf("DBN IS: the smallest per-example ESS is %.1f of %d proposals: Q is a poor proposal for some examples, whose estimates are likely too low", res.MinESS, S))
	}
	return res, nil
}

// summariseLogW is nmath.Summarise without its allocation: it reorders
// nothing and overwrites nothing but needs two passes over logw.
func summariseLogW(logw []float64) nmath.LogStats {
	n := float64(len(logw))
	mx := math.Inf(-1)
	for _, v := range logw {
		mx = max(mx, v)
	}
	if math.IsInf(mx, 0) || math.IsNaN(mx) {
		return nmath.LogStats{LogMean: mx, LogStdErr: math.NaN(), ESS: math.NaN()}
	}
	var s1, s2 float64
	for _, v := range logw {
		e := math.Exp(v - mx) // ≤ 1: a ratio of weights, not a weight
		s1 += e
		s2 += e * e
	}
	mean := s1 / n
	st := nmath.LogStats{LogMean: mx + math.Log(mean), LogStdErr: math.Inf(-1), ESS: s1 * s1 / s2}
	if len(logw) > 1 {
		v := (s2 - n*mean*mean) / (n - 1)
		if v > 0 {
			st.LogStdErr = mx + 0.5*(math.Log(v)-math.Log(n))
		}
	}
	return st
}

// ---------------------------------------------------------------------------
// (c) RAISE by unrolling the top RBM.

// DBNRAISE is RAISE for DBNs (Burda, Grosse & Salakhutdinov 2015, §3.3 and
// Fig. 2): the top RBM is unrolled into its annealing model and the directed
// layers are kept. The annealed DBN generates
//
//	y_0 ~ p_0, y_k ~ T_k(·|y_{k−1}) (k = 1…K) on the top RBM's visible layer,
//	x_{L−1} = y_K, x_l ~ p(x_l | x_{l+1}) for l = L−2, …, 0 (x_0 = v),
//
// so p_ann(v) = Σ_{x_{1:L−1}} Π_{l=0}^{L−2} p(x_l|x_{l+1}) · p_ann,top(x_{L−1}),
// where p_ann,top is the annealing model of the top RBM (eval.RAISE). The
// proposal draws x_{1:L−1} ~ Q(·|v), sets y_K = x_{L−1} and runs the top
// RBM's chain backwards, y_{k−1} ~ T_k(·|y_k) (T_k is reversible with
// respect to p_k, so it is its own reverse). Forward density over reverse
// proposal, with detailed balance T_k(y_k|y_{k−1})/T_k(y_{k−1}|y_k) = f_k(y_k)/f_k(y_{k−1}):
//
//	w = Π_{l=0}^{L−2} p(x_l|x_{l+1}) · p_0(y_0) Π_k T_k(y_k|y_{k−1})
//	    / ( Q(x_{1:L−1}|v) · Π_k T_k(y_{k−1}|y_k) )
//	  = [Π_l p(x_l|x_{l+1}) / Q(x_{1:L−1}|v)] · w_top,
//	w_top = f_K(x_{L−1})/Z_0 · Π_{k=0}^{K−1} f_k(y_k)/f_{k+1}(y_k),
//
// and E[w_top | x_{L−1}] = p_ann,top(x_{L−1}), so E[w] = p_ann(v). w_top is
// exactly the weight of eval.RAISE started at x_{L−1}, which this estimator
// runs (one reverse chain per draw from Q); log p̂_ann(v) = log mean_s w_s is
// a stochastic lower bound on log p_ann(v). The control variate of §4/§5.3 is
// DBNIS's log f̂(v) (with eval.ControlVariate).
//
// Draw s of example n takes its Q sample from rand.NewPCG(Seed, n) and its
// chain from a generator derived from Seed and n·Samples + s, so the result
// does not depend on Workers. All N·Samples top-layer states are held in
// memory (N·Samples·n_{L−1} bytes) while the chains run.
type DBNRAISE struct {
	Samples int // M draws from Q (each with one reverse chain) per example; 0 means 50
	// Betas is the schedule of the top RBM's path (nil: inference.Schedule2008()).
	Betas []float64
	// BaseVBias are the visible biases of the top RBM's base-rate start
	// (one per unit of h_{L−1}; nil: the uniform start of RAISE §5.3; see TopBaseRate).
	BaseVBias []float64
	Seed      uint64
	Workers   int // 0 means GOMAXPROCS
	// Progress, if set, gets the cumulative number of annealing steps done
	// and the total, from several goroutines.
	Progress func(done, total int64)
	// Units, if set, shares the draws (unit n·Samples + s, each with its
	// reverse chain) among the shards of a sharded evaluation (see Units);
	// every process draws from Q for every example, which is cheap.
	Units Units
}

// DBNRAISEResult holds per-example RAISE estimates for a DBN.
type DBNRAISEResult struct {
	// LogP[n] = log((1/M) Σ_s w_{n,s}), the estimate of log p_ann(v_n).
	LogP []float64
	// LogPSE[n] is the delta-method standard error of LogP[n] (NaN for M = 1).
	LogPSE []float64
	// Mean is the mean of LogP with its standard error across examples.
	Mean MeanStat
	// LogW holds the log weights, example-major: LogW[n*Samples+s].
	LogW []float64
	// MinESS is the smallest per-example effective sample size.
	MinESS         float64
	Samples, Steps int
	Warnings       []string
}

// LogProb estimates log p_ann(v) for every example of x.
func (r DBNRAISE) LogProb(d *models.DBN, x data.Examples) (DBNRAISEResult, error) {
	M := r.Samples
	if M == 0 {
		M = 50
	}
	if M < 0 {
		return DBNRAISEResult{}, fmt.Errorf("DBN RAISE: Samples = %d; want a positive number of draws per example (0 means 50)", r.Samples)
	}
	if err := checkDBNInputs("DBN RAISE", d, x, nil); err != nil {
		return DBNRAISEResult{}, err
	}
	path, err := inference.NewBaseRatePath(d.Top(), r.BaseVBias)
	if err != nil {
		return DBNRAISEResult{}, fmt.Errorf("DBN RAISE: top RBM: %w", err)
	}
	prep := newDBNPrep(d)
	N := x.Len()
	nTop := prep.sizes[prep.L-1]
	if err := CheckReverseChains(N, M, nTop); err != nil {
		return DBNRAISEResult{}, fmt.Errorf("DBN RAISE: %w", err)
	}
	tops := make([]uint8, N*M*nTop)
	logw := make([]float64, N*M)
	// Draw x_{1:L−1} ~ Q(·|v) and keep the directed part of the weight.
	workgroup.ForEach(N, orMaxProcs(r.Workers), func() func(int) {
		w := newDBNWalker(prep)
		src := &rand.PCG{}
		rng := rand.New(src)
		return func(n int) {
			src.Seed(r.Seed, uint64(n))
			w.setVisible(x.Row(n))
			for s := range M {
				w.sample(rng)
				i := n*M + s
				logw[i] = w.logDirected() - w.logQ()
				copy(tops[i*nTop:(i+1)*nTop], w.x[prep.L-1])
			}
		}
	})
	// One reverse chain of the top RBM from each drawn x_{L−1}.
	top := RAISE{Chains: 1, Betas: r.Betas, BaseVBias: r.BaseVBias, Seed: dbnMix(r.Seed, 0x726169736520746f), Workers: r.Workers, Progress: r.Progress, Units: r.Units}
	tr, err := top.Run(path, dbnFlatRows{data: tops, d: nTop})
	if err != nil {
		return DBNRAISEResult{}, fmt.Errorf("DBN RAISE: %w", err)
	}
	for i, lt := range tr.LogP {
		logw[i] += lt
	}
	res := DBNRAISEResult{LogP: make([]float64, N), LogPSE: make([]float64, N), LogW: logw, Samples: M, Steps: tr.Steps, MinESS: math.Inf(1)}
	var s, s2 float64
	for n := range N {
		st := summariseLogW(logw[n*M : (n+1)*M])
		if math.IsNaN(st.LogMean) || math.IsInf(st.LogMean, 0) {
			return res, fmt.Errorf("DBN RAISE: example %d got a non-finite estimate %v", n, st.LogMean)
		}
		res.LogP[n] = st.LogMean
		res.LogPSE[n] = math.NaN()
		if M > 1 {
			res.LogPSE[n] = math.Exp(st.LogStdErr - st.LogMean)
		}
		res.MinESS = math.Min(res.MinESS, st.ESS)
		s += st.LogMean
		s2 += st.LogMean * st.LogMean
	}
	res.Mean = meanStat(s, s2, N)
	if M > 1 && res.MinESS < 0.1*float64(M) {
		res.Warnings = append(res.Warnings, fmt.Sprintf("DBN RAISE: the smallest per-example ESS is %.1f of %d draws: some estimates rest on few chains", res.MinESS, M))
	}
	return res, nil
}

// dbnFlatRows is a row-major N×d uint8 matrix seen as data.Examples.
type dbnFlatRows struct {
	data []uint8
	d    int
}

func (f dbnFlatRows) Len() int          { return len(f.data) / f.d }
func (f dbnFlatRows) Row(n int) []uint8 { return f.data[n*f.d : (n+1)*f.d] }

// dbnMix derives a seed from seed and a tag (splitmix64 finaliser).
func dbnMix(seed, tag uint64) uint64 {
	z := seed + tag*0x9e3779b97f4a7c15 + 0x9e3779b97f4a7c15
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// ---------------------------------------------------------------------------
// (d) Exact log p(v) by enumeration.

// DBNExact computes log p(v) exactly for DBNs small enough to enumerate every
// state of h1, …, h_{L−1} (2^{n_1+…+n_{L−1}} terms per example, visited in
// Gray-code order so each step changes one unit), with the top RBM's log Z
// by Exact:
//
//	log p(v) = log Σ_{x_{1:L−1}} p*(v, x_{1:L−1}) − log Z_top.
//
// It also gives the exact variational bound of DBNBound,
// B(v) = Σ_x Q(x|v) [log p*(v, x) − log Q(x|v)] − log Z_top.
type DBNExact struct {
	// MaxUnits refuses DBNs with more than this many units in h1…h_{L−1}
	// together (0 means 20).
	MaxUnits int
	// Top computes log Z of the top RBM (its zero value enumerates up to 30 units).
	Top     Exact
	Workers int // 0 means GOMAXPROCS; results do not depend on it
	// Progress, if set, is called from the workers with the cumulative
	// number of examples done (of x.Len()).
	Progress func(done, total int64)
}

// DBNExactResult holds exact per-example values.
type DBNExactResult struct {
	LogP []float64 // log p(v_n)
	LogF []float64 // log f(v_n) = log p(v_n) + log Z_top
	ELBO []float64 // the exact variational bound B(v_n) ≤ log p(v_n)
	// Mean and MeanELBO are the means of LogP and ELBO with their standard
	// errors across examples.
	Mean, MeanELBO MeanStat
	LogZ           float64 // log Z_top
}

// LogProb computes log p(v) and the exact bound for every example of x.
func (e DBNExact) LogProb(d *models.DBN, x data.Examples) (DBNExactResult, error) {
	if err := checkDBNInputs("DBN exact", d, x, nil); err != nil {
		return DBNExactResult{}, err
	}
	maxU := e.MaxUnits
	if maxU <= 0 {
		maxU = 20
	}
	prep := newDBNPrep(d)
	T := 0
	for _, n := range prep.sizes[1:prep.L] {
		T += n
	}
	if T > maxU {
		return DBNExactResult{}, fmt.Errorf("DBN exact: h1…h_%d have %d units together, more than MaxUnits = %d (enumeration would need 2^%d terms per example); use the bound, IS or RAISE", prep.L-1, T, maxU, T)
	}
	lz, err := e.Top.LogZ(d.Top())
	if err != nil {
		return DBNExactResult{}, fmt.Errorf("DBN exact: top RBM: %w", err)
	}
	// unit g of the enumeration is unit unitOf[g].k of layer unitOf[g].l.
	type lk struct{ l, k int }
	var unitOf []lk
	for l := 1; l < prep.L; l++ {
		for k := range prep.sizes[l] {
			unitOf = append(unitOf, lk{l, k})
		}
	}
	N := x.Len()
	res := DBNExactResult{LogP: make([]float64, N), LogF: make([]float64, N), ELBO: make([]float64, N), LogZ: lz}
	workers := e.Workers
	var done atomic.Int64
	workgroup.ForEach(N, orMaxProcs(workers), func() func(int) {
		w := newDBNWalker(prep)
		acc := newLSEAcc()
		return func(n int) {
			w.setVisible(x.Row(n))
			acc.reset()
			elbo := 0.0
			for g := 0; ; g++ {
				if g > 0 {
					u := unitOf[bits.TrailingZeros(uint(g))]
					w.flip(u.l, u.k)
					if g%dbnRefreshEvery == 0 {
						w.recompute()
					}
				}
				lj := w.logDirected() + w.logTop()
				lq := w.logQ()
				acc.add(lj)
				elbo += math.Exp(lq) * (lj - lq) // Q(x|v) ≤ 1 is a probability
				if g == 1<<T-1 {
					break
				}
			}
			lf := acc.result()
			res.LogF[n] = lf
			res.LogP[n] = lf - lz
			res.ELBO[n] = elbo - lz
			if e.Progress != nil {
				e.Progress(done.Add(1), int64(N))
			}
		}
	})
	var s, s2, b, b2 float64
	for n := range N {
		s += res.LogP[n]
		s2 += res.LogP[n] * res.LogP[n]
		b += res.ELBO[n]
		b2 += res.ELBO[n] * res.ELBO[n]
	}
	res.Mean = meanStat(s, s2, N)
	res.MeanELBO = meanStat(b, b2, N)
	return res, nil
}

// ---------------------------------------------------------------------------
// Shared machinery.

func checkDBN(d *models.DBN) error {
	if d == nil {
		return errors.New("DBN: nil model")
	}
	return d.Validate()
}

func checkDBNRows(d *models.DBN, x data.Examples) error {
	if x == nil || x.Len() == 0 {
		return errors.New("no examples")
	}
	D := d.NumVisible()
	for n := range x.Len() {
		if r := x.Row(n); len(r) != D {
			return fmt.Errorf("example %d has %d units, the DBN %d visible units", n, len(r), D)
		}
	}
	return nil
}

func checkDBNInputs(name string, d *models.DBN, x data.Examples, z *TopLogZ) error {
	if err := checkDBN(d); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if err := checkDBNRows(d, x); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if z != nil {
		if math.IsNaN(z.LogZ) || math.IsInf(z.LogZ, 0) {
			return fmt.Errorf("%s: log Z of the top RBM is %v; it must be finite", name, z.LogZ)
		}
		if z.Exact {
			z.SE = 0
		}
		if math.IsNaN(z.SE) {
			z.Warnings = append(z.Warnings, fmt.Sprintf("%s: log Z of the top RBM has no standard error (a single AIS run?): the error of the estimate is incomplete", name))
		}
	}
	return nil
}

// dbnRefreshEvery is the number of incremental updates between
// recomputations of the pre-activations from scratch (to stop rounding drift).
const dbnRefreshEvery = 64

// dbnPrep holds a DBN's parameters in the layouts the walkers need.
type dbnPrep struct {
	L     int
	sizes []int       // n_0 … n_L
	w     [][]float64 // w[l] = W_l, n_l × n_{l+1}: row i adds to u_l when x_{l,i} turns on
	wt    [][]float64 // wt[l] = W_lᵀ, n_{l+1} × n_l: row k adds to z_l when x_{l+1,k} turns on
	a, b  [][]float64 // a[l] = a_l (n_l), b[l] = b_l (n_{l+1})
}

func newDBNPrep(d *models.DBN) *dbnPrep {
	p := &dbnPrep{L: len(d.Layers), sizes: d.Sizes()}
	for _, r := range d.Layers {
		wt := make([]float64, len(r.W))
		for i := range r.NVis {
			for j := range r.NHid {
				wt[j*r.NVis+i] = r.W[i*r.NHid+j]
			}
		}
		p.w = append(p.w, r.W)
		p.wt = append(p.wt, wt)
		p.a = append(p.a, r.VBias)
		p.b = append(p.b, r.HBias)
	}
	return p
}

// dbnWalker is the state x_1…x_{L−1} of one example with the
// pre-activations, kept up to date incrementally as units flip:
//
//	z_l = a_l + W_l x_{l+1}   (l = 0…L−2; generative: p(x_l|x_{l+1}) = σ(z_l)),
//	u_l = b_l + W_lᵀ x_l      (l = 0…L−1; recognition Q(x_{l+1}|x_l) = σ(u_l);
//	                            u_{L−1} is the top RBM's hidden pre-activation).
//
// u_0 depends on v only and is computed once per example.
type dbnWalker struct {
	p        *dbnPrep
	x        [][]uint8   // x[l], l = 0…L−1 (x[0] = v)
	z, u     [][]float64 // as above
	p1       []float64   // σ(u_0)
	sp1, h1  float64     // Σ_j softplus(u_{0,j}) and the entropy of Q(h1|v)
	up, down []int32
	on       []int // on[l] = number of units of x_l that are on
	updates  int
}

func newDBNWalker(p *dbnPrep) *dbnWalker {
	w := &dbnWalker{p: p}
	mx := 0
	for l := range p.L {
		w.x = append(w.x, make([]uint8, p.sizes[l]))
		w.u = append(w.u, make([]float64, p.sizes[l+1]))
		if l < p.L-1 {
			w.z = append(w.z, make([]float64, p.sizes[l]))
		}
		mx = max(mx, p.sizes[l])
	}
	w.p1 = make([]float64, p.sizes[1])
	w.on = make([]int, p.L)
	w.up, w.down = make([]int32, 0, mx), make([]int32, 0, mx)
	return w
}

// setVisible starts a new example: x_0 = v, every x_l (l ≥ 1) is zero.
func (w *dbnWalker) setVisible(v []uint8) {
	p := w.p
	x0 := w.x[0]
	for i, b := range v {
		x0[i] = dbnBit(b)
	}
	u0 := w.u[0]
	copy(u0, p.b[0])
	n1 := p.sizes[1]
	for i, b := range x0 {
		if b == 1 {
			dbnAdd(u0, p.w[0][i*n1:(i+1)*n1])
		}
	}
	w.sp1 = softplusSum(u0)
	w.h1 = 0
	for j, u := range u0 {
		q := nmath.Sigmoid(u)
		w.p1[j] = q
		w.h1 += nmath.Softplus(u) - q*u
	}
	for l := 1; l < p.L; l++ {
		clear(w.x[l])
		w.on[l] = 0
	}
	w.recompute()
}

func dbnBit(b uint8) uint8 {
	if b != 0 {
		return 1
	}
	return 0
}

// recompute sets z_l and u_l (l ≥ 1) from scratch from the current x.
func (w *dbnWalker) recompute() {
	for l := 1; l < w.p.L; l++ {
		w.recomputeLayer(l)
	}
	w.updates = 0
}

// recomputeLayer sets z_{l−1} = a_{l−1} + W_{l−1} x_l and u_l = b_l + W_lᵀ x_l
// from the units of x_l that are on.
func (w *dbnWalker) recomputeLayer(l int) {
	p := w.p
	z, u := w.z[l-1], w.u[l]
	copy(z, p.a[l-1])
	copy(u, p.b[l])
	ones := w.up[:0]
	for k, b := range w.x[l] {
		if b == 1 {
			ones = append(ones, int32(k))
		}
	}
	dbnRows(z, p.wt[l-1], ones, 1)
	dbnRows(u, p.w[l], ones, 1)
	w.up = ones[:0]
}

// flip toggles unit k of layer l (1 ≤ l ≤ L−1) and updates z_{l−1} and u_l.
func (w *dbnWalker) flip(l, k int) {
	p := w.p
	z, u := w.z[l-1], w.u[l]
	nz, nu := len(z), len(u)
	w.x[l][k] ^= 1
	w.on[l] += 2*int(w.x[l][k]) - 1
	if w.x[l][k] == 1 {
		dbnAdd(z, p.wt[l-1][k*nz:(k+1)*nz])
		dbnAdd(u, p.w[l][k*nu:(k+1)*nu])
	} else {
		dbnSub(z, p.wt[l-1][k*nz:(k+1)*nz])
		dbnSub(u, p.w[l][k*nu:(k+1)*nu])
	}
}

// sample replaces x_1…x_{L−1} by a draw from Q(·|v), layer by layer.
func (w *dbnWalker) sample(rng *rand.Rand) {
	p := w.p
	for l := 1; l < p.L; l++ {
		x := w.x[l]
		up, down := w.up[:0], w.down[:0]
		if l == 1 {
			for j, q := range w.p1 {
				b := uint8(0)
				if rng.Float64() < q {
					b = 1
				}
				if b != x[j] {
					if b == 1 {
						up = append(up, int32(j))
					} else {
						down = append(down, int32(j))
					}
					x[j] = b
				}
			}
		} else {
			for j, u := range w.u[l-1] {
				b := uint8(0)
				if rng.Float64() < nmath.Sigmoid(u) {
					b = 1
				}
				if b != x[j] {
					if b == 1 {
						up = append(up, int32(j))
					} else {
						down = append(down, int32(j))
					}
					x[j] = b
				}
			}
		}
		w.on[l] += len(up) - len(down)
		if len(up)+len(down) > w.on[l] {
			// Fewer rows to add from scratch than flipped rows.
			w.up, w.down = up[:0], down[:0]
			w.recomputeLayer(l)
			continue
		}
		dbnAddRows(w.z[l-1], p.wt[l-1], up, down)
		dbnAddRows(w.u[l], p.w[l], up, down)
		w.up, w.down = up, down
	}
	w.updates++
	if w.updates >= dbnRefreshEvery {
		w.recompute()
	}
}

// logDirected returns Σ_{l=0}^{L−2} log p(x_l | x_{l+1}) = Σ_l Σ_i [x_{l,i} z_{l,i} − softplus(z_{l,i})].
func (w *dbnWalker) logDirected() float64 {
	s := 0.0
	for l, z := range w.z {
		s += dbnDot(w.x[l], z) - softplusSum(z)
	}
	return s
}

// logTop returns log p*(x_{L−1}) = a_{L−1}ᵀx_{L−1} + Σ_j softplus(u_{L−1,j}).
func (w *dbnWalker) logTop() float64 {
	L := w.p.L
	return dbnDot(w.x[L-1], w.p.a[L-1]) + softplusSum(w.u[L-1])
}

// logQ returns log Q(x_{1:L−1}|v) = Σ_{l=1}^{L−1} Σ_j [x_{l,j} u_{l−1,j} − softplus(u_{l−1,j})].
func (w *dbnWalker) logQ() float64 {
	s := dbnDot(w.x[1], w.u[0]) - w.sp1
	for l := 2; l < w.p.L; l++ {
		s += dbnDot(w.x[l], w.u[l-1]) - softplusSum(w.u[l-1])
	}
	return s
}

// entropy returns Σ_{l=1}^{L−1} H(Q(x_l | x_{l−1})) at the current state,
// with H(Bernoulli(σ(u))) = softplus(u) − u σ(u).
func (w *dbnWalker) entropy() float64 {
	s := w.h1
	for l := 2; l < w.p.L; l++ {
		for _, u := range w.u[l-1] {
			s += nmath.Softplus(u) - u*nmath.Sigmoid(u)
		}
	}
	return s
}

// dbnDot returns Σ_{i: x_i = 1} z_i.
func dbnDot(x []uint8, z []float64) float64 {
	z = z[:len(x)]
	s := 0.0
	for i, b := range x {
		if b == 1 {
			s += z[i]
		}
	}
	return s
}

func dbnAdd(dst, row []float64) {
	row = row[:len(dst)]
	for i := range dst {
		dst[i] += row[i]
	}
}

func dbnSub(dst, row []float64) {
	row = row[:len(dst)]
	for i := range dst {
		dst[i] -= row[i]
	}
}

// dbnAddRows adds the rows up of the row-major matrix m (row length len(dst))
// to dst and subtracts the rows down, four rows per pass over dst.
func dbnAddRows(dst, m []float64, up, down []int32) {
	dbnRows(dst, m, up, 1)
	dbnRows(dst, m, down, -1)
}

func dbnRows(dst, m []float64, idx []int32, sign float64) {
	n := len(dst)
	k := 0
	for ; k+4 <= len(idx); k += 4 {
		r0, r1 := m[int(idx[k])*n:][:n], m[int(idx[k+1])*n:][:n]
		r2, r3 := m[int(idx[k+2])*n:][:n], m[int(idx[k+3])*n:][:n]
		if sign > 0 {
			for i := range dst {
				dst[i] += (r0[i] + r1[i]) + (r2[i] + r3[i])
			}
		} else {
			for i := range dst {
				dst[i] -= (r0[i] + r1[i]) + (r2[i] + r3[i])
			}
		}
	}
	for ; k < len(idx); k++ {
		if sign > 0 {
			dbnAdd(dst, m[int(idx[k])*n:][:n])
		} else {
			dbnSub(dst, m[int(idx[k])*n:][:n])
		}
	}
}
