package experiment

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/logz-ml/logz/config"
	"github.com/logz-ml/logz/eval/report"
	"github.com/logz-ml/logz/family"
	"github.com/logz-ml/logz/models"
)

// TestOnDisk: the divergence message names the checkpoint that is really
// on disk, read from the file, or says there is none and why.
func TestOnDisk(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "model.npz")
	every := func(k int) func(int) bool { return func(e int) bool { return k > 0 && e%k == 0 } }
	if got := onDisk(path, every(5), 3); got != "no checkpoint was written (the first checkpoint was due after epoch 5)" {
		t.Errorf("none yet: %q", got)
	}
	if got := onDisk(path, every(0), 3); got != "no checkpoint was written (checkpoints are written only at the end of training)" {
		t.Errorf("none scheduled: %q", got)
	}
	c := &models.Checkpoint{Model: models.NewRBM(4, 2), Meta: models.Meta{Epoch: 10}}
	if err := models.Save(path, c, family.Codecs()); err != nil {
		t.Fatal(err)
	}
	// The schedule says 15, but the file holds 10: the file is believed.
	if got := onDisk(path, every(5), 17); !strings.HasPrefix(got, path+" holds the model after epoch 10, the last one saved") {
		t.Errorf("saved: %q", got)
	}
}

// TestReferenceRows: published numbers become labelled rows of estimator
// "reference" with their source, one per split set.
func TestReferenceRows(t *testing.T) {
	exp := config.Experiment{Name: "a", Reference: config.Reference{Source: "Du et al. 2015, Table 2", Test: -102.9}}
	rows := referenceRows(exp, "sbn 784-200", 10)
	if len(rows) != 1 || rows[0].Estimator != "reference" || rows[0].Split != "test" || *rows[0].MeanLoglik != -102.9 ||
		rows[0].Stage != report.StageFinal || rows[0].Notes[0] != "published: Du et al. 2015, Table 2 (not computed by logz)" {
		t.Errorf("%+v", rows)
	}
	if len(referenceRows(config.Experiment{}, "", 0)) != 0 {
		t.Error("rows without references")
	}
}
