package report

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Figure is one picture of report.html: an SVG drawn here from the rows,
// or an image file of the run folder (samples, filters).
type Figure struct {
	// Name is a short file-safe id, unique within an experiment
	// ("loglik-test", "samples").
	Name    string
	Title   string
	Caption string
	// MIME is image/svg+xml or image/png.
	MIME string
	Data []byte
}

// figureSize is the size of every plot.
const (
	figureWidth  = 21 * vg.Centimeter
	figureHeight = 11 * vg.Centimeter
)

// ExperimentFigures draws the plots of one experiment's rows (gonum/plot,
// SVG), each only when it has something to show:
//
//   - per split, the mean log-likelihood of every estimator against the
//     epoch (one colour and mark per estimator and start, StyleOf's, the
//     same in every figure; bars: the estimator's own
//     bracket [lo, hi] where it has one — AIS's from log(Ẑ ± 3σ̂) — or
//     ± one standard error of a RAISE or CSL estimate; exact as a plain
//     line);
//   - log Ẑ against the epoch for every estimator of log Z (bars
//     log(Ẑ ± 3σ̂)), the tracked χ² log Z among them, exact as a line;
//   - the training signals that are not log-likelihoods (reconstruction
//     error, pseudo-log-likelihood) against the epoch;
//   - per split, the final estimates side by side with their brackets,
//     and the final log Ẑ estimates with theirs, exact as a line;
//   - per split, when the final evaluation ran an annealing estimator
//     (AIS, RAISE) at several numbers K of intermediate distributions,
//     its estimates against K: the bracket narrowing as K grows;
//   - per estimator measured on several splits after epochs, its curves
//     of every split on one axes (SplitOverlayFigures).
//
// Every figure has its legend beside the data (render), a padded y range
// and tick labels that read as their values; its caption names only what
// it draws.
func ExperimentFigures(rows []Row) ([]Figure, error) {
	var figs []Figure
	add := func(f *Figure, err error) error {
		if err != nil {
			return err
		}
		if f != nil {
			figs = append(figs, *f)
		}
		return nil
	}
	for _, split := range splitsOf(rows, StageEpoch, func(r *Row) bool { return r.MeanLoglik != nil }) {
		if err := add(epochLoglikFigure(rows, split)); err != nil {
			return nil, err
		}
	}
	if err := add(epochLogZFigure(rows)); err != nil {
		return nil, err
	}
	if err := add(signalsFigure(rows)); err != nil {
		return nil, err
	}
	for _, split := range splitsOf(rows, StageFinal, func(r *Row) bool { return r.MeanLoglik != nil }) {
		if err := add(finalLoglikFigure(rows, split)); err != nil {
			return nil, err
		}
	}
	if err := add(finalLogZFigure(rows)); err != nil {
		return nil, err
	}
	for _, split := range splitsOf(rows, StageFinal, func(r *Row) bool { return r.MeanLoglik != nil && r.Betas > 0 }) {
		if err := add(bracketByKFigure(rows, split)); err != nil {
			return nil, err
		}
	}
	// Each estimator's splits on one axes (overlay.go).
	splits, err := SplitOverlayFigures(rows)
	if err != nil {
		return nil, err
	}
	return append(figs, splits...), nil
}

// splitsOf lists, in report order, the splits of the rows of a stage that
// keep holds for.
func splitsOf(rows []Row, stage string, keep func(*Row) bool) []string {
	var out []string
	for i := range rows {
		r := &rows[i]
		if r.Stage == stage && keep(r) && !slices.Contains(out, r.Split) {
			out = append(out, r.Split)
		}
	}
	slices.SortFunc(out, splitOrder)
	return out
}

// series is one estimator's points, with absolute bar ends (NaN: no bar).
type series struct {
	label  string
	xy     plotter.XYs
	lo, hi []float64
	// style, if > 0, is 1 + the index of the series' colour and mark in
	// gonum's palette, for overlays whose series differ by more than the
	// estimator (one per run); 0: the estimator's own (StyleOfLabel).
	style int
	// ref marks a reference line (a final trusted value), drawn dashed
	// in its estimator's colour (black for exact).
	ref bool
	// paper marks a published number's line (paperLines).
	paper bool
}

func (s *series) add(x, y float64, lo, hi *float64) {
	s.xy = append(s.xy, plotter.XY{X: x, Y: y})
	l, h := math.NaN(), math.NaN()
	if lo != nil && hi != nil {
		l, h = *lo, *hi
	}
	s.lo, s.hi = append(s.lo, l), append(s.hi, h)
}

// bars returns the points that have a bar, as gonum's relative errors.
func (s *series) bars() plotter.YErrors {
	var e plotter.YErrors
	for i := range s.xy {
		if !math.IsNaN(s.lo[i]) {
			e = append(e, struct{ Low, High float64 }{s.xy[i].Y - s.lo[i], s.hi[i] - s.xy[i].Y})
		}
	}
	return e
}

