package report

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// CheckRows runs the checks every evaluation's rows pass through after the
// family has finished them (evalenv.Env.Run), whatever the family: a number
// that is not finite (CheckFinite), a mean over one example
// (CheckOneExample), and a bound on the wrong side of an exact value of the same
// evaluation (CheckAgainstExact). It is idempotent: a row already warned is
// not warned again.
func CheckRows(rows []Row) {
	CheckFinite(rows)
	CheckOneExample(rows)
	CheckAgainstExact(rows)
}

// notFinite is in every warning CheckFinite gives (it finds them again).
const notFinite = "is not a finite number"

// overflowCause is the likeliest cause of an estimate that is not finite.
const overflowCause = "the model's log-densities overflow or its importance weights are degenerate (check the parameters for Inf/NaN or huge values)"

// CheckFinite warns on every row whose estimate is not a finite number, so
// that it never shows as a silent "—". A field holding NaN or ±Inf (a row
// not built with F) is named with its value and set to null, so the row can
// still be written; an estimate that F turned into null where the row
// should have one — the mean log-likelihood of a split's row without a
// value (pll, recon), the log Z of a split-free row, the standard error of
// a mean over two or more examples (unless the row already says why it has
// none) — is named as NaN or ±Inf. The warning names the estimator and the
// likeliest cause.
func CheckFinite(rows []Row) {
	for i := range rows {
		r := &rows[i]
		if slices.ContainsFunc(r.Warnings, func(w string) bool { return strings.Contains(w, notFinite) }) {
			continue
		}
		var bad []string
		for _, f := range r.floatFields() {
			if f.p != nil && f.name != "seconds" && (math.IsNaN(*f.p) || math.IsInf(*f.p, 0)) {
				bad = append(bad, fmt.Sprintf("%s is %v", f.name, *f.p))
			}
		}
		for _, p := range []**float64{&r.LogZ, &r.LogZLo, &r.LogZHi, &r.LogZLo1, &r.LogZHi1, &r.MeanLoglik, &r.LoglikLo, &r.LoglikHi,
			&r.LoglikSE, &r.Value, &r.ExactLogZ, &r.LogZBracketLo, &r.LogZBracketHi, &r.ESS, &r.SubsampleMean, &r.SubsampleSE, &r.ExactOnSubsample} {
			if *p != nil && (math.IsNaN(**p) || math.IsInf(**p, 0)) {
				*p = nil
			}
		}
		switch {
		case len(bad) > 0:
			r.Warnings = append(r.Warnings, fmt.Sprintf("%s: %s %s (now null): %s", r.Estimator, strings.Join(bad, ", "), notFinite, overflowCause))
		case r.Split != "" && r.Estimator != "train" && r.MeanLoglik == nil && r.Value == nil:
			r.Warnings = append(r.Warnings, fmt.Sprintf("%s: the mean log-likelihood %s (NaN or ±Inf; shown as —): %s", r.Estimator, notFinite, overflowCause))
		case r.Split != "" && r.MeanLoglik != nil && r.LoglikSE == nil && r.NExamples >= 2 && r.Estimator != "reference" && !saysNoError(r):
			r.Warnings = append(r.Warnings, fmt.Sprintf("%s: the standard error of the mean log-likelihood %s (NaN or ±Inf), so the mean %.4g has no error bar and cannot be trusted: %s", r.Estimator, notFinite, *r.MeanLoglik, overflowCause))
		case r.Split == "" && r.LogZ == nil && r.MeanLoglik == nil && r.Value == nil:
			r.Warnings = append(r.Warnings, fmt.Sprintf("%s: log Z %s (NaN or ±Inf; shown as —): %s", r.Estimator, notFinite, overflowCause))
		}
	}
}

// saysNoError reports whether r already warns why it has no standard error
// (a single AIS run, one draw from Q per example), another cause than
// overflow.
func saysNoError(r *Row) bool {
	return slices.ContainsFunc(r.Warnings, func(w string) bool {
		return strings.Contains(w, "no standard error") || strings.Contains(w, "no error bar") || strings.Contains(w, "Monte Carlo error")
	})
}

// oneExample is in the warning CheckOneExample gives.
const oneExample = "on 1 example"

// CheckOneExample warns on every row of an estimator with estimation noise
// (anything but exact, and AIS or χ² through a log Ẑ, whose error is in
// log Ẑ) whose mean log-likelihood is over one example: it is that
// example's estimate, with no standard error (one value has no spread to
// measure the estimator's noise by; a loglik_se is dropped, never shown as
// 0), and the tables show it as "n = 1".
func CheckOneExample(rows []Row) {
	for i := range rows {
		r := &rows[i]
		if r.NExamples != 1 || r.MeanLoglik == nil || r.Split == "" || r.Estimator == "exact" || r.Estimator == "reference" {
			continue
		}
		if (r.Estimator == "ais" || r.Estimator == "chi2") && r.LogZ != nil {
			continue
		}
		r.LoglikSE = nil
		if slices.ContainsFunc(r.Warnings, func(w string) bool { return strings.Contains(w, oneExample) }) {
			continue
		}
		of := ""
		if r.Subsampled() {
			of = fmt.Sprintf(" of the split's %d, so it is not the split's mean and not comparable with whole-split rows", r.SplitExamples)
		}
		r.Warnings = append(r.Warnings, fmt.Sprintf("%s ran %s (n = 1)%s: the number is that example's estimate, with no standard error (one value has no spread to measure the estimator's noise by); evaluate more examples", r.Estimator, oneExample, of))
	}
}

