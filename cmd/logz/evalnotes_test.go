package main

import (
	"strings"
	"testing"
)

// TestEvalRunModelPrintsRowNotes: `logz eval` of a model written by `logz
// run` prints each row's own notes under the table, as it does for a
// plain model file: here the β spacing an ais pilot chose. (Mutation:
// dropping printRowNotes from the run-model path fails.)
func TestEvalRunModelPrintsRowNotes(t *testing.T) {
	_, model := runTinyLabelledRBM(t, `      splits: [test]
      every_epoch: []
      final: [exact]
`)
	stdout, stderr, err := runLogz(t, "eval", "--model", model, "--estimator", "ais", "--schedule", "pilot", "--betas", "50", "--chains", "10")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if n := strings.Count(stdout, "  ais: β spacing "); n != 1 {
		t.Errorf("the pilot's note printed %d times, want once:\n%s", n, stdout)
	}
}
