package report

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

// TestRenderTableFits renders the final rows of the quick start (and of
// quickstart-chi2) as `logz run` prints them and checks that every line,
// of the tables and of the prose under them, fits a 120-column terminal
// (widest ≤ 120 runes) while report.md keeps the full table.
func TestRenderTableFits(t *testing.T) {
	for _, name := range []string{"quickstart-final.json", "quickstart-chi2-final.json"} {
		rows, err := ReadResults(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		var wide bytes.Buffer
		if err := RenderTable(&wide, rows, TableOptions{Width: -1}); err != nil {
			t.Fatal(err)
		}
		if n := widest(wide.String()); n <= DefaultTableWidth {
			t.Fatalf("%s: the unlimited table is %d wide: no test of fitting", name, n)
		}
		var buf bytes.Buffer
		if err := RenderTable(&buf, rows, TableOptions{}); err != nil {
			t.Fatal(err)
		}
		// What `logz run` prints at the end: the final tables, then the
		// side-by-side tables.
		if err := RenderSandwich(&buf, rows, TableOptions{}); err != nil {
			t.Fatal(err)
		}
		out := buf.String()
		if n := widest(out); n > DefaultTableWidth {
			for _, l := range strings.Split(out, "\n") {
				if len([]rune(l)) > DefaultTableWidth {
					t.Errorf("%s: a line is %d > %d characters wide:\n%s", name, len([]rune(l)), DefaultTableWidth, l)
				}
			}
		}
		// Every estimate is still there.
		for _, want := range []string{"-7.72 ± 0.12", "[-7.72, -7.71]", "raise", "csl", "ais", "(base-rate)"} {
			if name == "quickstart-final.json" && !strings.Contains(out, want) {
				t.Errorf("%s: the fitted table lost %q:\n%s", name, want, out)
			}
		}
		var md bytes.Buffer
		if err := WriteMarkdown(&md, "q", nil, rows); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(md.String(), "log(Ẑ±σ̂)") || !strings.Contains(md.String(), "| Minutes |") && !strings.Contains(md.String(), "Minutes |") {
			t.Errorf("%s: report.md lost its full table", name)
		}
	}
}
