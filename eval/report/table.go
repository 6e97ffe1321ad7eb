package report

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"
)

// Missing is shown in a table cell for a number that does not exist.
const Missing = "—"

// DefaultWarningWidth is the number of characters of a warning shown in a
// table cell when TableOptions.WarningWidth is 0.
const DefaultWarningWidth = 28

// TableOptions adjust RenderTable. The zero value gives the default layout.
type TableOptions struct {
	// WarningWidth is the number of characters of each warning shown in the
	// Warnings column, after its footnote number; longer warnings are cut
	// with "…" (the full text is always listed below the table). 0 means
	// DefaultWarningWidth; a negative value shows only the footnote numbers.
	WarningWidth int
	// ASCII draws the borders with + - | instead of box-drawing characters.
	ASCII bool
	// Width is the widest, in characters, that the terminal tables may
	// be: a wider table shows its warnings as footnote numbers, names the
	// columns equal in every line above it, breaks cells onto two lines
	// and at last leaves out log(Ẑ±σ̂) and Minutes, saying so (report.md
	// has the full table). 0 means DefaultTableWidth; negative, no limit.
	Width int
	// Grid places the experiments that are points of a config's grid
	// with a seed axis: each grid point's lines are followed by the mean
	// ± SE over its seeds.
	Grid Grid
}

// boundNotes explain, per estimator, on which side of the truth its numbers
// fall; RenderTable and WriteMarkdown print the notes of the estimators
// present below the final table.
var boundNotes = map[string]string{
	"ais":       "ais: log Ẑ is a stochastic lower bound on log Z (E[log Ẑ] ≤ log Z), so its log-probabilities tend to be overestimates.",
	"ais-ratio": "ais-ratio: log Ẑ is the estimate of log Z_B − log Z_A (A the model, B the file of to: / --ratio-to) and True log Z the exact difference; from exact draws of A a stochastic lower bound on it, from exact draws of B (start: reversed) an upper one, from Gibbs chains of A (start: gibbs) neither, and only as good as the chains' mixing (see the row's notes).",
	"raise":     "raise: a stochastic lower bound on the log-probability (of the annealed model), so it tends to underestimate; AIS above and RAISE below bracket the truth in expectation, once both have converged (a pair reversed beyond noise, or with a member beyond noise on the wrong side of exact, brackets nothing: its warning says which is wrong).",
	"csl":       "csl: conservative on average (a lower estimate of the log-probability), often by tens of nats.",
	"is":        "is: log of an unbiased importance-sampling estimate of p(v), a stochastic lower bound on log p(v).",
	"dbn-bound": "dbn-bound (a line with AIS runs): a variational lower bound on log p(v) minus the top RBM's log Z from AIS, whose log Ẑ is a stochastic lower bound on log Z, so the bound is itself only a stochastic bound and can come out high by AIS's error.",
	"mf-bound":  "mf-bound: the mean-field lower bound on log f(v) minus an AIS log Ẑ; a lower bound on log p(v) up to the AIS error in log Z.",
	"chi2":      "chi2: an upper bound on log Z (χ² bound, Kuleshov & Ermon 2017), so log-probabilities computed with it are lower bounds; but its Monte-Carlo estimate ½ log mean (p̃/q)² is biased low and can fall under log Z (see docs/methods.md#chi2-bias), so it is an upper bound only within its error.",
	"pll":       "pll: pseudo-log-likelihood per example, Σ_i log p(v_i | v_−i); a training signal, not a log-likelihood.",
	"recon":     "recon: squared reconstruction error per example after one Gibbs step (lower is better); a training signal, not a log-likelihood.",
	"reference": "reference: a published number (its source is in results.json's notes), shown for comparison; not computed by logz.",
	// Notes of one model type ("<type>/<estimator>") take precedence.
	"sbn/ais":      "ais (sigmoid belief nets): per-example AIS from p(x, z | 0) to p(x, z | θ) (parameter scaling); the log of an unbiased estimate of p(x), a stochastic lower bound on log p(x).",
	"sbn/bdmc":     "bdmc: on data simulated from the model, forward AIS (lower) and reverse AIS from the exact latent sample (upper) bracket log p(x); the gap bounds the error of AIS at that β.",
	"sbn/mf-bound": "mf-bound (sigmoid belief nets): a mean-field lower bound on log p(x) at the net's parameters, q(h) factorised and fitted per example; with samples 0 the Jaakkola–Jordan bound of that q(h) (deterministic, the looser), with samples > 0 the ELBO of the same q(h) from its draws (an unbiased estimate of a lower bound, so a stochastic lower bound).",
	"sbn/exact":    "exact (sigmoid belief nets): log p(x) = log Σ_z p(x, z), summed over every latent state.",
	// dbn-bound whose top RBM's log Z was enumerated (no AIS runs).
	noteDBNBoundExact: "dbn-bound (a line without AIS runs): a variational lower bound on log p(v) with the top RBM's log Z computed exactly (its smaller layer is within max_units, so it was enumerated); its mean lies below log p(v) up to the sampling error of its draws from Q.",
}

