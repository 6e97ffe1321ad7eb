package experiment_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/logz-ml/logz/config"
	"github.com/logz-ml/logz/experiment"
)

// gridConfig is a grid of 2 learning rates × 3 seeds of a tiny rbm, with a
// final evaluation that shards share (AIS runs).
const gridConfig = `name: grid-test
seed: 5
base:
  data:
    train: planted:train
    test: planted:test
    planted: {visible: 8, hidden: 3, train: 100, valid: 20, test: 40, seed: 0}
  model: {type: rbm, hidden: 3}
  train: {method: cd, epochs: 2, batch_size: 20}
  evaluate:
    splits: [test]
    every_epoch: [exact]
    final:
      - exact
      - {name: ais, runs: 7, betas: 20, schedule: linear}
experiments:
  - name: rbm
    grid: {train.learning_rate: [0.05, 0.1], seed: [1, 2, 3]}
`

// TestGridSharded: a grid's points are experiments like any other for the
// sharded runner: the grid run in 1 and in 2 shards (training and final
// evaluation each dealt out) and merged gives the results.json,
// epochs.csv and config.resolved.yaml of the run in one process, bit for
// bit apart from the times; and the reports average over the seeds.
func TestGridSharded(t *testing.T) {
	f, err := config.Parse([]byte(gridConfig), "grid-test.yaml", config.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Experiments) != 6 {
		t.Fatalf("%d experiments, want 6", len(f.Experiments))
	}
	root := t.TempDir()
	whole := filepath.Join(root, "whole")
	var out strings.Builder
	if _, err := experiment.Run(f, experiment.Options{Out: whole, Stdout: &out}); err != nil {
		t.Fatal(err)
	}
	want := comparable(t, whole, f)
	wantResolved, err := os.ReadFile(filepath.Join(whole, config.ResolvedFile))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "rbm (train.learning_rate=0.1): mean of 3 seeds") {
		t.Errorf("the terminal table has no mean over seeds:\n%s", out.String())
	}
	for _, n := range []int{1, 2} {
		dir := filepath.Join(root, fmt.Sprint(n))
		for _, phase := range []string{experiment.PhaseTrain, experiment.PhaseEval} {
			for i := range n {
				if msg, err := runShard(t, f, dir, i, n, phase); err != nil {
					t.Fatalf("shard %d/%d %s: %v\n%s", i, n, phase, err, msg)
				}
			}
		}
		if err := merge(t, dir); err != nil {
			t.Fatalf("merge of %d: %v", n, err)
		}
		sameFiles(t, fmt.Sprintf("%d shards", n), comparable(t, dir, f), want)
		got, err := os.ReadFile(filepath.Join(dir, config.ResolvedFile))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(wantResolved) {
			t.Errorf("%d shards: config.resolved.yaml differs:\n%s", n, firstDiff(got, wantResolved))
		}
		for _, file := range []string{config.ReportFile, "report.html"} {
			b, err := os.ReadFile(filepath.Join(dir, file))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(b), "rbm (train.learning_rate=0.05): mean of 3 seeds") || !strings.Contains(string(b), "SE = sd/√n") {
				t.Errorf("%d shards: %s has no mean over seeds", n, file)
			}
		}
	}
}

// TestGridResumesHandWrittenRun: a run of experiments written out by hand
// goes on (--resume) under the config that makes the same experiments
// with a grid: grid_point labels an experiment, as its name does, and is
// not a setting the run differs in.
func TestGridResumesHandWrittenRun(t *testing.T) {
	head, _, _ := strings.Cut(gridConfig, "experiments:\n")
	byHand := head + `experiments:
  - {name: rbm.learning_rate-0.05.seed-1, seed: 1, train: {learning_rate: 0.05}}
  - {name: rbm.learning_rate-0.05.seed-2, seed: 2, train: {learning_rate: 0.05}}
`
	grid := head + `experiments:
  - name: rbm
    grid: {train.learning_rate: [0.05], seed: [1, 2]}
`
	dir := t.TempDir()
	for i, y := range []string{byHand, grid} {
		f, err := config.Parse([]byte(y), "grid-test.yaml", config.Options{})
		if err != nil {
			t.Fatal(err)
		}
		var stderr, stdout strings.Builder
		if _, err := experiment.Run(f, experiment.Options{Out: dir, Resume: i == 1, Stderr: &stderr, Stdout: &stdout}); err != nil {
			t.Fatalf("run %d: %v\n%s", i, err, stderr.String())
		}
		if i == 1 && strings.Count(stderr.String(), "; kept") != 2 {
			t.Errorf("the grid's resume did not keep the hand-written run's experiments:\n%s", stderr.String())
		}
	}
}
