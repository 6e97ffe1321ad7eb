package chi2

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/logz-ml/logz/internal/nmath"
	"github.com/logz-ml/logz/internal/optim"
)

// Proposal kinds.
const (
	KindMixture = "mixture"
	KindAux     = "aux"
)

// NewProposal rebuilds an all-zero proposal of a kind and shape (from a
// checkpoint); set its Params and call Changed.
func NewProposal(kind string, shape []int) (Proposal, error) {
	switch kind {
	case KindMixture:
		if len(shape) != 2 {
			return nil, fmt.Errorf("chi2: a mixture's shape is [D, K], got %v", shape)
		}
		return newMixture(shape[0], shape[1])
	case KindAux:
		return newAuxFromShape(shape)
	default:
		return nil, fmt.Errorf("chi2: unknown proposal kind %q (expected %s or %s)", kind, KindMixture, KindAux)
	}
}

// FitOptions are the settings of the fitter of a proposal.
type FitOptions struct {
	// Samples is the number of draws from q per step.
	Samples int
	// LearningRate is Adam's step size on q's parameters.
	LearningRate float64
	// Decay is the weight of the past in the moving averages of γ (the
	// linearisation point, ≈ E_q[w²]), of the baseline and of the variance
	// of the learning signal.
	Decay float64
	// RByChi2 fits an auxiliary proposal's r(a|x) by the χ² gradient
	// 2E_q[w² ∇ log r] instead of the default, maximum likelihood on q's own
	// draws (ascent on E_q[log r(a|x)], r → q(a|x), where bound (3) meets
	// (2)). Bound (3) holds for any r; the χ² gradient for r is unbiased but
	// its variance can explode (r moves its mass away from q's draws, which
	// leaves E_q[w⁴] unbounded), so maximum likelihood is the default.
	RByChi2 bool
}

// Check reports impossible options.
func (o FitOptions) Check() error {
	switch {
	case o.Samples < 2:
		return fmt.Errorf("chi2: need at least 2 samples per step, got %d", o.Samples)
	case !(o.LearningRate > 0) || math.IsInf(o.LearningRate, 0):
		return fmt.Errorf("chi2: learning rate must be positive, got %g", o.LearningRate)
	case !(o.Decay >= 0 && o.Decay < 1):
		return fmt.Errorf("chi2: decay must be in [0, 1), got %g", o.Decay)
	}
	return nil
}

// Fitter minimises the χ² bound over a proposal's parameters by
// score-function gradients (see the package doc). Each step draws
// Samples points from q, computes log w = log p̃(x) − LogQ, and the
// learning signal s_i = w_i²/γ, with log γ the moving average (in log
// space) of log mean w² including this batch — the linearisation point of
// log y ≤ y/γ + log γ − 1, which keeps s_i ≤ n/(1−Decay) finite. The score
// part is centred by the previous steps' baseline (a moving average of s)
// and both parts are divided by max(1, running sd of s). Adam then
// descends on ½·(1/n)·Σ_i ∇(w_i²/γ).
type Fitter struct {
	Q    Proposal
	Opt  FitOptions
	Adam optim.Adam
	// LogGamma, Baseline and Var are the moving averages; Steps counts the
	// steps taken (0: the averages are not set yet).
	LogGamma, Baseline, Var float64
	Steps                   int

	// Draws and LogW are the last step's draws and log weights.
	Draws []*Draw
	LogW  []float64

	two, sig, grad []float64
}

// NewFitter returns a fitter of q.
func NewFitter(q Proposal, opt FitOptions) (*Fitter, error) {
	if err := opt.Check(); err != nil {
		return nil, err
	}
	f := &Fitter{Q: q, Opt: opt, Adam: optim.NewAdam(opt.LearningRate, len(q.Params()))}
	f.Draws = make([]*Draw, opt.Samples)
	for i := range f.Draws {
		f.Draws[i] = q.NewDraw()
	}
	f.LogW = make([]float64, opt.Samples)
	f.two = make([]float64, opt.Samples)
	f.sig = make([]float64, opt.Samples)
	f.grad = make([]float64, len(q.Params()))
	return f, nil
}

// ErrNonFinite is returned when log p̃ or log q is NaN or +Inf at a draw.
var ErrNonFinite = errors.New("chi2: a log weight is not finite")

// Draw replaces the fitter's draws by fresh ones from q and sets LogW; it
// returns ½ log mean w², this batch's estimate of the bound.
func (f *Fitter) Draw(logp func([]uint8) float64, rng *rand.Rand) (float64, error) {
	for i, d := range f.Draws {
		f.Q.Sample(d, rng)
		lw := logp(d.X) - d.LogQ
		if math.IsNaN(lw) || math.IsInf(lw, 1) {
			return math.NaN(), fmt.Errorf("%w (log p̃ = %g, log q = %g)", ErrNonFinite, lw+d.LogQ, d.LogQ)
		}
		f.LogW[i] = lw
		f.two[i] = 2 * lw
	}
	return 0.5 * nmath.LogMeanExp(f.two), nil
}