// noteDBNBoundExact is the key in boundNotes of the note on a dbn-bound
// line without AIS runs: the top RBM's log Z was exact, not from AIS.
const noteDBNBoundExact = "dbn-bound/exact-top"

// noteMinutes says how Minutes count work that rows share; printed when
// some line has a time.
const noteMinutes = "Minutes count each piece of work once: a log Z (or fit) that an estimator's splits share is on its first split's row, and a result a later estimator of the list reuses (an AIS or exact log Z of the same settings, per-example importance-sampling estimates) is on the row of the estimator that computed it; the reusing line shows only its own work."

// noteUndefinedLo is printed when some log(Ẑ−kσ̂) is undefined.
const noteUndefinedLo = Missing + " before the comma in log(Ẑ±σ̂) or log(Ẑ±3σ̂): Ẑ−kσ̂ ≤ 0, so its log is undefined (the error bar reaches zero)."

// align of a table column.
type align int

const (
	alignLeft align = iota
	alignRight
)

// grid is a rendered-to-text table, shared by the terminal and Markdown
// renderers. Cells may hold "\n" (several lines in one cell).
type grid struct {
	header []string
	align  []align
	rows   [][]string
}

// line is one line of the final table: the final rows of one experiment
// and estimator configuration, merged over splits.
type line struct {
	experiment, model, estimator, init string
	runs, betas                        int
	round                              int // a sandwich's round, else 0
	logZ, lo3, hi3, lo1, hi1, exact    *float64
	seconds                            float64
	splits                             map[string]*Row // split → row ("" = split-free)
	warnings                           []string
	signal                             bool // a pll/recon line: Value, not log-likelihoods
}

// compatible reports whether r can be merged into l: same experiment,
// model, estimator, init and sandwich round, equal runs and betas where
// both are set, and l has no row yet for r's split.
func (l *line) compatible(r *Row, signal bool) bool {
	eqOrZero := func(a, b int) bool { return a == 0 || b == 0 || a == b }
	_, taken := l.splits[r.Split]
	return !taken && l.signal == signal && l.experiment == r.Experiment && l.model == r.Model &&
		l.estimator == r.Estimator && l.init == r.Init && l.round == r.Round && eqOrZero(l.runs, r.Runs) && eqOrZero(l.betas, r.Betas)
}

// mergeFloat keeps the first value of a quantity that several rows of a
// line carry (log Z is split-free) and warns when a later row disagrees.
func (l *line) mergeFloat(dst **float64, v *float64, what, split string) {
	if v == nil {
		return
	}
	if *dst == nil {
		*dst = v
		return
	}
	if d := math.Abs(**dst - *v); d > 1e-9*math.Max(1, math.Abs(*v)) {
		l.addWarning(fmt.Sprintf("rows disagree on %s: %s vs %s (%s row)", what, num2(**dst), num2(*v), splitName(split)))
	}
}

func (l *line) addWarning(w string) {
	if !slices.Contains(l.warnings, w) {
		l.warnings = append(l.warnings, w)
	}
}

