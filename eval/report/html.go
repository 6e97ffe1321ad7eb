package report

import (
	"encoding/base64"
	"fmt"
	"html"
	"io"
	"strings"
)

// Figures returns the figures of one experiment (its rows are given).
type Figures func(experiment string, rows []Row) ([]Figure, error)

// WriteHTML writes report.html: self-contained (every figure embedded as a
// data: URI, the style inline, no script), readable without a network. It
// opens on the same tables as report.md (writeDoc) and then gives, per
// experiment, its figures — those of figures, or if nil the plots of
// ExperimentFigures — and its per-epoch table, folded.
func WriteHTML(w io.Writer, title string, meta map[string]string, rows []Row, figures Figures) error {
	return WriteHTMLAcross(w, title, meta, rows, figures, nil)
}

// WriteHTMLAcross is WriteHTML with figures that span the experiments
// (SweepFigures), shown under their own heading before the experiments'.
func WriteHTMLAcross(w io.Writer, title string, meta map[string]string, rows []Row, figures Figures, across []Figure) error {
	return WriteHTMLGrid(w, title, meta, rows, figures, across, nil)
}

// WriteHTMLGrid is WriteHTMLAcross for a run whose experiments g places
// in grid points: the final tables add the mean ± SE over each point's
// seeds (as report.md's do).
func WriteHTMLGrid(w io.Writer, title string, meta map[string]string, rows []Row, figures Figures, across []Figure, g Grid) error {
	if err := validateRows(rows); err != nil {
		return fmt.Errorf("report: report.html: %w", err)
	}
	if figures == nil {
		figures = func(_ string, rows []Row) ([]Figure, error) { return ExperimentFigures(rows) }
	}
	d := &htmlDoc{rows: rows, figures: figures, across: across}
	if title == "" {
		title = "logz report"
	}
	d.open(title)
	writeDoc(d, title, meta, rows, g)
	if d.err != nil {
		return d.err
	}
	d.b.WriteString("</body>\n</html>\n")
	_, err := io.WriteString(w, d.b.String())
	return err
}

