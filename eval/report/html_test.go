package report

import (
	"bytes"
	"encoding/base64"
	"encoding/xml"
	"image"
	"image/png"
	"io"
	"math"
	"regexp"
	"strings"
	"testing"
)

var imgRE = regexp.MustCompile(`<img[^>]* src="data:([a-z/+]+);base64,([A-Za-z0-9+/=]*)"`)

// TestWriteHTML checks report.html on the fixture: self-contained (no
// script, no address outside the page), the tables of report.md, and per
// experiment its figures, every one embedded and decodable (SVG as XML,
// PNG as an image), among them the images a caller adds.
func TestWriteHTML(t *testing.T) {
	rows := fixtureRows()
	var pngBuf bytes.Buffer
	if err := png.Encode(&pngBuf, testImage()); err != nil {
		t.Fatal(err)
	}
	figs := func(e string, rows []Row) ([]Figure, error) {
		f, err := ExperimentFigures(rows)
		return append(f, Figure{Name: "samples", Title: "Samples <of> " + e, Caption: "c", MIME: "image/png", Data: pngBuf.Bytes()}), err
	}
	var b bytes.Buffer
	if err := WriteHTML(&b, "logz report: t<1>", map[string]string{"seed": "7"}, rows, figs); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, bad := range []string{"<script", "src=\"http", "href=\"http", "url(http", "<link"} {
		if strings.Contains(page, bad) {
			t.Errorf("report.html contains %q: it must be self-contained", bad)
		}
	}
	for _, want := range []string{
		"<title>logz report: t&lt;1&gt;</title>", "<h2>Final estimates</h2>", "<th>Estimator</th>",
		"<h3>cd1-25</h3>", "<h3>cd25-500</h3>", "<summary>Per-epoch estimates</summary>", "<h2>Warnings</h2>",
		"Samples &lt;of&gt; cd1-25", "CSL is 44.61 nats below AIS | a conservative estimate",
		`id="cd1-25-loglik-test"`, `id="cd25-500-logz"`, `id="cd1-25-signals"`, `id="cd1-25-final-test"`,
		`id="cd25-500-final-test"`, `id="cd25-500-final-logz"`, `id="cd25-500-samples"`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
	imgs := imgRE.FindAllStringSubmatch(page, -1)
	if n := strings.Count(page, "<img"); n != len(imgs) || n < 8 {
		t.Fatalf("%d <img> tags, %d of them with an embedded image; want all, at least 8", n, len(imgs))
	}
	for i, m := range imgs {
		data, err := base64.StdEncoding.DecodeString(m[2])
		if err != nil || len(data) == 0 {
			t.Fatalf("image %d: bad base64 (%v)", i, err)
		}
		switch m[1] {
		case "image/svg+xml":
			dec := xml.NewDecoder(bytes.NewReader(data))
			for {
				if _, err := dec.Token(); err == io.EOF {
					break
				} else if err != nil {
					t.Fatalf("image %d: SVG is not well-formed XML: %v", i, err)
				}
			}
		case "image/png":
			if _, err := png.Decode(bytes.NewReader(data)); err != nil {
				t.Fatalf("image %d: %v", i, err)
			}
		default:
			t.Fatalf("image %d: unexpected type %s", i, m[1])
		}
	}
}

// TestWriteMarkdownUnchangedByHTML: both writers lay out the same blocks;
// the Markdown golden file pins report.md, this pins that the HTML has
// every heading and list item of it.
func TestHTMLHasMarkdownBlocks(t *testing.T) {
	rows := fixtureRows()
	var md, h bytes.Buffer
	if err := WriteMarkdown(&md, "r", nil, rows); err != nil {
		t.Fatal(err)
	}
	if err := WriteHTML(&h, "r", nil, rows, nil); err != nil {
		t.Fatal(err)
	}
	page := h.String()
	for _, line := range strings.Split(md.String(), "\n") {
		text, ok := strings.CutPrefix(line, "### ")
		if !ok {
			text, ok = strings.CutPrefix(line, "- ")
		}
		if !ok {
			continue
		}
		text = strings.NewReplacer(`\|`, "|", `\*`, "*", "&lt;", "&lt;", "<br>", "\n").Replace(text)
		if !strings.Contains(page, strings.ReplaceAll(strings.ReplaceAll(text, "&", "&amp;"), "&amp;lt;", "&lt;")) &&
			!strings.Contains(page, escapeHTMLText(text)) {
			t.Errorf("report.md's %q is not in report.html", line)
		}
	}
}

func escapeHTMLText(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&#34;", "'", "&#39;").Replace(s)
}

// TestLoglikBar: the bars are the estimator's own uncertainty.
func TestLoglikBar(t *testing.T) {
	// AIS: the log-probabilities implied by log(Ẑ ± 3σ̂).
	lo, hi := loglikBar(&Row{Estimator: "ais", MeanLoglik: p(-100), LogZ: p(50), LogZLo: p(49.5), LogZHi: p(50.25)})
	if *lo != -100.25 || *hi != -99.5 {
		t.Errorf("ais bar [%v, %v], want [-100.25, -99.5]", *lo, *hi)
	}
	// log(Ẑ − 3σ̂) undefined: the bar ends at the estimate.
	lo, hi = loglikBar(&Row{Estimator: "ais", MeanLoglik: p(-100), LogZ: p(50), LogZHi: p(51)})
	if *lo != -101 || *hi != -100 {
		t.Errorf("ais bar [%v, %v], want [-101, -100]", *lo, *hi)
	}
	lo, hi = loglikBar(&Row{Estimator: "raise", MeanLoglik: p(-10), LoglikSE: p(0.5), LoglikLo: p(-11), LoglikHi: p(-9)})
	if *lo != -11.5 || *hi != -8.5 {
		t.Errorf("raise bar [%v, %v], want ±3 SE = [-11.5, -8.5]", *lo, *hi)
	}
	if lo, hi = loglikBar(&Row{Estimator: "exact", MeanLoglik: p(-10), LoglikSE: p(0.5)}); lo != nil || hi != nil {
		t.Errorf("exact has a bar")
	}
}

// TestFigureSeries checks what the per-epoch log-likelihood plot is drawn
// from: one series per estimator label, points sorted by epoch, the first
// row of a label at an epoch kept.
func TestFigureSeries(t *testing.T) {
	rows := []Row{
		{Stage: StageEpoch, Epoch: 2, Estimator: "ais", Init: "base-rate", Split: "test", MeanLoglik: p(-5)},
		{Stage: StageEpoch, Epoch: 1, Estimator: "ais", Init: "base-rate", Split: "test", MeanLoglik: p(-6)},
		{Stage: StageEpoch, Epoch: 1, Estimator: "ais", Init: "base-rate", Split: "test", MeanLoglik: p(-99)},
		{Stage: StageEpoch, Epoch: 1, Estimator: "exact", Split: "test", MeanLoglik: p(-6.5)},
		{Stage: StageEpoch, Epoch: 1, Estimator: "exact", Split: "train", MeanLoglik: p(-7)},
	}
	ss := collect(rows, func(r *Row) bool { return r.Split == "test" }, func(r *Row) (float64, float64, *float64, *float64) {
		return float64(r.Epoch), *r.MeanLoglik, nil, nil
	})
	if len(ss) != 2 || ss[0].label != "ais (base-rate)" || ss[1].label != "exact" {
		t.Fatalf("series %+v", ss)
	}
	if got := ss[0].xy; len(got) != 2 || got[0].X != 1 || got[0].Y != -6 || got[1].X != 2 || got[1].Y != -5 {
		t.Errorf("ais points %v, want (1,-6) (2,-5)", got)
	}
	if !math.IsNaN(ss[0].lo[0]) {
		t.Errorf("a point without a bar has one")
	}
}

// TestPreciseTicks: neighbouring labels differ on a narrow range.
func TestPreciseTicks(t *testing.T) {
	for _, r := range [][2]float64{{-7.72, -7.70}, {-7.7205, -7.7201}, {0, 1000}, {-86.4, -86.3}} {
		seen := map[string]bool{}
		for _, tk := range (preciseTicks{}).Ticks(r[0], r[1]) {
			if tk.Label == "" {
				continue
			}
			if seen[tk.Label] {
				t.Errorf("range %v: label %q twice", r, tk.Label)
			}
			seen[tk.Label] = true
		}
		if len(seen) < 2 {
			t.Errorf("range %v: %d labels", r, len(seen))
		}
	}
}

// TestFigureGolden pins the SVG of one plot (gonum/plot's output is
// deterministic); rewrite with -update after looking at it.
func TestFigureGolden(t *testing.T) {
	figs, err := ExperimentFigures(Select(fixtureRows(), "cd25-500"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range figs {
		if f.Name == "final-test" {
			golden(t, "final-test.svg.golden", f.Data)
			return
		}
	}
	t.Fatal("no final-test figure")
}

func testImage() *image.Gray {
	img := image.NewGray(image.Rect(0, 0, 4, 4))
	for i := range img.Pix {
		img.Pix[i] = uint8(i * 16)
	}
	return img
}

// TestLogZBands: one [AIS, χ²] band per χ² proposal, from the χ² rows.
func TestLogZBands(t *testing.T) {
	rows := []Row{
		{Stage: StageFinal, Estimator: "ais", Init: "base-rate", LogZ: p(17.08), LogZBracketLo: p(17.08), LogZBracketHi: p(17.09)},
		{Stage: StageFinal, Estimator: "chi2", Init: "mixture", LogZ: p(17.09), LogZBracketLo: p(17.08), LogZBracketHi: p(17.09)},
		{Stage: StageFinal, Estimator: "chi2", Init: "aux", LogZ: p(17.6), LogZBracketLo: p(17.08), LogZBracketHi: p(17.6)},
		{Stage: StageEpoch, Estimator: "chi2", Init: "aux", LogZ: p(17.6), LogZBracketLo: p(1), LogZBracketHi: p(2)},
	}
	got := logZBands(rows)
	want := []band{{"[AIS, χ²] bracket (mixture)", 17.08, 17.09, false}, {"[AIS, χ²] bracket (aux)", 17.08, 17.6, false}}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("bands %v, want %v", got, want)
	}
}

// TestBracketByK: the K figure is drawn when an annealing estimator ran at
// several K, and not otherwise.
func TestBracketByK(t *testing.T) {
	rows := []Row{
		{Stage: StageFinal, Estimator: "exact", Split: "test", MeanLoglik: p(-10)},
		{Stage: StageFinal, Estimator: "ais", Init: "base-rate", Split: "test", Betas: 100, MeanLoglik: p(-9.5), LogZ: p(5), LogZLo: p(4.9), LogZHi: p(5.1)},
		{Stage: StageFinal, Estimator: "raise", Init: "base-rate", Split: "test", Betas: 100, MeanLoglik: p(-10.6), LoglikSE: p(0.05)},
	}
	has := func(rows []Row) bool {
		figs, err := ExperimentFigures(rows)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range figs {
			if f.Name == "bracket-k-test" {
				return true
			}
		}
		return false
	}
	if has(rows) {
		t.Errorf("a K figure with one K")
	}
	rows = append(rows,
		Row{Stage: StageFinal, Estimator: "ais", Init: "base-rate", Split: "test", Betas: 1000, MeanLoglik: p(-9.9), LogZ: p(5.4), LogZLo: p(5.35), LogZHi: p(5.45)},
		Row{Stage: StageFinal, Estimator: "raise", Init: "base-rate", Split: "test", Betas: 1000, MeanLoglik: p(-10.1), LoglikSE: p(0.03)})
	if !has(rows) {
		t.Errorf("no K figure with two K")
	}
}
