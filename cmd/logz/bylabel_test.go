package main

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/logz-ml/logz/eval/report"
)

// writeLabelledIDX writes n images of 4×6 pixels (pixel i of image k
// bright when (k·7 + i·3) mod 5 < 2) and their labels k mod 3 beside them,
// as x-images-idx3-ubyte and x-labels-idx1-ubyte, and returns the images'
// path.
func writeLabelledIDX(t *testing.T, dir string, n int) string {
	t.Helper()
	img := []byte{0, 0, 0x08, 3}
	for _, d := range []int{n, 4, 6} {
		img = binary.BigEndian.AppendUint32(img, uint32(d))
	}
	lab := binary.BigEndian.AppendUint32([]byte{0, 0, 0x08, 1}, uint32(n))
	for k := range n {
		for i := range 24 {
			if (k*7+i*3)%5 < 2 {
				img = append(img, 255)
			} else {
				img = append(img, 0)
			}
		}
		lab = append(lab, byte(k%3))
	}
	p := filepath.Join(dir, "x-images-idx3-ubyte")
	if err := os.WriteFile(p, img, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "x-labels-idx1-ubyte"), lab, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// runTinyLabelledRBM runs `logz run` of a 4-hidden-unit RBM, one epoch, on
// 30 images of writeLabelledIDX (train and test the same), with the given
// evaluate: block (indented as a key of the experiment), and returns the
// run's folder and the experiment's model file.
func runTinyLabelledRBM(t *testing.T, evaluate string) (out, model string) {
	t.Helper()
	dir := t.TempDir()
	img := writeLabelledIDX(t, t.TempDir(), 30)
	cfg := writeConfig(t, dir, `name: tiny
experiments:
  - name: a
    data: {train: "idx:`+img+`", test: "idx:`+img+`", binarize: threshold}
    model: {hidden: 4}
    train: {epochs: 1, batch_size: 10}
    evaluate:
`+evaluate)
	out = filepath.Join(dir, "run")
	if _, stderr, err := runLogz(t, "run", cfg, "--out", out); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	return out, filepath.Join(out, "a", "model.npz")
}

// TestEvalByLabel: `logz eval --by-label` breaks the exact and raise rows
// down by the labels beside the images (each label's count a third of the
// examples; the counts weighted means give the row's mean); without the
// flag there is no breakdown; on data without labels the flag is refused,
// naming it.
// Mutations checked: the flag not passed to Env.ByLabel (raise row without
// by_label), AddByLabel not called (exact row without by_label), the
// labels check dropped (npy data accepted).
func TestEvalByLabel(t *testing.T) {
	img := writeLabelledIDX(t, t.TempDir(), 30)
	args := []string{"eval", "--model", numpyModel, "--data", "idx:" + img, "--binarize", "threshold", "--estimator", "exact,raise", "--examples", "0", "--chains", "5", "--betas", "100", "--json"}
	out, stderr, err := runLogz(t, append(args, "--by-label")...)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	rows, err := report.DecodeResults(strings.NewReader(out), "stdout")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, r := range rows {
		if len(r.ByLabel) != 3 {
			t.Errorf("%s row: by_label %+v, want labels 0, 1, 2", r.Estimator, r.ByLabel)
			continue
		}
		seen[r.Estimator] = true
		sum := 0.0
		for _, c := range r.ByLabel {
			if c.NExamples != 10 {
				t.Errorf("%s label %d: %d examples, want 10", r.Estimator, c.Label, c.NExamples)
			}
			sum += float64(c.NExamples) * *c.MeanLoglik
		}
		if d := sum/30 - *r.MeanLoglik; d > 1e-9 || d < -1e-9 {
			t.Errorf("%s: weighted per-label mean %v, row's %v", r.Estimator, sum/30, *r.MeanLoglik)
		}
	}
	if !seen["exact"] || !seen["raise"] {
		t.Errorf("rows broken down: %v, want exact and raise", seen)
	}
	out, _, err = runLogz(t, args...)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains([]byte(out), []byte("by_label")) {
		t.Errorf("without --by-label:\n%s", out)
	}
	_, _, err = runLogz(t, "eval", "--model", numpyModel, "--data", numpyData, "--estimator", "exact", "--by-label")
	if err == nil || !strings.Contains(err.Error(), "--by-label: the test split (npy:") || !strings.Contains(err.Error(), "has no labels") {
		t.Errorf("--by-label on npy data: %v", err)
	}
}

// TestRunByLabelRAISEAndEval: a run with evaluate.by_label breaks its final
// raise row down by label as its exact row; `logz eval` of its model.npz on
// the run's own data does the same without the flag (the run's setting),
// and --by-label=false turns it off.
// Mutations checked: the runner not setting Env.ByLabel (raise row without
// by_label), logz eval not taking the run's setting.
func TestRunByLabelRAISEAndEval(t *testing.T) {
	out, model := runTinyLabelledRBM(t, `      splits: [test]
      by_label: true
      every_epoch: []
      final: [exact, {name: raise, chains: 5, betas: 100, examples: 0}]
`)
	rows, err := report.ReadResults(filepath.Join(out, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	broken := func(rows []report.Row) map[string]bool {
		m := map[string]bool{}
		for _, r := range rows {
			if r.Stage == report.StageFinal && len(r.ByLabel) == 3 {
				m[r.Estimator] = true
			}
		}
		return m
	}
	if b := broken(rows); !b["exact"] || !b["raise"] {
		t.Errorf("run: rows broken down by label: %v, want exact and raise", b)
	}
	stdout, stderr, err := runLogz(t, "eval", "--model", model, "--json")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	erows, err := report.DecodeResults(strings.NewReader(stdout), "stdout")
	if err != nil {
		t.Fatal(err)
	}
	if b := broken(erows); !b["exact"] || !b["raise"] {
		t.Errorf("eval of the run's model: rows broken down by label: %v, want exact and raise", b)
	}
	stdout, _, err = runLogz(t, "eval", "--model", model, "--json", "--by-label=false")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(stdout, "by_label") {
		t.Errorf("--by-label=false:\n%s", stdout)
	}
}
