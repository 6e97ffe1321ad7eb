package report

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// Overlays put curves that the per-experiment plots show apart on one
// axes: every experiment's test curve of one estimator configuration
// (OverlayFigures, against the epoch and against the training time), and
// one experiment's curves of one estimator on each split
// (SplitOverlayFigures). They are drawn only where there is more than one
// curve to overlay.

// overlaySplit is the split whose curves OverlayFigures overlays across
// experiments.
const overlaySplit = "test"

// curveKey is an estimator configuration of per-epoch rows: the
// estimator, its start and its number K of intermediate distributions.
type curveKey struct {
	estimator, init string
	betas           int
}

func curveKeyOf(r *Row) curveKey { return curveKey{r.Estimator, r.Init, r.Betas} }

// label names a configuration: "ais (base-rate, K = 1000)".
func (k curveKey) label() string {
	K := ""
	if k.betas > 0 {
		K = fmt.Sprintf("K = %d", k.betas)
	}
	return qualified(k.estimator, k.init, K)
}

// slug is a file-safe id of a configuration.
func (k curveKey) slug() string {
	s := fileSafe(k.estimator)
	if k.init != "" {
		s += "-" + fileSafe(k.init)
	}
	if k.betas > 0 {
		s += fmt.Sprintf("-k%d", k.betas)
	}
	return s
}

// overlayCurve is one curve of an overlay: its points against the epoch.
type overlayCurve struct {
	label string
	// epoch → mean log-likelihood, the first row of an epoch kept.
	points map[int]float64
	// paper is the published number beside the curve, if any.
	paper *paperRef
}

// epochs returns the curve's epochs in order.
func (c *overlayCurve) epochs() []int {
	es := make([]int, 0, len(c.points))
	for e := range c.points {
		es = append(es, e)
	}
	slices.Sort(es)
	return es
}

// loglikCurves returns the per-epoch mean log-likelihoods of rows that keep
// holds for, by configuration, in order of first appearance.
func loglikCurves(rows []Row, keep func(*Row) bool) ([]curveKey, map[curveKey]map[int]float64) {
	var keys []curveKey
	pts := map[curveKey]map[int]float64{}
	for i := range rows {
		r := &rows[i]
		if r.Stage != StageEpoch || r.MeanLoglik == nil || r.Estimator == "train" || !keep(r) {
			continue
		}
		k := curveKeyOf(r)
		if pts[k] == nil {
			pts[k] = map[int]float64{}
			keys = append(keys, k)
		}
		if _, ok := pts[k][r.Epoch]; !ok {
			pts[k][r.Epoch] = *r.MeanLoglik
		}
	}
	return keys, pts
}

// TrainingTime returns, per epoch of one experiment's rows, the
// cumulative wall-clock seconds of training up to the end of that epoch:
// the sum of the seconds of the trainer's own rows (estimator "train",
// one per epoch, which time the epoch's training alone — not the
// evaluations after it, nor checkpoints) of epochs 1 to it; 0 for epoch
// 0. An epoch is missing when a trainer's row of it or of an earlier
// epoch is.
func TrainingTime(rows []Row) map[int]float64 {
	secs := map[int]float64{}
	for i := range rows {
		r := &rows[i]
		if r.Stage == StageEpoch && r.Estimator == "train" {
			if _, ok := secs[r.Epoch]; !ok {
				secs[r.Epoch] = r.Seconds
			}
		}
	}
	out := map[int]float64{0: 0}
	sum := 0.0
	for e := 1; ; e++ {
		s, ok := secs[e]
		if !ok {
			break
		}
		sum += s
		out[e] = sum
	}
	return out
}

