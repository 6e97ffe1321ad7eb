package report

import (
	"fmt"
	"slices"
	"strconv"
)

// ClassStat is the mean log-likelihood of the examples of one label: an
// entry of Row.ByLabel (results.json's "by_label").
type ClassStat struct {
	Label int `json:"label"`
	// MeanLoglik is (1/N_c) Σ_{n: label n = c} log p(v_n), in nats.
	MeanLoglik *float64 `json:"mean_loglik"`
	// LoglikSE is its standard error over those examples, sd/√N_c (null
	// for one example). A log Z shared by every example (exact, AIS)
	// shifts every class alike and is not in it.
	LoglikSE  *float64 `json:"loglik_se,omitempty"`
	NExamples int      `json:"n_examples"`
}

// ByLabelTitle heads the per-label table.
const ByLabelTitle = "Mean log-likelihood by label (nats; ± standard error over the label's examples; n examples)"

// byLabelGrid returns the table of the final rows' ByLabel, one line per
// label and one column per (experiment, estimator, split), or nil when no
// final row has one.
func byLabelGrid(rows []Row) *grid {
	var cols []*Row
	labels := map[int]bool{}
	for i := range rows {
		r := &rows[i]
		if r.Stage != StageFinal || len(r.ByLabel) == 0 {
			continue
		}
		cols = append(cols, r)
		for _, c := range r.ByLabel {
			labels[c.Label] = true
		}
	}
	if len(cols) == 0 {
		return nil
	}
	g := &grid{header: []string{"label"}, align: []align{alignLeft}}
	for _, r := range cols {
		g.header = append(g.header, fmt.Sprintf("%s %s %s", r.Experiment, qualified(r.Estimator, r.Init), r.Split))
		g.align = append(g.align, alignRight)
	}
	order := make([]int, 0, len(labels))
	for l := range labels {
		order = append(order, l)
	}
	slices.Sort(order)
	for _, l := range order {
		line := []string{strconv.Itoa(l)}
		for _, r := range cols {
			cell := ""
			for _, c := range r.ByLabel {
				if c.Label == l {
					cell = fmt.Sprintf("%s ± %s (%d)", opt2(c.MeanLoglik), opt2(c.LoglikSE), c.NExamples)
				}
			}
			line = append(line, cell)
		}
		g.rows = append(g.rows, line)
	}
	return g
}
