package eval

import (
	"fmt"
	"math/rand/v2"

	"github.com/logz-ml/logz/data"
	"github.com/logz-ml/logz/inference"
	"github.com/logz-ml/logz/models"
)

// DBMRAISE is RAISE for deep Boltzmann machines, whose posterior p(h|v) is
// intractable (Burda, Grosse & Salakhutdinov 2015, §3.2, Alg. 3). It uses the
// AIS path of DBMPath (state x_E = (v, h2, h4, …), odd layers summed out,
// f_k = f_{β_k}) and returns, per example, an unbiased estimate of p_ann(v),
// the probability of v = v_K under the forward AIS chain x_0 ~ p_0,
// x_k ~ T_k(·|x_{k−1}), k = 1..K. log p̂ is thus a stochastic lower bound on
// log p_ann(v); it tends to underestimate log p(v).
//
// One chain for a test vector v does:
//
//	heating:  lw = log p_0(v) = a_0ᵀv − Σ_i softplus(a_{0,i});  h'_0 ~ p_0(h_E|v) = Π_l Bern(σ(a_l));
//	          for k = 1..K: lw += log f_k(v,h'_{k−1}) − log f_{k−1}(v,h'_{k−1});  h'_k ~ T_k^{(v)}(·|h'_{k−1})
//	cooling:  x_K = (v, h'_K);  x_{K−1} ~ T_K(·|x_K);
//	          for k = K−1..0: lw += log f_k(x_k) − log f_{k+1}(x_k);  x_{k−1} ~ T_k(·|x_k)
//
// with T_k the block kernel of DBMPath at β_k (odd | even, then even | odd)
// and T_k^{(v)} the same with v clamped (odd | even, then the even hidden
// layers | odd).
//
// Derivation of the weight as p_fwd/q_rev (Alg. 3 as printed mixes the
// kernel indices, so it is derived here rather than copied). T_k is a
// data-augmentation kernel on x_E, T_k(x'|x) = Σ_{x_O} p_k(x_O|x) p_k(x'|x_O),
// so p_k(x)T_k(x'|x) = Σ_{x_O} p_k(x_O)p_k(x|x_O)p_k(x'|x_O) is symmetric:
// T_k is reversible w.r.t. p_k(x_E) ∝ f_k(x_E) and is its own reverse.
// Likewise T_k^{(v)} is reversible w.r.t. p_k(h_E|v) (the clamped kernel is
// the same construction on p_k(x_O, h_E | v)); in fact only its invariance is
// used below. The proposal is the simulated chain,
//
//	q_rev = p_0(h'_0|v) Π_{k=1}^{K} T_k^{(v)}(h'_k|h'_{k−1}) · Π_{k=1}^{K} T_k(x_{k−1}|x_k),
//
// and the target is the forward AIS chain ending in x_K = (v, h'_K), extended
// by the reverses of the heating kernels, R_k(h'_{k−1}|h'_k) =
// T_k^{(v)}(h'_k|h'_{k−1}) p_k(h'_{k−1}|v)/p_k(h'_k|v) (a proper kernel because
// T_k^{(v)} leaves p_k(·|v) invariant):
//
//	p_fwd = p_0(x_0) Π_{k=1}^{K} T_k(x_k|x_{k−1}) · Π_{k=1}^{K} R_k(h'_{k−1}|h'_k).
//
// Summing p_fwd over everything but v_K = v gives p_ann(v), so
// E_q[p_fwd/q_rev] = p_ann(v). In the ratio the T_k cancel by reversibility
// (T_k(x_k|x_{k−1})/T_k(x_{k−1}|x_k) = f_k(x_k)/f_k(x_{k−1})) and the T_k^{(v)}
// against R_k, leaving, with p_k(h|v) = f_k(v,h)/f_k(v),
//
//	w = p_0(x_0)/p_0(h'_0|v) · Π_{k=1}^{K} f_k(x_k)/f_k(x_{k−1}) · Π_{k=1}^{K} f_k(v,h'_{k−1})/f_k(v,h'_k).
//
// Since x_K = (v, h'_K), f_K(x_K) cancels f_K(v,h'_K); p_0(x_0)/f_0(x_0) =
// 1/Z_0 and 1/(Z_0 p_0(h'_0|v)) = p_0(v)/f_0(v,h'_0); regrouping the rest,
//
//	w = p_0(v) · Π_{k=0}^{K−1} f_{k+1}(v,h'_k)/f_k(v,h'_k) · Π_{k=0}^{K−1} f_k(x_k)/f_{k+1}(x_k),
//
// which is what the two loops above accumulate. TestDBMRAISEUnbiased checks
// E[w] = p_ann(v) against p_ann computed from the exact transition matrices.
//
// Each (example n, chain c) pair draws from rand.NewPCG(Seed, n·Chains + c),
// so results do not depend on Workers or GOMAXPROCS. A chain makes 2K
// transitions (K heating, K cooling).
type DBMRAISE struct {
	Chains int // M chains per example; 0 means 50
	// Betas is the schedule β_0 = 0 < … < β_K = 1; nil means
	// inference.Schedule2008().
	Betas []float64
	// BaseVBias are the visible biases a_0 of the base (nil: zeros, the
	// uniform start); see DBMPath.
	BaseVBias []float64
	// BaseHidden[l] are the biases a_l of the base on the even hidden layer
	// l ≥ 2 (nil or missing: zeros, uniform; odd entries must be nil), e.g.
	// from DBMHiddenBaseRate; see inference.NewDBMPathBase.
	BaseHidden [][]float64
	Seed       uint64
	Workers    int // goroutines; 0 means GOMAXPROCS. Results do not depend on it.
	// Progress, if set, gets the cumulative number of annealing steps done
	// and the total, from several goroutines; as for RAISE, a finished
	// (example, chain) pair counts K steps and the total is N·Chains·K.
	Progress func(done, total int64)
	// Units, if set, shares the (example, chain) pairs among the shards of
	// a sharded evaluation (unit n·Chains + c; see Units).
	Units Units
}