// OverlayFigures draws, for each estimator configuration (estimator,
// start, K) that more than one experiment evaluated on the test split
// after epochs, every experiment's curve on one axes: against the epoch,
// and against the cumulative training time (TrainingTime; drawn for the
// experiments that have it, when more than one does). The published test
// numbers of the experiments (reference rows) are drawn as dotted lines
// in their experiment's colour.
func OverlayFigures(rows []Row) ([]Figure, error) {
	exps := Experiments(rows)
	if len(exps) < 2 {
		return nil, nil
	}
	type perExp struct {
		name  string
		pts   map[curveKey]map[int]float64
		time  map[int]float64
		paper *paperRef
	}
	var all []perExp
	var keys []curveKey
	refs := paperRefs(rows)
	for _, e := range exps {
		rs := Select(rows, e)
		ks, pts := loglikCurves(rs, func(r *Row) bool { return r.Split == overlaySplit })
		for _, k := range ks {
			if !slices.Contains(keys, k) {
				keys = append(keys, k)
			}
		}
		pe := perExp{name: e, pts: pts, time: TrainingTime(rs)}
		for i := range refs {
			if refs[i].experiment == e && refs[i].split == overlaySplit {
				pe.paper = &refs[i]
			}
		}
		all = append(all, pe)
	}
	var figs []Figure
	for _, k := range keys {
		var byEpoch, byTime []overlayCurve
		for _, pe := range all {
			pts := pe.pts[k]
			if len(pts) == 0 {
				continue
			}
			byEpoch = append(byEpoch, overlayCurve{label: pe.name, points: pts, paper: pe.paper})
			timed := map[int]float64{}
			for e, v := range pts {
				if _, ok := pe.time[e]; ok {
					timed[e] = v
				}
			}
			if len(timed) > 0 {
				byTime = append(byTime, overlayCurve{label: pe.name, points: timed, paper: pe.paper})
			}
		}
		if len(byEpoch) < 2 {
			continue
		}
		what := k.label() + ", " + overlaySplit
		caption := fmt.Sprintf("The %s curve of every experiment that has one, on one axes (one colour and mark per experiment; the bars are on each experiment's own plot).", what)
		f, err := overlayFigure("overlay-"+k.slug()+"-"+overlaySplit, "Mean log-likelihood per epoch, every experiment ("+what+")",
			"epoch", byEpoch, func(_ string, e int) (float64, bool) { return float64(e), true }, caption)
		if err != nil {
			return nil, err
		}
		figs = append(figs, *f)
		if len(byTime) < 2 {
			continue
		}
		times := map[string]map[int]float64{}
		maxT := 0.0
		for _, pe := range all {
			times[pe.name] = pe.time
			for _, s := range pe.time {
				maxT = math.Max(maxT, s)
			}
		}
		unit, scale := "s", 1.0
		if maxT > 600 {
			unit, scale = "min", 60
		}
		caption = fmt.Sprintf("The %s curves against the training time: x is the cumulative wall-clock time of training up to the end of each epoch, the sum of the trainer's per-epoch times (its \"train\" rows' seconds in results.json) — without the evaluations after the epochs and the checkpoints, and on a machine that may have been shared, so experiments compare fairly only when they ran under like load.", what)
		if missing := len(byEpoch) - len(byTime); missing > 0 {
			caption += fmt.Sprintf(" %d experiment(s) without the trainer's times of every epoch are left out.", missing)
		}
		f, err = overlayFigure("overlay-"+k.slug()+"-"+overlaySplit+"-time", "Mean log-likelihood against training time, every experiment ("+what+")",
			"training time ("+unit+", cumulative)", byTime, func(exp string, e int) (float64, bool) {
				s, ok := times[exp][e]
				return s / scale, ok
			}, caption)
		if err != nil {
			return nil, err
		}
		figs = append(figs, *f)
	}
	return figs, nil
}

