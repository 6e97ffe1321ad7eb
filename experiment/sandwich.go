package experiment

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sync/atomic"
	"time"

	"github.com/logz-ml/logz/config"
	"github.com/logz-ml/logz/eval"
	"github.com/logz-ml/logz/eval/report"
	"github.com/logz-ml/logz/models"
)

// subset is a view of some examples of a split.
type subset struct {
	x   eval.Examples
	idx []int
}

func (s subset) Len() int          { return len(s.idx) }
func (s subset) Row(n int) []uint8 { return s.x.Row(s.idx[n]) }

// sample draws the examples RAISE and CSL evaluate on a split: n of them,
// uniformly without replacement, from a generator that depends only on the
// evaluation seed and the split's position — so RAISE and CSL of one
// evaluation see the same examples. n = 0 or n ≥ N means all, in order.
func (ev Evaluation) sample(split int, x eval.Examples, n int) ([]int, error) {
	N := x.Len()
	if n <= 0 || n >= N {
		idx := make([]int, N)
		for i := range idx {
			idx[i] = i
		}
		return idx, nil
	}
	rng := rand.New(rand.NewPCG(config.DeriveSeed(ev.Seed, 7, uint64(ev.Epoch), uint64(split)), 0))
	return eval.SampleIndices(N, n, rng)
}

// logUnnormAll returns log f(v) = −F(v) for every example: the control
// variate X, cheap for all N.
func logUnnormAll(m *models.RBM, x eval.Examples) []float64 {
	v := make([]float64, m.NVis)
	scratch := make([]float64, m.NHid)
	out := make([]float64, x.Len())
	for n := range out {
		for i, b := range x.Row(n) {
			v[i] = float64(b)
		}
		out[n] = m.LogUnnorm(v, scratch)
	}
	return out
}

// extend turns per-example estimates Y on the sampled examples into an
// estimate of the split's mean with the control variate X = log f(v).
func extend(mode string, y []float64, idx []int, xAll []float64) (eval.CVResult, error) {
	xs := make([]float64, len(idx))
	for k, i := range idx {
		xs[k] = xAll[i]
	}
	if len(idx) == len(xAll) || mode == "none" || len(idx) < 2 {
		// The whole split, or no control variate: the plain mean.
		var s, s2 float64
		for _, v := range y {
			s += v
			s2 += v * v
		}
		st := meanOf(s, s2, len(y))
		return eval.CVResult{Estimate: st.Mean, SE: st.SE, Alpha: 0, PlainMean: st.Mean, PlainSE: st.SE, VarianceReduction: 1, N: len(xAll), NSample: len(idx)}, nil
	}
	return eval.ControlVariate{Fit: mode == "fit"}.Estimate(y, xs, xAll)
}

func meanOf(s, s2 float64, n int) eval.MeanStat {
	mean := s / float64(n)
	se := math.NaN()
	if n > 1 {
		se = math.Sqrt(math.Max(s2-float64(n)*mean*mean, 0) / float64(n-1) / float64(n))
	}
	return eval.MeanStat{Mean: mean, SE: se, N: n}
}

// matchedSteps is CSL's default chain length: the Gibbs steps RAISE spends
// per example (chains × betas) or else AIS's (runs × betas), divided among
// the CSL chains (Burda et al. 2015, footnote 4).
func matchedSteps(e config.Estimator, all []config.Estimator) int {
	budget := 0
	for _, o := range all {
		if o.Name == "raise" {
			budget = o.Chains * o.Betas
			break
		}
	}
	if budget == 0 {
		for _, o := range all {
			if o.Name == "ais" {
				budget = o.Runs * o.Betas
				break
			}
		}
	}
	if budget == 0 {
		return 1000
	}
	return max(1, budget/e.Chains)
}

func (ev Evaluation) raise(m *models.RBM, e config.Estimator, seed uint64, base report.Row) ([]report.Row, error) {
	betas, err := Schedule(e)
	if err != nil {
		return nil, err
	}
	r := eval.RAISE{Chains: e.Chains, Betas: betas, Seed: seed}
	if e.Init == "base-rate" {
		if len(ev.BaseRate) != m.NVis {
			return nil, fmt.Errorf("base-rate start needs the training data's log-odds")
		}
		r.BaseVBias = ev.BaseRate
	}
	var rows []report.Row
	for si, s := range ev.Splits {
		start := time.Now()
		idx, err := ev.sample(si, s.Data, e.Examples)
		if err != nil {
			return rows, err
		}
		var done func()
		r.Progress, done = ev.bar(fmt.Sprintf("%s epoch %d RAISE %s %d ex × %d chains × %d β", ev.Experiment, ev.Epoch, s.Name, len(idx), e.Chains, e.Betas), int64(len(idx))*int64(e.Chains)*int64(len(betas)-1))
		res, err := r.LogProb(m, subset{s.Data, idx})
		done()
		if err != nil {
			return rows, err
		}
		rows = append(rows, ev.raiseRow(base, e, s, idx, res, m, start)...)
	}
	return rows, nil
}

