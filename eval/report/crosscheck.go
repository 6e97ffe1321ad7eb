package report

import (
	"fmt"
	"math"
	"slices"
	"strconv"
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

// NoiseFloor is the smallest difference, in nats, between two estimates of
// one mean log-likelihood that a cross-check calls beyond noise, whatever
// their σ: the tables' resolution (two decimals). A standard error over
// examples is zero or tiny when the examples have no spread — one example,
// or examples that are all alike (all-ones data) — and then says nothing
// about the noise of a difference: k·σ would call any rounding error a
// contradiction of "∞σ".
const NoiseFloor = 0.01

// Tolerance is the difference beyond which two estimates of a mean
// log-likelihood near value contradict each other: NoiseSigmas·σ, but at
// least NoiseFloor and 1e-6·(1 + |value|) (the rounding of large values).
// A NaN or negative σ counts as 0.
func Tolerance(sigma, value float64) float64 {
	if !(sigma > 0) {
		sigma = 0
	}
	floor := NoiseFloor
	if !math.IsNaN(value) && !math.IsInf(value, 0) {
		floor = math.Max(floor, 1e-6*(1+math.Abs(value)))
	}
	return math.Max(NoiseSigmas*sigma, floor)
}

// NoSpread is the standard error, in nats, below which σ counts as no
// spread at all (one example; examples all alike, whose σ is rounding
// error): a message then says so instead of giving d/σ, which would read
// "∞σ" or "5446268971.9σ".
const NoSpread = 1e-6

// Excess is the verdict on a difference d ≥ 0 between two estimates in the
// direction the mathematics forbids (Judge).
type Excess struct {
	// Beyond is d > Tol.
	Beyond bool
	// D, Sigma and Tol are the difference, the combined standard error and
	// the tolerance (Tolerance).
	D, Sigma, Tol float64
	// Floor says the verdict is the floor's, not σ's, and a message should
	// say so: σ is no spread (below NoSpread), or d lies within the floor
	// but beyond NoiseSigmas·σ.
	Floor bool
}

// Judge compares d with Tolerance(sigma, value).
func Judge(d, sigma, value float64) Excess {
	if !(sigma > 0) {
		sigma = 0
	}
	tol := Tolerance(sigma, value)
	e := Excess{Beyond: d > tol, D: d, Sigma: sigma, Tol: tol}
	e.Floor = sigma < NoSpread || (!e.Beyond && d > NoiseSigmas*sigma)
	return e
}

// Spread says what σ is when the floor gives the verdict: "σ = 0: no
// spread to measure the noise by", "σ = 2.1e-10: almost no spread to
// measure the noise by", or (a real σ whose 3σ is below the floor) "σ =
// 0.0023".
func (e Excess) Spread() string {
	switch {
	case e.Sigma == 0:
		return "σ = 0: no spread to measure the noise by"
	case e.Sigma < NoSpread:
		return fmt.Sprintf("σ = %.2g: almost no spread to measure the noise by", e.Sigma)
	}
	return fmt.Sprintf("σ = %.2g", e.Sigma)
}

// Why is the parenthesis of a message about the difference: beyond the
// tolerance "1.8σ; 3σ = 0.15", or "more than the 0.01-nat floor; σ = 0: no
// spread …" when σ is no spread; within it "1.8σ", or "within the
// 0.01-nat floor; σ = 0: …" when the floor, not σ, makes it noise.
func (e Excess) Why() string {
	switch {
	case !e.Floor && e.Beyond:
		return fmt.Sprintf("%s; %dσ = %.2f", Sigmas(e.D, e.Sigma), NoiseSigmas, NoiseSigmas*e.Sigma)
	case !e.Floor:
		return Sigmas(e.D, e.Sigma)
	case e.Beyond:
		return fmt.Sprintf("more than the %s-nat floor; %s", floorText(e.Tol), e.Spread())
	}
	return fmt.Sprintf("within the %s-nat floor; %s", floorText(e.Tol), e.Spread())
}

// Nats formats the difference for a message: two decimals (three below
// 0.005, see nats), or three significant digits when the floor is the
// tolerance (so that 0.0102 does not read "0.01 nats, more than the
// 0.01-nat floor"), "less than 0.001" below that.
func (e Excess) Nats() string {
	switch {
	case !e.Floor:
		return nats(e.D)
	case e.D < 0.001:
		return "less than 0.001"
	}
	return strconv.FormatFloat(e.D, 'g', 3, 64)
}

// floorText formats a tolerance that is a floor: "0.01", or more digits
// for the relative floor of large values.
func floorText(t float64) string {
	return strconv.FormatFloat(t, 'g', 3, 64)
}

// Sigmas formats d/σ as "1.8σ"; for σ = 0 (or NaN) it says there is no
// spread ("σ = 0, no spread") instead of "∞σ".
func Sigmas(d, sigma float64) string {
	if !(sigma > 0) {
		return "σ = 0, no spread"
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
// can come out above the truth. So a CSL above exact, AIS or RAISE by more
// than Tolerance (NoiseSigmas combined standard errors, at least
// NoiseFloor) gets a warning that says so; a CSL above one of them within
// that tolerance gets a note ("within noise (1.8σ)", or "within the
// 0.01-nat floor; σ = 0: no spread …" when σ cannot measure the noise). Against RAISE — itself conservative only on average — the
// warning says that RAISE may be the one that is too low. A subsample's
// own mean (SplitExamples set, no control variate) covers other examples
// than the rest and is compared with nothing.
func CrossCheck(rows []Row) {
	type key struct {
		exp, stage string
		epoch      int
		split      string
	}
	groups := map[key][]int{}
	for i := range rows {
		r := &rows[i]
		if r.MeanLoglik == nil || r.Split == "" || r.Subsampled() && r.ControlVariate == "" {
			continue // a subsample's own mean is over other examples
		}
		k := key{r.Experiment, r.Stage, r.Epoch, r.Split}
		groups[k] = append(groups[k], i)
	}
	for i := range rows {
		c := &rows[i]
		if c.Estimator != "csl" || c.MeanLoglik == nil || c.Split == "" || c.Subsampled() && c.ControlVariate == "" {
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
			e := Judge(d, CombinedError(c, o), *o.MeanLoglik)
			name := o.Estimator
			if o.Init != "" {
				name += " (" + o.Init + ")"
			}
			switch {
			case e.Beyond:
				over = append(over, fmt.Sprintf("%s nats above %s (%s)", e.Nats(), name, e.Why()))
				if o.Estimator != "raise" {
					onlyRAISE = false
				}
			case e.Floor:
				within = append(within, fmt.Sprintf("%s nats above %s, %s", e.Nats(), name, e.Why()))
			default:
				within = append(within, fmt.Sprintf("%s nats above %s, within noise (%s)", nats(d), name, e.Why()))
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

// ExactSameNote begins the note of a row that was compared with exact
// example by example on the same examples (estim.CompareExact);
// CheckLowerBounds leaves such rows to that sharper check.
const ExactSameNote = "exact on the same "

// CheckLowerBounds warns on every row that lower says is a stochastic lower
// bound on the mean log-likelihood (is, elbo, an SBN's per-example ais, a
// variational bound) whose mean lies above the exact row of the same
// evaluation and split by more than Tolerance, when the two cover the same
// examples: both the whole split, or the row a subsample extended to the
// whole split by a control variate (its loglik_se then the error of that
// estimate). σ is the row's LoglikError — for a whole-split row the spread
// over examples, which overstates the error of the comparison, so the check
// errs towards silence. Rows compared with exact example by example (a
// note beginning with ExactSameNote) or already warned about lying above
// exact are left to that sharper check, and a
// subsample's own mean is never compared with a whole-split value (the
// tables show it as "n = k of N").
func CheckLowerBounds(rows []Row, lower func(*Row) bool) {
	for i := range rows {
		r := &rows[i]
		if r.MeanLoglik == nil || r.Split == "" || r.Estimator == "exact" || !lower(r) {
			continue
		}
		if slices.ContainsFunc(r.Notes, func(n string) bool { return strings.HasPrefix(n, ExactSameNote) }) ||
			slices.ContainsFunc(r.Warnings, func(w string) bool {
				return strings.Contains(w, "above exact") || strings.Contains(w, "above the exact")
			}) {
			continue
		}
		covers := r.NExamples
		if r.Subsampled() {
			if r.ControlVariate == "" {
				continue
			}
			covers = r.SplitExamples
		}
		for j := range rows {
			e := &rows[j]
			if e.Estimator != "exact" || e.MeanLoglik == nil || e.Experiment != r.Experiment || e.Stage != r.Stage ||
				e.Epoch != r.Epoch || e.Split != r.Split || e.NExamples != covers || e.Subsampled() {
				continue
			}
			d := *r.MeanLoglik - *e.MeanLoglik
			sigma, _ := LoglikError(r)
			if x := Judge(d, sigma, *e.MeanLoglik); d > 0 && x.Beyond {
				r.Warnings = append(r.Warnings, fmt.Sprintf("%s is %s nats above exact (%s): a lower bound on the log-likelihood should not be; the estimate or its error is wrong", r.Estimator, x.Nats(), x.Why()))
			}
			break
		}
	}
}

// CheckAISStarts compares, within each evaluation (rows of the same
// experiment, stage, epoch, split and sandwich round), the log Ẑ of every
// AIS row with the largest log Ẑ among them. Each AIS estimate of one
// model's log Z — whatever its start or number of β — is a stochastic lower
// bound (E[log Ẑ] ≤ log Z), so one that lies below another by more than
// Tolerance (NoiseSigmas combined errors of log Ẑ, at least NoiseFloor) is
// short by at least that much, and its log-probabilities are that much too
// high: the row gets a warning that names the other estimate. Burda,
// Grosse & Salakhutdinov (2015, Table 1) report AIS from a uniform start 18
// nats above AIS from the data base rates on one MNIST RBM, with a small
// ESS as its only other sign.
// Rows without a log Ẑ (per-example AIS of directed nets) are left alone;
// split-free rows (an evaluation of log Z alone) form their own group, and
// a sandwich's rounds are compared only within a round.
func CheckAISStarts(rows []Row) {
	type key struct {
		exp, stage   string
		epoch, round int
		split        string
	}
	best := map[key]int{}
	for i := range rows {
		r := &rows[i]
		if r.Estimator != "ais" || r.LogZ == nil {
			continue
		}
		k := key{r.Experiment, r.Stage, r.Epoch, r.Round, r.Split}
		if j, ok := best[k]; !ok || *r.LogZ > *rows[j].LogZ {
			best[k] = i
		}
	}
	for i := range rows {
		r := &rows[i]
		if r.Estimator != "ais" || r.LogZ == nil {
			continue
		}
		j := best[key{r.Experiment, r.Stage, r.Epoch, r.Round, r.Split}]
		if j == i {
			continue
		}
		b := &rows[j]
		d := *b.LogZ - *r.LogZ
		e := Judge(d, CombinedError(r, b), *r.LogZ)
		if !e.Beyond {
			continue
		}
		r.Warnings = append(r.Warnings, fmt.Sprintf("another AIS of this model (%s) reached a log Ẑ %s nats higher (%s): every AIS log Ẑ is a stochastic lower bound on log Z, so this one is at least that far short and its log-probabilities that much too high; trust the larger log Ẑ, or anneal this start with more β",
			aisName(b), e.Nats(), e.Why()))
	}
}

// aisName names an AIS row by its start, number of β and runs:
// "base-rate start, 10000 β, 1000 runs".
func aisName(r *Row) string {
	var parts []string
	if r.Init != "" {
		parts = append(parts, r.Init+" start")
	}
	if r.Betas > 0 {
		parts = append(parts, fmt.Sprintf("%d β", r.Betas))
	}
	if r.Runs > 0 {
		parts = append(parts, fmt.Sprintf("%d runs", r.Runs))
	}
	if len(parts) == 0 {
		return "ais"
	}
	return strings.Join(parts, ", ")
}
