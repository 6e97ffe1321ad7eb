package report

import (
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
)

// CompareRun is one run folder in a comparison of runs (Compare).
type CompareRun struct {
	// Name names the run in the tables (its folder).
	Name string
	// Rows are the run's results.json rows.
	Rows []Row
	// Config is its config.resolved.yaml flattened into key paths
	// (config.Flatten); nil when the run has none.
	Config map[string]string
}

// CompareLine is one line of the comparison: the final rows of one
// experiment, estimator and split, with one K (betas), start (init) and
// sandwich round, one row per run (nil where a run has none).
type CompareLine struct {
	Experiment, Estimator, Split, Init string
	Betas, Round                       int
	Rows                               []*Row
	// Differs names, per run, the protocol fields in which its row differs
	// from the reference row (the first run's, or the first row present):
	// data (sha256, binarize, binarize_seed), K or start. A row that
	// differs is not comparable: its difference is not ranked. nil entries
	// are comparable.
	Differs [][]string
	// ByConfig marks, per run, a row whose data neither it nor the
	// reference row recorded, judged comparable because the two runs'
	// configs give the experiment the same data settings (dataConfigDiffers).
	ByConfig []bool
}

// Comparison is the side-by-side view of several runs' final estimates and
// configs.
type Comparison struct {
	Runs  []CompareRun
	Lines []*CompareLine
	// ConfigDiffs lists the config keys whose values differ between runs:
	// "key: v1 | v2 | …" ("(absent)" where a run lacks the key).
	ConfigDiffs []string
}

// protocolKey is what must be equal for two rows to be placed on one line
// at first sight; rows of one experiment, estimator and split that do not
// match on it are paired afterwards and marked as differing.
type protocolKey struct {
	experiment, estimator, split, init string
	betas, round                       int
}

func keyOf(r *Row) protocolKey {
	return protocolKey{r.Experiment, r.Estimator, r.Split, r.Init, r.Betas, r.Round}
}

// Compare lines up the final rows of runs. A row joins the line of its
// experiment, estimator, split, start, K and round that has no row of its
// run yet; failing that, a line of its experiment, estimator and split
// that has none (then its start or K differs, and the line says so); else
// it starts a line. Published reference rows are left out.
func Compare(runs []CompareRun) *Comparison {
	c := &Comparison{Runs: runs}
	for i, run := range runs {
		var rest []*Row
		for j := range run.Rows {
			r := &run.Rows[j]
			if r.Stage != StageFinal || r.Estimator == "reference" {
				continue
			}
			k := slices.IndexFunc(c.Lines, func(l *CompareLine) bool { return l.Rows[i] == nil && l.key() == keyOf(r) })
			if k < 0 {
				rest = append(rest, r)
				continue
			}
			c.Lines[k].Rows[i] = r
		}
		for _, r := range rest {
			k := slices.IndexFunc(c.Lines, func(l *CompareLine) bool {
				return l.Rows[i] == nil && l.Experiment == r.Experiment && l.Estimator == r.Estimator && l.Split == r.Split
			})
			if k < 0 {
				l := &CompareLine{Experiment: r.Experiment, Estimator: r.Estimator, Split: r.Split, Init: r.Init, Betas: r.Betas, Round: r.Round,
					Rows: make([]*Row, len(runs))}
				c.Lines = append(c.Lines, l)
				k = len(c.Lines) - 1
			}
			c.Lines[k].Rows[i] = r
		}
	}
	for _, l := range c.Lines {
		l.Differs, l.ByConfig = make([][]string, len(runs)), make([]bool, len(runs))
		ref := l.reference()
		k := slices.Index(l.Rows, ref)
		for i, r := range l.Rows {
			if r == nil || r == ref {
				continue
			}
			d := ProtocolDiffers(ref, r)
			if j := slices.Index(d, noDataRecorded); j >= 0 {
				if cd, ok := dataConfigDiffers(runs[k].Config, runs[i].Config, l.Experiment); ok {
					d = slices.Delete(d, j, j+1)
					d = slices.Insert(d, j, cd...)
					l.ByConfig[i] = len(d) == 0
				}
			}
			l.Differs[i] = d
		}
	}
	c.ConfigDiffs = configDiffs(runs)
	return c
}

func (l *CompareLine) key() protocolKey {
	return protocolKey{l.Experiment, l.Estimator, l.Split, l.Init, l.Betas, l.Round}
}