func (s *series) barXYs() plotter.XYs {
	var out plotter.XYs
	for i := range s.xy {
		if !math.IsNaN(s.lo[i]) {
			out = append(out, s.xy[i])
		}
	}
	return out
}

// collect groups rows into series by estimator label, in order of first
// appearance; point returns a row's (x, y, lo, hi) and whether it has one.
// Of several rows of one label at the same x the first is kept.
func collect(rows []Row, keep func(*Row) bool, point func(*Row) (x, y float64, lo, hi *float64)) []*series {
	return collectBy(rows, keep, rowLabel, point)
}

// collectBy is collect with the series named by label.
func collectBy(rows []Row, keep func(*Row) bool, label func(*Row) string, point func(*Row) (x, y float64, lo, hi *float64)) []*series {
	var out []*series
	byLabel := map[string]*series{}
	for i := range rows {
		r := &rows[i]
		if !keep(r) {
			continue
		}
		lab := label(r)
		s := byLabel[lab]
		if s == nil {
			s = &series{label: lab}
			byLabel[lab] = s
			out = append(out, s)
		}
		x, y, lo, hi := point(r)
		if slices.ContainsFunc(s.xy, func(p plotter.XY) bool { return p.X == x }) {
			continue
		}
		s.add(x, y, lo, hi)
	}
	for _, s := range out {
		sortSeries(s)
	}
	return out
}

// sortSeries orders a series' points by x.
func sortSeries(s *series) {
	idx := make([]int, len(s.xy))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		switch {
		case s.xy[a].X < s.xy[b].X:
			return -1
		case s.xy[a].X > s.xy[b].X:
			return 1
		}
		return 0
	})
	xy, lo, hi := make(plotter.XYs, len(idx)), make([]float64, len(idx)), make([]float64, len(idx))
	for i, j := range idx {
		xy[i], lo[i], hi[i] = s.xy[j], s.lo[j], s.hi[j]
	}
	s.xy, s.lo, s.hi = xy, lo, hi
}

// isExact reports whether a label is exact enumeration, drawn as a line.
func isExact(label string) bool { return label == "exact" }

// loglikBar returns a row's own error bar on the mean log-likelihood:
// for an estimate through log Ẑ (AIS, the bounds) the log-probabilities
// implied by log(Ẑ + 3σ̂) and log(Ẑ − 3σ̂) (the mean itself where
// Ẑ − 3σ̂ ≤ 0), for RAISE and CSL ± 3 standard errors of the estimate; none
// otherwise (their standard error is the spread of the examples, not an
// error of the estimate).
func loglikBar(r *Row) (lo, hi *float64) {
	m := *r.MeanLoglik
	switch {
	case r.LogZ != nil && r.LogZHi != nil:
		l, h := m-(*r.LogZHi-*r.LogZ), m
		if r.LogZLo != nil {
			h = m + (*r.LogZ - *r.LogZLo)
		}
		return &l, &h
	case r.LoglikSE != nil && (r.Estimator == "raise" || r.Estimator == "csl"):
		l, h := m-3**r.LoglikSE, m+3**r.LoglikSE
		return &l, &h
	}
	return nil, nil
}

func epochLoglikFigure(rows []Row, split string) (*Figure, error) {
	ss := collect(rows, func(r *Row) bool {
		return r.Stage == StageEpoch && r.Split == split && r.MeanLoglik != nil
	}, func(r *Row) (float64, float64, *float64, *float64) {
		lo, hi := loglikBar(r)
		return float64(r.Epoch), *r.MeanLoglik, lo, hi
	})
	title := "Mean log-likelihood per epoch (" + splitName(split) + ")"
	caption := joinSentences("One colour and mark per estimator and start.", barsSentence(ss))
	if hasExact(ss) {
		caption += " Exact enumeration as a plain black line."
	}
	refs := finalReferences(rows, ss, func(r *Row) (float64, bool) {
		if r.Split != split || r.MeanLoglik == nil {
			return 0, false
		}
		return *r.MeanLoglik, true
	})
	if len(refs) > 0 {
		caption += " Dashed: the final trusted value, for reference — exact enumeration's if the final evaluation has one, else the final estimate of the same estimator with the most work (runs × β)."
	}
	for _, j := range JumpyCurves(rows) {
		if j.Split == split {
			caption += fmt.Sprintf(" Warning: the %s estimates change by a median %.2f nats between epochs, %.1f× the median ±3σ̂ half-width (%.2f): σ̂ of a small AIS underestimates its error, so the bars are too short and the jumps may be noise (see Warnings).", j.Label, j.MedianChange, j.MedianChange/j.MedianHalfWidth, j.MedianHalfWidth)
		}
	}
	if papers, note := paperLines(rows, split, ss); len(papers) > 0 {
		refs = append(refs, papers...)
		caption += note
	}
	return lineFigureAt(false, "loglik-"+fileSafe(split), title, "epoch", "nats per example", append(ss, refs...), caption)
}