// SplitOverlayFigures draws, for each estimator configuration of one
// experiment's per-epoch rows measured on more than one split, its
// curves of every split (test, valid, train) on one axes, with the
// published numbers of those splits as dotted lines in their split's
// colour.
func SplitOverlayFigures(rows []Row) ([]Figure, error) {
	splits := splitsOf(rows, StageEpoch, func(r *Row) bool { return r.MeanLoglik != nil && r.Estimator != "train" })
	if len(splits) < 2 {
		return nil, nil
	}
	type bySplit struct {
		split string
		pts   map[curveKey]map[int]float64
	}
	var per []bySplit
	var keys []curveKey
	for _, s := range splits {
		ks, pts := loglikCurves(rows, func(r *Row) bool { return r.Split == s })
		for _, k := range ks {
			if !slices.Contains(keys, k) {
				keys = append(keys, k)
			}
		}
		per = append(per, bySplit{s, pts})
	}
	refs := paperRefs(rows)
	var figs []Figure
	for _, k := range keys {
		var cs []overlayCurve
		for _, p := range per {
			if len(p.pts[k]) == 0 {
				continue
			}
			c := overlayCurve{label: splitName(p.split), points: p.pts[k]}
			for i := range refs {
				if refs[i].split == p.split {
					c.paper = &refs[i]
				}
			}
			cs = append(cs, c)
		}
		if len(cs) < 2 {
			continue
		}
		caption := fmt.Sprintf("The %s curves of every split on one axes (one colour and mark per split; the bars are on each split's own plot): the gap between train and the held-out splits is the overfitting.", k.label())
		f, err := overlayFigure("splits-"+k.slug(), "Mean log-likelihood per epoch, every split ("+k.label()+")", "epoch", cs,
			func(_ string, e int) (float64, bool) { return float64(e), true }, caption)
		if err != nil {
			return nil, err
		}
		figs = append(figs, *f)
	}
	return figs, nil
}

// overlayFigure draws curves on one axes, x(curve label, epoch) placing
// each point (false: left out), each curve's published number as a
// dotted line in its colour across the x range, labelled "<curve> paper:
// <source>: <value>".
func overlayFigure(name, title, xlab string, cs []overlayCurve, x func(label string, epoch int) (float64, bool), caption string) (*Figure, error) {
	p := newPlot(title, xlab, "nats per example")
	p.Legend.Top = false // the curves rise
	lo, hi := math.Inf(1), math.Inf(-1)
	xys := make([]plotter.XYs, len(cs))
	for i, c := range cs {
		for _, e := range c.epochs() {
			if xv, ok := x(c.label, e); ok {
				xys[i] = append(xys[i], plotter.XY{X: xv, Y: c.points[e]})
				lo, hi = math.Min(lo, xv), math.Max(hi, xv)
			}
		}
	}
	entries := 0
	var papers []string
	for i, c := range cs {
		if len(xys[i]) == 0 {
			continue
		}
		col := plotutil.Color(i)
		l, pts, err := plotter.NewLinePoints(xys[i])
		if err != nil {
			return nil, fmt.Errorf("report: figure %s: %w", name, err)
		}
		l.Color, pts.Color, pts.Shape, pts.Radius = col, col, plotutil.Shape(i), vg.Points(2.5)
		p.Add(l, pts)
		p.Legend.Add(c.label, l, pts)
		entries++
		if c.paper != nil && lo <= hi {
			pl, err := plotter.NewLine(plotter.XYs{{X: lo, Y: c.paper.value}, {X: hi, Y: c.paper.value}})
			if err != nil {
				return nil, fmt.Errorf("report: figure %s: %w", name, err)
			}
			pl.Color, pl.Width, pl.Dashes = col, vg.Points(1.4), []vg.Length{vg.Points(1.5), vg.Points(2)}
			p.Add(pl)
			// The legend names the number; the caption its source.
			p.Legend.Add(c.label+" paper "+minusSign(num2(c.paper.value)), pl)
			entries++
			papers = append(papers, c.label+" "+c.paper.cite())
		}
	}
	if len(papers) > 0 {
		caption += " Dotted, in a curve's colour: the published number of its experiment and split (the config's reference:), not computed by logz — " + strings.Join(papers, "; ") + "."
	}
	// Room for the legend: the plot grows with its entries beyond six.
	h := figureHeight + vg.Length(max(0, entries-6))*0.5*vg.Centimeter
	return renderSized(p, name, title, caption, figureWidth, h)
}

// renderSized is render at a given size.
func renderSized(p *plot.Plot, name, title, caption string, w, h vg.Length) (*Figure, error) {
	wt, err := p.WriterTo(w, h, "svg")
	if err != nil {
		return nil, fmt.Errorf("report: figure %s: %w", name, err)
	}
	var b bytes.Buffer
	if _, err := wt.WriteTo(&b); err != nil {
		return nil, fmt.Errorf("report: figure %s: %w", name, err)
	}
	return &Figure{Name: name, Title: title, Caption: caption, MIME: "image/svg+xml", Data: b.Bytes()}, nil
}
