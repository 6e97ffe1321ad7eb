package experiment_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/logz-ml/logz/config"
	"github.com/logz-ml/logz/eval/report"
	"github.com/logz-ml/logz/experiment"
	"github.com/logz-ml/logz/family"
	"github.com/logz-ml/logz/models"
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
        - {name: sandwich, until_gap: 2, start_betas: 5, max_betas: 80, ais: {runs: 6}, raise: {chains: 3, examples: 11}}
        - {name: csl, chains: 10, steps: 7, examples: 13}
        - {name: chi2, components: 3, steps: 30, samples: 200, fit_samples: 20}
        - {name: ais-ratio, to: "%RATIO_TO%", runs: 7, betas: 20, schedule: linear, start: gibbs, gibbs_steps: 6}
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
	// Model B of the rbm's ais-ratio: 10 visible units like the rbm's, 3
	// hidden, small fixed weights.
	b := models.NewRBM(10, 3)
	for i := range b.W {
		b.W[i] = 0.1 * float64(i%7-3)
	}
	path := filepath.Join(t.TempDir(), "b.npz")
	if err := models.Save(path, &models.Checkpoint{Model: b}, family.Codecs()); err != nil {
		t.Fatal(err)
	}
	y := strings.NewReplacer("seed: 3", "seed: "+seed, "%RATIO_TO%", path).Replace(shardConfig)
	f, err := config.Parse([]byte(y), "shard-test.yaml", config.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// comparable returns the files of a finished run that must not depend on
// sharding, with every time ("seconds") set to 0: results.json, each
// experiment's epochs.csv, samples.npy, samples.json, samples.png and
// filters.png.
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
		for _, name := range []string{experiment.SamplesFile, experiment.SamplesInfoFile, experiment.SamplesPNG, experiment.FiltersPNG} {
			if s, err := os.ReadFile(filepath.Join(dir, e.Name, name)); err == nil {
				out[e.Name+"/"+name] = s
			}
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
	// The rbm's sandwich must close before its last round (K = 80), so
	// that the merges below stop early too, leaving the shards' later
	// rounds unused (evalenv.Sharding.Unneeded) — and stop where this run did.
	rows, err := report.ReadResults(filepath.Join(whole, config.ResultsFile))
	if err != nil {
		t.Fatal(err)
	}
	last := 0
	for _, r := range rows {
		last = max(last, r.Round)
	}
	if last != 1 {
		t.Fatalf("the rbm's sandwich ended in round %d; the test needs it to close in round 1 of 3", last)
	}

	trained := filepath.Join(root, "trained")
	if _, err := runShard(t, f, trained, 0, 1, experiment.PhaseTrain); err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{1, 2, 3, 7} {
		dir := filepath.Join(root, fmt.Sprint(n))
		copyDir(t, trained, dir)
		// Side by side, as in a job array.
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				if msg, err := runShard(t, f, dir, i, n, experiment.PhaseEval); err != nil {
					t.Errorf("shard %d/%d: %v\n%s", i, n, err, msg)
				}
			})
		}
		wg.Wait()
		if t.Failed() {
			t.FailNow()
		}
		if err := merge(t, dir); err != nil {
			t.Fatalf("merge of %d: %v", n, err)
		}
		sameFiles(t, fmt.Sprintf("%d shards", n), comparable(t, dir, f), want)
		if n == 2 {
			checkShared(t, dir)
		}
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

// checkShared checks which work every estimator shares among the shards:
// per experiment, each entry of the final list with the unit counts of its
// pieces of shared work, in order (e.g. the dbn's raise: RAISE on 9
// examples × 3 chains of the test split, its control variate's IS on the
// 60 test examples, the same on the train split). An estimator whose
// kernel stopped taking Units would still give the right numbers, but
// every shard would do all its work.
func checkShared(t *testing.T, dir string) {
	t.Helper()
	want := map[string]string{
		"rbm":   "ais[9] ais[5] raise[33 33] sandwich[6 33 33 6 33 33 6 33 33] csl[10 10] ais-ratio[7]",
		"dbn":   "dbn-bound[5 60 200] ais[6 60 200] raise[27 60 27 200]",
		"dbm":   "mf-bound[5] ais[60 200] raise[14 14]",
		"sbn":   "is[24 24] ais[12 12] bdmc[5]",
		"vae":   "is[5 18 18] elbo[60 200] exact[]", // its exact leaves the prior's log Z to is and elbo
		"ising": "ais[6]",
	}
	for name, w := range want {
		b, err := os.ReadFile(filepath.Join(dir, "parts", name+".eval-0-of-2.json"))
		if err != nil {
			t.Fatal(err)
		}
		var p struct {
			Entries []struct {
				Estimator string
				Work      []struct{ N int }
			}
		}
		if err := json.Unmarshal(b, &p); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, e := range p.Entries {
			var ns []string
			for _, w := range e.Work {
				ns = append(ns, fmt.Sprint(w.N))
			}
			got = append(got, e.Estimator+"["+strings.Join(ns, " ")+"]")
		}
		if g := strings.Join(got, " "); g != w {
			t.Errorf("%s shares %s, want %s", name, g, w)
		}
	}
}

