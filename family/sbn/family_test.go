package sbn_test

import (
	"bytes"
	"math"
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

const tinySBN = `name: tiny-sbn
seed: 2
base:
  data:
    train: planted:train
    test: planted:test
    planted: {model: sbn, visible: 10, hidden: 3, train: 300, valid: 10, test: 100}
  model: {type: sbn, layers: [3], init_weight_std: 0.1}
  train: {epochs: 3, batch_size: 50, steps: 5, learning_rate: 0.01, rec_learning_rate: 0.01}
  evaluate:
    splits: [test]
    every_epoch: [exact]
    final:
      - exact
      - {name: is, samples: 1000, examples: 0}
      - {name: ais, chains: 8, betas: 300, examples: 0}
      - {name: bdmc, chains: 4, betas: 300, examples: 40}
experiments:
  - name: sbn
  - name: arsbn
    model: {type: arsbn}
  - name: gibbs
    train: {sampler: gibbs, method: sgnht}
    evaluate:
      final: [exact, {name: ais, chains: 8, betas: 300, examples: 0}]
`

// TestRunsEndToEnd: both families train from a config through the
// unchanged runner; is and ais agree with exact on the same examples
// (within their noise), bdmc brackets exact on simulated data, nothing
// warns, and model.npz loads back as the right type.
func TestRunsEndToEnd(t *testing.T) {
	f, err := config.Parse([]byte(tinySBN), "tiny.yaml", config.Options{})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var stderr bytes.Buffer
	rows, err := experiment.Run(f, experiment.Options{Out: dir, Stderr: &stderr})
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	exact := map[string]float64{}
	for _, r := range rows {
		if r.Stage == report.StageFinal && r.Estimator == "exact" {
			exact[r.Experiment] = *r.MeanLoglik
		}
	}
	seen := map[string]bool{}
	for _, r := range rows {
		if r.Stage != report.StageFinal {
			continue
		}
		seen[r.Experiment+"/"+r.Estimator] = true
		if len(r.Warnings) > 0 {
			t.Errorf("%s %s warns: %v", r.Experiment, r.Estimator, r.Warnings)
		}
		switch r.Estimator {
		case "is", "ais":
			// The statistical check is the per-example comparison with
			// exact behind "nothing warns"; this one bounds the mean
			// (differences of at most 0.0005 nats on these nets).
			if d := math.Abs(*r.MeanLoglik - exact[r.Experiment]); d > 0.005 {
				t.Errorf("%s %s %.3f, exact %.3f", r.Experiment, r.Estimator, *r.MeanLoglik, exact[r.Experiment])
			}
			if !strings.Contains(strings.Join(r.Notes, " "), "the net evaluated is the last posterior sample") {
				t.Errorf("%s %s: the notes do not say which posterior estimate was evaluated: %v", r.Experiment, r.Estimator, r.Notes)
			}
			if !strings.Contains(strings.Join(r.Notes, " "), "exact on the same 100 examples") {
				t.Errorf("%s %s: no comparison with exact in %v", r.Experiment, r.Estimator, r.Notes)
			}
		case "bdmc":
			if *r.LoglikLo > *r.LoglikHi+0.05 || *r.LoglikHi-*r.LoglikLo > 0.5 {
				t.Errorf("%s bdmc bracket [%.3f, %.3f]", r.Experiment, *r.LoglikLo, *r.LoglikHi)
			}
		}
	}
	for _, k := range []string{"sbn/is", "sbn/ais", "sbn/bdmc", "arsbn/is", "arsbn/bdmc", "gibbs/ais"} {
		if !seen[k] {
			t.Errorf("no final %s row", k)
		}
	}
	for exp, typ := range map[string]string{"sbn": "sbn", "arsbn": "arsbn", "gibbs": "sbn"} {
		c, err := models.Load(filepath.Join(dir, exp, "model.npz"), family.Codecs())
		if err != nil || c.Model.TypeName() != typ || c.Meta.Epoch != 3 {
			t.Errorf("%s/model.npz: %v %v", exp, err, c)
		}
	}
	if !strings.Contains(stderr.String(), "is-bound") || !strings.Contains(stderr.String(), "log-joint") {
		t.Errorf("the per-epoch lines should name the training signal:\n%s", stderr.String())
	}
}

// TestPGVBValidate: method pg-vb is refused with a flat prior, with
// average above 1 and in float32, each with its reason, and accepted with
// a Student-t prior in float64.
func TestPGVBValidate(t *testing.T) {
	cfg := func(train string) string {
		return `name: v
experiments:
  - name: e
    data: {train: "planted:train", test: "planted:test", planted: {model: sbn, visible: 6, hidden: 2, train: 20, valid: 5, test: 10}}
    model: {type: sbn, layers: [2]}
    train: ` + train + "\n"
	}
	for train, want := range map[string]string{
		`{method: pg-vb, precision: float64, prior: none}`:     "method pg-vb needs a proper prior",
		`{method: pg-vb, precision: float64, average: 2}`:      "method pg-vb evaluates the posterior mean: set average: 1",
		`{method: pg-vb, precision: float32}`:                  "method pg-vb runs in float64 only",
		`{method: pg-vb, precision: float64, prior: gaussian}`: "",
	} {
		_, err := config.Parse([]byte(cfg(train)), "v.yaml", config.Options{})
		switch {
		case want == "" && err != nil:
			t.Errorf("%s: %v", train, err)
		case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
			t.Errorf("%s: want %q, got %v", train, want, err)
		}
	}
}
