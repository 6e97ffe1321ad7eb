package report

import (
	"fmt"
	"image/color"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// The published numbers of an experiment (a config's reference:) reach
// the rows as final rows of estimator ReferenceEstimator, one per split,
// whose note names the source (ReferenceNote). The reports show them as
// a "paper" column beside the estimates of the same experiment and split
// and as labelled horizontal lines on the per-epoch log-likelihood plots.

// ReferenceEstimator is the estimator of a row that holds a published
// number rather than an estimate.
const ReferenceEstimator = "reference"

const (
	referenceNotePrefix = "published: "
	referenceNoteSuffix = " (not computed by logz)"
)

// ReferenceNote is the note of a reference row that names its source.
func ReferenceNote(source string) string {
	return referenceNotePrefix + source + referenceNoteSuffix
}

// ReferenceSource returns the source a reference row's note names ("" if
// none).
func ReferenceSource(r *Row) string {
	for _, n := range r.Notes {
		if s, ok := strings.CutPrefix(n, referenceNotePrefix); ok {
			return strings.TrimSuffix(s, referenceNoteSuffix)
		}
	}
	return ""
}

// paperRef is one published number: an experiment's for a split.
type paperRef struct {
	experiment, split, source string
	value                     float64
}

// label names a published number on a plot: "paper: Salakhutdinov &
// Murray 2008, Table 1: −86.34", the source cut before its first
// parenthesis and to at most paperLabelWidth characters so that the
// label fits the plot (the caption gives it whole).
func (p paperRef) label() string {
	src := p.source
	if i := strings.Index(src, " ("); i > 0 {
		src = src[:i]
	}
	src = abbreviate(strings.TrimRight(src, " ,;:"), paperLabelWidth)
	if src == "" {
		src = "published"
	}
	return "paper: " + src + ": " + minusSign(num2(p.value))
}

// paperLabelWidth is the most characters of a source a plot's label shows.
const paperLabelWidth = 48

// cite is a published number with its whole source, for captions.
func (p paperRef) cite() string {
	src := p.source
	if src == "" {
		src = "no source given"
	}
	return minusSign(num2(p.value)) + " (" + src + ")"
}

// minusSign writes a leading hyphen-minus as the minus sign U+2212.
func minusSign(s string) string {
	if rest, ok := strings.CutPrefix(s, "-"); ok {
		return "−" + rest
	}
	return s
}

// paperRefs returns the published numbers among rows (final rows of
// ReferenceEstimator with a mean), in the order of the rows; of several
// for one experiment and split, the first.
func paperRefs(rows []Row) []paperRef {
	var out []paperRef
	for i := range rows {
		r := &rows[i]
		if r.Stage != StageFinal || r.Estimator != ReferenceEstimator || r.MeanLoglik == nil {
			continue
		}
		if slices.ContainsFunc(out, func(p paperRef) bool { return p.experiment == r.Experiment && p.split == r.Split }) {
			continue
		}
		out = append(out, paperRef{experiment: r.Experiment, split: r.Split, source: ReferenceSource(r), value: *r.MeanLoglik})
	}
	return out
}

// papers holds the published numbers the final table shows in its paper
// columns, by experiment and split.
type papers map[[2]string]paperRef

// foldPapers takes the reference lines out of the final table's main
// lines, to be shown in the paper columns beside the estimates of their
// experiment and split instead; a reference line whose experiment has no
// estimate of its split stays a line of its own (its number would
// otherwise be shown nowhere).
func foldPapers(lines []*line) ([]*line, papers) {
	hosts := func(ref *line, split string) bool {
		return slices.ContainsFunc(lines, func(l *line) bool {
			return l.estimator != ReferenceEstimator && l.experiment == ref.experiment && hasEstimate(l.splits[split])
		})
	}
	p := papers{}
	var kept []*line
	for _, l := range lines {
		if l.estimator != ReferenceEstimator {
			kept = append(kept, l)
			continue
		}
		rest := map[string]*Row{}
		for split, r := range l.splits {
			if r.MeanLoglik == nil || !hosts(l, split) {
				rest[split] = r
				continue
			}
			if _, ok := p[[2]string{l.experiment, split}]; !ok {
				p[[2]string{l.experiment, split}] = paperRef{experiment: l.experiment, split: split, source: ReferenceSource(r), value: *r.MeanLoglik}
			}
		}
		if len(rest) > 0 {
			// The numbers no estimate stands beside stay a line.
			l.splits = rest
			kept = append(kept, l)
		}
	}
	return kept, p
}

// hasEstimate reports whether a row has a number for a log-prob cell.
func hasEstimate(r *Row) bool {
	return r != nil && (r.MeanLoglik != nil || r.LoglikLo != nil || r.LoglikHi != nil)
}

// paperHeader heads the paper column of a split.
func paperHeader(split string) string { return titleSplit(split) + " paper" }

// cell is the paper column's cell of a line and split: the published
// number of the line's experiment and split, on a line with an estimate
// there; empty otherwise.
func (p papers) cell(l *line, split string) string {
	ref, ok := p[[2]string{l.experiment, split}]
	if !ok || l.estimator == ReferenceEstimator || !hasEstimate(l.splits[split]) {
		return ""
	}
	return num2(ref.value)
}

// legend says what the paper columns hold and cites each number's
// source, in the order of the experiments (exps).
func (p papers) legend(exps []string) []string {
	if len(p) == 0 {
		return nil
	}
	keys := make([][2]string, 0, len(p))
	for k := range p {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b [2]string) int {
		if c := slices.Index(exps, a[0]) - slices.Index(exps, b[0]); c != 0 {
			return c
		}
		return splitOrder(a[1], b[1])
	})
	var srcs []string
	for _, k := range keys {
		ref := p[k]
		src := ref.source
		if src == "" {
			src = "no source given"
		}
		srcs = append(srcs, fmt.Sprintf("%s %s %s (%s)", k[0], k[1], num2(ref.value), src))
	}
	return []string{"paper: the published mean log-likelihood of the experiment and split (the config's reference:), beside each estimate of them; not computed by logz. " +
		strings.Join(srcs, "; ") + "."}
}