// Step takes one step on q: fresh draws (as Draw), then the update. It
// returns the batch's ½ log mean w² (before the update).
func (f *Fitter) Step(logp func([]uint8) float64, rng *rand.Rand) (float64, error) {
	half, err := f.Draw(logp, rng)
	if err != nil {
		return half, err
	}
	f.Update()
	return half, nil
}

// Update moves q along the gradient estimated from the current draws.
func (f *Fitter) Update() {
	n := float64(len(f.Draws))
	lm := nmath.LogMeanExp(f.two)
	a := f.Opt.Decay
	if f.Steps == 0 || math.IsInf(f.LogGamma, -1) {
		f.LogGamma = lm
	} else if a > 0 {
		f.LogGamma = nmath.LogAddExp(math.Log(a)+f.LogGamma, math.Log1p(-a)+lm)
	} else {
		f.LogGamma = lm
	}
	mean, sq := 0.0, 0.0
	for i, t := range f.two {
		s := math.Exp(t - f.LogGamma)
		f.sig[i] = s
		mean += s
	}
	mean /= n
	base := f.Baseline
	if f.Steps == 0 {
		base = mean
	}
	for _, s := range f.sig {
		sq += (s - base) * (s - base)
	}
	sq /= n
	if f.Steps == 0 {
		f.Baseline, f.Var = mean, sq
	} else {
		f.Baseline = a*f.Baseline + (1-a)*mean
		f.Var = a*f.Var + (1-a)*sq
	}
	norm := math.Max(1, math.Sqrt(f.Var))
	clear(f.grad)
	for i, d := range f.Draws {
		path := -0.5 // descent on −log r: maximum likelihood
		if f.Opt.RByChi2 {
			path = f.sig[i] / norm
		}
		f.Q.Grad(d, (f.sig[i]-base)/norm, path, f.grad)
	}
	f.Adam.Step(f.Q.Params(), f.grad, 0.5/n)
	f.Q.Changed()
	f.Steps++
}

// NormalisedSquares returns the draws' weights w_i²/Σ_j w_j² (they sum to
// one): the self-normalised importance weights of E_q[w² g(x)]/E_q[w²],
// the θ-gradient of ½ log E_q[(p̃_θ/q)²] being Σ_i ω_i ∇ log p̃_θ(x_i).
func (f *Fitter) NormalisedSquares(out []float64) []float64 {
	out = out[:0]
	lse := nmath.LogSumExp(f.two)
	for _, t := range f.two {
		out = append(out, math.Exp(t-lse))
	}
	return out
}

// Linearised returns the draws' w_i²/(n γ), γ the fitter's running
// E_q[w²]: the weights of the linearised θ-gradient (unbiased for a fixed
// γ; they sum to about one).
func (f *Fitter) Linearised(out []float64) []float64 {
	out = out[:0]
	n := float64(len(f.two))
	lg := f.LogGamma
	if f.Steps == 0 {
		lg = nmath.LogMeanExp(f.two)
	}
	for _, t := range f.two {
		out = append(out, math.Exp(t-lg)/n)
	}
	return out
}

// State returns the fitter's state (q's parameters included) as named
// arrays, for checkpoints.
func (f *Fitter) State() map[string][]float64 {
	return map[string][]float64{
		"params":  append([]float64(nil), f.Q.Params()...),
		"adam_m":  append([]float64(nil), f.Adam.M...),
		"adam_s":  append([]float64(nil), f.Adam.S...),
		"scalars": {float64(f.Adam.T), f.LogGamma, f.Baseline, f.Var, float64(f.Steps)},
	}
}

// Restore sets the fitter's state from State's arrays; shapes must match.
func (f *Fitter) Restore(st map[string][]float64) error {
	n := len(f.Q.Params())
	for _, k := range []string{"params", "adam_m", "adam_s"} {
		if len(st[k]) != n {
			return fmt.Errorf("chi2: fitter state %q has %d values, the proposal %d", k, len(st[k]), n)
		}
	}
	sc := st["scalars"]
	if len(sc) != 5 {
		return fmt.Errorf("chi2: fitter state \"scalars\" has %d values, want 5", len(sc))
	}
	for _, v := range st["params"] {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("chi2: fitter state holds a non-finite parameter")
		}
	}
	copy(f.Q.Params(), st["params"])
	copy(f.Adam.M, st["adam_m"])
	copy(f.Adam.S, st["adam_s"])
	f.Adam.T, f.LogGamma, f.Baseline, f.Var, f.Steps = int(sc[0]), sc[1], sc[2], sc[3], int(sc[4])
	f.Q.Changed()
	return nil
}
