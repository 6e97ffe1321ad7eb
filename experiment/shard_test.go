package experiment_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/logz-ml/logz/config"
	"github.com/logz-ml/logz/eval/report"
	"github.com/logz-ml/logz/experiment"
)

// shardConfig has an experiment of every family, each with a final
// evaluation that runs every estimator that shares its work among shards
// (AIS of log Z, RAISE, CSL, the importance samplers, per-example and
// BDMC AIS of the sbn, the VAE prior's AIS), tiny enough to run in a
// second; unit counts (9 and 5 runs, 17 chains, 11 examples, …) that no
// shard count divides.
const shardConfig = `name: shard-test
seed: 3
base:
  data:
    train: planted:train
    test: planted:test
  evaluate:
    splits: [test, train]
    every: 1
experiments:
  - name: rbm
    data: {planted: {visible: 10, hidden: 4, train: 200, valid: 50, test: 60, seed: 0}}
    model: {type: rbm, hidden: 5}
    train: {method: pcd, chains: 20, epochs: 2, batch_size: 20, learning_rate: 0.05}
    evaluate:
      every_epoch:
        - exact
        - {name: ais, runs: 4, betas: 20, schedule: linear}
        - {name: chi2, components: 3, steps: 30, warm_steps: 5, samples: 200, fit_samples: 20, track: true}
      final:
        - exact
        - {name: ais, runs: 9, betas: 30, schedule: linear}
        - {name: ais, runs: 5, betas: 30, schedule: linear, init: uniform}
        - {name: raise, chains: 3, betas: 30, schedule: linear, examples: 11}
        - {name: csl, chains: 10, steps: 7, examples: 13}
        - {name: chi2, components: 3, steps: 30, samples: 200, fit_samples: 20}
        - pll
        - recon
  - name: dbn
    data: {planted: {visible: 10, hidden: 4, train: 200, valid: 50, test: 60, seed: 0}}
    model: {type: dbn, layers: [4, 5]}
    train: {method: cd, epochs: 1, batch_size: 20, learning_rate: 0.05}
    evaluate:
      every_epoch: [exact]
      final:
        - exact
        - {name: dbn-bound, samples: 3, runs: 5, betas: 20, schedule: linear, max_units: 1}
        - {name: ais, samples: 7, runs: 6, betas: 20, schedule: linear}
        - {name: raise, chains: 3, betas: 20, schedule: linear, examples: 9}
  - name: dbm
    data: {planted: {visible: 10, hidden: 4, train: 200, valid: 50, test: 60, seed: 0}}
    model: {type: dbm, layers: [4, 3]}
    train: {method: pcd, chains: 20, epochs: 1, batch_size: 20, learning_rate: 0.02, pretrain: {epochs: 1}}
    evaluate:
      every_epoch: [exact]
      final:
        - exact
        - {name: mf-bound, runs: 5, betas: 20, schedule: linear}
        - {name: ais, samples: 6, runs: 5, betas: 20, schedule: linear}
        - {name: raise, chains: 2, betas: 20, schedule: linear, examples: 7}
  - name: sbn
    data:
      planted: {model: sbn, visible: 10, hidden: 3, train: 200, valid: 50, test: 60, seed: 0}
    model: {type: sbn, layers: [3]}
    train: {method: sghmc, sampler: adaptive-is, epochs: 1, batch_size: 50, steps: 2, samples: 3}
    evaluate:
      every_epoch: [exact]
      final:
        - exact
        - {name: is, samples: 1001, examples: 12}
        - {name: ais, chains: 17, betas: 10, examples: 12}
        - {name: bdmc, chains: 3, betas: 10, examples: 5}
  - name: vae
    data: {planted: {visible: 10, hidden: 4, train: 200, valid: 50, test: 60, seed: 0}}
    model: {type: vae, latent: 4, hidden: [8], prior: rbm, prior_hidden: 3}
    train: {method: nvil, epochs: 1, batch_size: 20, learning_rate: 0.003}
    evaluate:
      every_epoch: [exact]
      final:
        - {name: is, samples: 1100, examples: 9, max_units: 1, runs: 5, betas: 20, schedule: linear}
        - {name: elbo, samples: 30, max_units: 1, runs: 5, betas: 20, schedule: linear}
        - exact
  - name: ising
    data:
      planted: {model: ising, rows: 3, cols: 3, train: 200, valid: 50, test: 60, seed: 0}
    model: {type: ising, rows: 3, cols: 3}
    train: {method: pcd, epochs: 1, batch_size: 50, chains: 20}
    evaluate:
      every_epoch: [exact]
      final:
        - exact
        - {name: ais, runs: 6, betas: 20, schedule: linear, init: uniform}
`

