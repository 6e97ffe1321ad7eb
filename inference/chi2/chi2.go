// Package chi2 is the machinery of the χ² upper bound on the
// log-partition function of Kuleshov & Ermon (2017, "Neural variational
// inference and learning in undirected graphical models"; see
// docs/methods.md#chi2-bound) that training and measuring share: the
// proposals q (a mixture of Bernoulli products, Mixture; an
// auxiliary-variable network, Aux), the fitter that minimises the bound over
// q's parameters (Fitter), and their checkpoint state (PutState, LoadState).
// The χ² trainers (train) fit proposals with it, the estimators (eval/chi2,
// which estimates the bound itself) and samplers start from them. It imports
// no trainer and no estimator.
//
// For an unnormalised distribution p̃ over {0,1}^D with Z = Σ_x p̃(x) and
// any proposal q with q(x) > 0 wherever p̃(x) > 0, Z = E_q[p̃/q] and, since
// a variance is non-negative,
//
//	log Z ≤ ½ log E_q[(p̃(x)/q(x))²],                                   (2)
//
// with equality iff q = p̃/Z. With an auxiliary variable a,
// q(x) = ∫ q(a) q(x|a) da, and any r(a|x),
//
//	Z² ≤ E_{q(x,a)}[ p̃(x)² r(a|x)² / q(x,a)² ].                         (3)
//
// Every proposal here reports, for a draw, LogQ = log q(x) (a mixture:
// the marginal is exact) or log q(x,a) − log r(a|x) (auxiliary form), so
// the weight is always log w = log p̃(x) − LogQ and the bound ½ log E[w²].
//
// Fitting q minimises (2)/(3) by score-function gradients:
//
//	∇_φ E_q[w²] = −E_q[w² ∇_φ log q_φ(x,a)]     (q's own parameters)
//	∇_ψ E_q[w²] = 2 E_q[w² ∇_ψ log r_ψ(a|x)]     (r's parameters; pathwise)
//
// with the learning signal w²/γ linearised at γ, a running estimate of
// E_q[w²] (log y ≤ y/γ + log γ − 1, tight at γ = y), centred by a moving
// average baseline (score part only: E_q[∇_φ log q] = 0 keeps it unbiased)
// and divided by a running standard deviation; Adam takes the step. By
// default the fitter trains r(a|x) by maximum likelihood on q's draws
// instead (FitOptions.RByChi2): (3) holds for any r, and the χ² gradient
// for r, though unbiased, makes the fit collapse with small batches.
package chi2

import "math/rand/v2"

// Target is an unnormalised distribution p̃ over {0,1}^D.
type Target interface {
	// Dim is D.
	Dim() int
	// NewLogP returns a function computing log p̃(x), with its own scratch:
	// each goroutine calls NewLogP once and uses its own function.
	NewLogP() func(x []uint8) float64
}

// Draw is one sample of a proposal, with the proposal's scratch for it.
type Draw struct {
	X []uint8
	// A holds the continuous auxiliary variables (aux proposal).
	A []float64
	// Comp is the mixture component the draw came from (mixture proposal).
	Comp int
	// LogQ is log q(x) (mixture) or log q(a) + log q(x|a) − log r(a|x)
	// (aux): the draw's log weight is log p̃(x) − LogQ.
	LogQ float64
	// Cache is the proposal's own per-draw scratch (activations kept for
	// Grad); callers leave it alone.
	Cache []float64
}

// Proposal is a fitted distribution q over {0,1}^D (with any auxiliary
// variables) whose parameters are one flat slice.
type Proposal interface {
	// Kind is "mixture" or "aux".
	Kind() string
	Dim() int
	// Params is the live parameter vector; after changing it call Changed.
	Params() []float64
	// Changed refreshes anything derived from Params.
	Changed()
	// NewDraw allocates a draw with its scratch.
	NewDraw() *Draw
	// Sample replaces d by a fresh draw from q, setting X (and A or Comp)
	// and LogQ. It does not allocate.
	Sample(d *Draw, rng *rand.Rand)
	// Grad adds to g (len(Params())) one draw's estimate of the gradient
	// of E_q[w²]/γ (a descent direction for the bound):
	//
	//	g_φ += −score · ∇_φ log q(x, a)      (or ∇_φ log q(x) for a mixture)
	//	g_ψ += 2·path · ∇_ψ log r(a|x)        (aux only)
	//
	// where score is the centred, normalised signal and path the raw one
	// (w²/γ divided by the same normaliser). It does not allocate.
	Grad(d *Draw, score, path float64, g []float64)
	// Shape names the sizes that rebuild the proposal from Params (for
	// checkpoints): mixture [D, K]; aux [D, A, H].
	Shape() []int
}