// finalReferences returns the dashed horizontal lines of the final trusted
// values of a quantity (value: a row's, and whether it has one), across
// the epochs of the per-epoch series ss: exact enumeration's final value
// when the final evaluation has one; else, for each estimator of ss, its
// final estimate with the most work (runs × β; the first of equals). None
// without per-epoch estimates other than exact.
func finalReferences(rows []Row, ss []*series, value func(*Row) (float64, bool)) []*series {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, s := range ss {
		for _, p := range s.xy {
			lo, hi = math.Min(lo, p.X), math.Max(hi, p.X)
		}
	}
	if !slices.ContainsFunc(ss, func(s *series) bool { return !isExact(s.label) }) || lo > hi {
		return nil
	}
	line := func(label string, y float64, style int) *series {
		return &series{label: label, xy: plotter.XYs{{X: lo, Y: y}, {X: hi, Y: y}}, lo: []float64{math.NaN(), math.NaN()},
			hi: []float64{math.NaN(), math.NaN()}, style: style, ref: true}
	}
	final := func(r *Row) bool {
		_, ok := value(r)
		return r.Stage == StageFinal && ok
	}
	for i := range rows {
		if r := &rows[i]; final(r) && r.Estimator == "exact" {
			v, _ := value(r)
			return []*series{line(fmt.Sprintf("final exact %.2f", v), v, 0)}
		}
	}
	var out []*series
	for _, s := range ss {
		if isExact(s.label) {
			continue
		}
		var best *Row
		for i := range rows {
			r := &rows[i]
			if final(r) && trainingLabel(rowLabel(r)) == s.label && (best == nil || r.Runs*r.Betas > best.Runs*best.Betas) {
				best = r
			}
		}
		if best == nil {
			continue
		}
		v, _ := value(best)
		label := fmt.Sprintf("final %s %.2f", s.label, v)
		if best.Runs > 0 && best.Betas > 0 {
			label = fmt.Sprintf("final %s %d×%d β %.2f", s.label, best.Runs, best.Betas, v)
		}
		out = append(out, line(label, v, s.style))
	}
	return out
}

func epochLogZFigure(rows []Row) (*Figure, error) {
	ss := collect(rows, func(r *Row) bool {
		_, ok := logZOf(r)
		return r.Stage == StageEpoch && ok
	}, func(r *Row) (float64, float64, *float64, *float64) {
		z, _ := logZOf(r)
		return float64(r.Epoch), z, r.LogZLo, r.LogZHi
	})
	for _, s := range ss {
		s.label = trainingLabel(s.label)
	}
	ss = append(ss, exactLogZSeries(rows, StageEpoch, ss)...)
	if !slices.ContainsFunc(ss, func(s *series) bool { return !isExact(s.label) }) {
		return nil, nil
	}
	caption := joinSentences("Every estimate of the log partition function per epoch, one colour and mark per estimator and start.", barsSentence(ss))
	if drawsEstimator(ss, "chi2") {
		caption += " A χ² bound, or the χ² log Z tracked by training, lies above the truth (within its error)."
	}
	if drawsEstimator(ss, "ais") {
		caption += " AIS's log Ẑ lies below the truth in expectation."
	}
	if hasExact(ss) {
		caption += " Exact enumeration as a plain black line."
	}
	// One log Z per model: the split-free value of a final row (exact's
	// log Z, or an estimator's log Ẑ).
	refs := finalReferences(rows, ss, func(r *Row) (float64, bool) {
		if r.Estimator == "exact" && r.LogZ == nil && r.ExactLogZ != nil {
			return *r.ExactLogZ, true
		}
		return logZOf(r)
	})
	if len(refs) > 0 {
		caption += " Dashed: the final trusted log Z, for reference — exact enumeration's if the final evaluation has one, else the final estimate of the same estimator with the most work (runs × β)."
	}
	return lineFigure("logz", "log Ẑ per epoch", "epoch", "log Z (nats)", append(ss, refs...), caption)
}

// exactLogZSeries returns an "exact" series from the rows' exact_log_z
// when no exact row is among ss.
func exactLogZSeries(rows []Row, stage string, ss []*series) []*series {
	if slices.ContainsFunc(ss, func(s *series) bool { return isExact(s.label) }) {
		return nil
	}
	s := collect(rows, func(r *Row) bool { return r.Stage == stage && r.ExactLogZ != nil },
		func(r *Row) (float64, float64, *float64, *float64) { return float64(r.Epoch), *r.ExactLogZ, nil, nil })
	for _, x := range s {
		x.label = "exact"
	}
	if len(s) > 0 {
		return s[:1]
	}
	return nil
}

func signalsFigure(rows []Row) (*Figure, error) {
	ss := collect(rows, func(r *Row) bool {
		return r.Stage == StageEpoch && r.MeanLoglik == nil && r.Value != nil
	}, func(r *Row) (float64, float64, *float64, *float64) {
		return float64(r.Epoch), *r.Value, nil, nil
	})
	for _, s := range ss {
		if s.label == "train" {
			s.label = trainingReconHeader
		}
		s.label = trainingLabel(s.label)
	}
	caption := "Cheap training signals per epoch, which are not log-likelihoods."
	for _, s := range ss {
		switch est, _ := splitLabel(s.label); est {
		case "recon":
			caption += " " + s.label + ": the mean squared reconstruction error of the epoch's training minibatches (lower is better)."
		case "pll":
			caption += " " + s.label + ": the pseudo-log-likelihood per example."
		}
	}
	return lineFigure("signals", "Training signals per epoch (not log-likelihoods)", "epoch", "value per example", ss, caption)
}