// editPart rewrites a part file through edit, as JSON, and gives it the
// checksum of its new content, as logz would have written it.
func editPart(t *testing.T, path string, edit func(p map[string]any)) {
	t.Helper()
	editByHand(t, path, edit)
	if err := experiment.ResealPart(path); err != nil {
		t.Fatal(err)
	}
}

// editByHand rewrites a part file through edit, as JSON, leaving its
// checksum as it was: a hand edit.
func editByHand(t *testing.T, path string, edit func(p map[string]any)) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var p map[string]any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber() // the 64-bit seed
	if err := dec.Decode(&p); err != nil {
		t.Fatal(err)
	}
	edit(p)
	if b, err = json.Marshal(p); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// work returns the call-th work of the k-th entry recorded in a part.
func work(p map[string]any, k, call int) map[string]any {
	e := p["entries"].([]any)[k].(map[string]any)
	return e["work"].([]any)[call].(map[string]any)
}

// TestMergeRefuses: a merge refuses, naming the file and what to do, a
// missing shard, parts of two shard counts, a part of another model, a
// unit in two parts or in none, work it does not use and a corrupt part;
// a shard of another config is refused before it writes; a finished part
// is kept when its shard runs again; status names what is missing.
func TestMergeRefuses(t *testing.T) {
	f := tiny(t, "1", "3")
	root := t.TempDir()
	good := filepath.Join(root, "good")
	if _, err := runShard(t, f, good, 0, 1, experiment.PhaseTrain); err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		if _, err := runShard(t, f, good, i, 2, experiment.PhaseEval); err != nil {
			t.Fatal(err)
		}
	}
	part := func(dir string, i, n int) string {
		return filepath.Join(dir, "parts", fmt.Sprintf("a.eval-%d-of-%d.json", i, n))
	}
	before, _ := os.ReadFile(part(good, 1, 2))
	msg, err := runShard(t, f, good, 1, 2, experiment.PhaseEval)
	if after, _ := os.ReadFile(part(good, 1, 2)); err != nil || !bytes.Equal(before, after) || !strings.Contains(msg, "a: shard 1/2 of the final evaluation done before") {
		t.Errorf("shard run again: %v, part unchanged %v\n%s", err, bytes.Equal(before, after), msg)
	}
	// Entry 1 is the ais (8 runs: shard 0 has 0, 2, 4, 6), the first a part
	// records (shards leave exact, entry 0, to the merge).
	cases := []struct {
		name  string
		spoil func(dir string)
		want  string
	}{
		{"missing shard", func(dir string) { os.Remove(part(dir, 1, 2)) }, "a's final evaluation: shard 1 of 2 is missing"},
		{"two shard counts", func(dir string) { runShard(t, f, dir, 0, 3, experiment.PhaseEval) }, "a's final evaluation: parts from runs with [2 3] shards"},
		{"another model", func(dir string) {
			editPart(t, part(dir, 0, 2), func(p map[string]any) { p["fingerprint"].(map[string]any)["model"] = "0123456789abcdef" })
		}, "a.eval-0-of-2.json was made with another model file (hash 0123456789ab…, now"},
		{"another logz", func(dir string) {
			editPart(t, part(dir, 0, 2), func(p map[string]any) { p["fingerprint"].(map[string]any)["logz"] = "v9" })
		}, "was made with another logz version (v9, now test)"},
		{"a unit twice", func(dir string) {
			editPart(t, part(dir, 1, 2), func(p map[string]any) {
				w := work(p, 0, 0)
				w["units"] = append(w["units"].([]any), 0.0)
				w["values"] = append(w["values"].([]any), 1.5)
			})
		}, "unit 0 of work 0 of entry 1 (ais) is in both"},
		{"a unit in none", func(dir string) {
			editPart(t, part(dir, 0, 2), func(p map[string]any) {
				w := work(p, 0, 0)
				w["units"] = w["units"].([]any)[1:]
				w["values"] = w["values"].([]any)[1:]
			})
		}, "units 0 of work 0 of entry 1 (ais) are in no part"},
		{"values and units disagree", func(dir string) {
			editPart(t, part(dir, 0, 2), func(p map[string]any) { w := work(p, 0, 0); w["values"] = w["values"].([]any)[1:] })
		}, "entry 1 (ais) work 0 has 3 values for 4 units of width 1"},
		{"work in one part only", func(dir string) {
			editPart(t, part(dir, 0, 2), func(p map[string]any) {
				e := p["entries"].([]any)[0].(map[string]any)
				e["work"] = append(e["work"].([]any), map[string]any{"call": 7, "n": 1, "width": 1, "units": []any{0}, "values": []any{1}})
			})
		}, "work 7 of entry 1 (ais) is in 1 of the 2 parts"},
		{"unused work", func(dir string) {
			for i := range 2 {
				editPart(t, part(dir, i, 2), func(p map[string]any) {
					e := p["entries"].([]any)[0].(map[string]any)
					units := []any{}
					if i == 0 {
						units = []any{0}
					}
					e["work"] = append(e["work"].([]any), map[string]any{"call": 7, "n": 1, "width": 1, "units": units, "values": units})
				})
			}
		}, "holds work 7 of entry 1 (ais) that the merge did not use"},
		{"corrupt", func(dir string) {
			os.WriteFile(part(dir, 0, 2), []byte(`{"format":2,"kind":"eval","shard":"x"}`), 0o644)
		}, "corrupt part file"},
		{"a value edited by hand", func(dir string) {
			editByHand(t, part(dir, 1, 2), func(p map[string]any) { work(p, 0, 0)["values"].([]any)[0] = 1.5 })
		}, "a.eval-1-of-2.json: checksum mismatch"},
		{"a training row edited by hand", func(dir string) {
			editByHand(t, filepath.Join(dir, "parts", "a.train.json"), func(p map[string]any) {
				p["rows"].([]any)[0].(map[string]any)["seconds"] = 99
			})
		}, "a.train.json: checksum mismatch"},
		{"no checksum", func(dir string) {
			editByHand(t, part(dir, 0, 2), func(p map[string]any) { delete(p, "checksum") })
		}, "a.eval-0-of-2.json: a part without a checksum, not written by this logz version"},
		{"a part of format 1", func(dir string) {
			editByHand(t, part(dir, 0, 2), func(p map[string]any) { p["format"] = 1 })
		}, "a.eval-0-of-2.json: a part of format 1, written by another logz version (this one reads format 2)"},
	}
	for _, c := range cases {
		dir := filepath.Join(root, strings.ReplaceAll(c.name, " ", "-"))
		copyDir(t, good, dir)
		c.spoil(dir)
		if err := merge(t, dir); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error with %q", c.name, err, c.want)
		}
	}
	if err := merge(t, good); err != nil {
		t.Fatal(err)
	}
	// Another config (seed) into the same folder.
	if _, err := runShard(t, tiny(t, "2", "3"), good, 0, 2, experiment.PhaseEval); err == nil || !strings.Contains(err.Error(), "every shard must use the same config") {
		t.Errorf("another config: %v", err)
	}
	// Status of a folder with a lost shard.
	dir := filepath.Join(root, "status")
	copyDir(t, good, dir)
	os.Remove(part(dir, 0, 2))
	st, err := experiment.ReadShardedState(dir, 0, "test")
	if err != nil {
		t.Fatal(err)
	}
	a, b := st.Experiments[0], st.Experiments[1]
	if !a.Trained || a.Shards != 2 || fmt.Sprint(a.Done, a.Missing) != "[1] [0]" || a.Ready() || !b.Ready() || !st.Merged {
		t.Errorf("status: %+v", st.Experiments)
	}
}
