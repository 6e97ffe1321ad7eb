package experiment_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/logz-ml/logz/config"
	"github.com/logz-ml/logz/eval/report"
	"github.com/logz-ml/logz/experiment"
	"github.com/logz-ml/logz/family"
	_ "github.com/logz-ml/logz/family/all"
	"github.com/logz-ml/logz/models"
)

// tinyConfig is two small RBM experiments on planted data whose final
// evaluation has an estimator that shares results (exact: its log Z goes
// onto the AIS rows) before others.
const tinyConfig = `name: tiny
seed: %SEED%
base:
  data:
    train: planted:train
    test: planted:test
    planted: {visible: 8, hidden: 3, train: 200, valid: 50, test: 100}
  model: {type: rbm, hidden: %HIDDEN%}
  train: {epochs: 3, batch_size: 20, learning_rate: 0.05, checkpoint_every: 1}
  evaluate:
    every_epoch: [exact]
    final:
      - exact
      - {name: ais, runs: 8, betas: 200}
      - {name: raise, chains: 2, betas: 100, examples: 20}
      - {name: csl, chains: 5, examples: 20}
experiments:
  - name: a
  - name: b
`

func tiny(t *testing.T, seed, hidden string) *config.File {
	t.Helper()
	y := strings.NewReplacer("%SEED%", seed, "%HIDDEN%", hidden).Replace(tinyConfig)
	f, err := config.Parse([]byte(y), "tiny.yaml", config.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func runTiny(t *testing.T, f *config.File, opt experiment.Options) (string, error) {
	t.Helper()
	var stderr bytes.Buffer
	opt.Stderr = &stderr
	_, err := experiment.Run(f, opt)
	return stderr.String(), err
}

// snapshot returns every file under dir with its content.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		// The lock file's note names the last process that held the
		// folder, refused or not; it is not the run's.
		if err == nil && !d.IsDir() && d.Name() != ".logz.lock" {
			b, _ := os.ReadFile(p)
			out[strings.TrimPrefix(p, dir)] = string(b)
		}
		return nil
	})
	return out
}

// unchanged fails t unless two snapshots hold the same files.
func unchanged(t *testing.T, before, after map[string]string) {
	t.Helper()
	if len(after) != len(before) {
		t.Errorf("files changed: %d before, %d after", len(before), len(after))
	}
	for k, v := range before {
		if after[k] != v {
			t.Errorf("%s was changed", k)
		}
	}
}

// withoutSeconds is results.json with the wall times zeroed.
func withoutSeconds(t *testing.T, path string) []report.Row {
	t.Helper()
	rows, err := report.ReadResults(path)
	if err != nil {
		t.Fatal(err)
	}
	for i := range rows {
		rows[i].Seconds = 0
	}
	return rows
}

func sameRows(t *testing.T, got, want []report.Row) {
	t.Helper()
	g, _ := json.Marshal(got)
	w, _ := json.Marshal(want)
	if !bytes.Equal(g, w) {
		t.Errorf("rows differ from the uninterrupted run:\n got %s\nwant %s", g, w)
	}
}