// reference is the row the others are compared with: the first present.
func (l *CompareLine) reference() *Row {
	for _, r := range l.Rows {
		if r != nil {
			return r
		}
	}
	return nil
}

// ProtocolDiffers names the fields of the measuring protocol in which b
// differs from a, each with both values: the data (its bits, "data
// sha256 62c1020db681 vs sha256 07cd6795d22b" —, data.binarize and data.binarize_seed, or data not recorded on one of
// them), the split, the estimator, K (betas) and the start (init). Two rows
// that differ in any measure different things, so their difference says
// nothing about the models; none: comparable.
func ProtocolDiffers(a, b *Row) []string {
	var out []string
	add := func(field string, x, y any) { out = append(out, fmt.Sprintf("%s %v vs %v", field, x, y)) }
	switch da, db := a.Data, b.Data; {
	case da == nil && db == nil && a.Split != "":
		out = append(out, noDataRecorded)
	case (da == nil) != (db == nil):
		out = append(out, "data recorded on one row only")
	case da != nil:
		if da.SHA256 != db.SHA256 {
			add("data", "sha256 "+da.Short(), "sha256 "+db.Short())
		}
		if da.Binarize != db.Binarize {
			add("data.binarize", orMissing(da.Binarize), orMissing(db.Binarize))
		}
		if da.BinarizeSeed != db.BinarizeSeed {
			add("data.binarize_seed", da.BinarizeSeed, db.BinarizeSeed)
		}
	}
	if ea, eb := examplesCovered(a), examplesCovered(b); ea != eb {
		add("examples", ea, eb)
	}
	if a.Split != b.Split {
		add("split", splitName(a.Split), splitName(b.Split))
	}
	if a.Estimator != b.Estimator {
		add("estimator", a.Estimator, b.Estimator)
	}
	if a.Betas != b.Betas {
		add("K", a.Betas, b.Betas)
	}
	if a.Init != b.Init {
		add("start", orMissing(a.Init), orMissing(b.Init))
	}
	return out
}

// examplesCovered says which examples a row's mean covers: "all" (the
// whole split, also when a control variate extended a subsample to it), or
// "100 of 1000" (a random subsample's own mean).
func examplesCovered(r *Row) string {
	if !r.Subsampled() || r.ControlVariate != "" {
		return "all"
	}
	return fmt.Sprintf("%d of %d", r.NExamples, r.SplitExamples)
}

// noDataRecorded is ProtocolDiffers' entry for two rows of a split that
// record no data (rows written before results.json named the bits).
const noDataRecorded = NoDataRecorded

// NoDataRecorded is the entry of ProtocolDiffers for two rows of a split
// that record no data (rows written before results.json named the bits).
const NoDataRecorded = "data not recorded on either row"

// ExperimentsDataDiffer compares the data settings of experiments a and b
// of one flattened config (config.Flatten), for rows that record no data:
// the keys that differ, each with both values; ok is false when either
// has no data settings there.
func ExperimentsDataDiffer(flat map[string]string, a, b string) (diffs []string, ok bool) {
	pick := func(exp string) map[string]string {
		out := map[string]string{}
		prefix := "experiments[" + exp + "]."
		for k, v := range flat {
			if rest, found := strings.CutPrefix(k, prefix); found && rest != "data.data_dir" {
				for _, d := range dataConfigKeys {
					if strings.HasPrefix(rest, d) {
						out["experiments[X]."+rest] = v
					}
				}
			}
		}
		return out
	}
	return dataConfigDiffers(pick(a), pick(b), "X")
}

// dataConfigKeys are the settings of an experiment's config (below
// experiments[NAME].) that decide the bits of its splits: what is read,
// how it is binarised, which examples are kept. data.data_dir, where the
// files are, is not among them.
var dataConfigKeys = []string{"data.", "evaluate.max_examples"}

