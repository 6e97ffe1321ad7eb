package report

import (
	"cmp"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Sweep is a setting that varies across the experiments of a run (a
// config's sweep: key), with its value in each experiment.
type Sweep struct {
	// Setting is the swept key as a config path, e.g.
	// "data.planted.weight_scale".
	Setting string
	// X is each experiment's value of it.
	X map[string]float64
}

// SweepFigures draws the estimates of log Z of every experiment against
// the swept setting, one series per estimator (the trainer's own tracked
// log Z among them), as errors log Ẑ − log Z where every experiment has
// an exact log Z (exact then the zero line), else as log Ẑ:
//
//   - from the per-epoch evaluations, each estimator's mean over the later
//     half of training (epochs > E/2, E the experiment's last epoch), with
//     bars from its smallest to its largest value there: how well each
//     estimator follows log Z while the model changes, at the cost each
//     was given;
//   - from the final evaluation, each estimate with its own bars
//     log(Ẑ ± 3σ̂).
//
// Experiments not in sw.X are left out; nil without a sweep.
func SweepFigures(rows []Row, sw Sweep) ([]Figure, error) {
	if sw.Setting == "" || len(sw.X) == 0 {
		return nil, nil
	}
	// One colour and mark per estimator in both figures: StyleOfLabel.
	var figs []Figure
	for _, stage := range []string{StageEpoch, StageFinal} {
		f, err := sweepFigure(rows, sw, stage)
		if err != nil {
			return nil, err
		}
		if f != nil {
			figs = append(figs, *f)
		}
	}
	return figs, nil
}

// TrackedLogZSignal is the training signal that is an estimate of log Z
// (train.SignalChi2LogZ: the χ² trainer's tracked ½ log mean w²), carried
// in the trainer's row as its Value.
const TrackedLogZSignal = "chi2-logz"

// logZOf returns a row's estimate of log Z: its LogZ, or the value of a
// trainer's row whose signal is the tracked log Z.
func logZOf(r *Row) (float64, bool) {
	switch {
	case r.LogZ != nil:
		return *r.LogZ, true
	case r.Estimator == "train" && r.Init == TrackedLogZSignal && r.Value != nil:
		return *r.Value, true
	}
	return 0, false
}

// sweepPoint is one estimator's summary in one experiment.
type sweepPoint struct {
	y, lo, hi float64 // lo, hi NaN: no bar
}

// sweepSummary returns, for the rows of one experiment and stage, each
// estimator's point (by label, in order of first appearance) and the
// exact log Z (NaN if unknown). The epoch stage averages over the epochs
// after half the last one; each epoch's exact log Z is subtracted before
// averaging when known.
func sweepSummary(rows []Row, stage string) (labels []string, pts map[string]sweepPoint, exact float64, ok bool) {
	last := 0
	for i := range rows {
		if rows[i].Stage == stage {
			last = max(last, rows[i].Epoch)
		}
	}
	from := 0
	if stage == StageEpoch {
		from = last / 2
	}
	// exact log Z per epoch.
	exactAt := map[int]float64{}
	for i := range rows {
		r := &rows[i]
		if r.Stage != stage || r.Epoch <= from && stage == StageEpoch {
			continue
		}
		if _, seen := exactAt[r.Epoch]; seen {
			continue
		}
		switch {
		case r.Estimator == "exact" && r.LogZ != nil:
			exactAt[r.Epoch] = *r.LogZ
		case r.ExactLogZ != nil:
			exactAt[r.Epoch] = *r.ExactLogZ
		}
	}
	type acc struct {
		sum, lo, hi float64
		n           int
		bar         [2]float64
		seen        map[int]bool
	}
	accs := map[string]*acc{}
	var epochs []int
	for i := range rows {
		r := &rows[i]
		z, has := logZOf(r)
		if r.Stage != stage || !has || r.Estimator == "exact" || (stage == StageEpoch && r.Epoch <= from) {
			continue
		}
		if !slices.Contains(epochs, r.Epoch) {
			epochs = append(epochs, r.Epoch)
		}
		lab := sweepLabel(r)
		a := accs[lab]
		if a == nil {
			a = &acc{lo: math.Inf(1), hi: math.Inf(-1), bar: [2]float64{math.NaN(), math.NaN()}, seen: map[int]bool{}}
			accs[lab] = a
			labels = append(labels, lab)
		}
		if a.seen[r.Epoch] { // one row per estimator and epoch (splits repeat log Z)
			continue
		}
		a.seen[r.Epoch] = true
		ref := 0.0
		if e, known := exactAt[r.Epoch]; known {
			ref = e
		}
		y := z - ref
		a.sum += y
		a.n++
		a.lo, a.hi = math.Min(a.lo, y), math.Max(a.hi, y)
		if stage == StageFinal && r.LogZHi != nil {
			// log(Ẑ − 3σ̂) is −∞ when Ẑ ≤ 3σ̂: the bar runs off the plot
			// (clampBars cuts it).
			a.bar = [2]float64{math.Inf(-1), *r.LogZHi - ref}
			if r.LogZLo != nil {
				a.bar[0] = *r.LogZLo - ref
			}
		}
	}
	ok = len(epochs) > 0
	exact = math.NaN()
	allExact := ok
	for _, e := range epochs {
		if _, known := exactAt[e]; !known {
			allExact = false
		}
	}
	if allExact {
		exact = 0
	}
	pts = map[string]sweepPoint{}
	for _, lab := range labels {
		a := accs[lab]
		p := sweepPoint{y: a.sum / float64(a.n), lo: math.NaN(), hi: math.NaN()}
		if stage == StageEpoch && a.n > 1 {
			p.lo, p.hi = a.lo, a.hi
		} else if stage == StageFinal {
			p.lo, p.hi = a.bar[0], a.bar[1]
		}
		pts[lab] = p
	}
	return labels, pts, exact, ok
}

// sweepLabel is a row's series label: the trainer's own row ("train
// (chi2-logz)") reads "chi2-logz (training)", as in the signals figure.
func sweepLabel(r *Row) string { return trainingLabel(rowLabel(r)) }

// trainingLabel turns the label of a trainer's row, "train (SIGNAL)", into
// "SIGNAL (training)"; other labels are returned as they are.
func trainingLabel(lab string) string {
	if rest, ok := strings.CutPrefix(lab, "train ("); ok {
		return strings.TrimSuffix(rest, ")") + " (training)"
	}
	return lab
}

func sweepFigure(rows []Row, sw Sweep, stage string) (*Figure, error) {
	exps := Experiments(rows)
	byLabel := map[string]*series{}
	var ss []*series
	errors := true
	type expSum struct {
		x      float64
		labels []string
		pts    map[string]sweepPoint
		exact  float64
	}
	var sums []expSum
	for _, e := range exps {
		x, in := sw.X[e]
		if !in {
			continue
		}
		labels, pts, exact, ok := sweepSummary(Select(rows, e), stage)
		if !ok {
			continue
		}
		if math.IsNaN(exact) {
			errors = false
		}
		sums = append(sums, expSum{x, labels, pts, exact})
	}
	if len(sums) < 2 { // one experiment is no sweep
		return nil, nil
	}
	for _, s := range sums {
		for _, lab := range s.labels {
			sr := byLabel[lab]
			if sr == nil {
				sr = &series{label: lab}
				byLabel[lab] = sr
				ss = append(ss, sr)
			}
			p := s.pts[lab]
			var lo, hi *float64
			if !math.IsNaN(p.lo) {
				lo, hi = &p.lo, &p.hi
			}
			sr.add(s.x, p.y, lo, hi)
		}
	}
	if len(ss) == 0 {
		return nil, nil
	}
	for _, s := range ss {
		sortSeries(s)
	}
	ylab := "log Ẑ (nats)"
	what := "log Ẑ"
	if errors {
		zero := &series{label: "exact"}
		for _, s := range sums {
			zero.add(s.x, 0, nil, nil)
		}
		sortSeries(zero)
		ss = append(ss, zero)
		ylab = "log Ẑ − log Z (nats)"
		what = "log Ẑ − exact log Z"
	}
	name, title, caption := "sweep-final", what+" against "+sw.Setting+", final",
		"One point per experiment at its value of "+sw.Setting+"; bars: the estimate's own log(Ẑ ± 3σ̂) where it has one."
	if stage == StageEpoch {
		name, title = "sweep-epochs", what+" against "+sw.Setting+", training"
		caption = "One point per experiment at its value of " + sw.Setting + ": each estimator's mean over the per-epoch evaluations of the later half of training (epochs after E/2, E the last), bars from its smallest to its largest value there — the trainer's tracked log Z beside the estimators evaluated after each epoch, each at the cost its settings give it."
	}
	if errors {
		caption += " Exact enumeration is the zero line; above it an estimate overstates log Z."
	}
	f, err := lineFigure(name, title, sw.Setting, ylab, ss, caption)
	if err != nil {
		return nil, fmt.Errorf("report: sweep figure: %w", err)
	}
	return f, nil
}

// WriteSweepCSV writes the numbers behind SweepFigures as CSV, one line
// per experiment, stage and estimator, in the order of the swept values:
//
//	setting,value,experiment,stage,estimator,reference,mean,lo,hi
//
// reference is "exact" when the numbers are errors log Ẑ − log Z (every
// epoch of the experiment has an exact log Z) and "none" when they are
// log Ẑ itself; mean is the point drawn (for the epoch stage the mean
// over the later half of training), lo and hi its bar (empty without one).
// It writes nothing and returns false without a sweep.
func WriteSweepCSV(w io.Writer, rows []Row, sw Sweep) (bool, error) {
	if sw.Setting == "" || len(sw.X) == 0 {
		return false, nil
	}
	exps := slices.Clone(Experiments(rows))
	exps = slices.DeleteFunc(exps, func(e string) bool { _, in := sw.X[e]; return !in })
	slices.SortStableFunc(exps, func(a, b string) int { return cmp.Compare(sw.X[a], sw.X[b]) })
	cw := csv.NewWriter(w)
	if err := cw.Write([]string{"setting", "value", "experiment", "stage", "estimator", "reference", "mean", "lo", "hi"}); err != nil {
		return true, err
	}
	num := func(v float64) string {
		if math.IsNaN(v) {
			return ""
		}
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	for _, e := range exps {
		for _, stage := range []string{StageEpoch, StageFinal} {
			labels, pts, exact, ok := sweepSummary(Select(rows, e), stage)
			if !ok {
				continue
			}
			ref := "exact"
			if math.IsNaN(exact) {
				ref = "none"
			}
			for _, lab := range labels {
				p := pts[lab]
				if err := cw.Write([]string{sw.Setting, num(sw.X[e]), e, stage, lab, ref, num(p.y), num(p.lo), num(p.hi)}); err != nil {
					return true, err
				}
			}
		}
	}
	cw.Flush()
	return true, cw.Error()
}