func (l *line) add(r *Row) {
	l.splits[r.Split] = r
	l.runs = max(l.runs, r.Runs)
	l.betas = max(l.betas, r.Betas)
	l.seconds += r.Seconds
	l.mergeFloat(&l.logZ, r.LogZ, "log Z", r.Split)
	l.mergeFloat(&l.lo3, r.LogZLo, "log(Z-3σ)", r.Split)
	l.mergeFloat(&l.hi3, r.LogZHi, "log(Z+3σ)", r.Split)
	l.mergeFloat(&l.lo1, r.LogZLo1, "log(Z-σ)", r.Split)
	l.mergeFloat(&l.hi1, r.LogZHi1, "log(Z+σ)", r.Split)
	l.mergeFloat(&l.exact, r.ExactLogZ, "the exact log Z", r.Split)
	for _, w := range r.Warnings {
		l.addWarning(w)
	}
}

func splitName(s string) string {
	if s == "" {
		return "split-free"
	}
	return s
}

// finalLines groups the final rows into table lines, ordered by the first
// appearance of their experiment, then by the first appearance of the line.
func finalLines(rows []Row) []*line {
	var lines []*line
	for i := range rows {
		r := &rows[i]
		if r.Stage != StageFinal {
			continue
		}
		signal := r.Value != nil
		var l *line
		for _, c := range lines {
			if c.compatible(r, signal) {
				l = c
				break
			}
		}
		if l == nil {
			l = &line{experiment: r.Experiment, model: r.Model, estimator: r.Estimator, init: r.Init, round: r.Round,
				signal: signal, splits: map[string]*Row{}}
			lines = append(lines, l)
		}
		l.add(r)
	}
	order := map[string]int{}
	for i, e := range Experiments(rows) {
		order[e] = i
	}
	slices.SortStableFunc(lines, func(a, b *line) int { return order[a.experiment] - order[b.experiment] })
	return lines
}

// footnotes numbers distinct warning texts in order of first use.
type footnotes struct {
	texts []string
	index map[string]int
}

func (f *footnotes) number(w string) int {
	if f.index == nil {
		f.index = map[string]int{}
	}
	n, ok := f.index[w]
	if !ok {
		f.texts = append(f.texts, w)
		n = len(f.texts)
		f.index[w] = n
	}
	return n
}

// cell lists a line's warnings by footnote number, each abbreviated to
// width characters (only the numbers if width < 0), one per cell line.
func (f *footnotes) cell(ws []string, width int) string {
	if len(ws) == 0 {
		return ""
	}
	parts := make([]string, len(ws))
	for i, w := range ws {
		parts[i] = "[" + strconv.Itoa(f.number(w)) + "]"
		if width >= 0 {
			parts[i] += " " + abbreviate(w, width)
		}
	}
	if width < 0 {
		return strings.Join(parts, " ")
	}
	return strings.Join(parts, "\n")
}

// abbreviate cuts s to at most width characters (runes), ending in "…"
// when cut, preferably at a word boundary, and flattens line breaks.
func abbreviate(s string, width int) string {
	s = strings.Join(strings.Fields(s), " ")
	if width <= 0 || utf8.RuneCountInString(s) <= width {
		return s
	}
	r := []rune(s)
	cut := width - 1
	if r[cut] != ' ' {
		// Prefer to end at a word boundary in the last third of the text kept.
		for i := cut - 1; i > cut-cut/3 && i > 0; i-- {
			if r[i] == ' ' {
				cut = i
				break
			}
		}
	}
	return strings.TrimRight(string(r[:cut]), " ") + "…"
}

// num2 formats x with two decimals, without a negative zero.
func num2(x float64) string {
	s := strconv.FormatFloat(x, 'f', 2, 64)
	if s == "-0.00" {
		s = "0.00"
	}
	return s
}

// opt2 formats an optional number with two decimals, Missing for nil.
func opt2(p *float64) string {
	if p == nil {
		return Missing
	}
	return num2(*p)
}

// pair formats an interval "lo, hi"; Missing when both ends are missing.
func pair(lo, hi *float64) string {
	if lo == nil && hi == nil {
		return Missing
	}
	return opt2(lo) + ", " + opt2(hi)
}

