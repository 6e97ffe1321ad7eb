package report

import (
	"fmt"
	"math"
	"strings"
)

// NoiseSigmas is k in the tolerance k·σ within which two estimates of the
// same mean log-likelihood may disagree in the direction the mathematics
// forbids before logz calls it a contradiction rather than noise. σ is their
// combined standard error √(σ₁² + σ₂²) (CombinedError). With k = 3 a pair of
// correct estimators whose errors are roughly Gaussian trips the check about
// once in 740 comparisons (the one-sided 3σ tail, 0.13%), so a run with a
// few dozen comparisons rarely raises a false alarm, while a real
// contradiction of a few σ is still reported.
const NoiseSigmas = 3

// LoglikError returns the standard error of r's mean log-likelihood as an
// estimate of the mean over the examples it was computed on — the error that
// matters when two estimators of one evaluation are compared on the same
// split — and whether r has one:
//
//   - exact: 0 (no estimation error; its loglik_se is the spread over
//     examples, which two estimators on the same examples share);
//   - ais and chi2: the error of log Ẑ, log(Ẑ+σ̂) − log Ẑ (the mean of
//     log f(v) is exact for an RBM), or loglik_se when the row has no log Ẑ
//     band;
//   - any other estimator (raise, csl, ...): loglik_se — for a subsample
//     extended by the control variate the error of that estimate, for the
//     whole split the standard error over examples (which overstates the
//     error of the comparison, so the check errs towards silence).
func LoglikError(r *Row) (float64, bool) {
	switch {
	case r.Estimator == "exact":
		return 0, true
	case (r.Estimator == "ais" || r.Estimator == "chi2") && r.LogZ != nil && r.LogZHi1 != nil:
		return math.Max(*r.LogZHi1-*r.LogZ, 0), true
	case r.LoglikSE != nil:
		return *r.LoglikSE, true
	}
	return 0, false
}

// CombinedError is σ = √(σ_a² + σ_b²) of the difference of the mean
// log-likelihoods of a and b (LoglikError; a row without one counts as 0).
func CombinedError(a, b *Row) float64 {
	ea, _ := LoglikError(a)
	eb, _ := LoglikError(b)
	return math.Hypot(ea, eb)
}

// cslNotMixed is in every warning CrossCheck gives; the sandwich table
// looks for it to flag the line.
const cslNotMixed = "its Gibbs chains have not mixed"

// nats formats a small positive difference with two decimals, or three
// below 0.005 (so it does not read "0.00 nats above").
func nats(d float64) string {
	if d < 0.005 {
		return fmt.Sprintf("%.3f", d)
	}
	return fmt.Sprintf("%.2f", d)
}

// Sigmas formats d/σ as "1.8σ" ("∞σ" when σ = 0).
func Sigmas(d, sigma float64) string {
	if sigma <= 0 {
		return "∞σ"
	}
	return fmt.Sprintf("%.1fσ", d/sigma)
}

// CrossCheck compares, within each evaluation (rows of the same experiment,
// stage, epoch and split), every CSL estimate of the mean log-likelihood
// with the exact, AIS and RAISE estimates next to it. CSL is a stochastic
// lower bound on log p(v) in expectation only when its hidden states are
// draws from the model's distribution; when its Gibbs chains have not mixed
// (too few chains, too short a burn-in) its states over-represent the modes
// near where the chains started, which are the modes of the data, and it
// can come out above the truth. So a CSL more than NoiseSigmas combined
// standard errors above exact, AIS or RAISE gets a warning that says so; a
// CSL above one of them within that tolerance gets a note ("within noise
// (1.8σ)"). Against RAISE — itself conservative only on average — the
// warning says that RAISE may be the one that is too low.
func CrossCheck(rows []Row) {
	type key struct {
		exp, stage string
		epoch      int
		split      string
	}
	groups := map[key][]int{}
	for i := range rows {
		r := &rows[i]
		if r.MeanLoglik == nil || r.Split == "" {
			continue
		}
		k := key{r.Experiment, r.Stage, r.Epoch, r.Split}
		groups[k] = append(groups[k], i)
	}
	for i := range rows {
		c := &rows[i]
		if c.Estimator != "csl" || c.MeanLoglik == nil || c.Split == "" {
			continue
		}
		var over, within []string
		onlyRAISE := true
		for _, j := range groups[key{c.Experiment, c.Stage, c.Epoch, c.Split}] {
			o := &rows[j]
			if o.Estimator != "exact" && o.Estimator != "ais" && o.Estimator != "raise" {
				continue
			}
			d := *c.MeanLoglik - *o.MeanLoglik
			if d <= 0 {
				continue
			}
			sigma := CombinedError(c, o)
			name := o.Estimator
			if o.Init != "" {
				name += " (" + o.Init + ")"
			}
			if d > NoiseSigmas*sigma {
				over = append(over, fmt.Sprintf("%.2f nats above %s (%s; %dσ = %.2f)", d, name, Sigmas(d, sigma), NoiseSigmas, NoiseSigmas*sigma))
				if o.Estimator != "raise" {
					onlyRAISE = false
				}
			} else {
				within = append(within, fmt.Sprintf("%s nats above %s, within noise (%s)", nats(d), name, Sigmas(d, sigma)))
			}
		}
		if len(over) > 0 {
			w := "CSL is " + strings.Join(over, ", ") +
				": CSL is conservative (a stochastic lower bound) in expectation only when its hidden states come from the model's distribution; " + cslNotMixed + ", so it overshoots and cannot be trusted — use more chains, steps or burn_in"
			if onlyRAISE {
				w += ", unless RAISE is the one far too low (then use more β)"
			}
			c.Warnings = append(c.Warnings, w)
		}
		if len(within) > 0 {
			c.Notes = append(c.Notes, "CSL is "+strings.Join(within, ", "))
		}
	}
}
