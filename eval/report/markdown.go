package report

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// WriteMarkdown writes report.md, laid out by writeDoc, as
// GitHub-flavoured Markdown.
func WriteMarkdown(w io.Writer, title string, meta map[string]string, rows []Row) error {
	return WriteMarkdownGrid(w, title, meta, rows, nil)
}

// WriteMarkdownGrid is WriteMarkdown for a run whose experiments g places
// in grid points: the final tables add the mean ± SE over each point's
// seeds.
func WriteMarkdownGrid(w io.Writer, title string, meta map[string]string, rows []Row, g Grid) error {
	if err := validateRows(rows); err != nil {
		return fmt.Errorf("report: report.md: %w", err)
	}
	d := &markdownDoc{}
	writeDoc(d, title, meta, rows, g)
	_, err := io.WriteString(w, strings.TrimRight(d.b.String(), "\n")+"\n")
	return err
}

// doc receives the blocks of a report in reading order: report.md and
// report.html are written by the same writeDoc through two docs.
type doc interface {
	heading(level int, text string)
	meta(keys []string, values map[string]string)
	// para is one of the report's own sentences (not escaped in Markdown).
	para(text string)
	list(items []string, numbered bool)
	table(g *grid)
	// experiments is the per-experiment part: the experiments in order
	// and, for each, its per-epoch grid (nil without epoch rows).
	experiments(names []string, grids []*grid)
}