// loglikCell formats a split's mean log-probability: "mean ± se" and a
// bracket "[lo, hi]" where the row has them.
func loglikCell(r *Row) string {
	if r == nil || (r.MeanLoglik == nil && r.LoglikLo == nil && r.LoglikHi == nil) {
		return Missing
	}
	var parts []string
	if r.MeanLoglik != nil {
		s := num2(*r.MeanLoglik)
		if r.LoglikSE != nil {
			s += " ± " + num2(*r.LoglikSE)
		}
		parts = append(parts, s)
	}
	if r.LoglikLo != nil || r.LoglikHi != nil {
		b := "[" + pair(r.LoglikLo, r.LoglikHi) + "]"
		if why := BracketBroken(r); why != "" {
			b += " " + why // the pair brackets nothing (legendNoBracket)
		}
		parts = append(parts, b)
	}
	if t := r.SubsampleTag(); t != "" && r.MeanLoglik != nil {
		parts = append(parts, "("+t+")")
	} else if r.NExamples == 1 && r.MeanLoglik != nil {
		parts = append(parts, "(n = 1)") // one example: no standard error
	}
	return strings.Join(parts, " ")
}

// signalCell formats a pll/recon value: two decimals, or three significant
// digits for small values.
func signalCell(r *Row) string {
	if r == nil || r.Value == nil {
		return Missing
	}
	if x := math.Abs(*r.Value); x != 0 && x < 0.1 {
		return strconv.FormatFloat(*r.Value, 'g', 3, 64)
	}
	return num2(*r.Value)
}

func intCell(n int) string {
	if n == 0 {
		return Missing
	}
	return strconv.Itoa(n)
}

// chainsCell names what a line's runs count, since the field means
// something else per estimator: AIS runs (ais, and the AIS log Ẑ inside
// dbn-bound and mf-bound), RAISE reverse chains per example, CSL Gibbs
// chains.
func chainsCell(l *line) string {
	if l.runs == 0 {
		return Missing
	}
	n := strconv.Itoa(l.runs)
	if typ, _, _ := strings.Cut(l.model, " "); typ == "sbn" || typ == "arsbn" {
		switch l.estimator {
		case "ais", "bdmc":
			return n + " per example"
		case "is":
			return n + " proposals"
		}
	}
	switch l.estimator {
	case "ais", "dbn-bound", "mf-bound":
		return n + " AIS runs"
	case "raise":
		return n + " per example"
	case "csl":
		return n + " Gibbs chains"
	case "chi2":
		return n + " draws of q"
	}
	return n
}

func orMissing(s string) string {
	if s == "" {
		return Missing
	}
	return s
}

// estimatorLabel names a line's estimator with its start and, for a
// sandwich's rows, its round: "ais (uniform, round 2)".
func estimatorLabel(l *line) string {
	round := ""
	if l.round > 0 {
		round = fmt.Sprintf("round %d", l.round)
	}
	return qualified(l.estimator, l.init, round)
}

// qualified is name followed by its non-empty qualifiers in parentheses:
// "ais (uniform, round 2)", or name alone.
func qualified(name string, qualifiers ...string) string {
	var what []string
	for _, q := range qualifiers {
		if q != "" {
			what = append(what, q)
		}
	}
	if len(what) == 0 {
		return name
	}
	return name + " (" + strings.Join(what, ", ") + ")"
}

// splitColumns returns the splits that get a column: test and train always
// when always is set, valid and any other split when a line has it, in the
// order test, valid, train, others by first appearance.
func splitColumns(lines []*line, always bool) []string {
	have := map[string]bool{}
	var others []string
	for _, l := range lines {
		for _, r := range orderedRows(l) {
			if r.Split == "" || have[r.Split] {
				continue
			}
			have[r.Split] = true
			if r.Split != "train" && r.Split != "valid" && r.Split != "test" {
				others = append(others, r.Split)
			}
		}
	}
	var cols []string
	for _, s := range []string{"test", "valid", "train"} {
		if have[s] || (always && s != "valid") {
			cols = append(cols, s)
		}
	}
	return append(cols, others...)
}

// orderedRows returns a line's rows in a deterministic order (by split name).
func orderedRows(l *line) []*Row {
	keys := make([]string, 0, len(l.splits))
	for k := range l.splits {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	rs := make([]*Row, len(keys))
	for i, k := range keys {
		rs[i] = l.splits[k]
	}
	return rs
}

func titleSplit(s string) string {
	if s == "" {
		return s
	}
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(r)) + s[n:]
}

