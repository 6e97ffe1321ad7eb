package estim

import (
	"fmt"
	"math"
	"time"

	"github.com/logz-ml/logz/eval"
	"github.com/logz-ml/logz/eval/report"
)

// Extend turns per-example estimates Y on the sampled examples into an
// estimate of the split's mean with the control variate X = log f(v)
// ("alpha1", "fit" or "none").
func Extend(mode string, y []float64, idx []int, xAll []float64) (eval.CVResult, error) {
	xs := make([]float64, len(idx))
	for k, i := range idx {
		xs[k] = xAll[i]
	}
	if len(idx) == len(xAll) || mode == "none" || len(idx) < 2 {
		// The whole split, or no control variate: the plain mean.
		st := MeanOf(y)
		return eval.CVResult{Estimate: st.Mean, SE: st.SE, Alpha: 0, PlainMean: st.Mean, PlainSE: st.SE, VarianceReduction: 1, N: len(xAll), NSample: len(idx)}, nil
	}
	return eval.ControlVariate{Fit: mode == "fit"}.Estimate(y, xs, xAll)
}

// MeanOf returns the mean of x with its standard error (NaN for one value).
func MeanOf(x []float64) eval.MeanStat {
	var s, s2 float64
	for _, v := range x {
		s += v
		s2 += v * v
	}
	n := len(x)
	mean := s / float64(n)
	se := math.NaN()
	if n > 1 {
		se = math.Sqrt(math.Max(s2-float64(n)*mean*mean, 0) / float64(n-1) / float64(n))
	}
	return eval.MeanStat{Mean: mean, SE: se, N: n}
}

// CompareExact notes, on the row of a stochastic lower bound lp of the
// examples idx of a split, exact's mean log p(x) on the same examples
// (exact holds exact's per-example values for the whole split), and warns
// when lp lies above it beyond report.Tolerance: 3 standard errors of the
// per-example differences (the estimator's own noise), but at least
// report.NoiseFloor — one example, or differences without spread, have no
// standard error to measure the noise by. It returns exact's mean on the
// examples.
func CompareExact(row *report.Row, exact []float64, idx []int, lp []float64) float64 {
	d := make([]float64, len(idx))
	on := make([]float64, len(idx))
	for k, i := range idx {
		d[k] = lp[k] - exact[i]
		on[k] = exact[i]
	}
	st, ex := MeanOf(d), MeanOf(on)
	row.Notes = append(row.Notes, fmt.Sprintf("%s%d examples: %.3f (difference %+.3f ± %.3f)", report.ExactSameNote, len(idx), ex.Mean, st.Mean, st.SE))
	if e := report.Judge(st.Mean, st.SE, ex.Mean); e.Beyond {
		by, why := fmt.Sprintf("%.3f", st.Mean), fmt.Sprintf("beyond 3 standard errors (%.3f)", 3*e.Sigma)
		if e.Floor {
			by, why = e.Nats(), e.Why()
		}
		row.Warnings = append(row.Warnings, fmt.Sprintf("%s is %s nats above exact on the same examples, %s: a stochastic lower bound should not be; the estimate or its error is wrong", row.Estimator, by, why))
	}
	return ex.Mean
}

// Laps times the rows of one estimator entry so that the final table's
// Minutes count every second once: an entry's rows (one per split) get
// consecutive laps, so work the rows share (a log Z, a fitted proposal,
// the model's tables) lands on the first row that waited for it, and each
// later row carries only its own work. Work a later entry reuses through
// Memo (an AIS or exact log Z, per-example IS estimates) is counted on the
// entry that did it: the reuse takes no time.
type Laps struct{ last time.Time }

// ReusedNote is the note of a row whose entry reused what (e.g. "the AIS
// log Z") from an earlier entry of the evaluation (Memo): the time of that
// work is on the earlier entry's rows, not on this one.
func ReusedNote(what string) string {
	return what + " is an earlier entry's of the same settings, reused: its time is counted on that entry's rows"
}

// StartLaps starts timing an entry.
func StartLaps() *Laps { return &Laps{last: time.Now()} }

// Lap returns the seconds since the previous Lap (or the start) and starts
// the next lap.
func (l *Laps) Lap() float64 {
	now := time.Now()
	s := now.Sub(l.last).Seconds()
	l.last = now
	return s
}

// ByLabel breaks the per-example values lp down by label: for each label
// present, in increasing order, the mean of lp[k] − logZ over the examples
// of that label with its standard error (MeanOf). lp[k] is the value of
// example idx[k] of the split (idx nil: of example k) and labels[n] is
// example n's label. A shared log Z moves every class alike, so the
// standard errors are the per-example spread alone.
func ByLabel(lp []float64, idx []int, labels []uint8, logZ float64) []report.ClassStat {
	var by [256][]float64
	for k, v := range lp {
		n := k
		if idx != nil {
			n = idx[k]
		}
		by[labels[n]] = append(by[labels[n]], v-logZ)
	}
	var out []report.ClassStat
	for c, x := range by {
		if len(x) == 0 {
			continue
		}
		st := MeanOf(x)
		out = append(out, report.ClassStat{Label: c, MeanLoglik: report.F(st.Mean), LoglikSE: report.F(st.SE), NExamples: st.N})
	}
	return out
}