// open starts an HTML document with the report style.
func (d *htmlDoc) open(title string) {
	d.b.WriteString("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
	fmt.Fprintf(&d.b, "<title>%s</title>\n<style>%s</style>\n</head>\n<body>\n", html.EscapeString(title), htmlStyle)
}

const htmlStyle = `body{font-family:system-ui,-apple-system,"Segoe UI",Helvetica,Arial,sans-serif;max-width:110rem;margin:1.5rem auto;padding:0 1rem;color:#1b1b1b;line-height:1.45}
h1{font-size:1.6rem}h2{font-size:1.3rem;border-bottom:1px solid #ddd;padding-bottom:.2rem;margin-top:2rem}h3{font-size:1.1rem;margin-top:1.6rem}
p,li,figcaption{overflow-wrap:anywhere}
.tw{max-width:100%;overflow-x:auto;margin:.5rem 0 1rem}
table{border-collapse:collapse;font-size:.85rem}
th,td{border:1px solid #ccc;padding:.2rem .45rem}td{white-space:nowrap}th{background:#f3f3f3}td.r{text-align:right;font-variant-numeric:tabular-nums}
.mk{font-size:1.1em;line-height:1}td.w{white-space:normal;min-width:10rem;max-width:36rem;overflow-wrap:anywhere}
.figs{display:grid;grid-template-columns:minmax(0,1fr);gap:.5rem 2rem;align-items:start}
@media (min-width:1350px){.figs{grid-template-columns:repeat(2,minmax(0,1fr))}}
figure{margin:1rem 0 1.5rem;min-width:0}figure img{max-width:100%;height:auto;border:1px solid #eee}
figure img.plot{width:100%;max-width:60rem}figure img.pixels{image-rendering:pixelated;min-width:16rem}
figcaption{font-size:.85rem;color:#444;max-width:60rem}ul,ol{font-size:.9rem}details{margin:.5rem 0 1rem}summary{cursor:pointer}`

// htmlDoc writes the blocks of writeDoc as HTML, and the figures of each
// experiment in its per-experiment part.
type htmlDoc struct {
	b       strings.Builder
	rows    []Row
	figures Figures
	across  []Figure
	err     error
}

func (d *htmlDoc) heading(level int, text string) {
	fmt.Fprintf(&d.b, "<h%d>%s</h%d>\n", level, html.EscapeString(text), level)
}

func (d *htmlDoc) meta(keys []string, values map[string]string) {
	d.b.WriteString("<ul>\n")
	for _, k := range keys {
		fmt.Fprintf(&d.b, "<li><b>%s</b>: %s</li>\n", html.EscapeString(k), html.EscapeString(values[k]))
	}
	d.b.WriteString("</ul>\n")
}

func (d *htmlDoc) para(text string) { fmt.Fprintf(&d.b, "<p>%s</p>\n", html.EscapeString(text)) }

func (d *htmlDoc) list(items []string, numbered bool) {
	if len(items) == 0 {
		return
	}
	tag := "ul"
	if numbered {
		tag = "ol"
	}
	fmt.Fprintf(&d.b, "<%s>\n", tag)
	for _, it := range items {
		fmt.Fprintf(&d.b, "<li>%s</li>\n", html.EscapeString(it))
	}
	fmt.Fprintf(&d.b, "</%s>\n", tag)
}

func (d *htmlDoc) table(g *grid) {
	d.b.WriteString("<div class=\"tw\"><table>\n<thead><tr>")
	for _, h := range g.header {
		fmt.Fprintf(&d.b, "<th>%s</th>", html.EscapeString(h))
	}
	d.b.WriteString("</tr></thead>\n<tbody>\n")
	for _, r := range g.rows {
		d.b.WriteString("<tr>")
		for j, c := range r {
			if g.header[j] == "Estimator" && c != "" && c != Missing {
				// The estimator's colour and mark, as in the figures.
				st := StyleOfLabel(c)
				fmt.Fprintf(&d.b, "<td><span class=\"mk\" style=\"color:%s\">%s</span> %s</td>", st.CSSColor(), st.Symbol(), html.EscapeString(c))
			} else if g.header[j] == "Warnings" {
				// Long text: wrapped in its cell, not widening the table.
				fmt.Fprintf(&d.b, "<td class=\"w\">%s</td>", html.EscapeString(c))
			} else if g.align[j] == alignRight {
				fmt.Fprintf(&d.b, "<td class=\"r\">%s</td>", html.EscapeString(c))
			} else {
				fmt.Fprintf(&d.b, "<td>%s</td>", html.EscapeString(c))
			}
		}
		d.b.WriteString("</tr>\n")
	}
	d.b.WriteString("</tbody>\n</table></div>\n")
}

// experiments writes, per experiment, its plots, its images and its
// per-epoch table (folded).
func (d *htmlDoc) experiments(names []string, grids []*grid) {
	if len(names) == 0 {
		return
	}
	if len(d.across) > 0 {
		d.heading(2, "Across experiments")
		d.b.WriteString("<div class=\"figs\">\n")
		for _, f := range d.across {
			d.figure("across", f)
		}
		d.b.WriteString("</div>\n")
	}
	d.heading(2, "Experiments")
	for i, e := range names {
		d.heading(3, e)
		figs, err := d.figures(e, Select(d.rows, e))
		if err != nil && d.err == nil {
			d.err = fmt.Errorf("report: report.html: experiment %s: %w", e, err)
		}
		d.b.WriteString("<div class=\"figs\">\n")
		for _, f := range figs {
			d.figure(e, f)
		}
		d.b.WriteString("</div>\n")
		if grids[i] != nil {
			d.b.WriteString("<details>\n<summary>Per-epoch estimates</summary>\n")
			d.table(grids[i])
			d.para(epochNote)
			d.b.WriteString("</details>\n")
		}
	}
}

func (d *htmlDoc) figure(exp string, f Figure) {
	class := ` class="plot"`
	if f.MIME != "image/svg+xml" {
		class = ` class="pixels"`
	}
	fmt.Fprintf(&d.b, "<figure id=\"%s\">\n<img%s alt=\"%s\" src=\"data:%s;base64,%s\">\n",
		html.EscapeString(fileSafe(exp)+"-"+f.Name), class, html.EscapeString(f.Title), f.MIME, base64.StdEncoding.EncodeToString(f.Data))
	fmt.Fprintf(&d.b, "<figcaption><b>%s.</b> %s</figcaption>\n</figure>\n", html.EscapeString(f.Title), html.EscapeString(f.Caption))
}
