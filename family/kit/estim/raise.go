package estim

import (
	"fmt"
	"math"
	"time"

	"github.com/logz-ml/logz/data"
	"github.com/logz-ml/logz/eval"
	"github.com/logz-ml/logz/eval/report"
	"github.com/logz-ml/logz/family"
	"github.com/logz-ml/logz/family/kit/evalenv"
)

// RAISE is the settings of a RAISE estimator (Burda et al. 2015) run on a
// subsample of each split and extended to all of it by a control variate.
type RAISE struct {
	// Chains is the number M of reverse chains per example.
	Chains int `yaml:"chains" want:"a positive integer" flag:"chains"`
	Anneal `yaml:",inline"`
	// Examples is the number of examples of each split RAISE evaluates (a
	// random subsample; the control variate extends it to the whole
	// split); 0 = all.
	Examples int `yaml:"examples" want:"a non-negative integer (0 = all)" flag:"examples"`
	// ControlVariate is how the subsample mean is extended to the whole
	// split with X = log f(v): "alpha1" (Y − X, Burda et al. §4), "fit"
	// (α by least squares) or "none" (plain subsample mean).
	ControlVariate string `yaml:"control_variate" want:"alpha1, fit or none" flag:"control-variate"`
	// GapTolerance: warn when the AIS − RAISE gap of the same start exceeds
	// this many nats.
	GapTolerance float64 `yaml:"gap_tolerance" want:"a positive number (nats)"`
	// MinESSFraction: warn when the smallest per-example effective sample
	// size is below MinESSFraction × Chains.
	MinESSFraction float64 `yaml:"min_ess_fraction" want:"a number in [0,1]"`
	family.Seeded  `yaml:",inline"`
}

// DefaultRAISE is RAISE with 50 chains on 100 examples per split, the 2008
// schedule with 14,500 β from the data base rate, and α = 1.
func DefaultRAISE() RAISE {
	return RAISE{
		Chains: 50, Anneal: Anneal{Betas: 14500, Schedule: "2008", Init: "base-rate"}, Examples: 100,
		ControlVariate: "alpha1", GapTolerance: 1, MinESSFraction: 0.1,
	}
}

// Check reports bad settings.
func (r *RAISE) Check(p family.Problems) {
	p.Check("chains", r.Chains >= 1, "a positive integer", r.Chains)
	family.CheckMaxRuns(p, "chains", r.Chains)
	r.Anneal.Check(p)
	p.Check("schedule", r.Schedule != "pilot", "linear or 2008 (a pilot chooses the spacing from AIS runs' weights: give RAISE the spacing an ais entry's note names)", r.Schedule)
	family.CheckSweeps(p, "chains", r.Chains, r.Betas)
	p.Check("examples", r.Examples >= 0, "a non-negative integer (0 = all)", r.Examples)
	p.Enum("control_variate", r.ControlVariate, ControlVariates)
	p.Check("gap_tolerance", r.GapTolerance > 0, "a positive number (nats)", r.GapTolerance)
	p.Check("min_ess_fraction", r.MinESSFraction >= 0 && r.MinESSFraction <= 1, "a number in [0,1]", r.MinESSFraction)
	if r.Examples > 0 && r.Chains >= 1 && r.Chains <= family.MaxRuns && int64(r.Examples)*int64(r.Chains) > eval.MaxReverseChains {
		p.Crossf("", "examples", "examples × chains = %d × %d = %d reverse chains is more than the limit of %d (eval.MaxReverseChains); lower examples or chains", r.Examples, r.Chains, int64(r.Examples)*int64(r.Chains), eval.MaxReverseChains)
	}
	if r.ControlVariate == "fit" && r.Examples > 0 && r.Examples < 3 {
		p.Crossf("", "examples", "control_variate \"fit\" needs examples ≥ 3 to fit α, got %d", r.Examples)
	}
}

// GapTol is the AIS − RAISE gap above which the sandwich warns.
func (r *RAISE) GapTol() float64 { return r.GapTolerance }

// RAISERun runs a RAISE estimator on the examples x, reporting cumulative
// progress.
type RAISERun func(x data.Examples, progress func(done, total int64)) (eval.RAISEResult, error)