func shardFile(t *testing.T, seed string) *config.File {
	t.Helper()
	f, err := config.Parse([]byte(strings.Replace(shardConfig, "seed: 3", "seed: "+seed, 1)), "shard-test.yaml", config.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// comparable returns the files of a finished run that must not depend on
// sharding, with every time ("seconds") set to 0: results.json, each
// experiment's epochs.csv and samples.npy.
func comparable(t *testing.T, dir string, f *config.File) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	rows, err := report.ReadResults(filepath.Join(dir, config.ResultsFile))
	if err != nil {
		t.Fatal(err)
	}
	for i := range rows {
		rows[i].Seconds = 0
	}
	var b bytes.Buffer
	if err := report.EncodeResults(&b, rows); err != nil {
		t.Fatal(err)
	}
	out[config.ResultsFile] = b.Bytes()
	for _, e := range f.Experiments {
		b.Reset()
		if err := report.WriteEpochsCSV(&b, report.Select(rows, e.Name)); err != nil {
			t.Fatal(err)
		}
		out[e.Name+"/epochs.csv(rows)"] = b.Bytes()
		// The file itself, its seconds column blanked.
		csv, err := os.ReadFile(filepath.Join(dir, e.Name, "epochs.csv"))
		if err != nil {
			t.Fatal(err)
		}
		var lines []string
		for _, l := range strings.Split(string(csv), "\n") {
			if cells := strings.Split(l, ","); len(cells) > 12 {
				cells[12] = ""
				l = strings.Join(cells, ",")
			}
			lines = append(lines, l)
		}
		out[e.Name+"/epochs.csv"] = []byte(strings.Join(lines, "\n"))
		if s, err := os.ReadFile(filepath.Join(dir, e.Name, "samples.npy")); err == nil {
			out[e.Name+"/samples.npy"] = s
		}
	}
	return out
}

func sameFiles(t *testing.T, what string, got, want map[string][]byte) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: files %d, want %d", what, len(got), len(want))
	}
	for name, w := range want {
		g, ok := got[name]
		switch {
		case !ok:
			t.Errorf("%s: no %s", what, name)
		case !bytes.Equal(g, w):
			t.Errorf("%s: %s differs from the unsharded run's:\n%s", what, name, firstDiff(g, w))
		}
	}
}

// firstDiff shows the first line where a and b differ.
func firstDiff(a, b []byte) string {
	la, lb := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
	for i := range min(len(la), len(lb)) {
		if la[i] != lb[i] {
			return fmt.Sprintf("line %d: %s\n   want: %s", i+1, la[i], lb[i])
		}
	}
	return fmt.Sprintf("%d lines, want %d", len(la), len(lb))
}

func runShard(t *testing.T, f *config.File, dir string, i, n int, phase string) (string, error) {
	t.Helper()
	var stderr bytes.Buffer
	err := experiment.RunShard(f, experiment.ShardOptions{Out: dir, Shard: experiment.Shard{Index: i, Count: n}, Phase: phase, Stderr: &stderr, Logz: "test"})
	return stderr.String(), err
}

func merge(t *testing.T, dir string) error {
	t.Helper()
	_, err := experiment.Merge(experiment.Options{Out: dir}, "test")
	return err
}

// TestShardedRunIsExact: a run split into n shards and merged writes the
// same results.json, epochs.csv and samples.npy as the run in one process,
// bit for bit apart from the times, for n = 1, 2, 3 and 7 — the final
// evaluation's units (AIS runs, RAISE pairs, CSL groups, IS examples) dealt
// out by index — and for n = 2 with the training shared by stride too, the
// shards run as a scheduler might: one before the other's training is
// done, then again.
func TestShardedRunIsExact(t *testing.T) {
	f := shardFile(t, "3")
	root := t.TempDir()
	whole := filepath.Join(root, "whole")
	if _, err := experiment.Run(f, experiment.Options{Out: whole}); err != nil {
		t.Fatal(err)
	}
	want := comparable(t, whole, f)

	trained := filepath.Join(root, "trained")
	if _, err := runShard(t, f, trained, 0, 1, experiment.PhaseTrain); err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{1, 2, 3, 7} {
		dir := filepath.Join(root, fmt.Sprint(n))
		copyDir(t, trained, dir)
		for i := range n {
			if msg, err := runShard(t, f, dir, i, n, experiment.PhaseEval); err != nil {
				t.Fatalf("shard %d/%d: %v\n%s", i, n, err, msg)
			}
		}
		if err := merge(t, dir); err != nil {
			t.Fatalf("merge of %d: %v", n, err)
		}
		sameFiles(t, fmt.Sprintf("%d shards", n), comparable(t, dir, f), want)
	}

	// Training by stride: shard 0 trains experiments 0, 2, 4 and cannot
	// evaluate the others yet; shard 1 trains 1, 3, 5 and evaluates all;
	// shard 0 run again keeps what it did and evaluates the rest.
	dir := filepath.Join(root, "stride")
	msg, err := runShard(t, f, dir, 0, 2, "")
	var nd *experiment.NotDoneError
	if !errors.As(err, &nd) || strings.Join(nd.Experiments, ",") != "dbn,sbn,ising" {
		t.Fatalf("shard 0/2 first: %v\n%s", err, msg)
	}
	if _, err := runShard(t, f, dir, 1, 2, ""); err != nil {
		t.Fatal(err)
	}
	msg, err = runShard(t, f, dir, 0, 2, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, kept := range []string{"rbm: trained before", "rbm: shard 0/2 of the final evaluation done before", "dbn: shard 0/2 of the final evaluation (4 estimators)"} {
		if !strings.Contains(msg, kept) {
			t.Errorf("shard 0/2 again: no %q in\n%s", kept, msg)
		}
	}
	if err := merge(t, dir); err != nil {
		t.Fatal(err)
	}
	sameFiles(t, "2 shards by stride", comparable(t, dir, f), want)
}