// dataConfigDiffers compares the data settings of experiment exp in two
// flattened configs (config.Flatten), for rows that record no data: the
// keys that differ, each with both values ("config data.binarize_seed 1
// vs 2"); ok is false when a config is missing or has no data settings for
// exp.
func dataConfigDiffers(a, b map[string]string, exp string) (diffs []string, ok bool) {
	if a == nil || b == nil {
		return nil, false
	}
	prefix := "experiments[" + exp + "]."
	keys := map[string]bool{}
	for _, m := range []map[string]string{a, b} {
		for k := range m {
			rest, found := strings.CutPrefix(k, prefix)
			if !found || rest == "data.data_dir" {
				continue
			}
			for _, d := range dataConfigKeys {
				if strings.HasPrefix(rest, d) {
					keys[rest] = true
				}
			}
		}
	}
	if len(keys) == 0 {
		return nil, false
	}
	for _, k := range slices.Sorted(maps.Keys(keys)) {
		va, okA := a[prefix+k]
		vb, okB := b[prefix+k]
		if !okA {
			va = "(absent)"
		}
		if !okB {
			vb = "(absent)"
		}
		if va != vb {
			diffs = append(diffs, fmt.Sprintf("config %s %s vs %s", k, va, vb))
		}
	}
	return diffs, true
}

// compareValue is the number a row contributes to the comparison and its
// own error (LoglikError; for a split-free log Z the error of log Ẑ, 0 for
// exact): the mean log-likelihood, else log Ẑ, else a diagnostic's value
// (without an error).
func compareValue(r *Row) (v, sigma float64, hasV, hasSigma bool) {
	switch {
	case r.MeanLoglik != nil:
		sigma, hasSigma = LoglikError(r)
		return *r.MeanLoglik, sigma, true, hasSigma
	case r.LogZ != nil:
		switch {
		case r.Estimator == "exact":
			return *r.LogZ, 0, true, true
		case r.LogZHi1 != nil:
			return *r.LogZ, math.Max(*r.LogZHi1-*r.LogZ, 0), true, true
		}
		return *r.LogZ, 0, true, false
	case r.Value != nil:
		return *r.Value, 0, true, false
	}
	return 0, 0, false, false
}

// what names a line's quantity: "log-prob" (mean log-likelihood, nats per
// example), "log Z" or "value".
func (l *CompareLine) what() string {
	r := l.reference()
	switch {
	case r.MeanLoglik != nil:
		return "log-prob"
	case r.LogZ != nil:
		return "log Z"
	}
	return "value"
}

// compareCell formats a run's number: "−7.52 ± 0.01", "−7.52" without an
// error, Missing without a row.
func compareCell(r *Row) string {
	if r == nil {
		return Missing
	}
	v, s, ok, hasS := compareValue(r)
	if !ok {
		return Missing
	}
	if !hasS {
		return num2(v)
	}
	d := errDecimals(s)
	if s == 0 {
		return numD(v, d) + " ± 0"
	}
	return numD(v, d) + " ± " + numD(s, d)
}

// errDecimals is the number of decimals that shows an error σ with two
// significant digits: 2 for σ ≥ 0.1 (the tables' resolution), up to 4 for
// smaller ones, 4 for σ = 0 (an exact number).
func errDecimals(sigma float64) int {
	if !(sigma > 0) {
		return 4
	}
	return min(4, max(2, 1+int(math.Ceil(-math.Log10(sigma)))))
}

// numD formats x with d decimals, without a negative zero.
func numD(x float64, d int) string {
	s := strconv.FormatFloat(x, 'f', d, 64)
	if strings.Trim(s, "-0.") == "" {
		s = strings.TrimPrefix(s, "-")
	}
	return s
}

// diffCell formats run i's difference from the reference row: "+0.12 ±
// 0.05 (2.4σ)", or "not comparable: K 1000 vs 2000" when the protocols
// differ.
func (l *CompareLine) diffCell(i int) string {
	ref, r := l.reference(), l.Rows[i]
	if r == nil || ref == nil || r == ref {
		return Missing
	}
	if len(l.Differs[i]) > 0 {
		return "not comparable: " + strings.Join(l.Differs[i], "; ")
	}
	v0, s0, ok0, h0 := compareValue(ref)
	v1, s1, ok1, h1 := compareValue(r)
	if !ok0 || !ok1 {
		return Missing
	}
	mark := ""
	if l.ByConfig[i] {
		mark = " ‡"
	}
	d := v1 - v0
	if !h0 || !h1 {
		return signedD(d, 2) + mark
	}
	sig := math.Hypot(s0, s1)
	k := errDecimals(sig)
	s := signedD(d, k) + " ± " + numD(sig, k)
	if sig > 0 {
		return s + " (" + Sigmas(math.Abs(d), sig) + ")" + mark
	}
	return signedD(d, k) + " ± 0 (exact: no estimator error)" + mark
}

