package experiment_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/logz-ml/logz/config"
	"github.com/logz-ml/logz/eval/report"
	"github.com/logz-ml/logz/experiment"
	"github.com/logz-ml/logz/family"
	"github.com/logz-ml/logz/models"
)

// limitConfig is two small RBM experiments of 6 epochs that checkpoint
// every 5: a stop after epoch 3 must save a checkpoint of its own.
const limitConfig = `name: limit
seed: 4
base:
  data:
    train: planted:train
    test: planted:test
    planted: {visible: 8, hidden: 3, train: 200, valid: 50, test: 100}
  model: {type: rbm, hidden: 3}
  train: {epochs: 6, batch_size: 20, learning_rate: 0.05, checkpoint_every: 5}
  evaluate:
    every_epoch: [exact]
    final:
      - exact
      - {name: ais, runs: 8, betas: 200}
experiments:
  - name: a
  - name: b
`

func limitFile(t *testing.T) *config.File {
	t.Helper()
	f, err := config.Parse([]byte(limitConfig), "limit.yaml", config.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// savedEpoch is the epoch of the checkpoint at path.
func savedEpoch(t *testing.T, path string) int {
	t.Helper()
	c, err := models.Load(path, family.Codecs())
	if err != nil {
		t.Fatal(err)
	}
	return c.Meta.Epoch
}

// uninterrupted runs limitConfig to its end in a new folder and returns
// its results without wall times.
func uninterrupted(t *testing.T) []report.Row {
	t.Helper()
	dir := t.TempDir()
	if _, err := runTiny(t, limitFile(t), experiment.Options{Out: dir}); err != nil {
		t.Fatal(err)
	}
	return withoutSeconds(t, filepath.Join(dir, "results.json"))
}

// TestTimeLimitStopsBetweenEpochs: on a clock where every epoch takes a
// minute, a deadline 3.5 minutes away lets three epochs run (a fourth
// would end after it), saves epoch 3 although checkpoints fall every 5,
// starts no other experiment, says what it kept, and a --resume then
// reaches the uninterrupted run's results exactly.
func TestTimeLimitStopsBetweenEpochs(t *testing.T) {
	want := uninterrupted(t)
	dir := t.TempDir()
	epochs, stderr, err := stopAfterThreeEpochs(t, dir)
	var tl *experiment.TimeLimitError
	if !errors.As(err, &tl) {
		t.Fatalf("want a *TimeLimitError, got %v\n%s", err, stderr)
	}
	if epochs != 3 {
		t.Errorf("%d epochs trained, want 3", epochs)
	}
	if got := savedEpoch(t, filepath.Join(dir, "a", "model.npz")); got != 3 {
		t.Errorf("model.npz holds epoch %d, want 3", got)
	}
	if _, err := os.Stat(filepath.Join(dir, "b")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("experiment b was started after the time limit: %v", err)
	}
	if !strings.Contains(err.Error(), "a/model.npz holds epoch 3 of 6") {
		t.Errorf("the error does not say what was kept: %v", err)
	}
	if _, err := runTiny(t, limitFile(t), experiment.Options{Out: dir, Resume: true}); err != nil {
		t.Fatal(err)
	}
	sameRows(t, withoutSeconds(t, filepath.Join(dir, "results.json")), want)
}

// stopAfterThreeEpochs runs limitConfig in dir on a clock where every
// epoch takes a minute, with a deadline 3.5 minutes away: three epochs
// run (a fourth would end after it). It returns the epochs trained, what
// the run said and its error.
func stopAfterThreeEpochs(t *testing.T, dir string) (int64, string, error) {
	t.Helper()
	return stopAfterThreeEpochsOf(t, limitFile(t), dir)
}

// stopAfterThreeEpochsOf is stopAfterThreeEpochs for the config f.
func stopAfterThreeEpochsOf(t *testing.T, f *config.File, dir string) (int64, string, error) {
	t.Helper()
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var epochs atomic.Int64
	var stderr strings.Builder
	w := &lineWatcher{on: func(line string) {
		stderr.WriteString(line + "\n")
		if strings.Contains(line, ": epoch ") {
			epochs.Add(1)
		}
	}}
	clock := func() time.Time { return base.Add(time.Duration(epochs.Load()) * time.Minute) }
	opt := experiment.WithClock(experiment.Options{Out: dir, Stderr: w, Deadline: base.Add(3*time.Minute + 30*time.Second)}, clock)
	_, err := experiment.Run(f, opt)
	return epochs.Load(), stderr.String(), err
}

// keptEpochsTakeAMinute rewrites the results of the run in dir so that its
// kept epochs say: training 60 s, evaluation 0; except that epoch paused
// (0: none) trained for ten hours.
func keptEpochsTakeAMinute(t *testing.T, dir string, paused int) {
	t.Helper()
	results := filepath.Join(dir, "results.json")
	rows, err := report.ReadResults(results)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range rows {
		switch {
		case r.Stage != report.StageEpoch:
		case r.Epoch == paused && r.Estimator == "train":
			rows[i].Seconds = 36000
		case r.Estimator == "train":
			rows[i].Seconds = 60
		default:
			rows[i].Seconds = 0
		}
	}
	if err := report.WriteResults(results, rows); err != nil {
		t.Fatal(err)
	}
}

// TestRefusedSittingKeepsTheReport: a sitting that trains and evaluates
// nothing leaves the run folder as it was, report.md's command and start
// time included (they are the sitting's that did the work): one refused
// because its time limit is shorter than an epoch, and a --resume of a
// finished run.
func TestRefusedSittingKeepsTheReport(t *testing.T) {
	f, err := config.Parse([]byte(strings.Replace(limitConfig, "  - name: b\n", "", 1)), "limit.yaml", config.Options{})
	if err != nil || len(f.Experiments) != 1 {
		t.Fatalf("one experiment: %v", err)
	}
	dir := t.TempDir()
	if _, _, err := stopAfterThreeEpochsOf(t, f, dir); err == nil {
		t.Fatal("the first sitting was not stopped by its time limit")
	}
	keptEpochsTakeAMinute(t, dir, 0)
	sitting := func(name string, deadline time.Time) error {
		_, err := runTiny(t, f, experiment.Options{Out: dir, Resume: true, Deadline: deadline,
			Meta: map[string]string{"command": "logz run (sitting " + name + ")"}})
		return err
	}
	// The report of the first sitting names no command; the second writes one.
	if err := sitting("two", time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, dir)
	if !strings.Contains(before["/report.md"], "sitting two") {
		t.Fatalf("the sitting that finished the run did not write its command into report.md:\n%s", before["/report.md"])
	}
	if err := sitting("three", time.Time{}); err != nil {
		t.Fatalf("a --resume of the finished run: %v", err)
	}
	unchanged(t, before, snapshot(t, dir))

	// Refused: a's kept epochs take a minute, the limit is 50 s.
	dir = t.TempDir()
	if _, _, err := stopAfterThreeEpochsOf(t, f, dir); err == nil {
		t.Fatal("the first sitting was not stopped by its time limit")
	}
	keptEpochsTakeAMinute(t, dir, 0)
	before = snapshot(t, dir)
	if err := sitting("four", time.Now().Add(50*time.Second)); err == nil {
		t.Fatal("a 50 s sitting was not refused")
	}
	unchanged(t, before, snapshot(t, dir))
}

// TestTimeLimitCountsKeptEpochs: a resumed sitting judges its first epoch
// by the epochs it kept (the median training time plus the median
// evaluation). Their rows (training 60 s, evaluation 0) say an epoch of
// experiment a takes a minute, so a 50 s limit trains none of a (an
// error: no sitting that long could) and the checkpoint stays at epoch 3,
// while b, which kept no epochs, runs. One epoch that took ten hours (a
// paused machine) does not stop a sitting with two minutes, which then
// ends the run with the uninterrupted run's results.
func TestTimeLimitCountsKeptEpochs(t *testing.T) {
	want := uninterrupted(t)
	dir := t.TempDir()
	if _, _, err := stopAfterThreeEpochs(t, dir); err == nil {
		t.Fatal("the first sitting was not stopped by its time limit")
	}
	keptEpochsTakeAMinute(t, dir, 1)
	stderr, err := runTiny(t, limitFile(t), experiment.Options{Out: dir, Resume: true, Deadline: time.Now().Add(50 * time.Second)})
	var failed *experiment.FailedError
	if !errors.As(err, &failed) || !slices.Equal(failed.Experiments, []string{"a"}) {
		t.Fatalf("a 50 s limit: want experiment a failed, got %v\n%s", err, stderr)
	}
	if !strings.Contains(stderr, "the time limit (50s) is shorter than an epoch of a (about 1m0s") || !strings.Contains(stderr, "at least 2m0s") {
		t.Errorf("a 50 s limit: the error does not say that an epoch of a takes a minute:\n%s", stderr)
	}
	if got := savedEpoch(t, filepath.Join(dir, "a", "model.npz")); got != 3 {
		t.Errorf("model.npz holds epoch %d, want 3 (an epoch was started with too little time left)", got)
	}
	if _, err := runTiny(t, limitFile(t), experiment.Options{Out: dir, Resume: true, Deadline: time.Now().Add(2 * time.Minute)}); err != nil {
		t.Fatalf("2 min left: %v", err)
	}
	sameRows(t, withoutSeconds(t, filepath.Join(dir, "results.json")), want)
}

// TestTimeLimitStopsBetweenFinalEstimators: the deadline passes while the
// first final estimator runs (the clock jumps once it is recorded); the
// run stops before the second, keeps the first, and a --resume reaches the
// uninterrupted run's results exactly. A deadline passed before the run
// starts trains nothing.
func TestTimeLimitStopsBetweenFinalEstimators(t *testing.T) {
	want := uninterrupted(t)
	dir := t.TempDir()
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	progress := filepath.Join(dir, "a", "final.progress.json")
	clock := func() time.Time {
		if _, err := os.Stat(progress); err == nil {
			return base.Add(time.Hour)
		}
		return base
	}
	_, err := runTiny(t, limitFile(t), experiment.WithClock(experiment.Options{Out: dir, Deadline: base.Add(time.Minute)}, clock))
	var tl *experiment.TimeLimitError
	if !errors.As(err, &tl) {
		t.Fatalf("want a *TimeLimitError, got %v", err)
	}
	b, rerr := os.ReadFile(progress)
	if rerr != nil {
		t.Fatal(rerr)
	}
	var recorded struct{ Entries []json.RawMessage }
	if err := json.Unmarshal(b, &recorded); err != nil || len(recorded.Entries) != 1 {
		t.Errorf("final.progress.json records %d estimators (%v), want 1:\n%s", len(recorded.Entries), err, b)
	}
	if !strings.Contains(err.Error(), "1 of 2 final estimators recorded") {
		t.Errorf("the error does not say what was kept: %v", err)
	}
	if _, err := runTiny(t, limitFile(t), experiment.Options{Out: dir, Resume: true}); err != nil {
		t.Fatal(err)
	}
	sameRows(t, withoutSeconds(t, filepath.Join(dir, "results.json")), want)

	late := t.TempDir()
	_, err = runTiny(t, limitFile(t), experiment.Options{Out: late, Deadline: time.Now().Add(-time.Second)})
	if !errors.As(err, &tl) || !strings.Contains(err.Error(), "nothing finished was saved") {
		t.Errorf("a deadline already passed: want a *TimeLimitError saying nothing was saved, got %v", err)
	}
	if _, err := os.Stat(filepath.Join(late, "a", "model.npz")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a deadline already passed: an epoch was trained (%v)", err)
	}
}

// TestTimeLimitStopsShardTraining: a shard whose deadline has passed
// trains nothing and says so (a *TimeLimitError, not a failed
// experiment); run again without a limit it trains and evaluates as usual.
func TestTimeLimitStopsShardTraining(t *testing.T) {
	dir := t.TempDir()
	f := limitFile(t)
	opt := experiment.ShardOptions{Out: dir, Shard: experiment.Shard{Index: 0, Count: 1}, Logz: "test", Deadline: time.Now().Add(-time.Second)}
	err := experiment.RunShard(f, opt)
	var tl *experiment.TimeLimitError
	if !errors.As(err, &tl) {
		t.Fatalf("want a *TimeLimitError, got %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "a", "model.npz")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("an epoch was trained after the deadline (%v)", err)
	}
	opt.Deadline = time.Time{}
	if err := experiment.RunShard(f, opt); err != nil {
		t.Fatal(err)
	}
}

// sandwichConfig is one small RBM whose only final estimator is a
// sandwich in rounds from 5 β up to maxBetas β that cannot
// close before its budget.
func sandwichConfig(t *testing.T, maxBetas string) *config.File {
	t.Helper()
	src := `name: limit-sandwich
seed: 4
experiments:
  - name: a
    data:
      train: planted:train
      test: planted:test
      planted: {visible: 8, hidden: 3, train: 200, valid: 50, test: 100}
    model: {type: rbm, hidden: 3}
    train: {epochs: 2, batch_size: 20, learning_rate: 0.05}
    evaluate:
      final:
        - {name: sandwich, until_gap: 1e-9, start_betas: 5, max_betas: ` + maxBetas + `, ais: {runs: 6}, raise: {chains: 3, examples: 11}}
`
	f, err := config.Parse([]byte(src), "limit-sandwich.yaml", config.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestTimeLimitStopsBetweenSandwichRounds: the deadline passes once the
// first round of a sandwich is recorded (the clock jumps); the run stops
// before the second round, keeps the first, and a --resume reaches the
// uninterrupted run's results exactly. A sandwich of a single round is
// not stopped after it: nothing more was to start, so the run ends.
func TestTimeLimitStopsBetweenSandwichRounds(t *testing.T) {
	want := t.TempDir()
	if _, err := runTiny(t, sandwichConfig(t, "80"), experiment.Options{Out: want}); err != nil {
		t.Fatal(err)
	}
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	jumpAfterPiece := func(dir string) func() time.Time {
		return func() time.Time {
			b, err := os.ReadFile(filepath.Join(dir, "a", "final.progress.json"))
			if err == nil && strings.Contains(string(b), `"pieces"`) {
				return base.Add(time.Hour)
			}
			return base
		}
	}
	dir := t.TempDir()
	_, err := runTiny(t, sandwichConfig(t, "80"), experiment.WithClock(experiment.Options{Out: dir, Deadline: base.Add(time.Minute)}, jumpAfterPiece(dir)))
	var tl *experiment.TimeLimitError
	if !errors.As(err, &tl) {
		t.Fatalf("want a *TimeLimitError, got %v", err)
	}
	if !strings.Contains(err.Error(), "1 piece(s) of sandwich") {
		t.Errorf("the error does not say that one round was kept: %v", err)
	}
	if _, err := runTiny(t, sandwichConfig(t, "80"), experiment.Options{Out: dir, Resume: true}); err != nil {
		t.Fatal(err)
	}
	sameRows(t, withoutSeconds(t, filepath.Join(dir, "results.json")), withoutSeconds(t, filepath.Join(want, "results.json")))

	one := t.TempDir()
	if _, err := runTiny(t, sandwichConfig(t, "5"), experiment.WithClock(experiment.Options{Out: one, Deadline: base.Add(time.Minute)}, jumpAfterPiece(one))); err != nil {
		t.Errorf("a one-round sandwich was stopped after its round: %v", err)
	}
}