// Legend lines printed under the main table when its cells use them.
const (
	legendSE = "mean ± se: for exact, ais and the bounds, se is the standard error over the split's examples (their spread, " +
		"not an error of the estimator; AIS's error is in log(Ẑ±σ̂)); for raise and csl, the standard error of their estimate " +
		"of the split's mean (on a subsample: of the control-variate estimate)."
	legendBracket = "[lo, hi]: RAISE (lo) and AIS (hi) of the same start bracket the true value in expectation; lo > hi (reversed) is noise " +
		"within 3 combined standard errors (at least 0.01 nats), a warning beyond."
	legendNoBracket = "[lo, hi] reversed, [lo, hi] no bracket: the pair brackets nothing — RAISE lies above AIS beyond noise (reversed), " +
		"or one of them lies beyond noise on the wrong side of exact (no bracket); the warnings name the one that is wrong."
	legendCV = "(k of N + cv): the estimator ran on k randomly chosen examples of the split's N, and a control variate " +
		"extended its mean to all N: Ŷ = ȳ − α(x̄ − X̄), X a cheap estimate of log p(x) known for every example (exact where it " +
		"ran; results.json's control_variate names it); ± is the standard error of that estimate, so the number is comparable " +
		"with whole-split rows (the plain mean over the k examples is results.json's subsample_mean)."
	legendSubsample = "(n = k of N): the mean is over k randomly chosen examples of the split's N, not over the whole split, " +
		"so it is not comparable with whole-split rows such as exact; \"exact\" beside it is exact's mean on the same k examples."
	legendBDMC = "[lo, hi] of bdmc: forward AIS (lo) and reverse AIS from the exact latent sample (hi) bracket the mean log p(x) " +
		"of data simulated from the model; the width is the AIS error at that β."
)

