package experiment_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/logz-ml/logz/config"
	"github.com/logz-ml/logz/eval/report"
	"github.com/logz-ml/logz/experiment"
)

// TestBatchLargerThanTrainingSet: a minibatch larger than the training set
// (one update per epoch) is warned of on stderr when the experiment starts
// and recorded with its training rows, so report.md lists it; a minibatch
// that fits is not (issue 25, item 7).
func TestBatchLargerThanTrainingSet(t *testing.T) {
	const y = `name: big-batch
base:
  data: {train: planted:train, test: planted:test, planted: {visible: 6, hidden: 2, train: 30, test: 20}}
  model: {hidden: 3}
  train: {epochs: 2, batch_size: 50}
  evaluate: {every_epoch: [], final: [exact]}
experiments:
  - name: big
  - name: fits
    train: {batch_size: 30}
`
	f, err := config.Parse([]byte(y), "big-batch.yaml", config.Options{})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "run")
	var stderr bytes.Buffer
	if _, err := experiment.Run(f, experiment.Options{Out: dir, Stderr: &stderr}); err != nil {
		t.Fatal(err)
	}
	const want = "train.batch_size 50 is larger than the training set (30 examples): every epoch is a single update on all 30; set batch_size ≤ 30"
	if got := stderr.String(); !strings.Contains(got, "big: warning: "+want) || strings.Contains(got, "fits: warning") {
		t.Errorf("stderr lacks the warning for big only:\n%s", got)
	}
	rows, err := report.ReadResults(filepath.Join(dir, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	trainRows := 0
	for _, r := range rows {
		if r.Estimator != "train" {
			continue
		}
		trainRows++
		warned := strings.Contains(strings.Join(r.Warnings, "\n"), want)
		if warned != (r.Experiment == "big") {
			t.Errorf("%s epoch %d: warnings %q", r.Experiment, r.Epoch, r.Warnings)
		}
	}
	if trainRows != 4 {
		t.Errorf("%d training rows, want 4", trainRows)
	}
	md, err := os.ReadFile(filepath.Join(dir, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), want) {
		t.Errorf("report.md lacks the warning:\n%s", md)
	}
}
