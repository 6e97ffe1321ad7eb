package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGridSelectExample runs configs/select-learning-rate.yaml and checks
// docs/grid.md's example of it: its YAML is the config's experiment, and
// the lines of the choice are what the run prints; report.md holds the
// same choice, and report.html too after `logz plot` redraws it from the
// folder. Mutation checked: selectionLines returning nothing (the run
// prints no choice).
func TestGridSelectExample(t *testing.T) {
	doc := readRepo(t, "docs/grid.md")
	cfg := readRepo(t, "configs/select-learning-rate.yaml")
	sec := doc[strings.Index(doc, "## Choosing a setting on the validation split"):]
	yml := sec[strings.Index(sec, "```yaml\n")+len("```yaml\n"):]
	yml = yml[:strings.Index(yml, "```")]
	if !strings.Contains(cfg, yml) {
		t.Errorf("docs/grid.md's select: example is not configs/select-learning-rate.yaml's:\n%s", yml)
	}
	want := markedBlock(t, "docs/grid.md", doc, "<!-- select example:")
	out := filepath.Join(t.TempDir(), "sel")
	stdout, stderr, err := runLogz(t, "run", filepath.Join(repoRoot, "configs", "select-learning-rate.yaml"), "--out", out)
	if err != nil {
		t.Fatalf("logz run: %v\n%s", err, stderr)
	}
	lines := strings.Split(stdout, "\n")
	i := 0
	for i < len(lines) && lines[i] != want[0] {
		i++
	}
	if i+len(want) > len(lines) {
		t.Fatalf("the run printed no %q:\n%s", want[0], stdout)
	}
	for j, w := range want {
		if got := strings.TrimRight(lines[i+j], " "); got != w {
			t.Errorf("docs/grid.md's select example, line %d:\n got %s\nwant %s", j+1, got, w)
		}
	}
	choice := strings.Join(strings.Fields(strings.Join(want[1:], " ")), " ")
	if _, _, err := runLogz(t, "plot", out); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"report.md", "report.html"} {
		b, err := os.ReadFile(filepath.Join(out, f))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(strings.Join(strings.Fields(string(b)), " "), choice) {
			t.Errorf("%s lacks the choice %q", f, choice)
		}
	}
}