// clampBars cuts the bars at twice the range of the estimates (at least
// 1 nat) beyond them: a failed estimate's bar (log(Ẑ − 3σ̂) near −∞) would
// otherwise squash every estimate into one line. It reports whether it cut
// any.
func clampBars(ss []*series) bool {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, s := range ss {
		for _, xy := range s.xy {
			lo, hi = math.Min(lo, xy.Y), math.Max(hi, xy.Y)
		}
	}
	margin := math.Max(2*(hi-lo), 1)
	lo, hi = lo-margin, hi+margin
	cut := false
	for _, s := range ss {
		for i := range s.lo {
			if s.lo[i] < lo {
				s.lo[i], cut = lo, true
			}
			if s.hi[i] > hi {
				s.hi[i], cut = hi, true
			}
		}
	}
	return cut
}

// clippedNote is added to a caption when clampBars cut a bar.
const clippedNote = " Bars longer than twice the spread of the estimates are cut at the edge."

// lineFigure draws series against the epoch; nil without points.
func lineFigure(name, title, xlab, ylab string, ss []*series, caption string) (*Figure, error) {
	return lineFigureAt(true, name, title, xlab, ylab, ss, caption)
}

// lineFigureAt is lineFigure as callers that placed the legend at the top or
// the bottom call it; top no longer matters: the legend stands beside the
// data, out of the way of every point (render).
func lineFigureAt(top bool, name, title, xlab, ylab string, ss []*series, caption string) (*Figure, error) {
	return lineFigureScaled(top, false, name, title, xlab, ylab, ss, caption)
}

// lineFigureScaled is lineFigureAt with, if logX, a logarithmic x axis.
func lineFigureScaled(top, logX bool, name, title, xlab, ylab string, ss []*series, caption string) (*Figure, error) {
	if len(ss) == 0 {
		return nil, nil
	}
	if clampBars(ss) {
		caption += clippedNote
	}
	ss, papers := withoutPapers(ss)
	p := newPlot(title, xlab, ylab)
	p.Legend.Top = top
	if logX {
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = plot.LogTicks{Prec: -1}
	}
	for i, s := range ss {
		st := seriesStyle(s, i)
		if s.ref {
			l, err := plotter.NewLine(s.xy)
			if err != nil {
				return nil, fmt.Errorf("report: figure %s: %w", name, err)
			}
			l.Color, l.Width, l.Dashes = st.Color, vg.Points(1), []vg.Length{vg.Points(5), vg.Points(3)}
			p.Add(l)
			p.Legend.Add(s.label, l)
			continue
		}
		if isExact(s.label) {
			l, err := plotter.NewLine(s.xy)
			if err != nil {
				return nil, fmt.Errorf("report: figure %s: %w", name, err)
			}
			l.Color, l.Width = color.Black, vg.Points(1.2)
			p.Add(l)
			p.Legend.Add(s.label, l)
			continue
		}
		l, pts, err := plotter.NewLinePoints(s.xy)
		if err != nil {
			return nil, fmt.Errorf("report: figure %s: %w", name, err)
		}
		c := st.Color
		l.Color, pts.Color, pts.Shape, pts.Radius = c, c, st.Shape, vg.Points(2.5)
		if len(s.xy) == 1 {
			p.Add(pts)
			p.Legend.Add(s.label, pts)
		} else {
			p.Add(l, pts)
			p.Legend.Add(s.label, l, pts)
		}
		if err := addBars(p, s, c); err != nil {
			return nil, fmt.Errorf("report: figure %s: %w", name, err)
		}
	}
	if err := addPaperLines(p, papers); err != nil {
		return nil, fmt.Errorf("report: figure %s: %w", name, err)
	}
	return render(p, name, title, caption)
}

// seriesStyle is the colour and mark of the i-th series of a figure: its
// estimator's (StyleOfLabel), or for an overlay (style > 0) gonum's.
func seriesStyle(s *series, i int) SeriesStyle {
	if s.style > 0 {
		return SeriesStyle{Color: plotutil.Color(s.style - 1), Shape: plotutil.Shape(s.style - 1)}
	}
	return StyleOfLabel(s.label)
}

func addBars(p *plot.Plot, s *series, c color.Color) error {
	xy := s.barXYs()
	if len(xy) == 0 {
		return nil
	}
	eb, err := plotter.NewYErrorBars(struct {
		plotter.XYs
		plotter.YErrors
	}{xy, s.bars()})
	if err != nil {
		return err
	}
	eb.Color, eb.CapWidth = c, vg.Points(3)
	p.Add(eb)
	return nil
}