// LogFAll gives the control variate X = log f̂(v) of every example of split
// s, and says what it is made of for the row's note.
type LogFAll func(s evalenv.Split) (x []float64, proposals string, err error)

// RAISEBySubsample runs RAISE (run) on a random subsample of each split and
// extends its mean to the whole split with the control variate
// X = log f̂(v) that logF gives for every example of the split (called only
// when a subsample is extended; it also names the proposals in the row's
// note). Any fixed per-example X keeps the estimate unbiased; a better X
// only lowers its variance. label names the progress bar; steps is K.
func RAISEBySubsample(env *evalenv.Env, r *RAISE, base report.Row, label string, steps int, run RAISERun, logF LogFAll) ([]report.Row, error) {
	var rows []report.Row
	for _, s := range env.Splits {
		start := time.Now()
		idx, err := env.Sample(s, r.Examples)
		if err != nil {
			return rows, err
		}
		progress, done := env.Bar(fmt.Sprintf("%s epoch %d %s %s %d ex × %d × %d β", env.Experiment, env.Epoch, label, s.Name, len(idx), r.Chains, r.Betas), int64(len(idx))*int64(r.Chains)*int64(steps))
		res, err := run(evalenv.Subset{X: s.Data, Idx: idx}, progress)
		done()
		if err != nil {
			return rows, err
		}
		row := base.Clone()
		row.Split, row.Runs, row.Betas, row.Init = s.Name, r.Chains, r.Betas, r.Init
		row.Warnings = append(row.Warnings, res.Warnings...)
		if res.MinESS < r.MinESSFraction*float64(r.Chains) && len(res.Warnings) == 0 {
			row.Warnings = append(row.Warnings, fmt.Sprintf("RAISE: smallest per-example ESS %.1f of %d chains", res.MinESS, r.Chains))
		}
		cv := eval.CVResult{Estimate: res.Mean.Mean, SE: res.Mean.SE}
		switch {
		case len(idx) < s.Data.Len() && (r.ControlVariate == "none" || len(idx) < 2):
			// The mean is the subsample's own (n = k of N in the tables).
			row.SplitExamples = s.Data.Len()
			if r.ControlVariate != "none" {
				row.Notes = append(row.Notes, fmt.Sprintf("RAISE on %d of %d examples: too few for a control variate to extend the mean to the split, so it is the mean of that subsample alone", len(idx), s.Data.Len()))
			}
		case len(idx) < s.Data.Len():
			x, proposals, err := logF(s)
			if err != nil {
				return rows, err
			}
			if c, err := Extend(r.ControlVariate, res.LogP, idx, x); err == nil {
				cv = c
				row.Warnings = append(row.Warnings, c.Warnings...)
				row.Notes = append(row.Notes, fmt.Sprintf("RAISE on %d of %d examples, extended by the control variate log f̂(v) (IS, %s proposals; α = %.3g; variance reduced %.3g×)", len(idx), s.Data.Len(), proposals, cv.Alpha, cv.VarianceReduction))
			} else {
				row.Warnings = append(row.Warnings, "control variate: "+err.Error())
			}
		}
		if math.IsNaN(cv.SE) {
			cv.SE = res.Mean.SE
		}
		row.MeanLoglik, row.LoglikSE, row.NExamples = report.F(cv.Estimate), report.F(cv.SE), len(idx)
		row.Seconds = time.Since(start).Seconds()
		rows = append(rows, row)
	}
	return rows, nil
}

