package report

import (
	"slices"
	"strings"
)

// DataLines names the data the rows measured, one line per split and
// data set: "test: mnist:test, stochastic binarisation, seed 7, 10000 ×
// 784, sha256 0fa7898d5092". When the experiments of rows differ in a
// split's data, each line names the experiments it holds for. Rows
// without Data are left out; none gives no lines.
func DataLines(rows []Row) []string {
	type group struct {
		line string
		exps []string
	}
	var groups []*group
	var all []string
	for _, r := range rows {
		if !slices.Contains(all, r.Experiment) {
			all = append(all, r.Experiment)
		}
		if r.Data == nil {
			continue
		}
		line := r.Split + ": " + r.Data.String()
		k := slices.IndexFunc(groups, func(g *group) bool { return g.line == line })
		if k < 0 {
			groups = append(groups, &group{line: line})
			k = len(groups) - 1
		}
		if g := groups[k]; !slices.Contains(g.exps, r.Experiment) {
			g.exps = append(g.exps, r.Experiment)
		}
	}
	out := make([]string, len(groups))
	for i, g := range groups {
		out[i] = g.line
		if len(g.exps) < len(all) {
			out[i] += " (" + strings.Join(g.exps, ", ") + ")"
		}
	}
	return out
}