// finalTables builds the main table (Table 1 of the 2008 paper) and the
// cheap-signals table from the final rows, numbering warnings in fn, and
// returns the legend of the main table's cells and the notes that apply.
// Columns that are empty in every line are left out.
//
// Where g places experiments in grid points with seeds, each group's
// lines are followed by the mean ± SE over its seeds (seedLines).
func finalTables(rows []Row, warnWidth int, fn *footnotes, g Grid) (main, signals *grid, legend, notes []string) {
	if warnWidth == 0 {
		warnWidth = DefaultWarningWidth
	}
	lines := finalLines(rows)
	var mainLines, sigLines []*line
	for _, l := range lines {
		if l.signal {
			sigLines = append(sigLines, l)
		} else {
			mainLines = append(mainLines, l)
		}
	}
	mainLines, paper := foldPapers(mainLines)
	seenNote := map[string]bool{}
	note := func(l *line) {
		est := l.estimator
		typ, _, _ := strings.Cut(l.model, " ")
		if typ == "arsbn" {
			typ = "sbn"
		}
		if _, ok := boundNotes[typ+"/"+est]; ok {
			est = typ + "/" + est
		}
		if est == "dbn-bound" && l.runs == 0 {
			// The top RBM's log Z was enumerated: say so, not "from AIS".
			est = noteDBNBoundExact
		}
		if n, ok := boundNotes[est]; ok && !seenNote[est] {
			seenNote[est] = true
			notes = append(notes, n)
		}
	}
	undefinedLo := false

	if len(mainLines) > 0 {
		cols := splitColumns(mainLines, true)
		main = &grid{
			header: []string{"Experiment", "Model", "Estimator", "Chains", "β", "log Ẑ", "log(Ẑ±σ̂)", "log(Ẑ±3σ̂)", "Minutes"},
			align:  []align{alignLeft, alignLeft, alignLeft, alignRight, alignRight, alignRight, alignRight, alignRight, alignRight},
		}
		for _, s := range cols {
			main.header = append(main.header, titleSplit(s)+" log-prob", paperHeader(s))
			main.align = append(main.align, alignRight, alignRight)
		}
		main.header = append(main.header, "True log Z", "Warnings")
		main.align = append(main.align, alignRight, alignLeft)
		hasSE, hasBracket, hasBDMC, hasCV, hasSub, hasBroken := false, false, false, false, false, false
		means := seedLines(mainLines, g)
		for i, l := range mainLines {
			note(l)
			if (l.lo1 == nil && l.hi1 != nil) || (l.lo3 == nil && l.hi3 != nil) {
				undefinedLo = true
			}
			exact := l.exact
			if exact == nil && l.estimator == "exact" {
				exact = l.logZ
			}
			cells := []string{
				l.experiment, orMissing(l.model), estimatorLabel(l), chainsCell(l), intCell(l.betas),
				opt2(l.logZ), pair(l.lo1, l.hi1), pair(l.lo3, l.hi3), num2(l.seconds / 60),
			}
			for _, s := range cols {
				r := l.splits[s]
				cells = append(cells, loglikCell(r), paper.cell(l, s))
				if r != nil {
					hasSE = hasSE || (r.MeanLoglik != nil && r.LoglikSE != nil)
					if r.MeanLoglik != nil && r.Subsampled() {
						hasCV = hasCV || r.ControlVariate != ""
						hasSub = hasSub || r.ControlVariate == ""
					}
					br := r.LoglikLo != nil || r.LoglikHi != nil
					if r.Estimator == "bdmc" {
						hasBDMC = hasBDMC || br
					} else {
						hasBracket = hasBracket || br
						hasBroken = hasBroken || br && BracketBroken(r) != ""
					}
				}
			}
			cells = append(cells, opt2(exact), fn.cell(l.warnings, warnWidth))
			main.rows = append(main.rows, cells)
			for _, m := range means[i] {
				f := m.first
				cells := []string{
					m.label(), orMissing(f.model), estimatorLabel(f), chainsCell(f), intCell(f.betas),
					m.cell(func(l *line) *float64 { return l.logZ }), Missing, Missing, m.minutes(),
				}
				for _, s := range cols {
					cells = append(cells, m.cell(func(l *line) *float64 {
						if r := l.splits[s]; r != nil {
							return r.MeanLoglik
						}
						return nil
					}), "")
				}
				cells = append(cells, m.cell(func(l *line) *float64 {
					if l.exact == nil && l.estimator == "exact" {
						return l.logZ
					}
					return l.exact
				}), "")
				main.rows = append(main.rows, cells)
			}
		}
		main.dropEmptyColumns()
		if hasSE {
			legend = append(legend, legendSE)
		}
		if len(means) > 0 {
			legend = append(legend, legendSeeds)
		}
		if hasBracket {
			legend = append(legend, legendBracket)
			if r := reversedWithinNoise(rows); r != "" {
				legend = append(legend, r)
			}
			if hasBroken {
				legend = append(legend, legendNoBracket)
			}
		}
		if hasBDMC {
			legend = append(legend, legendBDMC)
		}
		if hasCV {
			legend = append(legend, legendCV)
		}
		if hasSub {
			legend = append(legend, legendSubsample)
		}
		legend = append(legend, paper.legend(Experiments(rows))...)
	}

	if len(sigLines) > 0 {
		cols := splitColumns(sigLines, false)
		signals = &grid{
			header: []string{"Experiment", "Model", "Signal"},
			align:  []align{alignLeft, alignLeft, alignLeft},
		}
		for _, s := range cols {
			signals.header = append(signals.header, titleSplit(s))
			signals.align = append(signals.align, alignRight)
		}
		if hasSplitFree(sigLines) {
			signals.header = append(signals.header, "Value")
			signals.align = append(signals.align, alignRight)
			cols = append(cols, "")
		}
		signals.header = append(signals.header, "Minutes", "Warnings")
		signals.align = append(signals.align, alignRight, alignLeft)
		means := seedLines(sigLines, g)
		for i, l := range sigLines {
			note(l)
			cells := []string{l.experiment, orMissing(l.model), estimatorLabel(l)}
			for _, s := range cols {
				cells = append(cells, signalCell(l.splits[s]))
			}
			cells = append(cells, num2(l.seconds/60), fn.cell(l.warnings, warnWidth))
			signals.rows = append(signals.rows, cells)
			for _, m := range means[i] {
				cells := []string{m.label(), orMissing(m.first.model), estimatorLabel(m.first)}
				for _, s := range cols {
					cells = append(cells, m.signal(s))
				}
				signals.rows = append(signals.rows, append(cells, m.minutes(), ""))
			}
		}
		signals.dropEmptyColumns()
	}
	if undefinedLo {
		notes = append(notes, noteUndefinedLo)
	}
	for _, l := range append(slices.Clip(mainLines), sigLines...) {
		if l.seconds > 0 {
			notes = append(notes, noteMinutes)
			break
		}
	}
	return main, signals, legend, notes
}