func finalLoglikFigure(rows []Row, split string) (*Figure, error) {
	keep := func(r *Row) bool {
		return r.Stage == StageFinal && r.Split == split && r.MeanLoglik != nil
	}
	label := labelWithK(rows, keep)
	ss := collectBy(rows, keep, label, func(r *Row) (float64, float64, *float64, *float64) {
		lo, hi := loglikBar(r)
		return 0, *r.MeanLoglik, lo, hi
	})
	var bands []band
	good, broken := false, false
	for i := range rows {
		r := &rows[i]
		// The pair's bracket, as the RAISE row carries it.
		if keep(r) && r.Estimator == "raise" && r.LoglikLo != nil && r.LoglikHi != nil {
			start := strings.TrimPrefix(label(r), "raise")
			if why := pairBroken(rows, r); why != "" {
				// Not a bracket: drawn red and hatched, never as a
				// shaded band around the truth.
				bands = appendBand(bands, why+": no bracket"+start, "", *r.LoglikLo, *r.LoglikHi, true)
				broken = true
				continue
			}
			bands = appendBand(bands, "RAISE–AIS bracket"+start, "", *r.LoglikLo, *r.LoglikHi, false)
			good = true
		}
	}
	title := "Final estimates and brackets (" + splitName(split) + ")"
	caption := "The final evaluation's estimates of the mean log-likelihood, one colour and mark per estimator and start."
	caption = joinSentences(caption, barsSentence(ss))
	if good {
		caption = joinSentences(caption, "The shaded band is the bracket from RAISE (a stochastic lower bound) to AIS (a stochastic upper bound) of the same start and K, which sandwiches the truth in expectation.")
	}
	if broken {
		caption = joinSentences(caption, brokenCaption)
	}
	if hasExact(ss) {
		caption = joinSentences(caption, "Exact enumeration as a horizontal black line.")
	}
	return nominalFigure("final-"+fileSafe(split), title, "mean log-likelihood (nats)", ss, bands, caption)
}

// labelWithK names the rows that keep holds for by rowLabel, with ", K = n"
// (n intermediate distributions) added inside the parentheses when rows
// of one label have several K — so that each K is its own series.
func labelWithK(rows []Row, keep func(*Row) bool) func(*Row) string {
	ks := map[string]map[int]bool{}
	for i := range rows {
		r := &rows[i]
		if keep(r) {
			lab := rowLabel(r)
			if ks[lab] == nil {
				ks[lab] = map[int]bool{}
			}
			ks[lab][r.Betas] = true
		}
	}
	return func(r *Row) string {
		if len(ks[rowLabel(r)]) < 2 {
			return rowLabel(r)
		}
		if r.Init != "" {
			return fmt.Sprintf("%s (%s, K = %d)", r.Estimator, r.Init, r.Betas)
		}
		return fmt.Sprintf("%s (K = %d)", r.Estimator, r.Betas)
	}
}

// brokenCaption explains the red hatched bands of pairs that bracket nothing.
const brokenCaption = "A red hatched band marks a RAISE–AIS pair that is no bracket — reversed (RAISE above AIS beyond 3 combined standard errors) or with a member beyond noise on the wrong side of exact — so the truth need not lie in it; the warnings name the one that is wrong."

// pairBroken says why the RAISE row r and its AIS partner bracket nothing
// ("RAISE–AIS reversed": RAISE above AIS beyond Tolerance; "RAISE above exact"
// or "AIS above exact": a member beyond noise on the wrong side of exact — for
// AIS, its log Ẑ above the exact log Z), or "" for a bracket.
func pairBroken(rows []Row, r *Row) string {
	j := AISPartner(rows, r)
	if j >= 0 && r.MeanLoglik != nil {
		a := &rows[j]
		gap := *a.MeanLoglik - *r.MeanLoglik
		if e := Judge(-gap, CombinedError(r, a), *a.MeanLoglik); gap < 0 && e.Beyond {
			return "RAISE–AIS reversed"
		}
		if ViolatesExact(a) {
			return "AIS above exact"
		}
	}
	switch BracketBroken(r) {
	case "reversed":
		return "RAISE–AIS reversed"
	case "no bracket":
		if ViolatesExact(r) {
			return "RAISE above exact"
		}
		return "RAISE–AIS beyond exact"
	}
	return ""
}

