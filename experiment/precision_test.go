package experiment_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/logz-ml/logz/config"
	"github.com/logz-ml/logz/experiment"
	"github.com/logz-ml/logz/family"
	"github.com/logz-ml/logz/models"
)

// tinyPrecision is tinyConfig's first experiment, trained for epochs
// epochs with the train line's extra keys (precision: ...).
func tinyPrecision(t *testing.T, epochs, extra string) *config.File {
	t.Helper()
	y := `name: tiny
seed: 1
experiments:
  - name: a
    data:
      train: planted:train
      test: planted:test
      planted: {visible: 8, hidden: 3, train: 200, valid: 50, test: 100}
    model: {type: rbm, hidden: 3}
    train: {epochs: ` + epochs + `, batch_size: 20, learning_rate: 0.05, checkpoint_every: 1` + extra + `}
    evaluate: {every_epoch: [], final: [exact]}
`
	f, err := config.Parse([]byte(y), "tiny.yaml", config.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestResumeFloat64UnderFloat32Default: cd and pcd train in float32 when
// train.precision is unset, so a run trained in float64 (explicitly, or
// by the old default) cannot be resumed from a config without the key;
// both refusals say to set train.precision: float64, and with it the run
// continues.
func TestResumeFloat64UnderFloat32Default(t *testing.T) {
	// The run folder's resolved config says float64; the config sets
	// nothing: refused before anything is written.
	done := t.TempDir()
	if _, err := runTiny(t, tinyPrecision(t, "2", ", precision: float64"), experiment.Options{Out: done}); err != nil {
		t.Fatal(err)
	}
	refusedWithoutPrecision(t, done, "2")

	// A run folder of a version that wrote no precision key (it trained
	// in float64), interrupted after epoch 2 of 3: the missing key reads
	// as float64, not today's default, so the config without it is
	// refused with the same advice, and with precision: float64 the run
	// continues from the checkpoint.
	old := t.TempDir()
	if _, err := runTiny(t, tinyPrecision(t, "2", ", precision: float64"), experiment.Options{Out: old}); err != nil {
		t.Fatal(err)
	}
	resolved := filepath.Join(old, config.ResolvedFile)
	b, err := os.ReadFile(resolved)
	if err != nil {
		t.Fatal(err)
	}
	var kept []string
	for _, l := range strings.Split(string(b), "\n") {
		switch strings.TrimSpace(l) {
		case "precision: float64":
			continue
		case "epochs: 2":
			l = strings.Replace(l, "2", "3", 1)
		}
		kept = append(kept, l)
	}
	if len(kept) != len(strings.Split(string(b), "\n"))-1 {
		t.Fatalf("%s: no line precision: float64 removed", resolved)
	}
	if err := os.WriteFile(resolved, []byte(strings.Join(kept, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{config.ResultsFile, filepath.Join("a", "final.progress.json")} {
		if err := os.Remove(filepath.Join(old, f)); err != nil {
			t.Fatal(err)
		}
	}
	refusedWithoutPrecision(t, old, "3")
	stderr, err := runTiny(t, tinyPrecision(t, "3", ", precision: float64"), experiment.Options{Out: old, Resume: true})
	if err != nil {
		t.Fatalf("resuming with precision: float64: %v", err)
	}
	if !strings.Contains(stderr, "a: epoch 3/3") || strings.Contains(stderr, "a: epoch 1/3") {
		t.Errorf("the resumed run did not continue from epoch 2:\n%s", stderr)
	}
}

// refusedWithoutPrecision resumes the float64 run in dir with the config
// of epochs epochs that does not set train.precision: it must be refused
// before anything is written, naming the key and the setting that
// continues the run.
func refusedWithoutPrecision(t *testing.T, dir, epochs string) {
	t.Helper()
	before := snapshot(t, dir)
	_, err := runTiny(t, tinyPrecision(t, epochs, ""), experiment.Options{Out: dir, Resume: true})
	var fe *experiment.FolderError
	if !errors.As(err, &fe) {
		t.Fatalf("got %v, want a FolderError", err)
	}
	for _, w := range []string{`experiments[0].train.precision: "float64" in the run folder, "float32" now`, "set train.precision: float64 to continue it"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q\nlacks %q", err, w)
		}
	}
	unchanged(t, before, snapshot(t, dir))
}

// TestResumeRefusesImpossibleEpoch: a checkpoint that says more epochs are
// done than the experiment trains (or fewer than none) is refused with the
// counts, and the run folder is left as it was; before, the run took it as
// trained, ran the final estimates again and labelled them epoch 1000.
func TestResumeRefusesImpossibleEpoch(t *testing.T) {
	for _, epoch := range []int{1000, -3} {
		dir := t.TempDir()
		f := tinyPrecision(t, "2", "")
		if _, err := runTiny(t, f, experiment.Options{Out: dir}); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, "a", "model.npz")
		c, err := models.Load(path, family.Codecs())
		if err != nil {
			t.Fatal(err)
		}
		var st map[string]any
		if err := json.Unmarshal(c.Meta.Train, &st); err != nil {
			t.Fatal(err)
		}
		st["epoch"] = epoch
		if c.Meta.Train, err = json.Marshal(st); err != nil {
			t.Fatal(err)
		}
		c.Meta.Epoch = epoch
		if err := models.Save(path, c, family.Codecs()); err != nil {
			t.Fatal(err)
		}
		before := snapshot(t, dir)
		stderr, err := runTiny(t, f, experiment.Options{Out: dir, Resume: true})
		want := fmt.Sprintf("--resume from %s: the checkpoint says %d epochs are done, but the experiment trains 2", path, epoch)
		got := stderr
		if epoch < 0 {
			// Refused when the file is read (models.Load), before the run
			// starts: a damaged file, named.
			want = fmt.Sprintf("--resume: %s: meta: epoch %d: expected the number of completed training epochs (≥ 0); the file is damaged", path, epoch)
			if err != nil {
				got = err.Error()
			}
		}
		if err == nil || !strings.Contains(got, want) {
			t.Errorf("epoch %d: got %v\n%s\nwant …%s…", epoch, err, stderr, want)
		}
		unchanged(t, before, snapshot(t, dir))
	}
}
