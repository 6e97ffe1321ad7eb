package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/logz-ml/logz/eval/report"
	"github.com/logz-ml/logz/family"
	"github.com/logz-ml/logz/internal/testenv"
	"github.com/logz-ml/logz/models"
)

// finalOf returns the final rows of a run's results.json for experiment exp.
func finalOf(t *testing.T, dir, exp string) []report.Row {
	t.Helper()
	rows, err := report.ReadResults(filepath.Join(dir, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	var out []report.Row
	for _, r := range rows {
		if r.Stage == report.StageFinal && r.Experiment == exp && r.Estimator != "reference" {
			out = append(out, r)
		}
	}
	return out
}

// evalList runs logz eval with --json and decodes its rows in order.
func evalList(t *testing.T, args ...string) []report.Row {
	t.Helper()
	_, out := evalRows(t, args...)
	rows, err := report.DecodeResults(strings.NewReader(out), "stdout")
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// sameNumbers says where two rows' numbers differ in any bit ("" when
// they agree): log Ẑ, its bands, the mean log-likelihood, its bracket and
// standard error, and the data the rows measured.
func sameNumbers(a, b report.Row) string {
	return sameBits(a, b, true)
}

// requireSameNumbers fails t unless got (a re-evaluation) has the rows
// of want (a run's final rows) with every number equal bit for bit.
func requireSameNumbers(t *testing.T, want, got []report.Row) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("re-evaluation gave %d rows, the run %d", len(got), len(want))
	}
	for i := range want {
		if d := sameNumbers(want[i], got[i]); d != "" {
			t.Errorf("row %d: %s", i, d)
		}
	}
}

// sameBits is sameNumbers, with the bracket [loglik_lo, loglik_hi] only
// when brackets is set (a bracket pairs a row with another estimator's,
// which an evaluation of a part of the run's list may not run).
func sameBits(a, b report.Row, brackets bool) string {
	if !brackets {
		a.LoglikLo, a.LoglikHi, b.LoglikLo, b.LoglikHi = nil, nil, nil, nil
	}
	f := func(p *float64) string {
		if p == nil {
			return "null"
		}
		return fmt.Sprintf("%x", *p) // every bit
	}
	for _, c := range []struct {
		what string
		x, y *float64
	}{{"log_z", a.LogZ, b.LogZ}, {"log_z_lo", a.LogZLo, b.LogZLo}, {"log_z_hi", a.LogZHi, b.LogZHi},
		{"mean_loglik", a.MeanLoglik, b.MeanLoglik}, {"loglik_lo", a.LoglikLo, b.LoglikLo},
		{"loglik_hi", a.LoglikHi, b.LoglikHi}, {"loglik_se", a.LoglikSE, b.LoglikSE}} {
		if f(c.x) != f(c.y) {
			return fmt.Sprintf("%s %s: %s, re-evaluated %s", a.Estimator, c.what, f(c.x), f(c.y))
		}
	}
	if a.Estimator != b.Estimator || a.Split != b.Split || a.Runs != b.Runs || a.Betas != b.Betas || a.Init != b.Init {
		return fmt.Sprintf("row %s/%s (%d×%d %s), re-evaluated %s/%s (%d×%d %s)", a.Estimator, a.Split, a.Runs, a.Betas, a.Init, b.Estimator, b.Split, b.Runs, b.Betas, b.Init)
	}
	if a.Data == nil || b.Data == nil || *a.Data != *b.Data {
		return fmt.Sprintf("%s/%s data: %v, re-evaluated %v", a.Estimator, a.Split, a.Data, b.Data)
	}
	return ""
}

// TestReevaluateQuickstart: logz eval on a checkpoint of the embedded
// quickstart, without flags, reproduces every final number of the run bit
// for bit (its data, seed and estimator settings come from the record in
// model.npz); named estimators and --data reproduce theirs.
func TestReevaluateQuickstart(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	if _, errOut, err := runLogz(t, "run", "--out", dir); err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	model := filepath.Join(dir, "cd1-h12", "model.npz")
	want := finalOf(t, dir, "cd1-h12")
	requireSameNumbers(t, want, evalList(t, "--model", model))
	// Two estimators of the run's list on one split: the run's rows of
	// them (the AIS rows without the bracket RAISE made with them).
	got := evalList(t, "--model", model, "--data", "planted:test", "--estimator", "exact,ais")
	var sub []report.Row
	for _, r := range want {
		if r.Split == "test" && (r.Estimator == "exact" || r.Estimator == "ais") {
			sub = append(sub, r)
		}
	}
	if len(got) != len(sub) {
		t.Fatalf("--estimator exact,ais on planted:test gave %d rows, the run %d", len(got), len(sub))
	}
	for i := range sub {
		if d := sameBits(sub[i], got[i], false); d != "" {
			t.Errorf("exact,ais row %d: %s", i, d)
		}
	}
}

// reevalConfig is an MNIST-style experiment: grey images binarised
// stochastically with the file's derived seed, a validation split held out
// of the training images, exact and AIS at the end.
const reevalConfig = `name: reeval
seed: 3
experiments:
  - name: r
    data: {train: mnist:train, test: mnist:test, binarize: stochastic, limit_train: 300, limit_test: 200, validation: 100, data_dir: %q}
    model: {type: rbm, hidden: 8}
    train: {epochs: 2, batch_size: 50, checkpoint_every: 1}
    evaluate: {splits: [train, valid, test], every_epoch: [], final: [exact, {name: ais, runs: 16, betas: 300}]}
`

// mnistLike writes the config and a data folder of grey IDX files named
// as MNIST's (or, with LOGZ_MNIST_DIR set, uses the real files there).
func mnistLike(t *testing.T) (cfg, dataDir string) {
	t.Helper()
	dataDir = mnistLikeDir(t)
	cfg = filepath.Join(t.TempDir(), "reeval.yaml")
	if err := os.WriteFile(cfg, []byte(fmt.Sprintf(reevalConfig, dataDir)), 0o644); err != nil {
		t.Fatal(err)
	}
	return cfg, dataDir
}

// mnistLikeDir returns LOGZ_MNIST_DIR, or a new folder of grey IDX files
// named as MNIST's (400 training and 250 test images of 28×28) when it is
// unset.
func mnistLikeDir(t *testing.T) string {
	t.Helper()
	dataDir, err := testenv.MNISTDir()
	if err != nil {
		t.Fatal(err)
	}
	if dataDir == "" {
		dataDir = t.TempDir()
		writeGreyIDX(t, filepath.Join(dataDir, "train-images-idx3-ubyte"), 400, 28, 28, 1)
		writeGreyIDX(t, filepath.Join(dataDir, "t10k-images-idx3-ubyte"), 250, 28, 28, 2)
	}
	return dataDir
}

// TestReevaluateMNISTRun: on grey images binarised stochastically with the
// run's seed, logz eval --data mnist:test reproduces the run's exact and
// AIS numbers bit for bit: it binarises with the run's seed (not --seed's
// default 1, which gave other bits before the run was recorded in the
// model file) and keeps the run's examples. Asking for other bits with
// --binarize-seed gives other numbers, with a note that says so.
func TestReevaluateMNISTRun(t *testing.T) {
	cfg, _ := mnistLike(t)
	dir := filepath.Join(t.TempDir(), "run")
	if _, errOut, err := runLogz(t, "run", cfg, "--out", dir); err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	model := filepath.Join(dir, "r", "model.npz")
	var want []report.Row
	for _, r := range finalOf(t, dir, "r") {
		if r.Split == "test" {
			want = append(want, r)
		}
	}
	got := evalList(t, "--model", model, "--data", "mnist:test", "--estimator", "exact,ais")
	if len(got) != 2 || len(want) != 2 {
		t.Fatalf("rows: re-evaluated %d, run %d; want 2 each", len(got), len(want))
	}
	for i := range want {
		if d := sameNumbers(want[i], got[i]); d != "" {
			t.Errorf("%s", d)
		}
		if got[i].Data.BinarizeSeed == 0 || got[i].Data.Binarize != "stochastic" || got[i].Data.N != 200 {
			t.Errorf("data of %s: %+v; want the stochastic binarisation's seed and 200 examples", got[i].Estimator, got[i].Data)
		}
	}
	// Other bits, asked for: another number, and a note naming both hashes.
	other := evalList(t, "--model", model, "--data", "mnist:test", "--estimator", "exact", "--binarize-seed", "5")
	if len(other) != 1 || sameNumbers(want[0], other[0]) == "" {
		t.Fatalf("--binarize-seed 5 reproduced the run's number: %+v", other)
	}
	if n := strings.Join(other[0].Notes, " "); !strings.Contains(n, "not the bits the run evaluated") || !strings.Contains(n, want[0].Data.Short()) {
		t.Errorf("notes of the other bits: %q; want them to say they are not the run's (sha256 %s)", n, want[0].Data.Short())
	}
	// The run's first examples are the run's bits: --limit alone says
	// nothing about other bits; with other bits it still does.
	first := evalList(t, "--model", model, "--data", "mnist:test", "--estimator", "exact", "--limit", "50")
	if len(first) != 1 || first[0].Data.N != 50 {
		t.Fatalf("--limit 50: %+v; want one row on 50 examples", first)
	}
	if n := strings.Join(append(first[0].Warnings, first[0].Notes...), " "); strings.Contains(n, "not the bits") {
		t.Errorf("--limit 50 on the run's own test split: %q", n)
	}
	otherFirst := evalList(t, "--model", model, "--data", "mnist:test", "--estimator", "exact", "--limit", "50", "--binarize-seed", "5")
	if len(otherFirst) != 1 || !strings.Contains(strings.Join(otherFirst[0].Notes, " "), "not the bits the run evaluated") {
		t.Errorf("--limit 50 --binarize-seed 5: %+v; want a note that these are not the run's bits", otherFirst)
	}
}

// TestResumeRefusesOtherData: a run interrupted after epoch 1 and resumed
// on other images of the same shape is refused, naming the training set,
// both files and both hashes; the same data resumes.
func TestResumeRefusesOtherData(t *testing.T) {
	cfg, dataDir := mnistLike(t)
	if d, _ := testenv.MNISTDir(); d != "" {
		t.Skip("uses its own grey images")
	}
	dir := filepath.Join(t.TempDir(), "run")
	one := strings.Replace(mustRead(t, cfg), "epochs: 2", "epochs: 1", 1)
	if err := os.WriteFile(cfg, []byte(one), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, errOut, err := runLogz(t, "run", cfg, "--out", dir); err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	// Other images of the same shape under the same name.
	writeGreyIDX(t, filepath.Join(dataDir, "train-images-idx3-ubyte"), 400, 28, 28, 9)
	_, errOut, err := runLogz(t, "run", cfg, "--out", dir, "--resume")
	if err == nil {
		t.Fatal("--resume on other data went on")
	}
	for _, w := range []string{"the training set differs", filepath.Join(dataDir, "train-images-idx3-ubyte"), "sha256"} {
		if !strings.Contains(errOut, w) {
			t.Errorf("error does not name %q:\n%s", w, errOut)
		}
	}
	writeGreyIDX(t, filepath.Join(dataDir, "train-images-idx3-ubyte"), 400, 28, 28, 1)
	if _, errOut, err := runLogz(t, "run", cfg, "--out", dir, "--resume"); err != nil {
		t.Fatalf("--resume on the original data: %v\n%s", err, errOut)
	}
}

func mustRead(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestReevaluateOlderCheckpoint: a model file that records no run (an
// older logz wrote it) but lies in its run folder is evaluated as that
// folder's config.resolved.yaml says, and gives the run's numbers.
func TestReevaluateOlderCheckpoint(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	if _, errOut, err := runLogz(t, "run", "--out", dir); err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	model := filepath.Join(dir, "pcd1-h12", "model.npz")
	c, err := models.Load(model, family.Codecs())
	if err != nil {
		t.Fatal(err)
	}
	c.Meta.Run = nil
	if err := models.Save(model, c, family.Codecs()); err != nil {
		t.Fatal(err)
	}
	want := finalOf(t, dir, "pcd1-h12")
	var sub []report.Row
	for _, r := range want {
		if r.Estimator == "exact" || r.Estimator == "ais" {
			sub = append(sub, r)
		}
	}
	got := evalList(t, "--model", model, "--estimator", "exact,ais")
	if len(got) != len(sub) {
		t.Fatalf("re-evaluation gave %d rows, the run %d", len(got), len(sub))
	}
	for i := range sub {
		if d := sameBits(sub[i], got[i], false); d != "" {
			t.Errorf("row %d: %s", i, d)
		}
	}
}