// writeDoc lays out a report: the title ("logz report" if empty); the meta
// entries (config name, date, seed, versions, command, ...) sorted by key;
// the final table and the cheap-signals table of RenderTable with their
// numbered warnings and notes; per experiment a per-epoch table (one line
// per epoch; for each estimator its log Ẑ and its mean log-likelihood, or
// value for pll/recon, per split; "†" marks a number with warnings); and
// finally every warning, grouped by experiment and text with where it
// occurred.
func writeDoc(d doc, title string, meta map[string]string, rows []Row, g Grid) {
	if title == "" {
		title = "logz report"
	}
	d.heading(1, title)
	if len(meta) > 0 {
		keys := make([]string, 0, len(meta))
		for k := range meta {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		d.meta(keys, meta)
	}

	d.heading(2, "Final estimates")
	var fn footnotes
	main, signals, legend, notes := finalTables(rows, DefaultWarningWidth, &fn, g)
	if main == nil && signals == nil {
		d.para("No final estimates.")
	}
	if main != nil {
		d.table(main)
		d.list(legend, false)
	}
	if sel, legend := selectionLines(rows, g); len(sel) > 0 {
		d.para(selectionTitle + ":")
		d.list(append(sel, legend), false)
	}
	if sw := sandwichGrid(rows); sw != nil {
		d.para(sandwichTitle + ":")
		d.table(sw.grid)
		d.list(sw.legend, false)
	}
	if s := bracketGrid(rows); s != nil {
		d.para(bracketTitle + ":")
		d.table(s.grid)
		d.list(s.legend, false)
	}
	if bl := byLabelGrid(rows); bl != nil {
		d.para(ByLabelTitle + ":")
		d.table(bl)
	}
	if signals != nil {
		d.para("Cheap training signals (not log-likelihoods):")
		d.table(signals)
	}
	if lines := DataLines(rows); len(lines) > 0 {
		d.para("Data (split: spec, binarisation, examples kept, size, SHA-256 of the bits):")
		d.list(lines, false)
	}
	if len(fn.texts) > 0 {
		d.para("Warnings in the tables:")
		d.list(fn.texts, true)
	}
	if len(notes) > 0 {
		d.para("Notes:")
		d.list(notes, false)
	}

	exps := Experiments(rows)
	grids := make([]*grid, len(exps))
	for i, e := range exps {
		grids[i] = epochGrid(Select(rows, e))
	}
	d.experiments(exps, grids)

	d.heading(2, "Warnings")
	wroteAny := false
	for _, e := range exps {
		groups := warningGroups(Select(rows, e))
		if len(groups) == 0 {
			continue
		}
		wroteAny = true
		d.heading(3, e)
		items := make([]string, len(groups))
		for i, g := range groups {
			items[i] = g.text + " (" + g.where() + ")"
		}
		d.list(items, false)
	}
	if !wroteAny {
		d.para("None.")
	}
}

// epochNote explains the per-epoch tables.
const epochNote = "Mean log-likelihoods (log-probabilities) are in nats per example; pll and recon are values per example; " + trainingReconHeader + " is the mean squared reconstruction error of the epoch's training minibatches; † marks a number with warnings (listed below)."

// markdownDoc writes GitHub-flavoured Markdown. Text from rows and meta is
// escaped (| * \ < and line breaks) so it cannot break the tables.
type markdownDoc struct{ b strings.Builder }

func (d *markdownDoc) heading(level int, text string) {
	fmt.Fprintf(&d.b, "%s %s\n\n", strings.Repeat("#", level), escapeMD(text))
}

func (d *markdownDoc) meta(keys []string, values map[string]string) {
	for _, k := range keys {
		fmt.Fprintf(&d.b, "- **%s**: %s\n", escapeMD(k), escapeMD(values[k]))
	}
	d.b.WriteString("\n")
}

func (d *markdownDoc) para(text string) { d.b.WriteString(text + "\n\n") }

func (d *markdownDoc) list(items []string, numbered bool) {
	for i, it := range items {
		if numbered {
			fmt.Fprintf(&d.b, "%d. %s\n", i+1, escapeMD(it))
		} else {
			fmt.Fprintf(&d.b, "- %s\n", escapeMD(it))
		}
	}
	if len(items) > 0 {
		d.b.WriteString("\n")
	}
}

func (d *markdownDoc) table(g *grid) {
	renderGFM(&d.b, g)
	d.b.WriteString("\n")
}

// experiments writes the per-epoch tables, under one heading, of the
// experiments that have epoch rows.
func (d *markdownDoc) experiments(names []string, grids []*grid) {
	if !slices.ContainsFunc(grids, func(g *grid) bool { return g != nil }) {
		return
	}
	d.heading(2, "Per-epoch estimates")
	for i, e := range names {
		if grids[i] == nil {
			continue
		}
		d.heading(3, e)
		d.table(grids[i])
	}
	d.para(epochNote)
}

// trainingReconHeader heads the per-epoch column of the trainer's rows
// (estimator "train", split "train").
const trainingReconHeader = "recon (training)"

// rowLabel names an estimator configuration in per-epoch columns and in the
// warning list: the estimator and its init.
func rowLabel(r *Row) string {
	if r.Init != "" {
		return r.Estimator + " (" + r.Init + ")"
	}
	return r.Estimator
}

// splitOrder sorts splits test, valid, train, then others by name, then "".
func splitOrder(a, b string) int {
	rank := func(s string) int {
		switch s {
		case "test":
			return 0
		case "valid":
			return 1
		case "train":
			return 2
		case "":
			return 4
		}
		return 3
	}
	if ra, rb := rank(a), rank(b); ra != rb {
		return ra - rb
	}
	return strings.Compare(a, b)
}

// epochGrid builds the per-epoch table of one experiment's epoch rows: one
// line per epoch (ascending); per estimator label (in order of first
// appearance) a log Ẑ column if any of its rows has one, then a column per
// split with the mean log-likelihood, or the value for pll/recon rows. It
// returns nil when there are no epoch rows.
func epochGrid(rows []Row) *grid {
	type cellKey struct {
		epoch        int
		label, split string
	}
	var labels []string
	splits := map[string][]string{} // label → splits with a number
	hasLogZ := map[string]bool{}
	logZ := map[cellKey]string{} // split "" holds log Ẑ
	vals := map[cellKey]string{}
	var epochs []int
	for i := range rows {
		r := &rows[i]
		if r.Stage != StageEpoch {
			continue
		}
		if !slices.Contains(epochs, r.Epoch) {
			epochs = append(epochs, r.Epoch)
		}
		lab := rowLabel(r)
		if _, ok := splits[lab]; !ok {
			labels = append(labels, lab)
			splits[lab] = nil
		}
		mark := ""
		if len(r.Warnings) > 0 {
			mark = " †"
		}
		if r.LogZ != nil {
			hasLogZ[lab] = true
			k := cellKey{r.Epoch, lab, ""}
			if _, ok := logZ[k]; !ok {
				logZ[k] = num2(*r.LogZ) + mark
			}
		}
		v := r.MeanLoglik
		if v == nil {
			v = r.Value
		}
		if v == nil {
			continue
		}
		if !slices.Contains(splits[lab], r.Split) {
			splits[lab] = append(splits[lab], r.Split)
		}
		k := cellKey{r.Epoch, lab, r.Split}
		if _, ok := vals[k]; !ok {
			if t := r.SubsampleTag(); t != "" && r.MeanLoglik != nil {
				mark = " (" + t + ")" + mark
			}
			vals[k] = num2(*v) + mark
		}
	}
	if len(epochs) == 0 {
		return nil
	}
	slices.Sort(epochs)
	g := &grid{header: []string{"Epoch"}, align: []align{alignRight}}
	type col struct {
		label, split string
		isLogZ       bool
	}
	var cols []col
	for _, lab := range labels {
		if hasLogZ[lab] {
			cols = append(cols, col{lab, "", true})
			g.header = append(g.header, lab+" log Ẑ")
			g.align = append(g.align, alignRight)
		}
		ss := splits[lab]
		slices.SortFunc(ss, splitOrder)
		for _, s := range ss {
			cols = append(cols, col{lab, s, false})
			h := lab
			switch {
			case lab == "train":
				// The trainer's own row: the reconstruction error of the
				// epoch's minibatches (split train), not an estimator
				// named "train" on the train split.
				h = trainingReconHeader
			case strings.HasPrefix(lab, "train ("):
				// A trainer whose signal is not the reconstruction error
				// names it in Init: "train (is-bound)".
				h = strings.TrimSuffix(strings.TrimPrefix(lab, "train ("), ")") + " (training)"
			case s != "":
				h += " " + s
			}
			g.header = append(g.header, h)
			g.align = append(g.align, alignRight)
		}
	}
	for _, e := range epochs {
		cells := []string{strconv.Itoa(e)}
		for _, c := range cols {
			src := vals
			if c.isLogZ {
				src = logZ
			}
			s, ok := src[cellKey{e, c.label, c.split}]
			if !ok {
				s = Missing
			}
			cells = append(cells, s)
		}
		g.rows = append(g.rows, cells)
	}
	return g
}

// warningGroup is one warning text with the places it occurred: per
// estimator label and split, the epochs (-1 for the final evaluation).
type warningGroup struct {
	text   string
	places []string         // "label split", in order of first appearance
	epochs map[string][]int // place → epochs
}

func (g *warningGroup) where() string {
	parts := make([]string, len(g.places))
	for i, p := range g.places {
		parts[i] = p + ": " + epochList(g.epochs[p])
	}
	return strings.Join(parts, "; ")
}

// epochList formats epochs as "epochs 1–3, 7, final" (ascending, ranges of
// consecutive epochs compressed; -1 is the final evaluation).
func epochList(es []int) string {
	es = slices.Clone(es)
	slices.Sort(es)
	es = slices.Compact(es)
	final := len(es) > 0 && es[0] == -1
	if final {
		es = es[1:]
	}
	var parts []string
	for i := 0; i < len(es); {
		j := i
		for j+1 < len(es) && es[j+1] == es[j]+1 {
			j++
		}
		switch {
		case j == i:
			parts = append(parts, strconv.Itoa(es[i]))
		case j == i+1:
			parts = append(parts, strconv.Itoa(es[i]), strconv.Itoa(es[j]))
		default:
			parts = append(parts, strconv.Itoa(es[i])+"–"+strconv.Itoa(es[j]))
		}
		i = j + 1
	}
	s := ""
	switch {
	case len(es) == 1:
		s = "epoch " + parts[0]
	case len(es) > 1:
		s = "epochs " + strings.Join(parts, ", ")
	}
	if final {
		if s != "" {
			s += ", "
		}
		s += "final"
	}
	return s
}

// warningGroups collects the warnings of one experiment's rows, grouped by
// text in order of first appearance.
func warningGroups(rows []Row) []*warningGroup {
	var groups []*warningGroup
	byText := map[string]*warningGroup{}
	for i := range rows {
		r := &rows[i]
		place := rowLabel(r)
		if r.Split != "" {
			place += " " + r.Split
		}
		ep := r.Epoch
		if r.Stage == StageFinal {
			ep = -1
		}
		for _, w := range r.Warnings {
			w = strings.Join(strings.Fields(w), " ")
			g := byText[w]
			if g == nil {
				g = &warningGroup{text: w, epochs: map[string][]int{}}
				byText[w] = g
				groups = append(groups, g)
			}
			if _, ok := g.epochs[place]; !ok {
				g.places = append(g.places, place)
			}
			g.epochs[place] = append(g.epochs[place], ep)
		}
	}
	// Curves whose points jump by more than their bars (JumpyCurves): a
	// warning of the curve, not of any one row.
	for _, j := range JumpyCurves(rows) {
		place := j.Label
		if j.Split != "" {
			place += " " + j.Split
		}
		groups = append(groups, &warningGroup{text: j.Warning(), places: []string{place}, epochs: map[string][]int{place: j.Epochs}})
	}
	return groups
}

// escapeMD makes text safe inside a Markdown paragraph or table cell:
// backslash, | and * are backslash-escaped, < becomes &lt; and a line
// break becomes <br>.
func escapeMD(s string) string {
	var b strings.Builder
	for _, r := range strings.ReplaceAll(s, "\r\n", "\n") {
		switch r {
		case '\\', '|', '*':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '<':
			b.WriteString("&lt;")
		case '\n', '\r':
			b.WriteString("<br>")
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// renderGFM writes g as a GitHub-flavoured Markdown table, columns padded
// to a common width so that the source reads as a table too.
func renderGFM(b *strings.Builder, g *grid) {
	cells := make([][]string, 0, len(g.rows)+1)
	cells = append(cells, escapeAll(g.header))
	for _, r := range g.rows {
		cells = append(cells, escapeAll(r))
	}
	width := make([]int, len(g.header))
	for _, r := range cells {
		for j, c := range r {
			width[j] = max(width[j], displayWidth(c), 3)
		}
	}
	writeRow := func(r []string) {
		b.WriteString("|")
		for j, c := range r {
			pad := strings.Repeat(" ", width[j]-displayWidth(c))
			if g.align[j] == alignRight {
				b.WriteString(" " + pad + c + " |")
			} else {
				b.WriteString(" " + c + pad + " |")
			}
		}
		b.WriteString("\n")
	}
	writeRow(cells[0])
	b.WriteString("|")
	for j := range g.header {
		if g.align[j] == alignRight {
			b.WriteString(" " + strings.Repeat("-", width[j]-1) + ": |")
		} else {
			b.WriteString(" " + strings.Repeat("-", width[j]) + " |")
		}
	}
	b.WriteString("\n")
	for _, r := range cells[1:] {
		writeRow(r)
	}
}

func escapeAll(s []string) []string {
	out := make([]string, len(s))
	for i, c := range s {
		out[i] = escapeMD(c)
	}
	return out
}

// displayWidth counts the characters of s as a terminal shows them:
// combining marks (the hat of σ̂) and format characters take no column.
func displayWidth(s string) int {
	n := 0
	for _, r := range s {
		if !unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf) {
			n++
		}
	}
	return n
}