// ViolatesExact reports whether r carries a warning that it lies on the
// wrong side of an exact value of its evaluation beyond noise (above exact:
// a lower bound on log p, or AIS's log Ẑ above the exact log Z), from
// CheckAgainstExact, CheckLowerBounds or a family's own comparison.
func ViolatesExact(r *Row) bool {
	return slices.ContainsFunc(r.Warnings, func(w string) bool {
		return strings.Contains(w, "above exact") || strings.Contains(w, "above the exact")
	})
}

// reversedBeyondNoise is in the warning estim.PairSandwich gives on a pair
// whose RAISE lies above its AIS beyond noise.
const reversedBeyondNoise = "the bracket is reversed beyond noise"

// NoBracketNote begins the note on both rows of a RAISE/AIS pair one of
// which lies beyond noise on the wrong side of exact: the tables and
// figures do not show the pair as a bracket.
const NoBracketNote = "no bracket "

// BracketBroken says why the RAISE/AIS pair that row r belongs to brackets
// nothing, or "" if it is a bracket (or r belongs to no pair): "reversed"
// (RAISE above AIS beyond noise, estim.PairSandwich's warning) or "no
// bracket" (a member beyond noise on the wrong side of exact).
func BracketBroken(r *Row) string {
	switch {
	case slices.ContainsFunc(r.Warnings, func(w string) bool { return strings.Contains(w, reversedBeyondNoise) }):
		return "reversed"
	case (r.Estimator == "raise" || r.Estimator == "ais") && r.LoglikLo != nil && ViolatesExact(r),
		slices.ContainsFunc(r.Notes, func(n string) bool {
			return strings.HasPrefix(n, NoBracketNote) || strings.HasPrefix(n, "exact settles the reversed bracket")
		}):
		return "no bracket"
	}
	return ""
}

// sandwichClosed begins the note of a sandwich round whose bracket closed
// (kit's runSandwich).
const sandwichClosed = "sandwich: the bracket closed at K"

