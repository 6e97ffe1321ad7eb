package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/logz-ml/logz/eval/report"
)

// TestPlot: `logz plot DIR` writes report.html from results.json alone,
// keeps report.md's description and refuses what is not a run folder.
func TestPlot(t *testing.T) {
	dir := t.TempDir()
	x := func(v float64) *float64 { return &v }
	rows := []report.Row{
		{Experiment: "e", Stage: report.StageEpoch, Epoch: 1, Estimator: "exact", Split: "test", LogZ: x(3), MeanLoglik: x(-5), Warnings: []string{}},
		{Experiment: "e", Stage: report.StageEpoch, Epoch: 2, Estimator: "exact", Split: "test", LogZ: x(3.5), MeanLoglik: x(-4.5), Warnings: []string{}},
	}
	if err := report.WriteResults(filepath.Join(dir, "results.json"), rows); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "report.md"), []byte("# logz report: x\n\n- **command**: logz run x.yaml \\| y\n\n## Final estimates\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if err := run([]string{"plot", dir}, &out, &errb); err != nil {
		t.Fatalf("plot: %v\n%s", err, errb.String())
	}
	page, err := os.ReadFile(filepath.Join(dir, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`id="e-loglik-test"`, "<li><b>command</b>: logz run x.yaml | y</li>", "<li><b>redrawn</b>: logz plot "} {
		if !strings.Contains(string(page), want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
	if !strings.Contains(out.String(), "report.html") {
		t.Errorf("stdout %q does not name the file", out.String())
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"plot"}, "want one run folder, got 0"},
		{[]string{"plot", dir, dir}, "want one run folder, got 2"},
		{[]string{"plot", t.TempDir()}, "has no results.json"},
	} {
		err := run(c.args, &out, &errb)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: got %v, want %q", c.args, err, c.want)
		}
	}
}