// reversedWithinNoise lists the final AIS/RAISE pairs whose bracket is
// reversed (RAISE above AIS) by no more than Tolerance (NoiseSigmas
// combined standard errors, at least NoiseFloor) — noise, which the tables
// would otherwise leave unexplained — or returns "" when there are none.
// Each RAISE row is paired with its AISPartner (the AIS of its own K), as
// the sandwich table and the rows' notes pair them, and the entry names the
// start and that K, so that two pairs of one experiment and split at
// different K read apart. Pairs reversed beyond that carry a warning of
// their own.
func reversedWithinNoise(rows []Row) string {
	var parts []string
	for i := range rows {
		r := &rows[i]
		if r.Stage != StageFinal || r.Estimator != "raise" || r.MeanLoglik == nil {
			continue
		}
		j := AISPartner(rows, r)
		if j < 0 {
			continue
		}
		a := &rows[j]
		if BracketBroken(r) != "" || BracketBroken(a) != "" {
			continue // exact shows one of them wrong: not noise
		}
		gap := *a.MeanLoglik - *r.MeanLoglik
		if e := Judge(-gap, CombinedError(r, a), *a.MeanLoglik); gap < 0 && !e.Beyond {
			var what []string
			if r.Init != "" {
				what = append(what, r.Init)
			}
			if r.Betas > 0 {
				what = append(what, fmt.Sprintf("K = %d", r.Betas))
			}
			where := r.Experiment + " " + r.Split
			if len(what) > 0 {
				where += " (" + strings.Join(what, ", ") + ")"
			}
			parts = append(parts, fmt.Sprintf("%s by %.2f nats (%s)", where, -gap, e.Why()))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "Reversed brackets within noise, not a sign that either estimate is wrong: " + strings.Join(parts, "; ") + "."
}

// dropEmptyColumns removes the columns whose cells are empty or Missing in
// every row (a column of dashes tells the reader nothing). A table without
// rows keeps its columns.
func (g *grid) dropEmptyColumns() {
	if len(g.rows) == 0 {
		return
	}
	keep := make([]bool, len(g.header))
	for j := range g.header {
		for _, r := range g.rows {
			if r[j] != "" && r[j] != Missing {
				keep[j] = true
				break
			}
		}
	}
	filter := func(s []string) []string {
		out := s[:0:0]
		for j, c := range s {
			if keep[j] {
				out = append(out, c)
			}
		}
		return out
	}
	var al []align
	for j, a := range g.align {
		if keep[j] {
			al = append(al, a)
		}
	}
	g.header, g.align = filter(g.header), al
	for i, r := range g.rows {
		g.rows[i] = filter(r)
	}
}

func hasSplitFree(lines []*line) bool {
	for _, l := range lines {
		if _, ok := l.splits[""]; ok {
			return true
		}
	}
	return false
}

// RenderTable writes the final rows (stage "final") to w as the terminal
// table, laid out like Table 1 of Salakhutdinov & Murray (2008): one line
// per experiment and estimator configuration (estimator, init, runs, β)
// with its splits merged:
//
//	Experiment | Model | Estimator | Chains | β | log Ẑ | log(Ẑ±σ̂) | log(Ẑ±3σ̂) | Minutes |
//	Test log-prob | [Valid log-prob |] Train log-prob | True log Z | Warnings
//
// log Ẑ and log-probabilities have two decimals, "—" marks a missing
// number, a log-prob is "mean ± se [lo, hi]" where the row has a standard
// error and a bracket, Chains says what the row's runs count (AIS runs,
// RAISE chains per example, CSL Gibbs chains), Minutes is the summed time
// of the merged rows, and True log Z is the exact log Z (of an exact line,
// or ExactLogZ). A column empty in every line is left out. Legend lines
// under the table say what ± and [lo, hi] mean when they appear (and list
// reversed brackets that are within noise). Rows with a Value (pll, recon)
// form a second "cheap signals" table. Warnings appear abbreviated with
// footnote numbers; the full texts follow the tables ("Warnings: none."
// when there are none), then notes on which side of the truth each
// estimator errs.
func RenderTable(w io.Writer, rows []Row, opt TableOptions) error {
	if err := validateRows(rows); err != nil {
		return fmt.Errorf("report: table: %w", err)
	}
	var fn footnotes
	width := opt.tableWidth()
	main, signals, legend, notes := finalTables(rows, opt.WarningWidth, &fn, opt.Grid)
	var b strings.Builder
	if main == nil && signals == nil {
		b.WriteString("No final estimates.\n")
	}
	if main != nil {
		if err := renderFitted(&b, main, opt.ASCII, opt.tableWidth()); err != nil {
			return err
		}
		for _, l := range legend {
			b.WriteString(wrapText(l, width, "  ", "    "))
		}
	}
	if sel, legend := selectionLines(rows, opt.Grid); len(sel) > 0 {
		b.WriteString(selectionTitle + ":\n")
		for _, l := range sel {
			b.WriteString(wrapText(l, width, "  ", "    "))
		}
		b.WriteString(wrapText(legend, width, "  ", "    "))
	}
	if bl := byLabelGrid(rows); bl != nil {
		b.WriteString("\n" + ByLabelTitle + ":\n")
		if err := renderFitted(&b, bl, opt.ASCII, opt.tableWidth()); err != nil {
			return err
		}
	}
	if signals != nil {
		if main != nil {
			b.WriteString("\n")
		}
		b.WriteString("Cheap training signals (not log-likelihoods):\n")
		if err := renderFitted(&b, signals, opt.ASCII, opt.tableWidth()); err != nil {
			return err
		}
	}
	if lines := DataLines(rows); len(lines) > 0 {
		b.WriteString("Data:\n")
		for _, l := range lines {
			b.WriteString(wrapText(l, width, "  ", "    "))
		}
	}
	if len(fn.texts) > 0 {
		b.WriteString("Warnings:\n")
		for i, t := range fn.texts {
			b.WriteString(wrapText(fmt.Sprintf("[%d] %s", i+1, strings.Join(strings.Fields(t), " ")), width, "  ", "      "))
		}
	} else if main != nil || signals != nil {
		b.WriteString("Warnings: none.\n")
	}
	if len(notes) > 0 {
		b.WriteString("Notes:\n")
		for _, n := range notes {
			b.WriteString(wrapText(n, width, "  ", "    "))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// renderTerminal draws g with tablewriter.
func renderTerminal(w io.Writer, g *grid, ascii bool) error {
	style := tw.StyleLight
	if ascii {
		style = tw.StyleASCII
	}
	aligns := make([]tw.Align, len(g.align))
	for i, a := range g.align {
		aligns[i] = tw.AlignLeft
		if a == alignRight {
			aligns[i] = tw.AlignRight
		}
	}
	t := tablewriter.NewTable(w,
		tablewriter.WithRenderer(renderer.NewBlueprint(tw.Rendition{Symbols: tw.NewSymbols(style)})),
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithHeaderAlignment(tw.AlignCenter),
		tablewriter.WithHeaderAutoWrap(tw.WrapNone),
		tablewriter.WithRowAutoWrap(tw.WrapNone),
		tablewriter.WithRowAlignmentConfig(tw.CellAlignment{PerColumn: aligns}),
		tablewriter.WithTrimSpace(tw.Off),
	)
	t.Header(anySlice(g.header)...)
	for _, r := range g.rows {
		if err := t.Append(r); err != nil {
			return fmt.Errorf("report: table: %w", err)
		}
	}
	if err := t.Render(); err != nil {
		return fmt.Errorf("report: table: %w", err)
	}
	return nil
}

func anySlice(s []string) []any {
	a := make([]any, len(s))
	for i, v := range s {
		a[i] = v
	}
	return a
}