// CheckAgainstExact compares, within each evaluation (rows of the same
// experiment, stage and epoch), every bound with the exact row next to it,
// whatever the family:
//
//   - RAISE, a stochastic lower bound on log p(v), must not lie above exact's
//     mean log-likelihood of its split by more than Tolerance (NoiseSigmas
//     of its standard error, at least NoiseFloor), when the two cover the
//     same examples (the whole split, or a subsample extended to it by a
//     control variate); beyond it the annealed model RAISE measures beats
//     the model itself at that K (Burda et al. 2015, §5.1).
//   - AIS's log Ẑ, a stochastic lower bound on log Z, must not lie above
//     exact's log Z by more than NoiseSigmas errors of log Ẑ; beyond it the
//     estimate or its error bar is wrong, and its log-probabilities are
//     that much too low.
//
// The warning names the culprit and its distance from exact, and both rows
// of its RAISE/AIS pair get a note: which of the two exact shows to be
// wrong when the pair is reversed beyond noise, else that the pair is no
// bracket (NoBracketNote). A sandwich round that reported its bracket
// closed while a member violates exact loses that note for a warning
// (exact listed after the sandwich). Rows
// already warned (ViolatesExact, or compared example by example: a note
// beginning with ExactSameNote) are left alone.
func CheckAgainstExact(rows []Row) {
	type key struct {
		exp, stage string
		epoch      int
	}
	type skey struct {
		key
		split string
	}
	exactZ := map[key]float64{}
	exactMean := map[skey]*Row{}
	for i := range rows {
		e := &rows[i]
		if e.Estimator != "exact" {
			continue
		}
		k := key{e.Experiment, e.Stage, e.Epoch}
		if e.LogZ != nil {
			exactZ[k] = *e.LogZ
		}
		if e.Split != "" && e.MeanLoglik != nil && !e.Subsampled() {
			exactMean[skey{k, e.Split}] = e
		}
	}
	type round struct {
		skey
		round int
	}
	violated := map[round]string{}
	for i := range rows {
		r := &rows[i]
		k := key{r.Experiment, r.Stage, r.Epoch}
		if ViolatesExact(r) {
			if r.Estimator == "raise" || r.Estimator == "ais" {
				violated[round{skey{k, r.Split}, r.Round}] = strings.ToUpper(r.Estimator)
			}
			continue
		}
		if slices.ContainsFunc(r.Notes, func(n string) bool { return strings.HasPrefix(n, ExactSameNote) }) {
			continue
		}
		switch {
		case r.Estimator == "raise" && r.MeanLoglik != nil && r.Split != "":
			e, ok := exactMean[skey{k, r.Split}]
			if !ok {
				continue
			}
			exact := *e.MeanLoglik
			switch {
			case r.NExamples == e.NExamples && !r.Subsampled():
			case r.ControlVariate != "" || slices.ContainsFunc(r.Notes, func(n string) bool { return strings.Contains(n, "extended by the control variate") }):
			case r.Subsampled() && r.ExactOnSubsample != nil:
				exact = *r.ExactOnSubsample
			default:
				continue // a subsample's own mean: other examples than exact's
			}
			d := *r.MeanLoglik - exact
			sigma, _ := LoglikError(r)
			x := Judge(d, sigma, exact)
			if d <= 0 || !x.Beyond {
				continue
			}
			at := ""
			if r.Betas > 0 {
				at = fmt.Sprintf(" at K = %d", r.Betas)
			}
			start := ""
			if r.Init != "" {
				start = " (" + r.Init + " start)"
			}
			r.Warnings = append(r.Warnings, fmt.Sprintf("RAISE is %s nats above exact (%s; %s): RAISE is a stochastic lower bound on log p(v), so its annealed model beats the model itself%s%s; raise K (more β)",
				x.Nats(), num2(exact), x.Why(), at, start))
			violated[round{skey{k, r.Split}, r.Round}] = "RAISE"
		case r.Estimator == "ais" && r.LogZ != nil:
			z, ok := exactZ[k]
			if !ok {
				continue
			}
			d := *r.LogZ - z
			sigma, _ := LoglikError(r)
			x := Judge(d, sigma, z)
			if d <= 0 || !x.Beyond {
				continue
			}
			r.Warnings = append(r.Warnings, fmt.Sprintf("AIS's log Ẑ %.3f is %s nats above the exact log Z %.3f (%s): log Ẑ is a stochastic lower bound on log Z, so this AIS (%s) came out too high and its log-probabilities are that much too low — its weights' heavy tail is not in its error bar; use more runs or β",
				*r.LogZ, x.Nats(), z, x.Why(), aisName(r)))
			violated[round{skey{k, r.Split}, r.Round}] = "AIS"
		}
	}
	// A bracket reversed beyond noise says only that one of the pair is
	// wrong; exact says which. A pair with a member beyond noise on the
	// wrong side of exact is no bracket either.
	for i := range rows {
		r := &rows[i]
		if r.Estimator != "raise" || r.MeanLoglik == nil {
			continue
		}
		j := AISPartner(rows, r)
		if j < 0 {
			continue
		}
		a := &rows[j]
		var n string
		reversed := slices.ContainsFunc(r.Warnings, func(w string) bool { return strings.Contains(w, reversedBeyondNoise) })
		switch rv, av := ViolatesExact(r), ViolatesExact(a); {
		case reversed && rv && !av:
			n = fmt.Sprintf("exact settles the reversed bracket (%s start): RAISE is the one above the truth (its warning says by how much); AIS is not above exact beyond noise", r.Init)
		case reversed && av && !rv:
			n = fmt.Sprintf("exact settles the reversed bracket (%s start): AIS's log Ẑ is the one above the exact log Z (its warning says by how much), so its log-probabilities are too low; RAISE is not above exact beyond noise", r.Init)
		case rv || av:
			who := "RAISE"
			if !rv {
				who = "AIS's log Ẑ"
			}
			n = fmt.Sprintf("%s(%s start): %s lies beyond noise on the wrong side of exact, so RAISE and AIS need not hold the truth between them (see its warning)", NoBracketNote, r.Init, who)
		default:
			continue
		}
		for _, x := range []*Row{r, a} {
			if !slices.Contains(x.Notes, n) {
				x.Notes = append(x.Notes, n)
			}
		}
	}
	// A sandwich round cannot have closed on a member that violates exact.
	for i := range rows {
		r := &rows[i]
		if r.Round == 0 {
			continue
		}
		who, ok := violated[round{skey{key{r.Experiment, r.Stage, r.Epoch}, r.Split}, r.Round}]
		if !ok {
			continue
		}
		at := slices.IndexFunc(r.Notes, func(n string) bool { return strings.HasPrefix(n, sandwichClosed) })
		if at < 0 {
			continue
		}
		note := r.Notes[at]
		r.Notes = slices.Delete(slices.Clone(r.Notes), at, at+1)
		r.Warnings = append(r.Warnings, fmt.Sprintf("sandwich: not closed — %s lies beyond noise on the wrong side of the exact value of this evaluation (see its warning), so the gap alone does not close the bracket (%s)",
			who, strings.TrimPrefix(note, "sandwich: ")))
	}
}