// byConfig reports whether a line of c was judged comparable by the
// configs' data settings.
func (c *Comparison) byConfig() bool {
	for _, l := range c.Lines {
		if slices.Contains(l.ByConfig, true) {
			return true
		}
	}
	return false
}

// legendByConfig explains ‡.
const legendByConfig = "‡: neither row records its data (runs written before results.json named the bits), so the two runs' " +
	"configs decided: the experiment's data settings (experiments[NAME].data.* but data_dir, and evaluate.max_examples) are " +
	"the same; a setting that differs is named in the cell as not comparable (config KEY a vs b). The bits themselves " +
	"were not checked (a data file changed between the runs would go unnoticed)."

// legend returns the legend lines of the table.
func (c *Comparison) legend() []string {
	if c.byConfig() {
		return append(slices.Clone(compareLegend), legendByConfig)
	}
	return compareLegend
}

// signedD formats x with d decimals and its sign.
func signedD(x float64, d int) string {
	s := numD(x, d)
	if !strings.HasPrefix(s, "-") {
		s = "+" + s
	}
	return s
}

// compareLegend says what the numbers of the comparison table mean.
var compareLegend = []string{
	"Each run's number is the final mean log-likelihood (nats per example) of the split, or log Ẑ for a split-free line, " +
		"± the estimator's own error (σ): for ais (and chi2) the σ̂ of log Ẑ, log(Ẑ+σ̂) − log Ẑ; for raise, csl, is and the " +
		"bounds their loglik_se; exact has no estimator error (± 0); a number without ± has no error (a diagnostic).",
	"Δ is the run's number minus the reference run's (the first run that has the line) ± √(σ_ref² + σ_run²), and " +
		"(kσ) says how many combined errors Δ is. The error leaves out the spread of the examples: both runs measured " +
		"the same examples (same data.sha256), so that spread is shared; for a difference of two models with an error " +
		"that includes it, use logz compare --model A --model B or --experiments A,B (a paired verdict).",
	"not comparable: the two rows measured with different protocols (the data's bits data.sha256, its binarisation " +
		"data.binarize and data.binarize_seed, the examples covered, the split, the estimator, K or the start); they are listed side by side but " +
		"their difference is not ranked.",
}

// grid lays the comparison out: Experiment | Estimator | Split | K |
// <run 1> | … | Δ <run i> − <ref> | ….
func (c *Comparison) grid() *grid {
	g := &grid{
		header: []string{"Experiment", "Estimator", "Split", "K", "Quantity"},
		align:  []align{alignLeft, alignLeft, alignLeft, alignRight, alignLeft},
	}
	for _, r := range c.Runs {
		g.header = append(g.header, r.Name)
		g.align = append(g.align, alignRight)
	}
	for _, r := range c.Runs[1:] {
		g.header = append(g.header, "Δ "+r.Name)
		g.align = append(g.align, alignRight)
	}
	for _, l := range c.Lines {
		est := l.Estimator
		var what []string
		if l.Init != "" {
			what = append(what, l.Init)
		}
		if l.Round > 0 {
			what = append(what, "round "+strconv.Itoa(l.Round))
		}
		if len(what) > 0 {
			est += " (" + strings.Join(what, ", ") + ")"
		}
		cells := []string{l.Experiment, est, orMissing(l.Split), intCell(l.Betas), l.what()}
		for _, r := range l.Rows {
			cells = append(cells, compareCell(r))
		}
		for i := 1; i < len(l.Rows); i++ {
			cells = append(cells, l.diffCell(i))
		}
		g.rows = append(g.rows, cells)
	}
	return g
}

// NotComparable counts the lines with a row whose protocol differs.
func (c *Comparison) NotComparable() int {
	n := 0
	for _, l := range c.Lines {
		if slices.ContainsFunc(l.Differs, func(d []string) bool { return len(d) > 0 }) {
			n++
		}
	}
	return n
}

