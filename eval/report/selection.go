package report

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// SelectSpec is a grid's select: setting (see the config package's
// Select): the point whose mean log-likelihood by Estimator on Split is
// highest is chosen.
type SelectSpec struct {
	Split, Estimator string
}

// Selection is the choice of one grid's point on a held-out split, as
// results.json records it under "selections": the value of every point
// (with a seed axis, every group of seeds: the mean over its seeds), the
// point chosen, and its numbers on the other splits.
type Selection struct {
	// Grid names the experiment whose grid the points are (a name
	// template keeps its {PATH} placeholders).
	Grid string `json:"grid"`
	// Split and Estimator say what was compared: the estimator's mean
	// log-likelihood on the split (higher is better).
	Split     string `json:"split"`
	Estimator string `json:"estimator"`
	// Points are the grid's points in grid order, each with its value or
	// why it was skipped.
	Points []SelectionPoint `json:"points"`
	// Chosen is the point with the highest value ("" when no point has
	// one), the first in grid order among equals; Tied are the other
	// points with that same value.
	Chosen string   `json:"chosen"`
	Tied   []string `json:"tied,omitempty"`
	// ChosenExperiments are the chosen point's experiments (one per seed).
	ChosenExperiments []string `json:"chosen_experiments"`
	// Results are the chosen point's final log-likelihood estimates on
	// the splits other than Split, in the order of its rows.
	Results []SelectionResult `json:"results"`
}

// SelectionPoint is one point of a selection: with a seed axis, the group
// of its seeds.
type SelectionPoint struct {
	// Point is the point without its seed (GridPoint.Group); Setting its
	// coordinates other than the seed ("train.learning_rate=0.01").
	Point   string `json:"point"`
	Setting string `json:"setting"`
	// Experiments are the point's experiments, one per seed.
	Experiments []string `json:"experiments"`
	// Value is the mean over the experiments of the estimator's mean
	// log-likelihood on the split, SE its standard error (over the seeds
	// with two or more, else the estimate's own); both absent when the
	// point was skipped.
	Value *float64 `json:"value,omitempty"`
	SE    *float64 `json:"se,omitempty"`
	// Skipped says why the point has no value: an experiment without the
	// estimate (failed, unfinished) or with a non-finite one.
	Skipped string `json:"skipped,omitempty"`
}

// SelectionResult is a final estimate of the chosen point on one split:
// the mean over its seeds ± SE (over the seeds with two or more, else the
// estimate's own standard error).
type SelectionResult struct {
	Split     string   `json:"split"`
	Estimator string   `json:"estimator"`
	Init      string   `json:"init,omitempty"`
	Runs      int      `json:"runs,omitempty"`
	Betas     int      `json:"betas,omitempty"`
	Mean      float64  `json:"mean"`
	SE        *float64 `json:"se,omitempty"`
	Seeds     int      `json:"seeds"`
}

// selectionTitle heads the lines of Selections in the final tables.
const selectionTitle = "Chosen on a held-out split (select:)"

// legendSelection explains the lines of Selections.
const legendSelection = "chosen on SPLIT by ESTIMATOR: of a grid with select:, the point whose mean log-likelihood by that estimator on that split " +
	"is highest (with seeds, the mean over them), the first in grid order among equals; → its estimates on the other splits, each ± its " +
	"standard error (over the seeds where there are several). Points without the estimate are skipped and named."

// Selections chooses, for every grid of g with a select: setting, its
// point with the highest final estimate on the select's split, from the
// final rows of rows; grids in the order of their first experiment.
func Selections(rows []Row, g Grid) []Selection {
	type member = selMember
	byGrid := map[string][]member{}
	var grids []string
	for name, p := range g {
		if p.Select == nil {
			continue
		}
		if byGrid[p.Of] == nil {
			grids = append(grids, p.Of)
		}
		byGrid[p.Of] = append(byGrid[p.Of], member{name, p})
	}
	for _, ms := range byGrid {
		slices.SortFunc(ms, func(a, b member) int { return a.p.Index - b.p.Index })
	}
	slices.SortFunc(grids, func(a, b string) int { return byGrid[a][0].p.Index - byGrid[b][0].p.Index })
	// Each experiment's final rows, in order.
	final := map[string][]*Row{}
	for i := range rows {
		if r := &rows[i]; r.Stage == StageFinal && r.Estimator != "reference" {
			final[r.Experiment] = append(final[r.Experiment], r)
		}
	}
	var out []Selection
	for _, of := range grids {
		ms := byGrid[of]
		spec := *ms[0].p.Select
		s := Selection{Grid: of, Split: spec.Split, Estimator: spec.Estimator, ChosenExperiments: []string{}, Results: []SelectionResult{}}
		var groups [][]member
		at := map[string]int{}
		for _, m := range ms {
			i, ok := at[m.p.Group]
			if !ok {
				i = len(groups)
				at[m.p.Group] = i
				groups = append(groups, nil)
			}
			groups[i] = append(groups[i], m)
		}
		best := -1
		for _, grp := range groups {
			pt := SelectionPoint{Point: grp[0].p.Group, Setting: grp[0].p.Setting}
			var xs []float64
			var own *float64
			for _, m := range grp {
				pt.Experiments = append(pt.Experiments, m.name)
				r := firstRow(final[m.name], spec.Split, spec.Estimator)
				switch {
				case pt.Skipped != "":
				case r == nil:
					pt.Skipped = fmt.Sprintf("%s has no final %s estimate on %s (failed or not finished)", m.name, spec.Estimator, spec.Split)
				case r.MeanLoglik == nil:
					pt.Skipped = fmt.Sprintf("%s: %s gives no mean log-likelihood on %s", m.name, spec.Estimator, spec.Split)
				case math.IsNaN(*r.MeanLoglik) || math.IsInf(*r.MeanLoglik, 0):
					pt.Skipped = fmt.Sprintf("%s: %s's mean log-likelihood on %s is %g", m.name, spec.Estimator, spec.Split, *r.MeanLoglik)
				default:
					xs = append(xs, *r.MeanLoglik)
					own = r.LoglikSE
				}
			}
			if pt.Skipped == "" {
				m, se := meanSE(xs)
				pt.Value = &m
				if len(xs) > 1 {
					pt.SE = &se
				} else {
					pt.SE = own
				}
				switch {
				case best < 0 || m > *s.Points[best].Value:
					best = len(s.Points)
					s.Tied = nil
				case m == *s.Points[best].Value:
					s.Tied = append(s.Tied, pt.Point)
				}
			}
			s.Points = append(s.Points, pt)
		}
		if best >= 0 {
			s.Chosen, s.ChosenExperiments = s.Points[best].Point, s.Points[best].Experiments
			s.Results = chosenResults(final, groups[best], spec.Split)
		}
		out = append(out, s)
	}
	return out
}