// TestRunFolderRefusals checks that a run folder that holds something is
// refused before anything is written, with a message that says what is
// there and what to do, and that the folder is left byte for byte as it was.
func TestRunFolderRefusals(t *testing.T) {
	done := t.TempDir()
	if _, err := runTiny(t, tiny(t, "1", "3"), experiment.Options{Out: done}); err != nil {
		t.Fatal(err)
	}
	stranger := t.TempDir()
	os.WriteFile(filepath.Join(stranger, "notes.txt"), []byte("mine"), 0o644)
	aFile := filepath.Join(t.TempDir(), "file")
	os.WriteFile(aFile, []byte("x"), 0o644)
	corruptModel := t.TempDir()
	copyDir(t, done, corruptModel)
	os.WriteFile(filepath.Join(corruptModel, "a", "model.npz"), []byte("PK\x03\x04 not a zip"), 0o644)
	corruptProgress := t.TempDir()
	copyDir(t, done, corruptProgress)
	os.WriteFile(filepath.Join(corruptProgress, "b", "final.progress.json"), []byte(`{"epoch": 3, "entries": [`), 0o644)
	// A user's own results.json (not JSON) and report.md: not a run.
	userFiles := t.TempDir()
	os.WriteFile(filepath.Join(userFiles, "results.json"), []byte("my numbers, not JSON"), 0o644)
	os.WriteFile(filepath.Join(userFiles, "report.md"), []byte("# my report\n"), 0o644)
	// A logz run whose report.md the user replaced with their own.
	userReport := t.TempDir()
	copyDir(t, done, userReport)
	os.WriteFile(filepath.Join(userReport, "report.md"), []byte("# my report\n"), 0o644)
	// A run of another logz version: its config has a key this one lacks,
	// and it has no results yet. Still a logz run, whose config --resume
	// cannot read.
	otherVersion := t.TempDir()
	copyDir(t, done, otherVersion)
	os.Remove(filepath.Join(otherVersion, config.ResultsFile))
	b, _ := os.ReadFile(filepath.Join(otherVersion, config.ResolvedFile))
	os.WriteFile(filepath.Join(otherVersion, config.ResolvedFile), bytes.Replace(b, []byte("\nseed: "), []byte("\nfuture_key: 1\nseed: "), 1), 0o644)
	noResolved := t.TempDir()
	copyDir(t, done, noResolved)
	os.Remove(filepath.Join(noResolved, config.ResolvedFile))

	cases := []struct {
		name string
		dir  string
		f    *config.File
		opt  experiment.Options
		want []string
	}{
		{"finished run, no flag", done, tiny(t, "1", "3"), experiment.Options{}, []string{
			"already holds a run (results.json with ", "final estimates of a, b; checkpoints of a, b)", "pass --resume to continue it, or --force to discard it"}},
		{"not a run folder", stranger, tiny(t, "1", "3"), experiment.Options{}, []string{
			"is not empty and holds no logz run (no config.resolved.yaml or results.json written by logz)"}},
		{"not a run folder, forced", stranger, tiny(t, "1", "3"), experiment.Options{Force: true}, []string{
			"is not empty and holds no logz run"}},
		{"a user's results.json and report.md", userFiles, tiny(t, "1", "3"), experiment.Options{}, []string{
			"is not empty and holds no logz run (no config.resolved.yaml or results.json written by logz; report.md, results.json there are not logz's)"}},
		{"a user's results.json and report.md, forced", userFiles, tiny(t, "1", "3"), experiment.Options{Force: true}, []string{
			"is not empty and holds no logz run"}},
		{"a user's results.json and report.md, resumed", userFiles, tiny(t, "1", "3"), experiment.Options{Resume: true}, []string{
			"is not empty and holds no logz run"}},
		{"a run with a user's report.md", userReport, tiny(t, "1", "3"), experiment.Options{}, []string{
			"holds a logz run (results.json with ", "and report.md that logz did not write; move it away first"}},
		{"a run with a user's report.md, forced", userReport, tiny(t, "1", "3"), experiment.Options{Force: true}, []string{
			"and report.md that logz did not write; move it away first"}},
		{"resume, config of another version", otherVersion, tiny(t, "1", "3"), experiment.Options{Resume: true}, []string{
			"--resume: ", "future_key"}},
		{"a file", aFile, tiny(t, "1", "3"), experiment.Options{}, []string{"is a file, not a folder"}},
		{"resume and force", done, tiny(t, "1", "3"), experiment.Options{Resume: true, Force: true}, []string{
			"--resume and --force contradict each other"}},
		{"resume, other hidden size", done, tiny(t, "1", "4"), experiment.Options{Resume: true}, []string{
			"was made with another config or seed", "experiments[0].model.hidden: 3 in the run folder, 4 now"}},
		{"resume, other seed", done, tiny(t, "7", "3"), experiment.Options{Resume: true}, []string{
			"was made with another config or seed", "\n  seed: 1 in the run folder, 7 now\n"}},
		{"resume, corrupt model", corruptModel, tiny(t, "1", "3"), experiment.Options{Resume: true}, []string{
			"--resume: ", "a/model.npz", "move it away to train a from scratch"}},
		{"resume, corrupt final progress", corruptProgress, tiny(t, "1", "3"), experiment.Options{Resume: true}, []string{
			"b/final.progress.json: corrupt", "delete it to redo b's final evaluation"}},
		{"resume without resolved config", noResolved, tiny(t, "1", "3"), experiment.Options{Resume: true}, []string{
			"config.resolved.yaml", "without it logz cannot check that the run used this config"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := snapshot(t, c.dir)
			c.opt.Out = c.dir
			_, err := runTiny(t, c.f, c.opt)
			var fe *experiment.FolderError
			if !errors.As(err, &fe) {
				t.Fatalf("got %v, want a FolderError", err)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q\nlacks %q", err, w)
				}
			}
			if strings.Contains(c.name, "user's") && strings.Contains(err.Error(), "--force") {
				t.Errorf("error %q offers --force on files logz did not write", err)
			}
			unchanged(t, before, snapshot(t, c.dir))
		})
	}
}