// configDiffs lists the keys whose values are not the same in every run
// that has a config, sorted.
func configDiffs(runs []CompareRun) []string {
	keys := map[string]bool{}
	n := 0
	for _, r := range runs {
		if r.Config == nil {
			continue
		}
		n++
		for k := range r.Config {
			keys[k] = true
		}
	}
	if n < 2 {
		return nil
	}
	// An experiment that some runs lack is one line, not one per key.
	has := func(r CompareRun, exp string) bool {
		for k := range r.Config {
			if strings.HasPrefix(k, exp) {
				return true
			}
		}
		return false
	}
	partial := map[string]string{} // "experiments[X]" → its line
	for k := range keys {
		exp, _, ok := strings.Cut(k, "].")
		if !ok || !strings.HasPrefix(exp, "experiments[") {
			continue
		}
		exp += "]"
		if _, done := partial[exp]; done {
			continue
		}
		var vals []string
		all := true
		for _, r := range runs {
			if r.Config == nil {
				continue
			}
			if has(r, exp+".") {
				vals = append(vals, "(present)")
			} else {
				vals, all = append(vals, "(absent)"), false
			}
		}
		if all {
			partial[exp] = ""
		} else {
			partial[exp] = exp + ": " + strings.Join(vals, " | ")
		}
	}
	var out []string
	for _, k := range slices.Sorted(maps.Keys(keys)) {
		if exp, _, ok := strings.Cut(k, "]."); ok {
			if line := partial[exp+"]"]; line != "" {
				if !slices.Contains(out, line) {
					out = append(out, line)
				}
				continue
			}
		}
		var vals []string
		same := true
		for _, r := range runs {
			if r.Config == nil {
				continue
			}
			v, ok := r.Config[k]
			if !ok {
				v = "(absent)"
			}
			if len(vals) > 0 && v != vals[0] {
				same = false
			}
			vals = append(vals, v)
		}
		if !same {
			out = append(out, k+": "+strings.Join(vals, " | "))
		}
	}
	return out
}

// dataLines names the data each run measured (DataLines), each line
// prefixed by the run's name.
func (c *Comparison) dataLines() []string {
	var data []string
	for _, r := range c.Runs {
		for _, l := range DataLines(r.Rows) {
			data = append(data, r.Name+": "+l)
		}
	}
	return data
}

// configNames lists the names of the runs that have a config, joined by
// " | " as the config differences' values are.
func (c *Comparison) configNames() string {
	var names []string
	for _, r := range c.Runs {
		if r.Config != nil {
			names = append(names, r.Name)
		}
	}
	return strings.Join(names, " | ")
}

// writeCompareDoc lays out a comparison on a doc (report.md and
// report.html share it): the runs, the side-by-side table with its legend,
// the data each run measured and the config differences.
func writeCompareDoc(d doc, title string, c *Comparison) {
	d.heading(1, title)
	items := make([]string, len(c.Runs))
	for i, r := range c.Runs {
		items[i] = r.Name
	}
	d.para("Runs compared (the first is the reference of Δ):")
	d.list(items, true)
	d.heading(2, "Final estimates side by side")
	if len(c.Lines) == 0 {
		d.para("No final estimates.")
	} else {
		d.table(c.grid())
		d.list(c.legend(), false)
	}
	if n := c.NotComparable(); n > 0 {
		d.para(fmt.Sprintf("%d of %d lines hold rows that are not comparable (their protocols differ; see the Δ cells); their differences are not ranked.", n, len(c.Lines)))
	}
	data := c.dataLines()
	if len(data) > 0 {
		d.para("Data (run: split: spec, binarisation, examples kept, size, SHA-256 of the bits):")
		d.list(data, false)
	}
	d.heading(2, "Config differences")
	switch {
	case len(c.ConfigDiffs) > 0:
		d.para("Keys of config.resolved.yaml whose values differ (" + c.configNames() + "):")
		d.list(c.ConfigDiffs, false)
	case strings.Contains(c.configNames(), " | "):
		d.para("None: the resolved configs are the same.")
	default:
		d.para("Fewer than two runs have a config.resolved.yaml.")
	}
}

