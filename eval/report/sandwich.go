package report

import (
	"fmt"
	"io"
	"strings"
)

// sandwichTitle introduces the AIS/RAISE table.
const sandwichTitle = "AIS and RAISE side by side (mean log-probability, nats; gap = AIS − RAISE ± σ, the honest error bar)"

// sandwichLegend explains the gap's σ and the ⚠ column.
const (
	sandwichLegendGap = "gap ± σ: σ = √(σ_AIS² + σ_RAISE²), their combined standard error (σ_AIS the error of log Ẑ, " +
		"σ_RAISE RAISE's standard error). A negative gap (RAISE above AIS, a reversed bracket) within 3σ is noise; beyond 3σ it carries a warning."
	sandwichLegendWarn = "⚠: a warning on the pair (a gap above gap_tolerance, a reversed bracket beyond 3σ) " +
		"or on CSL (above exact, AIS or RAISE beyond 3σ: its chains did not mix); the texts are under the main table."
)

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
		raise, ais        map[string]*Row
		model             string
		warn              bool
	}
	var order []key
	cells := map[key]*cell{}
	any := false
	for i := range rows {
		r := &rows[i]
		if r.Stage != StageFinal || r.MeanLoglik == nil || r.Split == "" {
			continue
		}
		k := key{r.Experiment, r.Split}
		c := cells[k]
		if c == nil {
			c = &cell{raise: map[string]*Row{}, ais: map[string]*Row{}, model: r.Model}
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
			c.raise[r.Init] = r
			any = true
		case "ais":
			c.ais[r.Init] = r
		}
		for _, w := range r.Warnings {
			switch {
			case (r.Estimator == "raise" || r.Estimator == "ais") && (strings.Contains(w, "gap") || strings.Contains(w, "RAISE is above AIS")),
				r.Estimator == "csl" && strings.Contains(w, cslNotMixed):
				c.warn = true
			}
		}
	}
	if !any {
		return nil
	}
	g := &grid{header: []string{"Experiment", "Model", "Split", "exact", "CSL", "bound",
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
		row := []string{k.exp, orMissing(c.model), k.split, opt2(c.exact), opt2(c.csl), opt2(c.bound)}
		for _, init := range []string{"uniform", "base-rate"} {
			r, a := c.raise[init], c.ais[init]
			gap := Missing
			if r != nil && a != nil {
				gap = num2(*a.MeanLoglik-*r.MeanLoglik) + " ± " + num2(CombinedError(r, a))
			}
			row = append(row, opt2(mean(r)), opt2(mean(a)), gap)
		}
		flag := ""
		if c.warn {
			flag = "⚠"
		}
		row = append(row, flag)
		g.rows = append(g.rows, row)
	}
	g.dropEmptyColumns()
	s := &sandwich{grid: g, legend: []string{sandwichLegendGap}}
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
// chi2 rows were bracketed (family.PairLogZ): the other sandwich, on log Z.
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
	if _, err := fmt.Fprintln(w, "\n"+title+":"); err != nil {
		return err
	}
	if err := renderTerminal(w, s.grid, opt.ASCII); err != nil {
		return err
	}
	for _, l := range s.legend {
		if _, err := fmt.Fprintf(w, "  %s\n", l); err != nil {
			return err
		}
	}
	return nil
}