func (ev Evaluation) raiseRow(base report.Row, e config.Estimator, s Split, idx []int, res eval.RAISEResult, m *models.RBM, start time.Time) []report.Row {
	row := base
	row.Split, row.Runs, row.Betas, row.Init = s.Name, e.Chains, e.Betas, e.Init
	cv, err := extend(e.ControlVariate, res.LogP, idx, logUnnormAll(m, s.Data))
	warn := append([]string(nil), res.Warnings...)
	if err != nil {
		warn = append(warn, "control variate: "+err.Error())
		cv.Estimate, cv.SE = res.Mean.Mean, res.Mean.SE
	}
	warn = append(warn, cv.Warnings...)
	if len(idx) < s.Data.Len() {
		note := fmt.Sprintf("RAISE on %d of %d examples", len(idx), s.Data.Len())
		if e.ControlVariate != "none" {
			note += fmt.Sprintf(", extended by the control variate log f(v) (α = %.3g; variance reduced %.3g×)", cv.Alpha, cv.VarianceReduction)
		}
		row.Notes = append(row.Notes, note)
	}
	if res.MinESS < e.MinESSFraction*float64(e.Chains) && len(res.Warnings) == 0 {
		warn = append(warn, fmt.Sprintf("RAISE: smallest per-example ESS %.1f of %d chains", res.MinESS, e.Chains))
	}
	row.MeanLoglik = report.F(cv.Estimate)
	row.LoglikSE = report.F(cv.SE)
	row.NExamples = len(idx)
	row.Warnings = warn
	row.Seconds = time.Since(start).Seconds()
	return []report.Row{row}
}

func (ev Evaluation) csl(m *models.RBM, e config.Estimator, all []config.Estimator, seed uint64, base report.Row) ([]report.Row, error) {
	steps := e.Steps
	if steps == 0 {
		steps = matchedSteps(e, all)
	}
	c := eval.CSL{Chains: e.Chains, Steps: steps, BurnIn: e.BurnIn, Init: e.Init, Seed: seed}
	if e.Init == "base-rate" {
		c.BaseVBias = ev.BaseRate
	}
	var rows []report.Row
	for si, s := range ev.Splits {
		start := time.Now()
		idx, err := ev.sample(si, s.Data, e.Examples)
		if err != nil {
			return rows, err
		}
		var done func()
		c.Progress, done = ev.bar(fmt.Sprintf("%s epoch %d CSL %s %d chains × %d steps", ev.Experiment, ev.Epoch, s.Name, e.Chains, steps), int64(e.Chains)*int64(steps+e.BurnIn))
		res, err := c.Estimate(m, subset{s.Data, idx})
		done()
		if err != nil {
			return rows, err
		}
		cv, err := extend("alpha1", res.LogP, idx, logUnnormAll(m, s.Data))
		row := base
		row.Split, row.Runs, row.Betas, row.Init = s.Name, e.Chains, 0, e.Init
		row.Warnings = append(row.Warnings, res.Warnings...)
		if err != nil {
			row.Warnings = append(row.Warnings, "control variate: "+err.Error())
			cv.Estimate, cv.SE = res.Mean.Mean, res.Mean.SE
		}
		row.Notes = append(row.Notes, fmt.Sprintf("CSL from %d hidden states (%d chains × %d steps, burn-in %d) on %d of %d examples, extended by the control variate log f(v) (variance reduced %.3g×)", res.Samples, e.Chains, steps, e.BurnIn, len(idx), s.Data.Len(), cv.VarianceReduction))
		row.MeanLoglik, row.LoglikSE = report.F(cv.Estimate), report.F(cv.SE)
		row.NExamples = len(idx)
		row.Seconds = time.Since(start).Seconds()
		rows = append(rows, row)
	}
	return rows, nil
}

