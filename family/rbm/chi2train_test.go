package rbm_test

import (
	"bytes"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/logz-ml/logz/config"
	"github.com/logz-ml/logz/experiment"
	"github.com/logz-ml/logz/family"
	_ "github.com/logz-ml/logz/family/all"
	"github.com/logz-ml/logz/models"
)

const tinyChi2 = `name: tiny-chi2
seed: 3
base:
  data:
    train: planted:train
    test: planted:test
    planted: {visible: 10, hidden: 4, train: 400, valid: 10, test: 100}
  model: {type: rbm, hidden: 4}
  train: {method: chi2, epochs: 3, batch_size: 40, learning_rate: 0.02, momentum: 0, final_momentum: 0, q_steps: 2}
  evaluate:
    splits: [test]
    every_epoch: [exact]
    final: [exact]
experiments:
  - name: chi2
`

// TestChi2RunsFromConfig: method chi2 trains from a config through the
// runner, and each epoch's row carries the tracked bound as "chi2-logz",
// within a nat of the exact log Z of the model after that epoch.
func TestChi2RunsFromConfig(t *testing.T) {
	f, err := config.Parse([]byte(tinyChi2), "tiny.yaml", config.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	rows, err := experiment.Run(f, experiment.Options{Out: t.TempDir(), Stderr: &stderr})
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	tracked, exact := map[int]float64{}, map[int]float64{}
	for _, r := range rows {
		switch {
		case r.Estimator == "train":
			if r.Init != "chi2-logz" {
				t.Errorf("epoch %d: train row's signal is %q, want chi2-logz", r.Epoch, r.Init)
			}
			tracked[r.Epoch] = *r.Value
		case r.Estimator == "exact" && r.Stage == "epoch" && r.LogZ != nil:
			exact[r.Epoch] = float64(*r.LogZ)
		}
	}
	if len(tracked) != 3 || len(exact) != 3 {
		t.Fatalf("tracked %v, exact %v", tracked, exact)
	}
	for e, lz := range exact {
		// The tracked value is the mean over the epoch's steps (θ moves
		// during it): a loose agreement, not an estimator test.
		if math.Abs(tracked[e]-lz) > 1 {
			t.Errorf("epoch %d: tracked log Z %.3f, exact %.3f", e, tracked[e], lz)
		}
	}
	if !strings.Contains(stderr.String(), "chi2-logz") {
		t.Errorf("progress lines do not show the tracked log Z:\n%s", stderr.String())
	}
}

// TestFloat32FromConfig: train.precision: float32 reaches the trainer (its
// checkpoint records it) and a PCD run's training rows name the sampled
// reconstruction monitor.
func TestFloat32FromConfig(t *testing.T) {
	cfg := strings.Replace(tinyChi2, "train: {method: chi2, epochs: 3, batch_size: 40, learning_rate: 0.02, momentum: 0, final_momentum: 0, q_steps: 2}",
		"train: {method: pcd, epochs: 2, batch_size: 40, precision: float32}", 1)
	f, err := config.Parse([]byte(cfg), "tiny.yaml", config.Options{})
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	var stderr bytes.Buffer
	rows, err := experiment.Run(f, experiment.Options{Out: out, Stderr: &stderr})
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	n := 0
	for _, r := range rows {
		if r.Estimator == "train" {
			n++
			if r.Init != "recon-1in10" {
				t.Errorf("epoch %d: train row's signal is %q, want recon-1in10", r.Epoch, r.Init)
			}
		}
	}
	if n != 2 {
		t.Errorf("%d training rows, want 2", n)
	}
	c, err := models.Load(filepath.Join(out, "chi2", "model.npz"), family.Codecs())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(c.Meta.Train), `"precision":"float32"`) {
		t.Errorf("checkpoint training state %s does not record float32", c.Meta.Train)
	}
}

// TestChi2SettingsErrors: bad chi2 settings are reported naming the key.
func TestChi2SettingsErrors(t *testing.T) {
	for _, c := range []struct{ train, want string }{
		{"{method: chi2, learning_rate: 0.001}", "momentum: 0"},
		{"{method: chi2, momentum: 0, final_momentum: 0, q_samples: 1}", "q_samples"},
		{"{method: chi2, momentum: 0, final_momentum: 0, q_steps: 0}", "q_steps"},
		{"{method: chi2, momentum: 0, final_momentum: 0, q_components: 0}", "q_components"},
		{"{method: chi2, momentum: 0, final_momentum: 0, q_decay: 1}", "q_decay"},
		{"{method: chi2, momentum: 0, final_momentum: 0, q_learning_rate: -1}", "q_learning_rate"},
		{"{method: chi2, momentum: 0, final_momentum: 0, chains: 10}", "chains"},
		{"{method: pcd, q_steps: 2}", `only used by method "chi2"`},
		{"{method: cd, linearise: false}", `only used by method "chi2"`},
		{"{method: chi3}", "cd, pcd or chi2"},
		{"{method: chi2, momentum: 0, final_momentum: 0, precision: float32}", `method "chi2" trains in float64 only`},
	} {
		cfg := strings.Replace(tinyChi2, "train: {method: chi2, epochs: 3, batch_size: 40, learning_rate: 0.02, momentum: 0, final_momentum: 0, q_steps: 2}", "train: "+c.train, 1)
		_, err := config.Parse([]byte(cfg), "tiny.yaml", config.Options{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("train %s: want an error with %q, got %v", c.train, c.want, err)
		}
	}
	dbn := strings.Replace(tinyChi2, "model: {type: rbm, hidden: 4}", "model: {type: dbn, layers: [4, 4]}", 1)
	// A dbn's train: section has no χ² keys, and its method is cd or pcd.
	if _, err := config.Parse([]byte(dbn), "tiny.yaml", config.Options{}); err == nil || !strings.Contains(err.Error(), "train.q_steps: unknown key") || !strings.Contains(err.Error(), `train.method: expected cd or pcd, got "chi2"`) {
		t.Errorf("dbn with method chi2: %v", err)
	}
}