// PairSandwich brackets each split's log-likelihood between RAISE (below)
// and AIS (above) of the same start, on both rows, and adds the warnings of
// the sandwich: a gap above the tolerance, or RAISE above AIS by more than
// report.Tolerance (report.NoiseSigmas of their combined standard error, at
// least report.NoiseFloor: a reversed bracket, one of the two is wrong or
// not converged). A reversed bracket within that tolerance gets a note on
// both rows saying it is noise, with its size in σ (or, when σ is too small
// to measure the noise by, that it is within the floor). The tolerance is that of the last entry of ests with a GapTol method
// (1 nat if none). A family opts in by naming its rows "ais" (an estimate
// from above, with the AIS log Z fields) and "raise" (from below).
//
// It then cross-checks CSL against exact, AIS and RAISE (report.CrossCheck)
// and the AIS rows' log Ẑ against each other (report.CheckAISStarts), so
// every family whose Finish calls it gets these checks.
func PairSandwich(rows []report.Row, ests []family.Configured) {
	tol := 1.0
	for _, e := range ests {
		if g, ok := e.Settings.(interface{ GapTol() float64 }); ok {
			tol = g.GapTol()
		}
	}
	for i := range rows {
		r := &rows[i]
		if r.Estimator != "raise" || r.MeanLoglik == nil {
			continue
		}
		if r.Subsampled() && r.ControlVariate == "" {
			r.Notes = append(r.Notes, fmt.Sprintf("not paired with AIS: RAISE's mean is over %d of the split's %d examples, AIS's over all of them", r.NExamples, r.SplitExamples))
			continue
		}
		if j := report.AISPartner(rows, r); j >= 0 {
			a := &rows[j]
			lo, hi := *r.MeanLoglik, *a.MeanLoglik
			for _, x := range []*report.Row{r, a} {
				x.LoglikLo, x.LoglikHi = report.F(lo), report.F(hi)
			}
			gap := hi - lo
			// Error of the difference: RAISE's standard error and AIS's
			// log Z standard error (±σ̂ band).
			se := report.CombinedError(r, a)
			e := report.Judge(-gap, se, hi)
			switch {
			case gap > tol:
				w := fmt.Sprintf("AIS − RAISE gap %.2f nats (%s start) exceeds %.2g: neither number can be trusted to better than the gap", gap, r.Init, tol)
				r.Warnings = append(r.Warnings, w)
				a.Warnings = append(a.Warnings, w)
			case gap < 0 && e.Beyond:
				by, why := fmt.Sprintf("%.2f", -gap), fmt.Sprintf("%s > %dσ = %.2f", report.Sigmas(-gap, se), report.NoiseSigmas, report.NoiseSigmas*se)
				if e.Floor {
					by, why = e.Nats(), e.Why()
				}
				w := fmt.Sprintf("RAISE is above AIS by %s nats (%s, %s start): the bracket is reversed beyond noise, so one of the two is wrong or not converged — AIS's log Ẑ came out too high, or the annealed model RAISE measures beats the model itself (Burda et al. §5.1); use more β",
					by, why, r.Init)
				r.Warnings = append(r.Warnings, w)
				a.Warnings = append(a.Warnings, w)
			case gap < 0 && e.Floor:
				n := fmt.Sprintf("AIS − RAISE gap %.2f nats (%s start) is reversed but %s", gap, r.Init, e.Why())
				r.Notes = append(r.Notes, n)
				a.Notes = append(a.Notes, n)
			case gap < 0:
				n := fmt.Sprintf("AIS − RAISE gap %.2f nats (%s start) is reversed but within noise (%s; σ = %.2f, their combined standard error)", gap, r.Init, report.Sigmas(-gap, se), se)
				r.Notes = append(r.Notes, n)
				a.Notes = append(a.Notes, n)
			}
		}
	}
	report.CrossCheck(rows)
	report.CheckAISStarts(rows)
}

// FinishDeep brackets AIS and RAISE rows (PairSandwich), warns on a
// variational bound (dbn-bound, mf-bound) above the exact row of its
// evaluation beyond noise (report.CheckLowerBounds), and drops repeated
// warnings: the last step of a deep model's evaluation.
func FinishDeep(rows []report.Row, ests []family.Configured) []report.Row {
	PairSandwich(rows, ests)
	report.CheckLowerBounds(rows, func(r *report.Row) bool { return r.Estimator == "dbn-bound" || r.Estimator == "mf-bound" })
	for i := range rows {
		rows[i].Warnings = dedupe(rows[i].Warnings)
	}
	return rows
}

// dedupe drops repeated warnings, keeping the first occurrence of each.
func dedupe(ws []string) []string {
	seen := map[string]bool{}
	out := ws[:0]
	for _, w := range ws {
		if !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}
