package report

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// GridPoint places an experiment of a run in a config's grid (see the
// config package's GridPoint): Group names the point without its seed
// ("rbm (train.learning_rate=0.05)", "cd1-s{seed}-32"), Seed is its label
// on the grid's seed axis. The experiments of one group differ only in
// their seed.
type GridPoint struct {
	Group string
	Seed  string
	// Of names the experiment whose grid made the point, Setting is the
	// point's coordinates other than its seed, Index its position in the
	// run's experiments; Select is its grid's select: (nil without one).
	// Selections reads them.
	Of      string
	Setting string
	Index   int
	Select  *SelectSpec
}

// Grid maps the experiments that are points of a grid with a seed axis,
// or of a grid with select:, to their points; the tables add, per group,
// the mean ± SE over its seeds, and per grid with select: its choice
// (Selections).
type Grid map[string]GridPoint

// legendSeeds explains the lines that average over seeds.
const legendSeeds = "mean of n seeds: for a grid point, the mean over its n seeds of each number, ± its standard error " +
	"SE = sd/√n (sd the standard deviation over the seeds, with n − 1 in its denominator): the spread that training and " +
	"estimation vary by between seeds, not one estimate's own error; the lines of the single seeds are above it."

// meanSE is the mean of xs and its standard error sd/√n.
func meanSE(xs []float64) (mean, se float64) {
	n := float64(len(xs))
	for _, x := range xs {
		mean += x
	}
	mean /= n
	var ss float64
	for _, x := range xs {
		ss += (x - mean) * (x - mean)
	}
	if len(xs) > 1 {
		se = math.Sqrt(ss/(n-1)) / math.Sqrt(n)
	}
	return mean, se
}

// seedLine is the mean over the seeds of a group of the table lines of one
// estimator configuration.
type seedLine struct {
	group string
	first *line   // the first seed's line: model, estimator, runs, β
	lines []*line // one per seed
}

// label is the Experiment cell of the line.
func (s *seedLine) label() string {
	return fmt.Sprintf("%s: mean of %d seeds", s.group, len(s.lines))
}

// cell is "mean ± se" of the numbers that get returns for the seeds'
// lines, or Missing unless every seed has one.
func (s *seedLine) cell(get func(l *line) *float64) string {
	var xs []float64
	for _, l := range s.lines {
		p := get(l)
		if p == nil {
			return Missing
		}
		xs = append(xs, *p)
	}
	m, se := meanSE(xs)
	return num2(m) + " ± " + num2(se)
}

// signal is cell for a pll/recon value, formatted as signalCell does.
func (s *seedLine) signal(split string) string {
	var xs []float64
	for _, l := range s.lines {
		r := l.splits[split]
		if r == nil || r.Value == nil {
			return Missing
		}
		xs = append(xs, *r.Value)
	}
	m, se := meanSE(xs)
	f := func(x float64) string {
		if a := math.Abs(x); a != 0 && a < 0.1 {
			return strconv.FormatFloat(x, 'g', 3, 64)
		}
		return num2(x)
	}
	return f(m) + " ± " + f(se)
}

func (s *seedLine) minutes() string {
	var t float64
	for _, l := range s.lines {
		t += l.seconds
	}
	return num2(t / 60)
}

// seedLines groups lines by grid group and estimator configuration and
// returns, by the index of the line after which each belongs (the last of
// its seeds' lines), the means over two or more seeds.
func seedLines(lines []*line, g Grid) map[int][]*seedLine {
	if len(g) == 0 {
		return nil
	}
	type key struct {
		group, model, estimator, init string
		runs, betas, round            int
		signal                        bool
	}
	byKey := map[key]*seedLine{}
	var order []key
	last := map[key]int{}
	for i, l := range lines {
		p, ok := g[l.experiment]
		if !ok || p.Group == "" {
			continue
		}
		k := key{p.Group, l.model, l.estimator, l.init, l.runs, l.betas, l.round, l.signal}
		s := byKey[k]
		if s == nil {
			s = &seedLine{group: p.Group, first: l}
			byKey[k] = s
			order = append(order, k)
		}
		s.lines = append(s.lines, l)
		last[k] = i
	}
	out := map[int][]*seedLine{}
	for _, k := range order {
		if s := byKey[k]; len(s.lines) >= 2 {
			out[last[k]] = append(out[last[k]], s)
		}
	}
	return out
}