// paperLines returns the horizontal lines of the published numbers of
// split across the epochs of the per-epoch series ss (none without
// points), labelled with their source and value, and the sentence of the
// caption that explains them.
func paperLines(rows []Row, split string, ss []*series) ([]*series, string) {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, s := range ss {
		for _, p := range s.xy {
			lo, hi = math.Min(lo, p.X), math.Max(hi, p.X)
		}
	}
	if lo > hi {
		return nil, ""
	}
	var out []*series
	var cites []string
	for _, ref := range paperRefs(rows) {
		if ref.split != split {
			continue
		}
		out = append(out, &series{label: ref.label(), xy: plotter.XYs{{X: lo, Y: ref.value}, {X: hi, Y: ref.value}},
			lo: []float64{math.NaN(), math.NaN()}, hi: []float64{math.NaN(), math.NaN()}, ref: true, paper: true})
		cites = append(cites, ref.cite())
	}
	if len(out) == 0 {
		return nil, ""
	}
	return out, " Dotted grey: the published number of the experiment and split (the config's reference:), not computed by logz: " + strings.Join(cites, "; ") + "."
}

// paperColor draws the published numbers.
var paperColor = color.Gray{Y: 90}

// withoutPapers splits the published numbers' lines (paperLines) from
// the other series, to be drawn after them by addPaperLines.
func withoutPapers(ss []*series) (rest, papers []*series) {
	for _, s := range ss {
		if s.paper {
			papers = append(papers, s)
		} else {
			rest = append(rest, s)
		}
	}
	return rest, papers
}

// addPaperLines draws the published numbers' lines, dotted grey, with
// their legend entries.
func addPaperLines(p *plot.Plot, papers []*series) error {
	for _, s := range papers {
		l, err := plotter.NewLine(s.xy)
		if err != nil {
			return err
		}
		l.Color, l.Width, l.Dashes = paperColor, vg.Points(1.4), []vg.Length{vg.Points(1.5), vg.Points(2)}
		p.Add(l)
		p.Legend.Add(s.label, l)
	}
	return nil
}
