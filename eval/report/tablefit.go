package report

import (
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"
)

// DefaultTableWidth is the widest a terminal table is drawn, in
// characters, when TableOptions.Width is 0: an ordinary terminal.
const DefaultTableWidth = 120

// tableWidth returns the width limit of opt (0: none).
func (opt TableOptions) tableWidth() int {
	switch {
	case opt.Width < 0:
		return 0
	case opt.Width == 0:
		return DefaultTableWidth
	}
	return opt.Width
}

// widest returns the number of runes of the longest line of s.
func widest(s string) int {
	n := 0
	for _, l := range strings.Split(s, "\n") {
		n = max(n, utf8.RuneCountInString(l))
	}
	return n
}

// fitStep is one way of narrowing a terminal table, tried in order until
// the table fits: it changes g and returns a sentence for under the table
// ("" if it says nothing), or reports that it did nothing.
type fitStep func(g *grid) (said string, did bool)

// footnoteRef matches a warning's footnote number in a cell.
var footnoteRef = regexp.MustCompile(`\[\d+\]`)

// fitSteps narrow a table: warnings to their footnote numbers; columns
// equal in every row above the table; cells and headers on two lines;
// then, only if still too wide, the columns that report.md keeps
// (log(Ẑ±σ̂), Minutes) left out.
var fitSteps = []fitStep{
	func(g *grid) (string, bool) { // warnings: footnote numbers only
		j := slices.Index(g.header, "Warnings")
		if j < 0 {
			return "", false
		}
		did := false
		for _, r := range g.rows {
			short := strings.Join(footnoteRef.FindAllString(r[j], -1), " ")
			did = did || short != r[j]
			r[j] = short
		}
		return "", did
	},
	func(g *grid) (string, bool) { // constant columns above the table
		var said []string
		for _, h := range []string{"Experiment", "Model"} {
			j := slices.Index(g.header, h)
			if j < 0 || len(g.rows) == 0 || len(g.header) <= 2 {
				continue
			}
			v := g.rows[0][j]
			if slices.ContainsFunc(g.rows, func(r []string) bool { return r[j] != v }) {
				continue
			}
			said = append(said, h+": "+v)
			g.dropColumn(j)
		}
		return strings.Join(said, "; "), len(said) > 0
	},
	func(g *grid) (string, bool) { // two-line cells
		did := false
		for j, h := range g.header {
			for _, r := range g.rows {
				c := r[j]
				switch {
				case strings.Contains(h, "log-prob") || h == "Value":
					c = strings.Replace(c, " [", "\n[", 1)
					c = strings.Replace(c, " (", "\n(", 1)
				case h == "Estimator" || h == "Signal":
					c = strings.Replace(c, " (", "\n(", 1)
				case h == "Chains":
					c = strings.Replace(c, " ", "\n", 1)
				case strings.HasPrefix(h, "log(Ẑ"):
					c = strings.Replace(c, ", ", ",\n", 1)
				}
				did = did || c != r[j]
				r[j] = c
			}
		}
		return "", did
	},
	func(g *grid) (string, bool) { // two-line headers
		short := map[string]string{"True log Z": "True\nlog Z", "Minutes": "Min-\nutes", "Experiment": "Experi-\nment"}
		did := false
		for j, h := range g.header {
			if s, ok := short[h]; ok {
				g.header[j], did = s, true
			} else if split, ok := strings.CutSuffix(h, " log-prob"); ok {
				g.header[j], did = split+"\nlog-prob", true
			}
		}
		return "", did
	},
	dropNamed("log(Ẑ±σ̂)"),
	dropNamed("Min-\nutes"),
}

// dropNamed returns the step that leaves out the column headed h.
func dropNamed(h string) fitStep {
	return func(g *grid) (string, bool) {
		j := slices.Index(g.header, h)
		if j < 0 {
			return "", false
		}
		g.dropColumn(j)
		return "", true
	}
}

// dropColumn removes column j.
func (g *grid) dropColumn(j int) {
	g.header = slices.Delete(slices.Clone(g.header), j, j+1)
	g.align = slices.Delete(slices.Clone(g.align), j, j+1)
	for i, r := range g.rows {
		g.rows[i] = slices.Delete(slices.Clone(r), j, j+1)
	}
}

// clone copies g deeply.
func (g *grid) clone() *grid {
	c := &grid{header: slices.Clone(g.header), align: slices.Clone(g.align)}
	for _, r := range g.rows {
		c.rows = append(c.rows, slices.Clone(r))
	}
	return c
}

// renderFitted draws g for a terminal of width columns (0: any width):
// when it is wider, the fitSteps narrow it in turn until it fits (the
// full table is report.md's), and what moved out of the table is said
// above it (constant columns) and below it (columns left out).
func renderFitted(w io.Writer, g *grid, ascii bool, width int) error {
	var b strings.Builder
	if err := renderTerminal(&b, g, ascii); err != nil {
		return err
	}
	if width <= 0 || widest(b.String()) <= width {
		_, err := io.WriteString(w, b.String())
		return err
	}
	g = g.clone()
	orig := slices.Clone(g.header)
	var above []string
	for _, step := range fitSteps {
		said, did := step(g)
		if !did {
			continue
		}
		if said != "" {
			above = append(above, said)
		}
		b.Reset()
		if err := renderTerminal(&b, g, ascii); err != nil {
			return err
		}
		if widest(b.String()) <= width {
			break
		}
	}
	var left []string
	for _, h := range orig {
		if h == "Experiment" || h == "Model" || h == "Warnings" {
			continue
		}
		if !slices.Contains(g.header, h) && !slices.ContainsFunc(g.header, func(s string) bool {
			return strings.ReplaceAll(strings.ReplaceAll(s, "-\n", ""), "\n", " ") == h
		}) {
			left = append(left, h)
		}
	}
	out := ""
	if len(above) > 0 {
		out += strings.Join(above, "; ") + "\n"
	}
	out += b.String()
	if len(left) > 0 {
		out += fmt.Sprintf("  (%s: in report.md, left out here to fit %d columns.)\n", strings.Join(left, ", "), width)
	}
	_, err := io.WriteString(w, out)
	return err
}

// wrapText writes a paragraph of prose under a table as lines of at most
// width characters (0: one line), the first indented by first, the rest
// by rest, breaking between words (a longer word keeps a line of its own).
func wrapText(text string, width int, first, rest string) string {
	if width <= 0 || utf8.RuneCountInString(first+text) <= width {
		return first + text + "\n"
	}
	var b strings.Builder
	line, n := first, utf8.RuneCountInString(first)
	empty := true
	for _, w := range strings.Fields(text) {
		wn := utf8.RuneCountInString(w)
		if !empty && n+1+wn > width {
			b.WriteString(line + "\n")
			line, n, empty = rest, utf8.RuneCountInString(rest), true
		}
		if !empty {
			line += " "
			n++
		}
		line += w
		n += wn
		empty = false
	}
	b.WriteString(line + "\n")
	return b.String()
}