func bracketByKFigure(rows []Row, split string) (*Figure, error) {
	ss := collect(rows, func(r *Row) bool {
		return r.Stage == StageFinal && r.Split == split && r.MeanLoglik != nil && (r.Betas > 0 || isExact(r.Estimator))
	}, func(r *Row) (float64, float64, *float64, *float64) {
		lo, hi := loglikBar(r)
		return float64(r.Betas), *r.MeanLoglik, lo, hi
	})
	several, kmin, kmax := false, math.Inf(1), math.Inf(-1)
	for _, s := range ss {
		if isExact(s.label) {
			continue
		}
		several = several || len(s.xy) > 1
		for _, xy := range s.xy {
			kmin, kmax = math.Min(kmin, xy.X), math.Max(kmax, xy.X)
		}
	}
	if !several {
		return nil, nil
	}
	for _, s := range ss {
		if isExact(s.label) { // a line across the K range
			y := s.xy[0].Y
			s.xy, s.lo, s.hi = plotter.XYs{{X: kmin, Y: y}, {X: kmax, Y: y}}, []float64{math.NaN(), math.NaN()}, []float64{math.NaN(), math.NaN()}
		}
	}
	title := "Final estimates against K (" + splitName(split) + ")"
	caption := joinSentences("The final evaluation's estimates at each number K of intermediate distributions.", barsSentence(ss))
	ais, raise := drawsEstimator(ss, "ais"), drawsEstimator(ss, "raise")
	switch {
	case ais && raise:
		caption += " As K grows, AIS (a stochastic upper bound on the mean log-probability) comes down and RAISE (a stochastic lower bound) comes up, and the bracket between them narrows onto the truth."
	case ais:
		caption += " As K grows, AIS (a stochastic upper bound on the mean log-probability) comes down onto the truth."
	case raise:
		caption += " As K grows, RAISE (a stochastic lower bound on the mean log-probability) comes up onto the truth."
	}
	if hasExact(ss) {
		caption += " Exact enumeration as a black line."
	}
	var broken []string
	for i := range rows {
		r := &rows[i]
		if r.Stage == StageFinal && r.Split == split && r.Estimator == "raise" {
			if why := pairBroken(rows, r); why != "" {
				broken = append(broken, fmt.Sprintf("K = %d (%s start): %s", r.Betas, r.Init, why))
			}
		}
	}
	if len(broken) > 0 {
		caption += " Not every pair here is a bracket: at " + strings.Join(broken, "; ") + " — the truth need not lie between them (see the warnings)."
	}
	f, err := lineFigureScaled(true, true, "bracket-k-"+fileSafe(split), title, "K, intermediate distributions (log scale)", "mean log-likelihood (nats)", ss, caption)
	return f, err
}

func finalLogZFigure(rows []Row) (*Figure, error) {
	ss := collect(rows, func(r *Row) bool {
		return r.Stage == StageFinal && r.LogZ != nil
	}, func(r *Row) (float64, float64, *float64, *float64) {
		return 0, *r.LogZ, r.LogZLo, r.LogZHi
	})
	ss = append(ss, exactLogZSeries(rows, StageFinal, ss)...)
	if !slices.ContainsFunc(ss, func(s *series) bool { return !isExact(s.label) }) {
		return nil, nil
	}
	bands := logZBands(rows)
	caption := joinSentences("The final evaluation's estimates of log Z, one colour and mark per estimator and start.", barsSentence(ss))
	if drawsEstimator(ss, "ais") {
		caption += " AIS's log Ẑ is a stochastic lower bound on log Z."
	}
	if drawsEstimator(ss, "chi2") {
		caption += " A χ² bound's estimate lies above log Z where the proposal fits."
	}
	if len(bands) > 0 {
		caption += " The shaded band is the [AIS, χ²] bracket of a proposal."
	}
	if hasExact(ss) {
		caption += " Exact enumeration as a horizontal black line."
	}
	return nominalFigure("final-logz", "Final estimates of log Z", "log Z (nats)", ss, bands, caption)
}

// tickName is a series' name under its mark on a nominal axis, on up to
// three short lines ("ais\n(base-rate)\nK = 100"), so that names of
// neighbouring marks do not run into each other.
func tickName(label string) string {
	est, rest, ok := strings.Cut(label, " (")
	if !ok {
		return label
	}
	rest = strings.TrimSuffix(rest, ")")
	var lines []string
	for _, part := range strings.Split(rest, ", ") {
		if strings.HasPrefix(part, "K = ") {
			lines = append(lines, part)
		} else {
			lines = append(lines, "("+part+")")
		}
	}
	return est + "\n" + strings.Join(lines, "\n")
}