// pairSandwich brackets each split's log-likelihood between RAISE (below)
// and AIS (above) of the same start, on both rows, and adds the warnings of
// the sandwich: a gap above the tolerance, RAISE above AIS by more than
// their errors (the annealed model beating the model itself, Burda et al.
// §5.1).
func pairSandwich(rows []report.Row, ests []config.Estimator) {
	tol := 1.0
	for _, e := range ests {
		if e.Name == "raise" {
			tol = e.GapTolerance
		}
	}
	for i := range rows {
		r := &rows[i]
		if r.Estimator != "raise" || r.MeanLoglik == nil {
			continue
		}
		for j := range rows {
			a := &rows[j]
			if a.Estimator != "ais" || a.Split != r.Split || a.Init != r.Init || a.MeanLoglik == nil {
				continue
			}
			lo, hi := *r.MeanLoglik, *a.MeanLoglik
			for _, x := range []*report.Row{r, a} {
				x.LoglikLo, x.LoglikHi = report.F(lo), report.F(hi)
			}
			gap := hi - lo
			// Error of the difference: RAISE's standard error and AIS's
			// log Z standard error (±σ̂ band).
			se := 0.0
			if r.LoglikSE != nil {
				se = *r.LoglikSE
			}
			if a.LogZHi1 != nil && a.LogZ != nil {
				d := *a.LogZHi1 - *a.LogZ
				se = math.Sqrt(se*se + d*d)
			}
			switch {
			case gap > tol:
				w := fmt.Sprintf("AIS − RAISE gap %.2f nats (%s start) exceeds %.2g: neither number can be trusted to better than the gap", gap, r.Init, tol)
				r.Warnings = append(r.Warnings, w)
				a.Warnings = append(a.Warnings, w)
			case gap < -3*se:
				w := fmt.Sprintf("RAISE is above AIS by %.2f nats (> 3σ = %.2f, %s start): the annealed model beats the model itself (Burda et al. §5.1); use more β", -gap, 3*se, r.Init)
				r.Warnings = append(r.Warnings, w)
				a.Warnings = append(a.Warnings, w)
			}
		}
	}
}

// bar opens a progress bar for a long estimator when the evaluation has
// one: it returns the estimators' cumulative (done, total) callback (nil
// without a bar) and a function to call at the end (a no-op without one).
func (ev Evaluation) bar(label string, total int64) (func(done, total int64), func()) {
	if ev.Progress == nil {
		return nil, func() {}
	}
	add, done := ev.Progress(label, total)
	return cumulative(add), done
}

// cumulative adapts an increment callback to estimators that report
// cumulative counts from several goroutines.
func cumulative(add func(int64)) func(done, total int64) {
	var last atomic.Int64
	return func(d, _ int64) {
		for old := last.Load(); d > old; old = last.Load() {
			if last.CompareAndSwap(old, d) {
				add(d - old)
				return
			}
		}
	}
}

// raiseBySubsample runs a RAISE estimator (run) on a random subsample of
// each split and extends its mean to the whole split with the control
// variate X = log f̂(v) that logF gives for every example of the split
// (called only when a subsample is extended; it also names the proposals
// in the row's note). Any fixed per-example X keeps the estimate unbiased;
// a better X only lowers its variance. label names the progress bar.
func (ev Evaluation) raiseBySubsample(e config.Estimator, base report.Row, label string, steps int,
	run func(x eval.Examples, progress func(done, total int64)) (eval.RAISEResult, error),
	logF func(si int, s Split) (x []float64, proposals string, err error)) ([]report.Row, error) {
	var rows []report.Row
	for si, s := range ev.Splits {
		start := time.Now()
		idx, err := ev.sample(si, s.Data, e.Examples)
		if err != nil {
			return rows, err
		}
		progress, done := ev.bar(fmt.Sprintf("%s epoch %d %s %s %d ex × %d × %d β", ev.Experiment, ev.Epoch, label, s.Name, len(idx), e.Chains, e.Betas), int64(len(idx))*int64(e.Chains)*int64(steps))
		res, err := run(subset{s.Data, idx}, progress)
		done()
		if err != nil {
			return rows, err
		}
		row := base
		row.Split, row.Runs, row.Betas, row.Init = s.Name, e.Chains, e.Betas, e.Init
		row.Warnings = append(row.Warnings, res.Warnings...)
		if res.MinESS < e.MinESSFraction*float64(e.Chains) && len(res.Warnings) == 0 {
			row.Warnings = append(row.Warnings, fmt.Sprintf("RAISE: smallest per-example ESS %.1f of %d chains", res.MinESS, e.Chains))
		}
		cv := eval.CVResult{Estimate: res.Mean.Mean, SE: res.Mean.SE}
		if len(idx) < s.Data.Len() && e.ControlVariate != "none" {
			x, proposals, err := logF(si, s)
			if err != nil {
				return rows, err
			}
			if c, err := extend(e.ControlVariate, res.LogP, idx, x); err == nil {
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
