package estim

import (
	"fmt"

	"github.com/logz-ml/logz/eval/report"
	"github.com/logz-ml/logz/family/kit/evalenv"
	"github.com/logz-ml/logz/internal/seeds"
)

// ControlX is the control variate with which a per-example estimator's
// mean over a random subsample is extended to its whole split: X, an
// estimate of log p(x) known for every example of the split, and a phrase
// naming it for the row ("exact log p(x)", "IS with …, 3 proposals per
// example").
type ControlX struct {
	X    []float64
	Name string
}

// ExactX names the control variate made of exact's per-example values.
const ExactX = "exact log p(x)"

// CheapDraws is the number of draws per example (proposals, β, …) of a
// cheap control variate X on all N examples of a split, for an estimator
// that spends budget draws on its subsample: a tenth of that budget spread
// over the N examples, between 1 and most — so that X costs at most about
// a tenth of the estimate it extends, or most draws per example.
func CheapDraws(budget int64, N, most int) int {
	if N < 1 {
		return 1
	}
	k := budget / (10 * int64(N))
	return int(max(1, min(int64(most), k)))
}

// CVSeed is the seed of the cheap control variate of kind on split sp of
// this evaluation: derived from the evaluation's seed, stage and epoch
// alone, so that every entry of the evaluation that needs the same X
// computes the same one.
func CVSeed(env *evalenv.Env, sp evalenv.Split, kind uint64) uint64 {
	stage := uint64(1)
	if env.Stage == report.StageFinal {
		stage = 2
	}
	return seeds.Derive(env.Seed, 0xc0, stage, uint64(env.Epoch), sp.Key(), kind)
}

// ExtendSubsample finishes the row of a per-example stochastic lower bound
// on log p(x) whose MeanLoglik, LoglikSE and NExamples already hold the
// plain mean of lp, its estimates on the examples idx of a split of N
// examples (issue 25: a subsample mean must never sit silently beside
// whole-split values).
//
//   - When exact's per-example values of the split are known (exact, nil
//     if not), it compares lp with exact on the same examples
//     (CompareExact: a note, and a warning when lp is above beyond noise).
//   - On the whole split (len(idx) = N) nothing else changes.
//   - On a subsample it records the split's size, the subsample's own mean
//     and exact's mean on it (SplitExamples, SubsampleMean, SubsampleSE,
//     ExactOnSubsample) and extends the mean to the whole split with the
//     control variate X (eval.ControlVariate, α = 1): exact where known,
//     else cheap() (nil: none). MeanLoglik and LoglikSE become that
//     estimate and its standard error and ControlVariate names X. Where
//     that is impossible (fewer than 2 examples, no X, non-finite values)
//     the row keeps the subsample's mean and says so, and the tables show
//     it as "n = k of N".
//
// In a shard (env.SkipUnshared) the row is discarded by the merge, which
// computes it again, so no control variate is computed there.
func ExtendSubsample(env *evalenv.Env, row *report.Row, lp []float64, idx []int, N int, exact []float64, cheap func() (ControlX, error)) error {
	var exMean *float64
	if exact != nil {
		m := CompareExact(row, exact, idx, lp)
		exMean = &m
	}
	n := len(idx)
	if n >= N {
		return nil
	}
	st := MeanOf(lp)
	row.SplitExamples = N
	row.SubsampleMean, row.SubsampleSE = report.F(st.Mean), report.F(st.SE)
	if exMean != nil {
		row.ExactOnSubsample = report.F(*exMean)
	}
	if env.SkipUnshared {
		return nil
	}
	if n < 2 {
		row.Notes = append(row.Notes, fmt.Sprintf("%s ran on %d of %d examples: too few for a control variate to extend the mean to the split, so it is the mean of that subsample alone", row.Estimator, n, N))
		return nil
	}
	x := ControlX{X: exact, Name: ExactX}
	if exact == nil {
		if cheap == nil {
			row.Notes = append(row.Notes, fmt.Sprintf("%s ran on %d of %d examples and no control variate is available to extend it: the mean is of that subsample alone", row.Estimator, n, N))
			return nil
		}
		var err error
		if x, err = cheap(); err != nil {
			return fmt.Errorf("control variate: %w", err)
		}
	}
	cv, err := Extend("alpha1", lp, idx, x.X)
	if err == nil && cv.VarianceReduction < 1 && n >= 3 {
		// X is too noisy for α = 1 (e.g. a one-chain AIS): Y − X varies
		// more than Y. The least-squares α cannot do worse than the plain
		// mean in-sample, so it is used instead.
		fit, ferr := Extend("fit", lp, idx, x.X)
		if ferr == nil {
			row.Notes = append(row.Notes, fmt.Sprintf("control variate: with α = 1 the variance grew (reduction %.3g < 1), so α is fitted by least squares", cv.VarianceReduction))
			cv = fit
		}
	}
	if err != nil {
		row.Warnings = append(row.Warnings, fmt.Sprintf("%v: the mean is of the %d examples evaluated, not of the split's %d", err, n, N))
		return nil
	}
	row.MeanLoglik, row.LoglikSE = report.F(cv.Estimate), report.F(cv.SE)
	row.ControlVariate = x.Name
	row.Warnings = append(row.Warnings, cv.Warnings...)
	row.Notes = append(row.Notes, fmt.Sprintf("%s on %d of %d examples (their mean %.3f ± %.3f), extended to all %d by the control variate X = %s: Ŷ = ȳ − α(x̄ − X̄), α = %.3g, variance reduced %.3g×",
		row.Estimator, n, N, st.Mean, st.SE, N, x.Name, cv.Alpha, cv.VarianceReduction))
	return nil
}

// Count is "1 proposal", "2 proposals": n and the word, plural unless n = 1.
func Count(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
