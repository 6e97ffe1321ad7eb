// Package inference holds the Markov transition kernels, annealing paths and
// schedules shared by the estimators (AIS, RAISE) and the trainers; its
// subpackage inference/chi2 holds the χ² proposals, their fitter and their
// checkpoint state, shared the same way. Neither imports a trainer or an
// estimator.
//
// An annealing path is a family of unnormalised densities f_β(x), β ∈ [0,1],
// whose β = 0 member is tractable (exact samples and a known normaliser Z_0)
// and whose β = 1 member is the target. Given a schedule 0 = β_0 < … < β_K = 1
// and transitions T_k that leave p_k = f_{β_k}/Z_k invariant, AIS draws
// x_0 ~ p_0, x_k ~ T_k(·|x_{k−1}) and weighs the run by
//
//	w = Π_{k=1}^{K} f_{β_k}(x_{k−1}) / f_{β_{k−1}}(x_{k−1}),   E[w] = Z_K/Z_0.
//
// Chain.Step fuses one factor of w with the following transition, which is
// what makes the RBM chain fast: the exponentials of the weight at β_k serve
// the Gibbs draw at β_k too. RAISE (Burda et al. 2015, Alg. 2) runs the same
// fused step with the schedule reversed (Step(β_k, β_{k−1})), after setting the
// visible state to a data vector and one Transition at β = 1. DBMPath is the
// path of a deep Boltzmann machine with its odd layers summed out; its chain
// also has the clamped transition (v fixed) that RAISE for DBMs (Alg. 3)
// needs.
package inference

import "math/rand/v2"

// Path is an annealing path: unnormalised densities f_β, β ∈ [0,1], with a
// tractable base p_0 = f_0/Z_0.
type Path interface {
	// LogZ0 returns log Z_0 = log Σ_x f_0(x).
	LogZ0() float64
	// NewChain allocates the state and scratch of one chain. A Chain is not
	// safe for concurrent use: give each goroutine its own.
	NewChain() Chain
}

// Chain is the state x of one annealing chain on a Path, with its scratch.
// Its trajectory depends only on the calls made and the generators passed,
// so a chain driven by its own generator is reproducible whatever the
// scheduling of goroutines.
type Chain interface {
	// SampleBase replaces x by an exact draw from p_0, forgetting all
	// previous state.
	SampleBase(rng *rand.Rand)
	// Step returns log f_next(x) − log f_prev(x) at the current x and then
	// replaces x by a draw from T_next(·|x), a transition that leaves
	// p_next ∝ f_next invariant. prev and next may be in either order.
	Step(prev, next float64, rng *rand.Rand) float64
	// Transition replaces x by a draw from T_β(·|x) without a weight.
	Transition(beta float64, rng *rand.Rand)
	// LogUnnorm returns log f_β(x) at the current x.
	LogUnnorm(beta float64) float64
}
