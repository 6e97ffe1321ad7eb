package report

import (
	"fmt"
	"io"
	"strings"
)

// sandwichGrid lays out the final rows like Table 1 of Burda, Grosse &
// Salakhutdinov (2015): one line per (experiment, split) with the exact
// log-likelihood, CSL, the DBN or DBM mean-field bound when present, and for each AIS start (uniform, base-rate) the
// RAISE estimate, the AIS estimate and their gap AIS − RAISE. It returns nil
// when no RAISE row is present.
func sandwichGrid(rows []Row) *grid {
	type key struct{ exp, split string }
	type cell struct {
		exact, csl, bound *float64
		raise, ais        map[string]*float64
		model             string
		warn              bool
	}
	var order []key
	cells := map[key]*cell{}
	any := false
	hasBound := false
	for i := range rows {
		r := &rows[i]
		if r.Stage != StageFinal || r.MeanLoglik == nil || r.Split == "" {
			continue
		}
		k := key{r.Experiment, r.Split}
		c := cells[k]
		if c == nil {
			c = &cell{raise: map[string]*float64{}, ais: map[string]*float64{}, model: r.Model}
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
			hasBound = true
		case "raise":
			c.raise[r.Init] = r.MeanLoglik
			any = true
		case "ais":
			c.ais[r.Init] = r.MeanLoglik
		}
		if r.Estimator == "raise" || r.Estimator == "ais" {
			for _, w := range r.Warnings {
				if strings.Contains(w, "gap") || strings.Contains(w, "RAISE is above AIS") {
					c.warn = true
				}
			}
		}
	}
	if !any {
		return nil
	}
	g := &grid{header: []string{"Experiment", "Model", "Split", "exact", "CSL"}}
	if hasBound {
		g.header = append(g.header, "bound")
	}
	g.header = append(g.header, "uniform RAISE", "uniform AIS", "uniform gap",
		"base-rate RAISE", "base-rate AIS", "base-rate gap", "!")
	g.align = []align{alignLeft, alignLeft, alignLeft}
	for range len(g.header) - 4 {
		g.align = append(g.align, alignRight)
	}
	g.align = append(g.align, alignLeft)
	for _, k := range order {
		c := cells[k]
		row := []string{k.exp, orMissing(c.model), k.split, opt2(c.exact), opt2(c.csl)}
		if hasBound {
			row = append(row, opt2(c.bound))
		}
		for _, init := range []string{"uniform", "base-rate"} {
			r, a := c.raise[init], c.ais[init]
			gap := Missing
			if r != nil && a != nil {
				gap = num2(*a - *r)
			}
			row = append(row, opt2(r), opt2(a), gap)
		}
		flag := ""
		if c.warn {
			flag = "⚠"
		}
		row = append(row, flag)
		g.rows = append(g.rows, row)
	}
	return g
}

// RenderSandwich writes the AIS/RAISE sandwich table of the final rows to w
// (nothing when no RAISE ran). ⚠ marks a gap above tolerance or RAISE above
// AIS beyond their errors; the warnings themselves are in the main table.
func RenderSandwich(w io.Writer, rows []Row, opt TableOptions) error {
	g := sandwichGrid(rows)
	if g == nil {
		return nil
	}
	if _, err := fmt.Fprintln(w, "\nAIS and RAISE side by side (mean test log-probability, nats; gap = AIS − RAISE, the honest error bar):"); err != nil {
		return err
	}
	return renderTerminal(w, g, opt.ASCII)
}
