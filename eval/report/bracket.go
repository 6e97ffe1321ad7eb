package report

import (
	"fmt"
)

// bracketTitle introduces the log Z bracket table.
const bracketTitle = "log Z bracket [AIS, χ²] (nats; AIS's log Ẑ is a stochastic lower bound, the χ² bound an upper bound whose estimate is biased low)"

// bracketLegend explains the table's columns.
const (
	bracketLegendWidth = "width = χ² − AIS, the bracket on log Z; χ² ± se: the standard error of the χ² estimate from independent batches; " +
		"AIS ± σ: log(Ẑ+σ̂) − log Ẑ. The χ² Monte-Carlo estimate is biased low and can fall under log Z (see docs/methods.md#chi2-bias): " +
		"a negative width beyond their combined error carries a warning, and χ² − exact is shown where exact ran."
	bracketLegendWarn = "⚠: a warning on the chi2 row (χ² under AIS or under exact, or few effective samples); the texts are under the main table."
)

// bracketGrid lays out the final rows that PairLogZ bracketed: one line per
// (experiment, split-free log Z, χ² proposal) with the exact log Z when it
// ran, AIS's log Ẑ ± σ, the χ² estimate ± se, the width χ² − AIS, χ² −
// exact, the ESS of the weights w² and a ⚠ flag. Rows of all splits carry
// the same log Z, so each (experiment, q) gives one line. It returns nil
// when no chi2 row has a bracket.
func bracketGrid(rows []Row) *sandwich {
	type key struct{ exp, q string }
	var order []key
	seen := map[key]bool{}
	lines := map[key]*Row{}
	for i := range rows {
		r := &rows[i]
		if r.Stage != StageFinal || r.Estimator != "chi2" || r.LogZBracketLo == nil || r.LogZBracketHi == nil {
			continue
		}
		k := key{r.Experiment, r.Init}
		if seen[k] {
			continue
		}
		seen[k] = true
		order = append(order, k)
		lines[k] = r
	}
	if len(order) == 0 {
		return nil
	}
	aisSE := func(c *Row) *float64 {
		for i := range rows {
			a := &rows[i]
			if a.Stage == StageFinal && a.Estimator == "ais" && a.Experiment == c.Experiment && a.Split == c.Split &&
				a.LogZ != nil && *a.LogZ == *c.LogZBracketLo && a.LogZHi1 != nil {
				return F(*a.LogZHi1 - *a.LogZ)
			}
		}
		return nil
	}
	g := &grid{header: []string{"Experiment", "Model", "q", "exact log Z", "AIS log Ẑ", "χ² log Ẑ", "width", "χ² − exact", "ESS", "!"}}
	g.align = []align{alignLeft, alignLeft, alignLeft, alignRight, alignRight, alignRight, alignRight, alignRight, alignRight, alignLeft}
	anyWarn := false
	for _, k := range order {
		c := lines[k]
		ais := num2(*c.LogZBracketLo)
		if se := aisSE(c); se != nil {
			ais += " ± " + num2(*se)
		}
		chi := num2(*c.LogZBracketHi)
		if c.LogZHi1 != nil && c.LogZ != nil {
			chi += " ± " + num2(*c.LogZHi1-*c.LogZ)
		}
		vsExact := Missing
		if c.ExactLogZ != nil {
			vsExact = fmt.Sprintf("%+.2f", *c.LogZBracketHi-*c.ExactLogZ)
		}
		ess := Missing
		if c.ESS != nil {
			ess = fmt.Sprintf("%.0f", *c.ESS)
		}
		flag := ""
		if len(c.Warnings) > 0 {
			flag, anyWarn = "⚠", true
		}
		g.rows = append(g.rows, []string{k.exp, orMissing(c.Model), orMissing(k.q), opt2(c.ExactLogZ), ais, chi,
			num2(*c.LogZBracketHi - *c.LogZBracketLo), vsExact, ess, flag})
	}
	g.dropEmptyColumns()
	s := &sandwich{grid: g, legend: []string{bracketLegendWidth}}
	if anyWarn {
		s.legend = append(s.legend, bracketLegendWarn)
	}
	return s
}
