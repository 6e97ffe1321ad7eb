package main

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
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

// TestPlotAfterDeletion (issue 25, item 12): logz plot redraws the
// pictures whose files are there and names them; a picture whose file
// (samples.npy, model.npz) was deleted is not redrawn: it is kept as it
// was, named with the missing file, and marked under it in report.html.
func TestPlotAfterDeletion(t *testing.T) {
	dir := t.TempDir()
	run0 := filepath.Join(dir, "run")
	if _, _, err := runLogz(t, "run", writeConfig(t, dir, statusConfig), "--out", run0); err != nil {
		t.Fatal(err)
	}
	const note = "Not redrawn: %s, which %s is drawn from, is missing from the folder"
	for _, c := range []struct {
		name    string
		remove  []string
		out     []string // lines of stdout after the first
		notes   []string // in report.html
		changed []string // pictures rewritten (kept ones keep their bytes)
	}{
		{"nothing deleted", nil,
			[]string{"  redrawn: a/samples.png, a/filters.png, b/samples.png, b/filters.png"}, nil,
			[]string{"a/samples.png", "a/filters.png", "b/samples.png", "b/filters.png"}},
		{"samples.npy and model.npz", []string{"a/samples.npy", "b/model.npz"},
			[]string{"  redrawn: a/filters.png, b/samples.png",
				"  not redrawn, because a file they are drawn from is missing (kept as they were; report.html marks them): a/samples.png (no samples.npy), b/filters.png (no model.npz)"},
			[]string{fmt.Sprintf(note, "samples.npy", "samples.png"), fmt.Sprintf(note, "model.npz", "filters.png")},
			[]string{"a/filters.png", "b/samples.png"}},
		{"every source", []string{"a/samples.npy", "a/model.npz", "b/samples.npy", "b/model.npz"},
			[]string{"  not redrawn, because a file they are drawn from is missing (kept as they were; report.html marks them): a/samples.png (no samples.npy), a/filters.png (no model.npz), b/samples.png (no samples.npy), b/filters.png (no model.npz)"},
			[]string{fmt.Sprintf(note, "samples.npy", "samples.png"), fmt.Sprintf(note, "model.npz", "filters.png")}, nil},
		{"every source and picture", []string{"a/samples.npy", "a/model.npz", "b/samples.npy", "b/model.npz", "a/samples.png", "a/filters.png", "b/samples.png", "b/filters.png"},
			[]string{"  no images to redraw: the experiment folders hold no samples.npy, model.npz or completion.npy"}, nil, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := filepath.Join(t.TempDir(), "run")
			copyTree(t, run0, d)
			for _, f := range c.remove {
				if err := os.Remove(filepath.Join(d, f)); err != nil {
					t.Fatal(err)
				}
			}
			pngs := map[string]bool{}
			for _, f := range []string{"a/samples.png", "a/filters.png", "b/samples.png", "b/filters.png"} {
				// Mark each picture; a redrawn one loses the mark.
				path := filepath.Join(d, f)
				if b, err := os.ReadFile(path); err == nil {
					os.WriteFile(path, append(b, "mark"...), 0o644)
					pngs[f] = true
				}
			}
			stdout, _, err := runLogz(t, "plot", d)
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
			if !strings.HasPrefix(lines[0], "wrote "+filepath.Join(d, "report.html")+" in ") || strings.Join(lines[1:], "\n") != strings.Join(c.out, "\n") {
				t.Errorf("stdout:\n%s\nwant after the first line:\n%s", stdout, strings.Join(c.out, "\n"))
			}
			page, _ := os.ReadFile(filepath.Join(d, "report.html"))
			// One mark per picture not redrawn.
			if n, want := strings.Count(string(page), "Not redrawn: "), strings.Count(strings.Join(c.out, ""), "(no "); n != want {
				t.Errorf("report.html marks %d pictures, want %d", n, want)
			}
			for _, want := range c.notes {
				if !strings.Contains(string(page), strings.ReplaceAll(want, "'", "&#39;")) {
					t.Errorf("report.html lacks %q", want)
				}
			}
			for f := range pngs {
				b, _ := os.ReadFile(filepath.Join(d, f))
				kept := strings.HasSuffix(string(b), "mark")
				if want := !slices.Contains(c.changed, f); kept != want {
					t.Errorf("%s kept %v, want %v", f, kept, want)
				}
			}
		})
	}
}

// copyTree copies the files of the folder src into dst.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}