// selMember is an experiment of a grid with select: and its point.
type selMember struct {
	name string
	p    GridPoint
}

// firstRow is the first of rows of the estimator on the split.
func firstRow(rows []*Row, split, estimator string) *Row {
	for _, r := range rows {
		if r.Split == split && r.Estimator == estimator {
			return r
		}
	}
	return nil
}

// chosenResults are the chosen group's log-likelihood estimates on the
// splits other than split: per estimate of its first experiment, the mean
// over the experiments that have the same estimate (estimator, split,
// start, runs, β, round), ± SE.
func chosenResults(final map[string][]*Row, grp []selMember, split string) []SelectionResult {
	out := []SelectionResult{}
	first := grp[0]
	for _, r0 := range final[first.name] {
		if r0.Split == split || r0.MeanLoglik == nil {
			continue
		}
		var xs []float64
		for _, m := range grp {
			for _, r := range final[m.name] {
				if r.Split == r0.Split && r.Estimator == r0.Estimator && r.Init == r0.Init && r.Runs == r0.Runs && r.Betas == r0.Betas && r.Round == r0.Round && r.MeanLoglik != nil {
					xs = append(xs, *r.MeanLoglik)
					break
				}
			}
		}
		mean, se := meanSE(xs)
		res := SelectionResult{Split: r0.Split, Estimator: r0.Estimator, Init: r0.Init, Runs: r0.Runs, Betas: r0.Betas, Mean: mean, Seeds: len(xs)}
		if len(xs) > 1 {
			res.SE = &se
		} else {
			res.SE = r0.LoglikSE
		}
		out = append(out, res)
	}
	return out
}

// Line is the selection as the final tables give it:
// "rbm: chosen on valid by ais: train.learning_rate=0.01 (valid −20.05 ± 0.03) → test: ais −20.01 ± 0.02, exact −20.00",
// then the points skipped and the ties.
func (s Selection) Line() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: chosen on %s by %s: ", s.Grid, s.Split, s.Estimator)
	if s.Chosen == "" {
		fmt.Fprintf(&b, "none (no point has an estimate by %s on %s)", s.Estimator, s.Split)
	} else {
		var c SelectionPoint
		for _, p := range s.Points {
			if p.Point == s.Chosen {
				c = p
			}
		}
		what := c.Setting
		if what == "" {
			what = c.Point
		}
		seeds := ""
		if n := len(c.Experiments); n > 1 {
			seeds = fmt.Sprintf(", mean of %d seeds", n)
		}
		fmt.Fprintf(&b, "%s (%s %s%s)", what, s.Split, pm(*c.Value, c.SE), seeds)
		var parts []string
		last := ""
		for _, r := range s.Results {
			lab := r.Estimator
			if r.Init != "" {
				lab += " " + r.Init
			}
			if r.Runs > 0 {
				lab += fmt.Sprintf(" %d runs", r.Runs)
			}
			p := lab + " " + pm(r.Mean, r.SE)
			if r.Split != last {
				p = r.Split + ": " + p
				last = r.Split
			}
			parts = append(parts, p)
		}
		if len(parts) > 0 {
			b.WriteString(" → " + strings.Join(parts, ", "))
		}
		if len(s.Tied) > 0 {
			fmt.Fprintf(&b, "; tied with %s, the first in grid order chosen", strings.Join(s.Tied, ", "))
		}
	}
	var skipped []string
	for _, p := range s.Points {
		if p.Skipped != "" {
			skipped = append(skipped, p.Point+" ("+p.Skipped+")")
		}
	}
	if len(skipped) > 0 {
		fmt.Fprintf(&b, "; skipped: %s", strings.Join(skipped, "; "))
	}
	return b.String()
}

// pm writes "x ± se", or x alone without a standard error.
func pm(x float64, se *float64) string {
	if se == nil {
		return num2(x)
	}
	return num2(x) + " ± " + num2(*se)
}

// selectionLines are the lines of the selections of g in rows, and the
// legend that explains them (nil without selections).
func selectionLines(rows []Row, g Grid) (lines []string, legend string) {
	for _, s := range Selections(rows, g) {
		lines = append(lines, s.Line())
	}
	if len(lines) > 0 {
		legend = legendSelection
	}
	return lines, legend
}
