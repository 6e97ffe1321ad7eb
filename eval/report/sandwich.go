package report

import (
	"io"
	"slices"
	"strconv"
	"strings"
)

// sandwichTitle introduces the AIS/RAISE table.
const sandwichTitle = "AIS and RAISE side by side (mean log-probability, nats; gap = AIS − RAISE ± σ, the honest error bar)"

// sandwichLegend explains the gap's σ and the ⚠ column.
const (
	sandwichLegendGap = "gap ± σ: σ = √(σ_AIS² + σ_RAISE²), their combined standard error (σ_AIS the error of log Ẑ, " +
		"σ_RAISE RAISE's standard error). A negative gap (RAISE above AIS, a reversed bracket) within 3σ (at least 0.01 nats) is noise; beyond it, a warning."
	sandwichLegendK    = "K: the number of intermediate distributions of the RAISE of the line, paired with the AIS of the same K (else the AIS with the most)."
	sandwichLegendWarn = "⚠: a warning on the pair (a gap above gap_tolerance, a reversed bracket beyond 3σ, a member beyond 3σ on the wrong side of exact: no bracket) " +
		"or on CSL (above exact, AIS or RAISE beyond 3σ: its chains did not mix); the texts are under the main table."
)

// AISPartner returns the index of the AIS row of rows that brackets the
// RAISE row r (same experiment, evaluation, split, start and sandwich
// round): the one with
// r's number of intermediate distributions, else the one with the most;
// −1 if none, or if r's mean is a subsample's own (SplitExamples set, no
// control variate: other examples than AIS's). Every such pair is a valid
// bracket in expectation, but with
// AIS and RAISE run at several K (Burda et al. 2015, Table 1) each RAISE is
// paired with the AIS of its own K.
func AISPartner(rows []Row, r *Row) int {
	if r.Subsampled() && r.ControlVariate == "" {
		return -1 // a subsample's own mean: not comparable with AIS's split mean
	}
	best := -1
	for j := range rows {
		a := &rows[j]
		if a.Estimator != "ais" || a.Split != r.Split || a.Init != r.Init || a.MeanLoglik == nil ||
			a.Experiment != r.Experiment || a.Stage != r.Stage || a.Epoch != r.Epoch || a.Round != r.Round {
			continue
		}
		switch {
		case a.Betas == r.Betas:
			return j
		case best < 0 || a.Betas > rows[best].Betas:
			best = j
		}
	}
	return best
}

// sandwich is the rendered AIS/RAISE table with its legend.
type sandwich struct {
	grid   *grid
	legend []string
}