// GridFigures draws, per split, the final mean log-likelihood of every
// estimator at each grid point of g that has two or more seeds: its mean
// over the seeds with bars ± SE (sd/√n) and each seed's own value as a
// small dot beside it. nil when no grid point has two seeds.
func GridFigures(rows []Row, g Grid) ([]Figure, error) {
	if len(g) == 0 {
		return nil, nil
	}
	var figs []Figure
	for _, split := range splitsOf(rows, StageFinal, func(r *Row) bool { return r.MeanLoglik != nil }) {
		var groups, labels []string
		vals := map[[2]string][]float64{} // (group, estimator label) → one value per seed
		seeds := map[string]map[string]bool{}
		for i := range rows {
			r := &rows[i]
			pt, ok := g[r.Experiment]
			if !ok || r.Stage != StageFinal || r.Split != split || r.MeanLoglik == nil || r.Value != nil {
				continue
			}
			if seeds[pt.Group] == nil {
				seeds[pt.Group] = map[string]bool{}
				groups = append(groups, pt.Group)
			}
			seeds[pt.Group][pt.Seed] = true
			lab := rowLabel(r)
			if !slices.Contains(labels, lab) {
				labels = append(labels, lab)
			}
			k := [2]string{pt.Group, lab}
			vals[k] = append(vals[k], *r.MeanLoglik)
		}
		groups = slices.DeleteFunc(groups, func(gr string) bool { return len(seeds[gr]) < 2 })
		if len(groups) == 0 {
			continue
		}
		f, err := gridFigure(split, groups, labels, vals)
		if err != nil {
			return nil, err
		}
		if f != nil {
			figs = append(figs, *f)
		}
	}
	return figs, nil
}

func gridFigure(split string, groups, labels []string, vals map[[2]string][]float64) (*Figure, error) {
	name := "grid-" + fileSafe(split)
	title := "Mean over seeds per grid point: " + split + " log-likelihood"
	p := newPlot(title, "", "mean log-likelihood (nats)")
	p.NominalX(groups...)
	width := 0.5 // of the space that a group's estimators share
	drawn := false
	for j, lab := range labels {
		s := &series{label: lab}
		var dots plotter.XYs
		for i, gr := range groups {
			xs := vals[[2]string{gr, lab}]
			if len(xs) < 2 {
				continue
			}
			x := float64(i)
			if len(labels) > 1 {
				x += width * (float64(j)/float64(len(labels)-1) - 0.5)
			}
			m, se := meanSE(xs)
			lo, hi := m-se, m+se
			s.add(x, m, &lo, &hi)
			for _, v := range xs {
				dots = append(dots, plotter.XY{X: x + 0.04, Y: v})
			}
		}
		if len(s.xy) == 0 {
			continue
		}
		drawn = true
		st := StyleOfLabel(lab)
		c := st.Color
		pts, err := plotter.NewScatter(s.xy)
		if err != nil {
			return nil, fmt.Errorf("report: figure %s: %w", name, err)
		}
		pts.Color, pts.Shape, pts.Radius = c, st.Shape, vg.Points(3.5)
		p.Add(pts)
		p.Legend.Add(lab+": mean ± SE", pts)
		if err := addBars(p, s, c); err != nil {
			return nil, fmt.Errorf("report: figure %s: %w", name, err)
		}
		seedPts, err := plotter.NewScatter(dots)
		if err != nil {
			return nil, fmt.Errorf("report: figure %s: %w", name, err)
		}
		seedPts.Color, seedPts.Shape, seedPts.Radius = c, draw.CircleGlyph{}, vg.Points(1.2)
		p.Add(seedPts)
	}
	if !drawn {
		return nil, nil
	}
	// Room around the outer groups and the outer seeds' dots.
	p.X.Min, p.X.Max = -0.5, float64(len(groups))-0.5
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, xs := range vals {
		for _, x := range xs {
			lo, hi = min(lo, x), max(hi, x)
		}
	}
	pad := 0.08 * max(hi-lo, 1e-3)
	p.Y.Min, p.Y.Max = min(p.Y.Min, lo-pad), max(p.Y.Max, hi+pad)
	caption := "Each grid point's final " + split + " mean log-likelihood per estimator: the mean over its seeds (large mark) with bars ± SE = sd/√n " +
		"(sd the standard deviation over the n seeds), and each seed's value (small dots beside it): the spread between seeds, " +
		"which the tables give as \"mean of n seeds\"."
	return render(p, name, title, caption)
}
