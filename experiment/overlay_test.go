package experiment_test

import (
	"encoding/base64"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/logz-ml/logz/config"
	"github.com/logz-ml/logz/experiment"
)

// overlayConfig: two experiments evaluated exactly after every epoch on
// test and train; the first carries a published test number.
const overlayConfig = `name: overlay
seed: 5
base:
  data:
    train: planted:train
    test: planted:test
    planted: {visible: 8, hidden: 3, train: 200, valid: 50, test: 100}
  model: {type: rbm, hidden: 3}
  train: {epochs: 3, batch_size: 20, learning_rate: 0.05}
  evaluate:
    splits: [test, train]
    every_epoch: [exact]
    final: [exact]
experiments:
  - name: small-h
    model: {hidden: 2}
    reference: {source: "Some & Body 2026, Table 9", test: -5.25}
  - name: big-h
    model: {hidden: 4}
`

// figureSVG returns the SVG of the figure with that id in report.html.
func figureSVG(t *testing.T, page, id string) string {
	t.Helper()
	m := regexp.MustCompile(`<figure id="` + regexp.QuoteMeta(id) + `">\s*<img[^>]* src="data:image/svg\+xml;base64,([A-Za-z0-9+/=]*)"`).FindStringSubmatch(page)
	if m == nil {
		t.Errorf("report.html has no figure %s", id)
		return ""
	}
	b, err := base64.StdEncoding.DecodeString(m[1])
	if err != nil {
		t.Fatal(err)
	}
	return html.UnescapeString(string(b))
}

// legendHas reports whether an SVG writes text as a text element of its
// own (a legend entry, a tick label).
func legendHas(svg, text string) bool { return strings.Contains(svg, ">"+text+"</text>") }

// TestOverlayFigures: a run of two experiments draws, across experiments,
// their test curves of exact on one axes against the epoch and against
// the training time, one series per experiment, with the published
// number of the one that has it; per experiment, the test and train
// curves on one axes; the paper's number is on the per-epoch test plot of
// its experiment only, and in the Test paper column on its lines only.
func TestOverlayFigures(t *testing.T) {
	f, err := config.Parse([]byte(overlayConfig), "overlay.yaml", config.Options{})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if _, err := runTiny(t, f, experiment.Options{Out: dir}); err != nil {
		t.Fatal(err)
	}
	page := checkHTML(t, dir, "<h2>Across experiments</h2>")
	label := "paper: Some & Body 2026, Table 9: −5.25"
	for _, id := range []string{"across-overlay-exact-test", "across-overlay-exact-test-time"} {
		svg := figureSVG(t, page, id)
		for _, e := range []string{"small-h", "big-h"} {
			if n := strings.Count(svg, ">"+e+"</text>"); n != 1 {
				t.Errorf("%s: experiment %s is %d legend entries, want 1", id, e, n)
			}
		}
		if !legendHas(svg, "small-h paper −5.25") {
			t.Errorf("%s: no line labelled %q", id, "small-h paper −5.25")
		}
		if !strings.Contains(page, "small-h −5.25 (Some &amp; Body 2026, Table 9)") {
			t.Errorf("%s: the caption does not cite the source", id)
		}
		if strings.Contains(svg, "big-h paper") {
			t.Errorf("%s: a paper line for big-h, which has no reference", id)
		}
	}
	if svg := figureSVG(t, page, "across-overlay-exact-test-time"); !strings.Contains(svg, "training time (s, cumulative)") {
		t.Errorf("the time overlay's x axis is not the cumulative training time")
	}
	for _, e := range []string{"small-h", "big-h"} {
		svg := figureSVG(t, page, e+"-splits-exact")
		if !legendHas(svg, "test") || !legendHas(svg, "train") {
			t.Errorf("%s-splits-exact: the test and train curves are not both in the legend", e)
		}
		own := figureSVG(t, page, e+"-loglik-test")
		if has := strings.Contains(own, label); has != (e == "small-h") {
			t.Errorf("%s-loglik-test: paper line %v, want it only on small-h's", e, has)
		}
		if strings.Contains(figureSVG(t, page, e+"-loglik-train"), "paper:") {
			t.Errorf("%s-loglik-train: a paper line on a split without a published number", e)
		}
	}

	// The paper column: -5.25 on small-h's exact line, nowhere else.
	md, err := os.ReadFile(filepath.Join(dir, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	var header []string
	for _, line := range strings.Split(string(md), "\n") {
		cells := strings.Split(strings.Trim(line, "| "), "|")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		if len(cells) > 2 && cells[0] == "Experiment" && strings.Contains(line, "Test log-prob") {
			header = cells
			continue
		}
		if header == nil || len(cells) != len(header) {
			header = nil
			continue
		}
		for j, c := range cells {
			want := ""
			if header[j] == "Test paper" && cells[0] == "small-h" {
				want = "-5.25"
			}
			if (c == "-5.25") != (want != "") {
				t.Errorf("report.md line %q: %s cell %q", line, header[j], c)
			}
		}
	}
	if !strings.Contains(string(md), "| Test paper |") {
		t.Errorf("report.md has no Test paper column:\n%s", md)
	}
}