func copyDir(t *testing.T, from, to string) {
	t.Helper()
	filepath.WalkDir(from, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(to, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return os.WriteFile(filepath.Join(to, rel), b, 0o644)
	})
}

// TestForceDiscards checks that --force names what it removes, leaves
// files that are not logz's, refuses an experiment folder holding foreign
// files, and then gives the same results as a run into a new folder.
func TestForceDiscards(t *testing.T) {
	fresh := t.TempDir()
	if _, err := runTiny(t, tiny(t, "1", "3"), experiment.Options{Out: fresh}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if _, err := runTiny(t, tiny(t, "5", "2"), experiment.Options{Out: dir}); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("mine"), 0o644)
	os.WriteFile(filepath.Join(dir, "a", "plot.png"), []byte("mine"), 0o644)
	_, err := runTiny(t, tiny(t, "1", "3"), experiment.Options{Out: dir, Force: true})
	if err == nil || !strings.Contains(err.Error(), "a holds files logz did not write (plot.png); move them away first") {
		t.Fatalf("foreign file in an experiment folder: got %v", err)
	}
	os.Remove(filepath.Join(dir, "a", "plot.png"))
	// Files named like logz's that are not: the user's own model and curve.
	for _, n := range []string{"model.npz", "epochs.csv"} {
		p := filepath.Join(dir, "b", n)
		keep, _ := os.ReadFile(p)
		os.WriteFile(p, []byte("the user's own"), 0o644)
		_, err := runTiny(t, tiny(t, "1", "3"), experiment.Options{Out: dir, Force: true})
		if err == nil || !strings.Contains(err.Error(), "b holds files logz did not write ("+n+"); move them away first") {
			t.Fatalf("the user's %s in an experiment folder: got %v", n, err)
		}
		if b, _ := os.ReadFile(p); string(b) != "the user's own" {
			t.Fatalf("--force touched the user's %s", n)
		}
		os.WriteFile(p, keep, 0o644)
	}
	stderr, err := runTiny(t, tiny(t, "1", "3"), experiment.Options{Out: dir, Force: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"--force: discarding ", "results.json (", " rows)", "a/ (", "model.npz (model after epoch 3)", "epochs.csv"} {
		if !strings.Contains(stderr, w) {
			t.Errorf("stderr lacks %q:\n%s", w, stderr)
		}
	}
	if b, err := os.ReadFile(filepath.Join(dir, "notes.txt")); err != nil || string(b) != "mine" {
		t.Errorf("--force removed a file that is not logz's: %v", err)
	}
	sameRows(t, withoutSeconds(t, filepath.Join(dir, "results.json")), withoutSeconds(t, filepath.Join(fresh, "results.json")))
}

// TestResumeKeepsFinalEstimates checks that the final evaluation is
// recorded estimator by estimator: a resume after an interruption during
// it runs only what is missing (and what shared results with it), a resume
// of a finished run runs nothing, and both give the rows of the
// uninterrupted run.
func TestResumeKeepsFinalEstimates(t *testing.T) {
	dir := t.TempDir()
	if _, err := runTiny(t, tiny(t, "1", "3"), experiment.Options{Out: dir}); err != nil {
		t.Fatal(err)
	}
	want := withoutSeconds(t, filepath.Join(dir, "results.json"))
	if _, err := os.Stat(filepath.Join(dir, "report.md")); err != nil {
		t.Fatal(err)
	}

	// A finished run: nothing is redone. A temporary file left by a
	// killed process (kill -9 during a write) is removed.
	tmp := filepath.Join(dir, "a", ".model.npz.tmp-123")
	os.WriteFile(tmp, []byte("partial"), 0o644)
	stderr, err := runTiny(t, tiny(t, "1", "3"), experiment.Options{Out: dir, Resume: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(tmp); err == nil || !strings.Contains(stderr, "removed "+tmp+", a temporary file of a killed run") {
		t.Errorf("stale temporary file kept (%v):\n%s", err, stderr)
	}
	if strings.Count(stderr, "finished before (3 epochs, 4 final estimators); kept") != 2 {
		t.Errorf("finished experiments not kept:\n%s", stderr)
	}
	sameRows(t, withoutSeconds(t, filepath.Join(dir, "results.json")), want)

	// Interrupted during the final evaluations: a after exact and ais, b
	// after exact (which shares its log Z with the AIS rows). a's ais is
	// not run again; b's exact is not needed again but b's ais needs what
	// it shared, so exact runs again too.
	keep := map[string]int{"a": 2, "b": 1}
	for exp, n := range keep {
		pp := filepath.Join(dir, exp, "final.progress.json")
		var p struct {
			Epoch   int               `json:"epoch"`
			Entries []json.RawMessage `json:"entries"`
		}
		b, _ := os.ReadFile(pp)
		if err := json.Unmarshal(b, &p); err != nil || len(p.Entries) != 4 {
			t.Fatalf("final.progress.json: %v, %d entries", err, len(p.Entries))
		}
		p.Entries = p.Entries[:n]
		b, _ = json.Marshal(p)
		os.WriteFile(pp, b, 0o644)
	}
	// The final rows are gone from results.json too, as when the process
	// dies before it writes them.
	var kept []report.Row
	for _, r := range want {
		if r.Stage != report.StageFinal {
			kept = append(kept, r)
		}
	}
	report.WriteResults(filepath.Join(dir, "results.json"), kept)
	stderr, err = runTiny(t, tiny(t, "1", "3"), experiment.Options{Out: dir, Resume: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{
		"a: trained before (3 epochs); 2 of 4 final estimators were recorded, running the rest",
		"b: trained before (3 epochs); 1 of 4 final estimators were recorded, running the rest",
		"b epoch 3 AIS ",
	} {
		if !strings.Contains(stderr, w) {
			t.Errorf("stderr lacks %q:\n%s", w, stderr)
		}
	}
	if strings.Contains(stderr, "a epoch 3 AIS ") {
		t.Errorf("a's recorded ais entry ran again:\n%s", stderr)
	}
	sameRows(t, withoutSeconds(t, filepath.Join(dir, "results.json")), want)
}

// TestReportAfterEachExperiment checks that report.md and results.json
// hold a finished experiment when a later one fails, and that a diverged
// experiment says which checkpoint is really on disk.
func TestReportAfterEachExperiment(t *testing.T) {
	y := strings.NewReplacer("%SEED%", "1", "%HIDDEN%", "3").Replace(tinyConfig)
	y = strings.Replace(y, "  - name: b\n", "  - name: b\n    train: {learning_rate: 1e308, checkpoint_every: 2, epochs: 3}\n", 1)
	f, err := config.Parse([]byte(y), "tiny.yaml", config.Options{})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	// When b starts failing, a's report must already be on disk.
	var sawReport *bool
	watch := &lineWatcher{on: func(line string) {
		if strings.HasPrefix(line, "logz: experiment b failed") && sawReport == nil {
			md, err := os.ReadFile(filepath.Join(dir, "report.md"))
			ok := err == nil && strings.Contains(string(md), "rbm 8-3")
			sawReport = &ok
		}
	}}
	_, err = experiment.Run(f, experiment.Options{Out: dir, Stderr: watch})
	stderr := watch.buf.String()
	if sawReport == nil || !*sawReport {
		t.Errorf("report.md did not hold experiment a when b failed")
	}
	var fe *experiment.FailedError
	if !errors.As(err, &fe) || len(fe.Experiments) != 1 || fe.Experiments[0] != "b" {
		t.Fatalf("got %v, want experiment b failed", err)
	}
	if strings.Count(stderr+err.Error(), "training diverged") != 1 {
		t.Errorf("the failure should be told once:\n%s\n%v", stderr, err)
	}
	if !strings.Contains(stderr, "epoch 1") || !strings.Contains(stderr, "no checkpoint was written (the first checkpoint was due after epoch 2)") {
		t.Errorf("the divergence message should say what is on disk:\n%s", stderr)
	}
	rows := withoutSeconds(t, filepath.Join(dir, "results.json"))
	finals := 0
	for _, r := range rows {
		if r.Experiment == "a" && r.Stage == report.StageFinal {
			finals++
		}
	}
	md, _ := os.ReadFile(filepath.Join(dir, "report.md"))
	if finals == 0 || !strings.Contains(string(md), "a") {
		t.Errorf("a's final rows are not in the run folder (%d rows):\n%s", finals, md)
	}
}

// lineWatcher is an io.Writer that calls on for each complete line.
type lineWatcher struct {
	buf     bytes.Buffer
	pending string
	on      func(string)
}

func (w *lineWatcher) Write(p []byte) (int, error) {
	w.buf.Write(p)
	w.pending += string(p)
	for {
		line, rest, ok := strings.Cut(w.pending, "\n")
		if !ok {
			return len(p), nil
		}
		w.on(line)
		w.pending = rest
	}
}

// TestRunShowsETA: every per-epoch line of `logz run` ends with an ETA for
// the whole run (both experiments: 5 epochs left after a's first), and a
// --resume that retrains b still shows it after b's first epoch.
func TestRunShowsETA(t *testing.T) {
	dir := t.TempDir()
	f := tiny(t, "1", "3")
	stderr, err := runTiny(t, f, experiment.Options{Out: dir, Stdout: &bytes.Buffer{}})
	if err != nil {
		t.Fatal(err)
	}
	epochLines := func(s string) []string {
		var out []string
		for _, l := range strings.Split(s, "\n") {
			if strings.Contains(l, ": epoch ") {
				out = append(out, l)
			}
		}
		return out
	}
	lines := epochLines(stderr)
	if !strings.Contains(lines[0], "(run: 5 epoch(s) left, ") {
		t.Errorf("first line %q: 5 epochs are left in the run", lines[0])
	}
	if len(lines) != 6 {
		t.Fatalf("%d epoch lines, want 6:\n%s", len(lines), stderr)
	}
	for _, l := range lines {
		// The final evaluations are foreseen (or named) on every line.
		if !strings.Contains(l, "  ETA ") || !strings.Contains(l, "final evaluations") {
			t.Errorf("epoch line without the run's ETA: %q", l)
		}
	}
	for _, p := range []string{"b/model.npz", "b/final.progress.json"} {
		os.Remove(filepath.Join(dir, p))
	}
	stderr, err = runTiny(t, f, experiment.Options{Out: dir, Resume: true, Stdout: &bytes.Buffer{}})
	if err != nil {
		t.Fatal(err)
	}
	lines = epochLines(stderr)
	if len(lines) != 3 {
		t.Fatalf("resumed: %d epoch lines, want b's 3:\n%s", len(lines), stderr)
	}
	for i, l := range lines {
		// a is finished: only b's epochs are left.
		if want := fmt.Sprintf("(run: %d epoch(s) left, ", 2-i); !strings.HasPrefix(l, "b: ") || !strings.Contains(l, "  ETA ") || !strings.Contains(l, want) {
			t.Errorf("resumed epoch line %q, want b's with an ETA ending %q", l, want)
		}
	}
}

// TestResumeNeedsARun: --resume on a folder that holds no run (a mistyped
// --out) is refused, saying how to start one, and makes no folder; with
// ResumeAuto (--resume=auto) it starts the run.
func TestResumeNeedsARun(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "typo")
	empty := t.TempDir()
	for _, c := range []struct{ dir, why string }{{missing, "there is no such folder"}, {empty, "it is empty"}} {
		_, err := runTiny(t, tiny(t, "1", "3"), experiment.Options{Out: c.dir, Resume: true})
		var fe *experiment.FolderError
		if !errors.As(err, &fe) {
			t.Fatalf("%s: got %v, want a FolderError", c.dir, err)
		}
		for _, w := range []string{c.dir + " holds no run to continue (" + c.why + ")", "drop --resume", "--resume=auto"} {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("error %q\nlacks %q", err, w)
			}
		}
	}
	if _, err := os.Stat(missing); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a refused --resume made the folder: %v", err)
	}
	if entries, _ := os.ReadDir(empty); len(entries) > 1 { // the lock file at most
		t.Errorf("a refused --resume wrote into the empty folder: %v", entries)
	}
	stderr, err := runTiny(t, tiny(t, "1", "3"), experiment.Options{Out: missing, Resume: true, ResumeAuto: true})
	if err != nil {
		t.Fatalf("--resume=auto into a new folder: %v", err)
	}
	if !strings.Contains(stderr, "holds no run yet; starting one") {
		t.Errorf("--resume=auto did not say it starts a run:\n%s", stderr)
	}
	if !experiment.HoldsRun(missing) {
		t.Errorf("--resume=auto wrote no run into %s", missing)
	}
}

// TestMissingDataBeforeFolder: a data file that is not there (an npy:
// path, MNIST in a directory without it) is reported naming the
// experiment and key before the run folder is made: no folder is left
// behind, with or without --shard.
func TestMissingDataBeforeFolder(t *testing.T) {
	tmp := t.TempDir()
	for _, c := range []struct{ name, from, to, want string }{
		{"npy", "    test: planted:test\n", "    test: npy:" + filepath.Join(tmp, "nope.npy") + "\n",
			"experiment a: data.test: npy:" + filepath.Join(tmp, "nope.npy") + ": no such file"},
		{"mnist", "    train: planted:train\n", "    train: mnist:train\n    data_dir: " + tmp + "\n",
			"experiment a: data.train: mnist:train: no train-images-idx3-ubyte or train-images-idx3-ubyte.gz in " + tmp},
	} {
		t.Run(c.name, func(t *testing.T) {
			y := strings.NewReplacer("%SEED%", "1", "%HIDDEN%", "3").Replace(tinyConfig)
			y = strings.Replace(y, c.from, c.to, 1)
			if c.name == "mnist" {
				y = strings.Replace(y, "    planted:", "    binarize: threshold\n    planted:", 1)
			}
			f, err := config.Parse([]byte(y), "tiny.yaml", config.Options{})
			if err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(tmp, "run-"+c.name)
			_, err = runTiny(t, f, experiment.Options{Out: out})
			var de *experiment.DataError
			if !errors.As(err, &de) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want a DataError containing %q", err, c.want)
			}
			if _, err := os.Stat(out); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("the run folder was made: %v", err)
			}
			err = experiment.RunShard(f, experiment.ShardOptions{Out: out, Shard: experiment.Shard{Index: 0, Count: 2}, Stderr: &bytes.Buffer{}})
			if !errors.As(err, &de) {
				t.Fatalf("--shard: got %v, want a DataError", err)
			}
			if _, err := os.Stat(out); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("--shard: the run folder was made: %v", err)
			}
		})
	}
}