// LogProb estimates log p_ann(v) for every example of x. The result has the
// layout of RAISE's.
func (r DBMRAISE) LogProb(d *models.DBM, x data.Examples) (RAISEResult, error) {
	const what = "DBM RAISE"
	betas, M, N, err := raiseParams(what, r.Betas, r.Chains, x)
	if err != nil {
		return RAISEResult{}, err
	}
	path, err := inference.NewDBMPathBase(d, DBMBase(r.BaseVBias, r.BaseHidden))
	if err != nil {
		return RAISEResult{}, fmt.Errorf("%s: %w", what, err)
	}
	v := make([]float64, d.NumVisible())
	for n := range N {
		if err := rowToFloat(v, x.Row(n), n); err != nil {
			return RAISEResult{}, fmt.Errorf("%s: %w", what, err)
		}
	}
	K := len(betas) - 1
	logw, err := raiseItems(N, M, K, r.Seed, r.Workers, r.Progress, r.Units, func() raiseItem {
		ch := path.NewDBMChain()
		return func(n int, rng *rand.Rand) float64 {
			ch.SetVisible(x.Row(n))
			ch.SampleBaseHidden(rng)
			lw := ch.LogBaseVisible()
			for k := 1; k <= K; k++ {
				lw += ch.StepClamped(betas[k-1], betas[k], rng)
			}
			return raiseCool(ch, betas, lw, rng)
		}
	})
	if err != nil {
		return RAISEResult{}, fmt.Errorf("%s: %w", what, err)
	}
	return summariseRAISE(what, logw, N, M, K)
}

// DBMBase returns the base biases by layer that inference.NewDBMPathBase
// takes: v's biases vbias, then hidden[l] for l ≥ 1 (hidden[0] is ignored).
func DBMBase(vbias []float64, hidden [][]float64) [][]float64 {
	base := [][]float64{vbias}
	for l := 1; l < len(hidden); l++ {
		base = append(base, hidden[l])
	}
	return base
}
