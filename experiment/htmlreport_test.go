package experiment_test

import (
	"bytes"
	"encoding/base64"
	"image/png"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/logz-ml/logz/experiment"
)

var embedded = regexp.MustCompile(`<img[^>]* src="data:(image/[a-z+]+);base64,([A-Za-z0-9+/=]*)"`)

// checkHTML checks a run folder's report.html: every figure embedded and
// decodable, the wanted texts present.
func checkHTML(t *testing.T, dir string, want ...string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	imgs := embedded.FindAllStringSubmatch(page, -1)
	if n := strings.Count(page, "<img"); n == 0 || n != len(imgs) {
		t.Errorf("report.html: %d <img>, %d embedded", n, len(imgs))
	}
	for _, m := range imgs {
		data, err := base64.StdEncoding.DecodeString(m[2])
		if err != nil || len(data) == 0 {
			t.Errorf("report.html: an image does not decode: %v", err)
		}
		if m[1] == "image/png" {
			if _, err := png.Decode(bytes.NewReader(data)); err != nil {
				t.Errorf("report.html: %v", err)
			}
		}
	}
	for _, w := range want {
		if !strings.Contains(page, w) {
			t.Errorf("report.html lacks %q", w)
		}
	}
	return page
}

// TestHTMLReport: a run writes report.html with both experiments' plots;
// it is there (with a's figures) while b trains; `logz plot`'s
// WriteHTMLReport rewrites it from the folder alone with the run's own
// description.
func TestHTMLReport(t *testing.T) {
	dir := t.TempDir()
	var during *bool
	watch := &lineWatcher{on: func(line string) {
		if strings.HasPrefix(line, "b: epoch 1/") && during == nil {
			b, err := os.ReadFile(filepath.Join(dir, "report.html"))
			ok := err == nil && strings.Contains(string(b), `id="a-final-test"`)
			during = &ok
		}
	}}
	if _, err := experiment.Run(tiny(t, "3", "3"), experiment.Options{Out: dir, Stderr: watch, Meta: map[string]string{"command": "logz run tiny.yaml"}}); err != nil {
		t.Fatal(err)
	}
	if during == nil || !*during {
		t.Errorf("report.html did not hold experiment a's final figures while b trained")
	}
	ids := []string{"<h3>a</h3>", "<h3>b</h3>", "<li><b>command</b>: logz run tiny.yaml</li>"}
	for _, e := range []string{"a", "b"} {
		for _, f := range []string{"loglik-test", "loglik-train", "signals", "final-test", "final-train", "samples", "filters"} {
			ids = append(ids, `id="`+e+"-"+f+`"`)
		}
	}
	before := checkHTML(t, dir, ids...)

	if err := os.Remove(filepath.Join(dir, "report.html")); err != nil {
		t.Fatal(err)
	}
	meta := experiment.ReadReportMeta(dir)
	if meta["command"] != "logz run tiny.yaml" || meta["config"] != "tiny" || meta["seed"] != "3" {
		t.Errorf("report.md's description read back as %v", meta)
	}
	if err := experiment.WriteHTMLReport(dir, meta); err != nil {
		t.Fatal(err)
	}
	if after := checkHTML(t, dir, ids...); after != before {
		t.Errorf("report.html redrawn from the folder differs from the run's")
	}
	if err := experiment.WriteHTMLReport(t.TempDir(), map[string]string{}); err == nil || !strings.Contains(err.Error(), "results.json") {
		t.Errorf("an empty folder: got %v, want an error naming results.json", err)
	}
}