// TestResumeDamagedCheckpoint: a checkpoint whose training state holds NaN
// is refused on --resume, before anything is written, as a damaged file
// naming it and the array — not trained from, to be reported as a
// diverged training.
func TestResumeDamagedCheckpoint(t *testing.T) {
	dir := t.TempDir()
	if _, err := runTiny(t, tiny(t, "1", "3"), experiment.Options{Out: dir}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "a", "model.npz")
	c, err := models.Load(path, family.Codecs())
	if err != nil {
		t.Fatal(err)
	}
	var name string
	for k, a := range c.State {
		if len(a.Data) > 0 && (name == "" || k < name) {
			name = k
		}
	}
	if name == "" {
		t.Fatalf("%s holds no state arrays", path)
	}
	c.State[name].Data[len(c.State[name].Data)-1] = math.NaN()
	c.Meta.Epoch = 1 // so that --resume trains from it
	if err := models.Save(path, c, family.Codecs()); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, dir)
	_, err = runTiny(t, tiny(t, "1", "3"), experiment.Options{Out: dir, Resume: true})
	var fe *experiment.FolderError
	if !errors.As(err, &fe) {
		t.Fatalf("got %v, want a FolderError", err)
	}
	for _, w := range []string{path, "damaged", models.StatePrefix + name, "NaN"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q\nlacks %q", err, w)
		}
	}
	if strings.Contains(err.Error(), "diverged") || strings.Contains(err.Error(), "learning rate") {
		t.Errorf("a damaged checkpoint reported as a diverged training: %v", err)
	}
	unchanged(t, before, snapshot(t, dir))
}
