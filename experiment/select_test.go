package experiment_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/logz-ml/logz/config"
	"github.com/logz-ml/logz/eval/report"
	"github.com/logz-ml/logz/experiment"
)

// selectConfig is gridConfig evaluated on valid and test, 2 learning
// rates × 2 seeds, with the rate chosen on valid by AIS.
var selectConfig = strings.NewReplacer(
	"splits: [test]", "splits: [valid, test]",
	"seed: [1, 2, 3]}", "seed: [1, 2]}\n    select: {split: valid, estimator: ais}",
).Replace(gridConfig)

// selectionOf returns a run folder's results.json "selections" as
// written, and the lines of the choice in its report.md.
func selectionOf(t *testing.T, dir string) (string, string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, config.ResultsFile))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Selections json.RawMessage `json:"selections"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(dir, config.ReportFile))
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, l := range strings.Split(string(md), "\n") {
		if strings.HasPrefix(l, "- rbm: chosen on valid by ais: ") {
			lines = append(lines, l)
		}
	}
	return string(doc.Selections), strings.Join(lines, "\n")
}

// TestSelectShardedAndResumed: a grid with select: run in one process,
// in 2 shards merged, and resumed after half its experiments, chooses the
// same point with the same numbers: results.json's selections and
// report.md's line are the same, byte for byte, and the terminal prints
// the line; and a finished run resumes under another select:, which
// changes no result, and reports the new choice. Mutations checked: the
// run writing results.json without the grid (WriteResults instead of
// WriteResultsGrid): no selections; sameConfig comparing select: (the
// resume under another choice is refused).
func TestSelectShardedAndResumed(t *testing.T) {
	f, err := config.Parse([]byte(selectConfig), "grid-test.yaml", config.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Experiments) != 4 || f.Experiments[3].Select.Split != "valid" {
		t.Fatalf("%d experiments, select %+v", len(f.Experiments), f.Experiments[0].Select)
	}
	root := t.TempDir()
	whole := filepath.Join(root, "whole")
	var out strings.Builder
	if _, err := experiment.Run(f, experiment.Options{Out: whole, Stdout: &out}); err != nil {
		t.Fatal(err)
	}
	wantSel, wantLine := selectionOf(t, whole)
	if !strings.Contains(wantSel, `"chosen": "rbm (train.learning_rate=`) || wantLine == "" {
		t.Fatalf("the run chose nothing: selections %s\nreport.md line %q", wantSel, wantLine)
	}
	if !strings.Contains(strings.Join(strings.Fields(out.String()), " "), strings.TrimPrefix(wantLine, "- ")) {
		t.Errorf("the terminal lacks the choice %q:\n%s", wantLine, out.String())
	}

	sharded := filepath.Join(root, "sharded")
	for _, phase := range []string{experiment.PhaseTrain, experiment.PhaseEval} {
		for i := range 2 {
			if msg, err := runShard(t, f, sharded, i, 2, phase); err != nil {
				t.Fatalf("shard %d/2 %s: %v\n%s", i, phase, err, msg)
			}
		}
	}
	if err := merge(t, sharded); err != nil {
		t.Fatal(err)
	}
	if sel, line := selectionOf(t, sharded); sel != wantSel || line != wantLine {
		t.Errorf("after merge:\n%s\n%s\nwant\n%s\n%s", sel, line, wantSel, wantLine)
	}

	// Half the run: the first two experiments' folders and rows; --resume
	// runs the others.
	half := filepath.Join(root, "half")
	copyDir(t, whole, half)
	rows, err := report.ReadResults(filepath.Join(whole, config.ResultsFile))
	if err != nil {
		t.Fatal(err)
	}
	var kept []report.Row
	for _, r := range rows {
		if r.Experiment == f.Experiments[0].Name || r.Experiment == f.Experiments[1].Name {
			kept = append(kept, r)
		}
	}
	if err := report.WriteResults(filepath.Join(half, config.ResultsFile), kept); err != nil {
		t.Fatal(err)
	}
	for _, e := range f.Experiments[2:] {
		if err := os.RemoveAll(filepath.Join(half, e.Name)); err != nil {
			t.Fatal(err)
		}
	}
	var stderr bytes.Buffer
	if _, err := experiment.Run(f, experiment.Options{Out: half, Resume: true, Stderr: &stderr}); err != nil {
		t.Fatalf("resume: %v\n%s", err, stderr.String())
	}
	if strings.Count(stderr.String(), "; kept") != 2 {
		t.Errorf("the resume did not keep the first two experiments:\n%s", stderr.String())
	}
	if sel, line := selectionOf(t, half); sel != wantSel || line != wantLine {
		t.Errorf("after --resume:\n%s\n%s\nwant\n%s\n%s", sel, line, wantSel, wantLine)
	}

	// select: changes no result: the finished run goes on under another
	// choice, keeping every experiment, and reports that choice.
	f2, err := config.Parse([]byte(strings.Replace(selectConfig, "estimator: ais}", "estimator: exact}", 1)), "grid-test.yaml", config.Options{})
	if err != nil {
		t.Fatal(err)
	}
	stderr.Reset()
	if _, err := experiment.Run(f2, experiment.Options{Out: half, Resume: true, Stderr: &stderr}); err != nil {
		t.Fatalf("resume under another select: %v\n%s", err, stderr.String())
	}
	if sel, _ := selectionOf(t, half); strings.Count(stderr.String(), "; kept") != 4 || !strings.Contains(sel, `"estimator": "exact"`) {
		t.Errorf("resume under select by exact:\n%s\n%s", stderr.String(), sel)
	}
}
