package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestEvalRunModelPrintsRowNotes: `logz eval` of a model written by `logz
// run` prints each row's own notes under the table, as it does for a
// plain model file: here the β spacing an ais pilot chose. (Mutation:
// dropping printRowNotes from the run-model path fails.)
func TestEvalRunModelPrintsRowNotes(t *testing.T) {
	dir := t.TempDir()
	img := writeLabelledIDX(t, t.TempDir(), 30)
	cfg := writeConfig(t, dir, `name: notes
experiments:
  - name: a
    data: {train: "idx:`+img+`", test: "idx:`+img+`", binarize: threshold}
    model: {hidden: 4}
    train: {epochs: 1, batch_size: 10}
    evaluate:
      splits: [test]
      every_epoch: []
      final: [exact]
`)
	out := filepath.Join(dir, "run")
	if _, stderr, err := runLogz(t, "run", cfg, "--out", out); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	stdout, stderr, err := runLogz(t, "eval", "--model", filepath.Join(out, "a", "model.npz"), "--estimator", "ais", "--schedule", "pilot", "--betas", "50", "--chains", "10")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if n := strings.Count(stdout, "  ais: β spacing "); n != 1 {
		t.Errorf("the pilot's note printed %d times, want once:\n%s", n, stdout)
	}
}
