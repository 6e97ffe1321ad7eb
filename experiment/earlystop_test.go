package experiment_test

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/logz-ml/logz/config"
	"github.com/logz-ml/logz/eval/report"
	"github.com/logz-ml/logz/experiment"
	"github.com/logz-ml/logz/family"
	"github.com/logz-ml/logz/models"
)

// overfitConfig forces over-fitting: a mixture of 10 Bernoullis fitted by
// EM (almost unsmoothed) to 30 planted examples, started near the data's
// mean. EM raises the training log-likelihood at every iteration, while
// the components close in on single training examples, so the valid
// split's log-likelihood rises, peaks and falls; exact log p makes every
// number deterministic. With these seeds the peak is epoch 7.
func overfitConfig(t *testing.T, epochs, patience string) *config.File {
	t.Helper()
	y := `name: overfit
seed: 1
experiments:
  - name: a
    data:
      train: planted:train
      test: planted:test
      planted: {visible: 12, hidden: 4, train: 30, valid: 300, test: 100}
    model: {type: mob, components: 10, init_shrink: 0.999}
    train: {epochs: ` + epochs + `, smoothing: 0.01, weight_smoothing: 0.01, checkpoint_every: 0, early_stop: {patience: ` + patience + `}}
    evaluate: {splits: [valid, train], every_epoch: [exact], final: [exact]}
`
	f, err := config.Parse([]byte(y), "overfit.yaml", config.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// meanByEpoch returns the epoch rows' mean log-likelihoods of estimator
// exact on split, by epoch.
func meanByEpoch(rows []report.Row, split string) map[int]float64 {
	out := map[int]float64{}
	for _, r := range rows {
		if r.Stage == report.StageEpoch && r.Estimator == "exact" && r.Split == split && r.MeanLoglik != nil {
			out[r.Epoch] = *r.MeanLoglik
		}
	}
	return out
}

// TestEarlyStopOverfitting: on the forced over-fitting of overfitConfig,
// training stops patience evaluations after the best validation epoch
// (not at epochs), the best epoch is the argmax of the valid rows, the
// final evaluation is of the best model (its exact valid log p equals
// that epoch's bit for bit), best.npz and model.npz hold the best and the
// last model, and the early_stop row records the best epoch, its value
// and why training ended.
// Mutations checked: selectBest not putting the best model in place (final
// rows of epoch 10), no checkpoint at the stop (with checkpoint_every: 0,
// no model.npz), best.npz never saved (the run fails), the training loop
// not stopping (40 evaluated epochs).
func TestEarlyStopOverfitting(t *testing.T) {
	const best, patience = 7, 3
	dir := t.TempDir()
	stderr, err := runTiny(t, overfitConfig(t, "40", "3"), experiment.Options{Out: dir})
	if err != nil {
		t.Fatal(err)
	}
	rows := withoutSeconds(t, filepath.Join(dir, config.ResultsFile))
	valid, train := meanByEpoch(rows, "valid"), meanByEpoch(rows, "train")
	last := best + patience
	if len(valid) != last {
		t.Fatalf("%d evaluated epochs, want %d (best %d + patience %d):\n%s", len(valid), last, best, patience, stderr)
	}
	// The over-fitting is real: the training log-likelihood rises at
	// every EM iteration, the valid one peaks at best.
	for e := 2; e <= last; e++ {
		if !(train[e] > train[e-1]) {
			t.Errorf("train log p fell from epoch %d to %d: %v → %v", e-1, e, train[e-1], train[e])
		}
		if e != best && !(valid[e] < valid[best]) {
			t.Errorf("valid log p of epoch %d (%v) is not below the best epoch %d's (%v)", e, valid[e], best, valid[best])
		}
	}
	if !(valid[best] > valid[1]) {
		t.Errorf("the best epoch improves nothing on epoch 1: %v vs %v", valid[best], valid[1])
	}
	var final, stop []report.Row
	for _, r := range rows {
		switch {
		case r.Stage == report.StageFinal && r.Estimator == "exact":
			final = append(final, r)
		case r.Estimator == "early_stop":
			stop = append(stop, r)
		}
	}
	if len(final) != 2 {
		t.Fatalf("%d final exact rows, want 2", len(final))
	}
	for _, r := range final {
		want := meanByEpoch(rows, r.Split)[best]
		if r.Epoch != best || r.MeanLoglik == nil || *r.MeanLoglik != want {
			t.Errorf("final exact %s: epoch %d, mean %v; want epoch %d's model, mean %v", r.Split, r.Epoch, r.MeanLoglik, best, want)
		}
	}
	if len(stop) != 1 {
		t.Fatalf("%d early_stop rows, want 1", len(stop))
	}
	if s := stop[0]; s.Epoch != best || s.Split != "valid" || s.MeanLoglik == nil || *s.MeanLoglik != valid[best] || s.Init != "patience" || s.NExamples != 300 ||
		len(s.Notes) != 1 || !strings.Contains(s.Notes[0], "stopped after epoch 10: 3 evaluations without a better one (patience 3)") {
		t.Errorf("early_stop row %+v (notes %q)", s, s.Notes)
	}
	for file, epoch := range map[string]int{"best.npz": best, "model.npz": last} {
		c, err := models.Load(filepath.Join(dir, "a", file), family.Codecs())
		if err != nil {
			t.Fatal(err)
		}
		if c.Meta.Epoch != epoch {
			t.Errorf("%s holds epoch %d, want %d", file, c.Meta.Epoch, epoch)
		}
	}
	csv, err := os.ReadFile(filepath.Join(dir, "a", "epochs.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(csv, []byte("\n7,early_stop,valid,")) {
		t.Errorf("epochs.csv has no early_stop row of epoch 7:\n%s", csv)
	}
	if !strings.Contains(stderr, "early stop: no better exact/valid than") {
		t.Errorf("stderr does not say training stopped:\n%s", stderr)
	}

	// Without early stopping every epoch is trained and the last model
	// evaluated: the option changes nothing before the stop.
	plain := t.TempDir()
	if _, err := runTiny(t, overfitConfig(t, "12", "0"), experiment.Options{Out: plain}); err != nil {
		t.Fatal(err)
	}
	prows := withoutSeconds(t, filepath.Join(plain, config.ResultsFile))
	pvalid := meanByEpoch(prows, "valid")
	for e := 1; e <= last; e++ {
		if pvalid[e] != valid[e] {
			t.Errorf("epoch %d: valid %v without early stopping, %v with", e, pvalid[e], valid[e])
		}
	}
	for _, r := range prows {
		if r.Stage == report.StageFinal && r.Epoch != 12 || r.Estimator == "early_stop" {
			t.Errorf("without early stopping: row %s %s epoch %d", r.Stage, r.Estimator, r.Epoch)
		}
	}
}

// TestEarlyStopResume: a run killed after epoch k — before the best epoch,
// between it and the stop, or after it finished — and resumed ends with
// exactly the rows of the uninterrupted run (the same best epoch, stop
// epoch and final numbers), and best.npz holds the same model.
// Mutations checked: keepEpochs keeping the earlier early_stop row (two
// rows), readRecorded taking the last epoch for the final model's (the
// finished run's final estimates computed again), no checkpoint at the stop.
func TestEarlyStopResume(t *testing.T) {
	full := t.TempDir()
	if _, err := runTiny(t, overfitConfig(t, "40", "3"), experiment.Options{Out: full}); err != nil {
		t.Fatal(err)
	}
	want := withoutSeconds(t, filepath.Join(full, config.ResultsFile))
	wantBest, err := models.Load(filepath.Join(full, "a", "best.npz"), family.Codecs())
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []int{5, 8} {
		short := t.TempDir()
		if _, err := runTiny(t, overfitConfig(t, strconv.Itoa(k), "3"), experiment.Options{Out: short}); err != nil {
			t.Fatal(err)
		}
		// The folder of the full run killed after epoch k: its config,
		// its rows up to epoch k, and the checkpoints of epoch k.
		part := t.TempDir()
		copyDir(t, full, part)
		for _, f := range []string{"model.npz", "best.npz"} {
			b, err := os.ReadFile(filepath.Join(short, "a", f))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(part, "a", f), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		os.Remove(filepath.Join(part, "a", "final.progress.json"))
		var early []report.Row
		for _, r := range want {
			if r.Stage == report.StageEpoch && r.Epoch <= k && r.Estimator != "early_stop" {
				early = append(early, r)
			}
		}
		if err := report.WriteResults(filepath.Join(part, config.ResultsFile), early); err != nil {
			t.Fatal(err)
		}
		stderr, err := runTiny(t, overfitConfig(t, "40", "3"), experiment.Options{Out: part, Resume: true})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(stderr, "resuming after epoch "+strconv.Itoa(k)) {
			t.Errorf("k=%d: not resumed after epoch %d:\n%s", k, k, stderr)
		}
		sameRows(t, withoutSeconds(t, filepath.Join(part, config.ResultsFile)), want)
		got, err := models.Load(filepath.Join(part, "a", "best.npz"), family.Codecs())
		if err != nil {
			t.Fatal(err)
		}
		if got.Meta.Epoch != wantBest.Meta.Epoch || !reflect.DeepEqual(got.Model, wantBest.Model) {
			t.Errorf("k=%d: best.npz holds another model (epoch %d) than the uninterrupted run's (epoch %d)", k, got.Meta.Epoch, wantBest.Meta.Epoch)
		}
	}
	// Resuming the finished run trains nothing and keeps its estimates.
	stderr, err := runTiny(t, overfitConfig(t, "40", "3"), experiment.Options{Out: full, Resume: true})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stderr, "finished before (10 epochs, 1 final estimators); kept") || strings.Contains(stderr, "a: epoch") {
		t.Errorf("resuming the finished run:\n%s", stderr)
	}
	sameRows(t, withoutSeconds(t, filepath.Join(full, config.ResultsFile)), want)
}

// TestEarlyStopDBNWatchesTheStack: a dbn's early stopping watches only the
// top layer's epochs (family.StopFrom): the first layer alone, an RBM,
// evaluates better on valid than the freshly stacked DBN, and selecting
// it would hand the final evaluation a DBN its valid estimate was not of.
// The best epoch is in the top layer and the final exact valid equals
// that epoch's bit for bit.
// Mutation checked: StopFrom ignored (from = 1): the best epoch is in the
// first layer and the final valid differs from it.
func TestEarlyStopDBNWatchesTheStack(t *testing.T) {
	y := `name: dbn
seed: 1
experiments:
  - name: a
    data:
      train: planted:train
      test: planted:test
      planted: {visible: 10, hidden: 4, train: 200, valid: 100, test: 50}
    model: {type: dbn, layers: [6, 10]}
    train: {method: cd, epochs: 3, batch_size: 20, learning_rate: 0.05, transpose_init: true, early_stop: {patience: 1}}
    evaluate: {splits: [valid], every_epoch: [exact], final: [exact]}
`
	f, err := config.Parse([]byte(y), "dbn.yaml", config.Options{})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if _, err := runTiny(t, f, experiment.Options{Out: dir}); err != nil {
		t.Fatal(err)
	}
	rows := withoutSeconds(t, filepath.Join(dir, config.ResultsFile))
	valid := meanByEpoch(rows, "valid")
	var stop, final *report.Row
	for i, r := range rows {
		switch {
		case r.Estimator == "early_stop":
			stop = &rows[i]
		case r.Stage == report.StageFinal && r.Estimator == "exact":
			final = &rows[i]
		}
	}
	if stop == nil || final == nil {
		t.Fatalf("no early_stop or final row: %+v", rows)
	}
	if stop.Epoch < 4 {
		t.Errorf("best epoch %d is in the first layer (epochs 1–3)", stop.Epoch)
	}
	if final.Epoch != stop.Epoch || *final.MeanLoglik != valid[stop.Epoch] {
		t.Errorf("final exact valid %v (epoch %d), want epoch %d's %v", *final.MeanLoglik, final.Epoch, stop.Epoch, valid[stop.Epoch])
	}
}