// nominalFigure draws one value per series, side by side, with its bar;
// an exact series is a horizontal line across.
func nominalFigure(name, title, ylab string, ss []*series, bands []band, caption string) (*Figure, error) {
	var names []string
	var exact *float64
	var shown []*series
	for _, s := range ss {
		if isExact(s.label) {
			y := s.xy[0].Y
			exact = &y
			continue
		}
		names = append(names, tickName(s.label))
		shown = append(shown, s)
	}
	if len(shown) == 0 {
		return nil, nil
	}
	if clampBars(ss) {
		caption += clippedNote
	}
	p := newPlot(title, "", ylab)
	p.NominalX(names...)
	for i, b := range bands {
		x0, x1 := -0.5, float64(len(names))-0.5
		poly, err := plotter.NewPolygon(plotter.XYs{{X: x0, Y: b.lo}, {X: x1, Y: b.lo}, {X: x1, Y: b.hi}, {X: x0, Y: b.hi}})
		if err != nil {
			return nil, fmt.Errorf("report: figure %s: %w", name, err)
		}
		poly.Color = bandColors[i%len(bandColors)]
		poly.LineStyle.Width = 0
		if b.broken {
			poly.Color = brokenFill
			poly.LineStyle = draw.LineStyle{Color: brokenLine, Width: vg.Points(1), Dashes: []vg.Length{vg.Points(3), vg.Points(2)}}
		}
		p.Add(poly)
		if b.broken {
			// Hatching: parallel diagonals, one per 1/12 of the width.
			lo, hi := math.Min(b.lo, b.hi), math.Max(b.lo, b.hi)
			const n = 12
			w := (x1 - x0) / n
			for k := range n {
				l, err := plotter.NewLine(plotter.XYs{{X: x0 + float64(k)*w, Y: lo}, {X: x0 + float64(k+1)*w, Y: hi}})
				if err != nil {
					return nil, fmt.Errorf("report: figure %s: %w", name, err)
				}
				l.Color, l.Width = brokenLine, vg.Points(0.8)
				p.Add(l)
			}
		}
		p.Legend.Add(b.label, poly)
	}
	for i, s := range shown {
		s.xy[0].X = float64(i)
		pts, err := plotter.NewScatter(s.xy[:1])
		if err != nil {
			return nil, fmt.Errorf("report: figure %s: %w", name, err)
		}
		st := seriesStyle(s, i)
		c := st.Color
		pts.Color, pts.Shape, pts.Radius = c, st.Shape, vg.Points(3.5)
		p.Add(pts)
		one := &series{label: s.label, xy: s.xy[:1], lo: s.lo[:1], hi: s.hi[:1]}
		if err := addBars(p, one, c); err != nil {
			return nil, fmt.Errorf("report: figure %s: %w", name, err)
		}
	}
	if exact != nil {
		y := *exact
		l, err := plotter.NewLine(plotter.XYs{{X: -0.5, Y: y}, {X: float64(len(shown)) - 0.5, Y: y}})
		if err != nil {
			return nil, fmt.Errorf("report: figure %s: %w", name, err)
		}
		l.Color = color.Black
		p.Add(l)
		p.Legend.Add("exact", l)
	}
	return render(p, name, title, caption)
}

// logZBands returns the final [AIS, χ²] brackets of log Z, as the χ² rows
// carry them (the AIS row carries one per χ² proposal), one per proposal.
func logZBands(rows []Row) []band {
	var bands []band
	for i := range rows {
		r := &rows[i]
		if r.Stage == StageFinal && r.Estimator == "chi2" && r.LogZBracketLo != nil && r.LogZBracketHi != nil {
			bands = appendBand(bands, "[AIS, χ²] bracket", r.Init, *r.LogZBracketLo, *r.LogZBracketHi, false)
		}
	}
	return bands
}

// band is a bracket drawn as a shaded band across a nominal figure; a
// broken one (a pair that brackets nothing) is drawn red and hatched.
type band struct {
	label  string
	lo, hi float64
	broken bool
}

// brokenFill and brokenLine draw a band that is no bracket.
var (
	brokenFill = color.NRGBA{R: 220, G: 30, B: 30, A: 40}
	brokenLine = color.NRGBA{R: 200, G: 0, B: 0, A: 255}
)

// appendBand adds a bracket unless the same one is there (the rows of
// both estimators of a pair carry it).
func appendBand(bands []band, what, init string, lo, hi float64, broken bool) []band {
	label := what
	if init != "" {
		label += " (" + init + ")"
	}
	b := band{label, lo, hi, broken}
	if slices.Contains(bands, b) {
		return bands
	}
	return append(bands, b)
}

var bandColors = []color.Color{
	color.NRGBA{R: 255, G: 200, B: 80, A: 90},
	color.NRGBA{R: 120, G: 180, B: 255, A: 90},
	color.NRGBA{R: 160, G: 230, B: 140, A: 90},
}

func newPlot(title, xlab, ylab string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = xlab
	p.Y.Label.Text = ylab
	p.Legend.Top = true
	p.Legend.Left = false
	p.X.Tick.Marker = preciseTicks{}
	p.Y.Tick.Marker = preciseTicks{}
	p.Add(plotter.NewGrid())
	return p
}

// preciseTicks are gonum's default ticks labelled with as many decimals
// as it takes for every label to read as its tick's value (the default
// rounds 3.5, 2.5, 1.5 to "4", "2", "2", and can print −7.71 twice on a
// narrow range).
type preciseTicks struct{}

func (preciseTicks) Ticks(lo, hi float64) []plot.Tick {
	ticks := plot.DefaultTicks{}.Ticks(lo, hi)
	var vals []float64
	for _, t := range ticks {
		if t.Label != "" {
			vals = append(vals, t.Value)
		}
	}
	prec := tickPrecision(vals)
	for i := range ticks {
		if ticks[i].Label != "" {
			ticks[i].Label = formatTick(ticks[i].Value, prec)
		}
	}
	return ticks
}

// maxTickPrecision caps the decimals of a tick label.
const maxTickPrecision = 10

