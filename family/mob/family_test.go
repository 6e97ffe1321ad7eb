package mob_test

import (
	"bytes"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/logz-ml/logz/config"
	"github.com/logz-ml/logz/eval"
	"github.com/logz-ml/logz/experiment"
	_ "github.com/logz-ml/logz/family/all"
	"github.com/logz-ml/logz/family/kit/sampling"
	"github.com/logz-ml/logz/family/mob"
	"github.com/logz-ml/logz/internal/sampletest"
	"github.com/logz-ml/logz/models/modeltest"
	"github.com/logz-ml/logz/train"
)

const tiny = `name: tiny-mob
seed: 3
base:
  data:
    train: planted:train
    test: planted:test
    planted: {visible: 10, hidden: 4, train: 300, valid: 10, test: 100, weight_scale: 2}
  model: {type: mob, components: 4}
  train: {method: em, epochs: 4, smoothing: 0.5}
  evaluate:
    splits: [train, test]
    every_epoch: [exact]
    final: [exact]
experiments:
  - name: em
`

// TestRunsFromConfig: a mob experiment runs through the runner; its exact
// rows say log Z = 0; each epoch's training row carries em-loglik, the
// mean training log p at the parameters the epoch started from — so the
// signal of epoch e is exact's train log-likelihood after epoch e − 1
// (to rounding), and it never falls. Mutation checked: reporting the
// signal as the log-likelihood summed over examples (not the mean) fails.
func TestRunsFromConfig(t *testing.T) {
	f, err := config.Parse([]byte(tiny), "tiny.yaml", config.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	rows, err := experiment.Run(f, experiment.Options{Out: t.TempDir(), Stderr: &stderr})
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	signal, exact := map[int]float64{}, map[int]float64{}
	for _, r := range rows {
		switch {
		case r.Estimator == "train":
			if r.Init != train.SignalEMLogLik {
				t.Errorf("epoch %d: train row's signal is %q, want %s", r.Epoch, r.Init, train.SignalEMLogLik)
			}
			signal[r.Epoch] = *r.Value
		case r.Estimator == "exact":
			if r.LogZ == nil || *r.LogZ != 0 {
				t.Errorf("exact row %s epoch %d: log Z %v, want 0", r.Split, r.Epoch, r.LogZ)
			}
			if r.Split == "train" && r.Stage == "epoch" {
				exact[r.Epoch] = *r.MeanLoglik
			}
		}
	}
	if len(signal) != 4 || len(exact) != 4 {
		t.Fatalf("signals %v, exact %v", signal, exact)
	}
	for e := 2; e <= 4; e++ {
		if d := signal[e] - exact[e-1]; math.Abs(d) > 1e-9 {
			t.Errorf("epoch %d: em-loglik %.12f, exact train log-likelihood after epoch %d %.12f", e, signal[e], e-1, exact[e-1])
		}
		if signal[e] < signal[e-1] {
			t.Errorf("epoch %d: em-loglik fell from %.6f to %.6f", e, signal[e-1], signal[e])
		}
	}
}

// TestBadSettings: bad model: and train: values are errors of the config
// that name the key and what was expected, and a mixture of more
// components than training examples fails when the trainer starts, saying
// so. Mutation checked: accepting smoothing 0 (the > 0 check as ≥ 0)
// fails.
func TestBadSettings(t *testing.T) {
	for _, c := range []struct{ old, new, want string }{
		{"components: 4", "components: 0", "components"},
		{"components: 4", "components: 1000000", "components"},
		{"components: 4", "components: 4, init_shrink: 1", "init_shrink"},
		{"smoothing: 0.5", "smoothing: 0", "smoothing"},
		{"smoothing: 0.5", "smoothing: -1", "smoothing"},
		{"smoothing: 0.5", "smoothing: 0.5, weight_smoothing: 0", "weight_smoothing"},
		{"method: em", "method: gd", "method"},
	} {
		src := strings.Replace(tiny, c.old, c.new, 1)
		_, err := config.Parse([]byte(src), "tiny.yaml", config.Options{})
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "tiny.yaml") {
			t.Errorf("%s: want an error naming tiny.yaml and %s, got %v", c.new, c.want, err)
		}
	}
	f, err := config.Parse([]byte(strings.Replace(tiny, "components: 4", "components: 400", 1)), "tiny.yaml", config.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	_, err = experiment.Run(f, experiment.Options{Out: t.TempDir(), Stderr: &stderr})
	if err == nil || !strings.Contains(stderr.String(), "model.components is 400, more than the 300 training examples") {
		t.Errorf("400 components from 300 examples: %v\n%s", err, stderr.String())
	}
}

// TestSampleDrawn: the family's samples, states and means, are those of
// eval.SampleMoB keyed by o.Seed, and the Drawn says they are ancestral;
// a start is refused. Mutation checked: passing false for the means
// (states where means were asked for) fails.
func TestSampleDrawn(t *testing.T) {
	m, err := modeltest.RandomMoB(3, 5, 1, rand.New(rand.NewPCG(1, 9)))
	if err != nil {
		t.Fatal(err)
	}
	draw := func(_ string, mean bool) ([]float64, error) {
		d, err := mob.Plugin{}.Sample(m, sampling.SampleOptions{N: 30, Mean: mean, Seed: 5, Workers: 2})
		if err != nil {
			return nil, err
		}
		if d.N != 30 || d.D != 5 || d.Method != sampling.MethodAncestral || d.Values != sampling.Values(mean) {
			t.Errorf("mean %v: drawn %+v", mean, d)
		}
		return d.X, nil
	}
	want := func(_ string, mean bool) ([]float64, error) { return eval.SampleMoB(m, 30, 5, mean) }
	sampletest.CheckSameDraws(t, nil, draw, want)
	if _, err := (mob.Plugin{}).Sample(m, sampling.SampleOptions{N: 3, Init: sampling.InitData}); err == nil {
		t.Error("an ancestral sampler accepted a chain start")
	}
}
