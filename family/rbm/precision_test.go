package rbm_test

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/logz-ml/logz/config"
	"github.com/logz-ml/logz/experiment"
	"github.com/logz-ml/logz/family"
	"github.com/logz-ml/logz/family/dbm"
	"github.com/logz-ml/logz/family/dbn"
	"github.com/logz-ml/logz/family/rbm"
	"github.com/logz-ml/logz/models"
)

// TestDefaultPrecision: with train.precision unset, the Boltzmann trainers
// train cd and pcd in float32 — an rbm, every layer of a dbn, the
// pretraining RBMs of a dbm — and chi2 in float64 (an unset precision does
// not make a chi2 config fail); an explicit precision is kept, and the
// resolved config (what a run folder records) names the precision in use.
func TestDefaultPrecision(t *testing.T) {
	const base = "train: {method: chi2, epochs: 3, batch_size: 40, learning_rate: 0.02, momentum: 0, final_momentum: 0, q_steps: 2}"
	for _, c := range []struct {
		model, train, want string
	}{
		{"{type: rbm, hidden: 4}", "{method: cd}", "float32"},
		{"{type: rbm, hidden: 4}", "{method: pcd}", "float32"},
		{"{type: rbm, hidden: 4}", "{method: chi2, momentum: 0, final_momentum: 0}", "float64"},
		{"{type: rbm, hidden: 4}", "{method: cd, precision: float64}", "float64"},
		{"{type: rbm, hidden: 4}", "{method: pcd, precision: float64}", "float64"},
		{"{type: rbm, hidden: 4}", "{method: chi2, momentum: 0, final_momentum: 0, precision: float64}", "float64"},
		{"{type: rbm, hidden: 4}", "{method: cd, precision: float32}", "float32"},
		{"{type: dbn, layers: [4, 4]}", "{method: cd}", "float32"},
		{"{type: dbn, layers: [4, 4]}", "{method: pcd, precision: float64}", "float64"},
		{"{type: dbm, layers: [4, 4]}", "{method: pcd, pretrain: {epochs: 1}}", "float32"},
		{"{type: dbm, layers: [4, 4]}", "{method: pcd, precision: float64, pretrain: {epochs: 1}}", "float64"},
	} {
		cfg := strings.Replace(tinyChi2, "model: {type: rbm, hidden: 4}", "model: "+c.model, 1)
		cfg = strings.Replace(cfg, base, "train: "+c.train, 1)
		f, err := config.Parse([]byte(cfg), "tiny.yaml", config.Options{})
		if err != nil {
			t.Errorf("%s %s: %v", c.model, c.train, err)
			continue
		}
		var l *rbm.Layer
		switch tr := f.Experiments[0].Train.(type) {
		case *rbm.Train:
			l = &tr.Layer
		case *dbn.Train:
			l = &tr.Layer
		case *dbm.Train:
			l = &tr.Layer
		default:
			t.Fatalf("train settings %T", tr)
		}
		if l.Precision != c.want {
			t.Errorf("%s %s: precision %q, want %q", c.model, c.train, l.Precision, c.want)
		}
		if l.Method != "chi2" {
			if got := rbm.Options(l, 1).Precision; string(got) != c.want {
				t.Errorf("%s %s: trainer options Precision = %q, want %q", c.model, c.train, got, c.want)
			}
		}
		res, err := f.Resolved()
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(res), "precision: "+c.want+"\n") {
			t.Errorf("%s %s: the resolved config does not say precision: %s:\n%s", c.model, c.train, c.want, res)
		}
	}
}

// TestDefaultPrecisionTrains: an rbm config without train.precision
// trains in float32 — its checkpoint records it — and its resolved config
// says so.
func TestDefaultPrecisionTrains(t *testing.T) {
	for _, method := range []string{"cd", "pcd"} {
		cfg := strings.Replace(tinyChi2, "train: {method: chi2, epochs: 3, batch_size: 40, learning_rate: 0.02, momentum: 0, final_momentum: 0, q_steps: 2}",
			"train: {method: "+method+", epochs: 1, batch_size: 40}", 1)
		f, err := config.Parse([]byte(cfg), "tiny.yaml", config.Options{})
		if err != nil {
			t.Fatal(err)
		}
		out := t.TempDir()
		var stderr bytes.Buffer
		if _, err := experiment.Run(f, experiment.Options{Out: out, Stderr: &stderr}); err != nil {
			t.Fatalf("%v\n%s", err, stderr.String())
		}
		c, err := models.Load(filepath.Join(out, "chi2", "model.npz"), family.Codecs())
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(c.Meta.Train), `"precision":"float32"`) {
			t.Errorf("%s: checkpoint training state %s does not record float32", method, c.Meta.Train)
		}
	}
}
