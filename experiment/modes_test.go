package experiment_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/logz-ml/logz/config"
	"github.com/logz-ml/logz/eval/report"
	"github.com/logz-ml/logz/experiment"
	"github.com/logz-ml/logz/family"
	"github.com/logz-ml/logz/family/kit"
	"github.com/logz-ml/logz/family/kit/estim"
	"github.com/logz-ml/logz/family/kit/evalenv"
	"github.com/logz-ml/logz/models"
)

// A family whose after-epoch estimator fails: what each mode writes and
// reports when an experiment's training stops at an evaluation.

// breakEpochs, if set, is a run folder in which the failing estimator also
// makes the experiment's epochs.csv unwritable (a folder in its place), so
// that keeping the rows of the failed epoch fails too.
var breakEpochs string

var errEpochEstimator = errors.New("the after-epoch estimator failed")

func init() {
	f := &family.Family{
		Name: "failing-test",
		Doc:  "independent units whose after-epoch estimator fails (a test family)",
		Codec: models.Type{
			Name:   "failing-test",
			Doc:    "logits (D)",
			Arrays: func(m models.Model) []models.Array { return nil },
		},
		Model:    func() family.Settings { return &indepModel{Smoothing: 1} },
		Train:    func() family.Settings { return &indepTrain{Epochs: 1} },
		Trainers: []family.TrainerInfo{{Method: "", Doc: "smoothed means"}},
		Plugin:   indepBuilder{},
		Estimators: []*family.Estimator{estim.Define(estim.Def[models.Model, noSettings]{
			Name: "fail", Doc: "fails",
			Run: func(env *evalenv.Env, _ models.Model, _ *noSettings, _ evalenv.Job) ([]report.Row, error) {
				if breakEpochs != "" {
					if err := os.MkdirAll(filepath.Join(breakEpochs, env.Experiment, "epochs.csv", "in-the-way"), 0o755); err != nil {
						return nil, err
					}
				}
				return nil, errEpochEstimator
			},
		})},
	}
	f.EveryEpoch = func() []family.Configured { return []family.Configured{f.Entry("fail")} }
	f.Final = func() []family.Configured { return nil }
	kit.Register(f)
}

func failingConfig(t *testing.T) *config.File {
	t.Helper()
	src := `experiments:
  - name: toy
    data: {train: planted:train, test: planted:test, planted: {train: 50, test: 20}}
    model: {type: failing-test}
    train: {epochs: 2}
    evaluate: {splits: [test], every_epoch: [fail], final: []}
`
	f, err := config.Parse([]byte(src), "failing.yaml", config.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// When an after-epoch evaluation fails and keeping the rows fails too, both
// errors are reported, in a run and in a training shard. (The second was
// dropped: only the estimator's error was reported, and a run that had
// lost its epochs.csv said nothing about it.)
func TestEpochEvaluationFailureReportsWriteError(t *testing.T) {
	for _, mode := range []string{"run", "training shard"} {
		t.Run(mode, func(t *testing.T) {
			f := failingConfig(t)
			out := t.TempDir()
			breakEpochs = out
			defer func() { breakEpochs = "" }()
			var stderr bytes.Buffer
			var err error
			if mode == "run" {
				_, err = experiment.Run(f, experiment.Options{Out: out, Stderr: &stderr})
			} else {
				err = experiment.RunShard(f, experiment.ShardOptions{Out: out, Shard: experiment.Shard{Index: 0, Count: 1}, Phase: experiment.PhaseTrain, Stderr: &stderr, Logz: "test"})
			}
			var fe *experiment.FailedError
			if !errors.As(err, &fe) {
				t.Fatalf("err = %v, want a FailedError", err)
			}
			for _, want := range []string{"logz: experiment toy failed: ", errEpochEstimator.Error(), filepath.Join(out, "toy", "epochs.csv")} {
				if !strings.Contains(stderr.String(), want) {
					t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
				}
			}
		})
	}
}

// A merge writes the results of a sharded run as Run writes them, also
// when the training of every experiment failed: results.json and the
// reports hold the training rows. (The merge wrote none of them, though it
// said it wrote the folder.)
func TestMergeOfFailedTrainingWritesResults(t *testing.T) {
	f := failingConfig(t)
	whole := t.TempDir()
	if _, err := experiment.Run(f, experiment.Options{Out: whole}); err == nil {
		t.Fatal("the run did not fail")
	}
	sharded := t.TempDir()
	if err := experiment.RunShard(f, experiment.ShardOptions{Out: sharded, Shard: experiment.Shard{Index: 0, Count: 1}, Phase: experiment.PhaseTrain, Logz: "test"}); err == nil {
		t.Fatal("the training shard did not fail")
	}
	var stderr bytes.Buffer
	_, err := experiment.Merge(experiment.Options{Out: sharded, Stderr: &stderr}, "test")
	var fe *experiment.FailedError
	if !errors.As(err, &fe) || !strings.Contains(stderr.String(), "logz: experiment toy failed: fail: "+errEpochEstimator.Error()) {
		t.Fatalf("merge: %v\n%s", err, stderr.String())
	}
	for _, name := range []string{config.ResultsFile, config.ReportFile, "report.html"} {
		if _, err := os.Stat(filepath.Join(sharded, name)); err != nil {
			t.Errorf("the merge wrote no %s: %v", name, err)
		}
	}
	want, got := withoutSeconds(t, filepath.Join(whole, config.ResultsFile)), withoutSeconds(t, filepath.Join(sharded, config.ResultsFile))
	if len(want) == 0 || !equalJSON(t, want, got) {
		t.Errorf("merged rows differ from the run's:\n%v\n%v", got, want)
	}
}

func equalJSON(t *testing.T, a, b any) bool {
	t.Helper()
	x, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	y, err := json.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Equal(x, y)
}