// sandwichGrid lays out the final rows like Table 1 of Burda, Grosse &
// Salakhutdinov (2015): one line per (experiment, split) with the exact
// log-likelihood, CSL, the DBN or DBM mean-field bound when present, and for
// each AIS start (uniform, base-rate) the RAISE estimate, the AIS estimate
// and their gap AIS − RAISE ± its combined standard error. Columns empty in
// every line (a start that did not run, no CSL, no warning) are left out.
// It returns nil when no RAISE row is present.
func sandwichGrid(rows []Row) *sandwich {
	type key struct{ exp, split string }
	type cell struct {
		exact, csl, bound *float64
		raise, ais        []int // RAISE and AIS rows, in order
		ks                []int // their distinct numbers of β, in order
		model             string
		warn              bool
	}
	var order []key
	cells := map[key]*cell{}
	any, severalK := false, false
	for i := range rows {
		r := &rows[i]
		if r.Stage != StageFinal || r.MeanLoglik == nil || r.Split == "" {
			continue
		}
		k := key{r.Experiment, r.Split}
		c := cells[k]
		if c == nil {
			c = &cell{model: r.Model}
			cells[k] = c
			order = append(order, k)
		}
		switch r.Estimator {
		case "exact":
			c.exact = r.MeanLoglik
		case "csl":
			c.csl = r.MeanLoglik
		case "dbn-bound", "mf-bound":
			c.bound = r.MeanLoglik
		case "raise":
			c.raise = append(c.raise, i)
			if !slices.Contains(c.ks, r.Betas) {
				c.ks = append(c.ks, r.Betas)
			}
			severalK = severalK || len(c.ks) > 1
			any = true
		case "ais":
			c.ais = append(c.ais, i)
		}
		for _, w := range r.Warnings {
			if r.Estimator == "csl" && strings.Contains(w, cslNotMixed) {
				c.warn = true
			}
		}
	}
	// pairWarn: a warning of the sandwich on an AIS or RAISE row.
	pairWarn := func(r *Row) bool {
		if r == nil {
			return false
		}
		return BracketBroken(r) != "" || slices.ContainsFunc(r.Warnings, func(w string) bool {
			return strings.Contains(w, "gap") || strings.Contains(w, "RAISE is above AIS")
		})
	}
	if !any {
		return nil
	}
	g := &grid{header: []string{"Experiment", "Model", "Split", "K", "exact", "CSL", "bound",
		"uniform RAISE", "uniform AIS", "uniform gap", "base-rate RAISE", "base-rate AIS", "base-rate gap", "!"}}
	g.align = []align{alignLeft, alignLeft, alignLeft}
	for range len(g.header) - 4 {
		g.align = append(g.align, alignRight)
	}
	g.align = append(g.align, alignLeft)
	mean := func(r *Row) *float64 {
		if r == nil {
			return nil
		}
		return r.MeanLoglik
	}
	for _, k := range order {
		c := cells[k]
		// One line per K of the RAISE rows (one line when they share it
		// or there is none).
		ks := c.ks
		if len(ks) == 0 {
			ks = []int{-1}
		}
		for ki, K := range ks {
			kcell := Missing
			if severalK {
				kcell = strconv.Itoa(K)
			}
			row := []string{k.exp, orMissing(c.model), k.split, kcell, opt2(c.exact), opt2(c.csl), opt2(c.bound)}
			warn := c.warn
			for _, init := range []string{"uniform", "base-rate"} {
				var r, a *Row
				for _, i := range c.raise {
					if rows[i].Init == init && rows[i].Betas == K {
						r = &rows[i]
						if j := AISPartner(rows, r); j >= 0 {
							a = &rows[j]
						}
						break
					}
				}
				paired := r != nil && a != nil
				if a == nil && ki == 0 {
					// An AIS of a start without RAISE, or whose RAISE is a
					// subsample's own mean (no pair): on the first line.
					for _, i := range c.ais {
						if rows[i].Init == init && (a == nil || rows[i].Betas > a.Betas) {
							a = &rows[i]
						}
					}
				}
				warn = warn || pairWarn(r) || pairWarn(a)
				gap := Missing
				if paired {
					gap = num2(*a.MeanLoglik-*r.MeanLoglik) + " ± " + num2(CombinedError(r, a))
				}
				row = append(row, opt2(mean(r)), opt2(mean(a)), gap)
			}
			flag := ""
			if warn {
				flag = "⚠"
			}
			row = append(row, flag)
			g.rows = append(g.rows, row)
		}
	}
	g.dropEmptyColumns()
	s := &sandwich{grid: g, legend: []string{sandwichLegendGap}}
	if severalK {
		s.legend = append(s.legend, sandwichLegendK)
	}
	if g.header[len(g.header)-1] == "!" {
		s.legend = append(s.legend, sandwichLegendWarn)
	}
	return s
}

// RenderSandwich writes the AIS/RAISE sandwich table of the final rows to w
// (nothing when no RAISE ran), with a legend: the σ of the gap, when a
// reversed bracket is noise, and what ⚠ marks (a gap above tolerance,
// RAISE above AIS beyond 3σ, or CSL above a reference beyond 3σ; the
// warnings themselves are in the main table).
//
// It then writes the log Z bracket table [AIS, χ²] with its widths when
// chi2 rows were bracketed (estim.PairLogZ): the other sandwich, on log Z.
func RenderSandwich(w io.Writer, rows []Row, opt TableOptions) error {
	if err := renderSection(w, sandwichTitle, sandwichGrid(rows), opt); err != nil {
		return err
	}
	return renderSection(w, bracketTitle, bracketGrid(rows), opt)
}

// renderSection writes a titled table with its legend lines; nothing for a
// nil table.
func renderSection(w io.Writer, title string, s *sandwich, opt TableOptions) error {
	if s == nil {
		return nil
	}
	if _, err := io.WriteString(w, "\n"+wrapText(title+":", opt.tableWidth(), "", "  ")); err != nil {
		return err
	}
	if err := renderFitted(w, s.grid, opt.ASCII, opt.tableWidth()); err != nil {
		return err
	}
	for _, l := range s.legend {
		if _, err := io.WriteString(w, wrapText(l, opt.tableWidth(), "  ", "    ")); err != nil {
			return err
		}
	}
	return nil
}