// RenderCompare writes the comparison as the terminal table with its
// legend, the data lines and the config differences.
func RenderCompare(w io.Writer, c *Comparison, opt TableOptions) error {
	var b strings.Builder
	if len(c.Lines) == 0 {
		b.WriteString("No final estimates.\n")
	} else {
		if err := renderTerminal(&b, c.grid(), opt.ASCII); err != nil {
			return err
		}
		for _, l := range c.legend() {
			fmt.Fprintf(&b, "  %s\n", l)
		}
	}
	if n := c.NotComparable(); n > 0 {
		fmt.Fprintf(&b, "%d of %d lines hold rows that are not comparable (their protocols differ); their differences are not ranked.\n", n, len(c.Lines))
	}
	data := c.dataLines()
	if len(data) > 0 {
		b.WriteString("Data:\n")
		for _, l := range data {
			fmt.Fprintf(&b, "  %s\n", l)
		}
	}
	if len(c.ConfigDiffs) > 0 {
		fmt.Fprintf(&b, "Config differences (%s):\n", c.configNames())
		for _, l := range c.ConfigDiffs {
			fmt.Fprintf(&b, "  %s\n", l)
		}
	} else if strings.Contains(c.configNames(), " | ") {
		b.WriteString("Config differences: none.\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteCompareMarkdown writes the comparison as report.md.
func WriteCompareMarkdown(w io.Writer, title string, c *Comparison) error {
	d := &markdownDoc{}
	writeCompareDoc(d, title, c)
	_, err := io.WriteString(w, strings.TrimRight(d.b.String(), "\n")+"\n")
	return err
}

// WriteCompareHTML writes the comparison as report.html: the tables of
// WriteCompareMarkdown, then per experiment its per-epoch curves overlaid
// across the runs (CompareFigures).
func WriteCompareHTML(w io.Writer, title string, c *Comparison) error {
	d := &htmlDoc{}
	d.open(title)
	writeCompareDoc(d, title, c)
	var exps []string
	for _, r := range c.Runs {
		for _, e := range Experiments(r.Rows) {
			if !slices.Contains(exps, e) {
				exps = append(exps, e)
			}
		}
	}
	if len(exps) > 0 {
		d.heading(2, "Per-epoch curves across runs")
	}
	for _, e := range exps {
		figs, err := CompareFigures(c.Runs, e)
		if err != nil {
			return fmt.Errorf("report: report.html: experiment %s: %w", e, err)
		}
		if len(figs) == 0 {
			continue
		}
		d.heading(3, e)
		d.b.WriteString("<div class=\"figs\">\n")
		for _, f := range figs {
			d.figure(e, f)
		}
		d.b.WriteString("</div>\n")
	}
	d.b.WriteString("</body>\n</html>\n")
	_, err := io.WriteString(w, d.b.String())
	return err
}

// CompareFigures draws, for one experiment, its per-epoch curves with every
// run's overlaid (one series per run and estimator, named "run: estimator",
// bars as in ExperimentFigures): the mean log-likelihood per split, and log
// Ẑ.
func CompareFigures(runs []CompareRun, experiment string) ([]Figure, error) {
	var all []Row
	for _, r := range runs {
		all = append(all, Select(r.Rows, experiment)...)
	}
	overlay := func(keep func(*Row) bool, point func(*Row) (float64, float64, *float64, *float64)) []*series {
		var ss []*series
		for _, r := range runs {
			for _, s := range collect(Select(r.Rows, experiment), keep, point) {
				s.label = r.Name + ": " + trainingLabel(s.label)
				ss = append(ss, s)
			}
		}
		return ss
	}
	var figs []Figure
	for _, split := range splitsOf(all, StageEpoch, func(r *Row) bool { return r.MeanLoglik != nil }) {
		ss := overlay(func(r *Row) bool {
			return r.Stage == StageEpoch && r.Split == split && r.MeanLoglik != nil
		}, func(r *Row) (float64, float64, *float64, *float64) {
			lo, hi := loglikBar(r)
			return float64(r.Epoch), *r.MeanLoglik, lo, hi
		})
		f, err := lineFigureAt(false, "compare-loglik-"+fileSafe(split), "Mean log-likelihood per epoch across runs ("+splitName(split)+")",
			"epoch", "nats per example", ss,
			"One colour and mark per run and estimator; bars: an estimate through log Ẑ (AIS, the bounds) from log(Ẑ ± 3σ̂), RAISE and CSL ± 3 standard errors.")
		if err != nil {
			return nil, err
		}
		if f != nil {
			figs = append(figs, *f)
		}
	}
	ss := overlay(func(r *Row) bool {
		_, ok := logZOf(r)
		return r.Stage == StageEpoch && ok
	}, func(r *Row) (float64, float64, *float64, *float64) {
		z, _ := logZOf(r)
		return float64(r.Epoch), z, r.LogZLo, r.LogZHi
	})
	f, err := lineFigure("compare-logz", "log Ẑ per epoch across runs", "epoch", "log Z (nats)", ss,
		"Every estimate of the log partition function of every run, with bars log(Ẑ − 3σ̂) to log(Ẑ + 3σ̂).")
	if err != nil {
		return nil, err
	}
	if f != nil {
		figs = append(figs, *f)
	}
	return figs, nil
}