// tickPrecision returns the fewest decimals (0 to maxTickPrecision) with
// which every value's label reads back as the value (to a relative 1e-9
// of the range) and neighbouring labels differ.
func tickPrecision(vals []float64) int {
	if len(vals) == 0 {
		return 0
	}
	scale := 0.0
	for _, v := range vals {
		scale = math.Max(scale, math.Abs(v))
	}
	for i := 1; i < len(vals); i++ {
		scale = math.Max(scale, math.Abs(vals[i]-vals[i-1]))
	}
	tol := 1e-9 * math.Max(scale, 1e-300)
	for prec := 0; prec < maxTickPrecision; prec++ {
		ok := true
		seen := map[string]bool{}
		for _, v := range vals {
			l := formatTick(v, prec)
			back, err := strconv.ParseFloat(l, 64)
			if err != nil || math.Abs(back-v) > tol || seen[l] {
				ok = false
				break
			}
			seen[l] = true
		}
		if ok {
			return prec
		}
	}
	return maxTickPrecision
}

// formatTick writes a tick value with prec decimals ("-0" as "0").
func formatTick(v float64, prec int) string {
	l := strconv.FormatFloat(v, 'f', prec, 64)
	if strings.TrimLeft(l, "-0.") == "" {
		l = strings.TrimPrefix(l, "-")
	}
	return l
}

// render draws a plot as SVG: the y range padded so that no line lies on
// the frame (padY), the legend outside the data (legendOutside).
func render(p *plot.Plot, name, title, caption string) (*Figure, error) {
	padY(p)
	c, err := legendOutside(p, figureWidth, figureHeight)
	if err != nil {
		return nil, fmt.Errorf("report: figure %s: %w", name, err)
	}
	var b bytes.Buffer
	if _, err := c.WriteTo(&b); err != nil {
		return nil, fmt.Errorf("report: figure %s: %w", name, err)
	}
	return &Figure{Name: name, Title: title, Caption: caption, MIME: "image/svg+xml", Data: b.Bytes()}, nil
}

// yPadding is the share of the y range added above and below the data.
const yPadding = 0.08

// padY widens a linear y axis by yPadding of its range on either side (a
// flat range by 1% of its value, at least 0.05), so that a reference line
// at the extreme of the data is drawn inside the frame, not on it.
func padY(p *plot.Plot) {
	if _, lin := p.Y.Scale.(plot.LinearScale); !lin {
		return
	}
	lo, hi := p.Y.Min, p.Y.Max
	if math.IsInf(lo, 0) || math.IsInf(hi, 0) || math.IsNaN(lo) || math.IsNaN(hi) || lo > hi {
		return
	}
	pad := yPadding * (hi - lo)
	if pad == 0 {
		pad = math.Max(0.01*math.Abs(hi), 0.05)
	}
	p.Y.Min, p.Y.Max = lo-pad, hi+pad
}

// legendGap is the space between the data and a legend outside it.
const legendGap = 8 * vg.Millimeter

// legendOutside draws p on a w × h SVG canvas with its legend beside the
// data, in a column on the right, or, when that would take more than
// legendMaxShare of the width, in rows under the plot (the canvas grows by
// the legend's height), so that the legend never hides a point.
func legendOutside(p *plot.Plot, w, h vg.Length) (*vgsvg.Canvas, error) {
	leg := p.Legend
	p.Legend = plot.NewLegend()
	leg.TextStyle.Font.Size = legendFontSize
	leg.Left, leg.Top = true, true
	probe := draw.New(vgsvg.New(w, h))
	r := leg.Rectangle(probe)
	lw, lh := r.Max.X-r.Min.X, r.Max.Y-r.Min.Y
	if lw <= 0 {
		c := vgsvg.New(w, h)
		p.Draw(draw.New(c))
		return c, nil
	}
	if lw <= legendMaxShare*w {
		c := vgsvg.New(w, h)
		dc := draw.New(c)
		p.Draw(draw.Crop(dc, 0, -(lw + legendGap), 0, 0))
		// Level with the top of the data: under the title.
		top := p.Title.TextStyle.Rectangle(p.Title.Text).Size().Y + p.Title.Padding
		leg.Draw(draw.Crop(dc, w-lw-legendGap/2, -legendGap/2, 0, -top))
		return c, nil
	}
	h2 := h + lh + legendGap
	c := vgsvg.New(w, h2)
	dc := draw.New(c)
	p.Draw(draw.Crop(dc, 0, 0, lh+legendGap, 0))
	leg.Draw(draw.Crop(dc, legendGap, 0, legendGap/4, -(h2 - lh - legendGap/4)))
	return c, nil
}

// legendFontSize is the size of a legend's labels (tick labels are 10).
const legendFontSize = vg.Length(11)

// legendMaxShare is the widest a legend column beside the data may be.
const legendMaxShare = 0.36

// fileSafe keeps letters, digits, - and _ of s.
func fileSafe(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r < 128 && (r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			b.WriteRune(r)
		}
	}
	if b.Len() == 0 {
		return "all"
	}
	return b.String()
}
