package experiment_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/logz-ml/logz/config"
	"github.com/logz-ml/logz/eval/report"
	"github.com/logz-ml/logz/experiment"
	"github.com/logz-ml/logz/train"
)

// TestSweepReport: a config with sweep: gets the figures across its
// experiments in report.html (the χ² trainer's tracked log Z, AIS and bp
// against exact), and `logz plot` (WriteHTMLReport) redraws them from the
// folder alone.
func TestSweepReport(t *testing.T) {
	if report.TrackedLogZSignal != train.SignalChi2LogZ {
		t.Fatalf("report.TrackedLogZSignal %q is not train.SignalChi2LogZ %q", report.TrackedLogZSignal, train.SignalChi2LogZ)
	}
	src := `name: sweep
sweep: data.planted.weight_scale
base:
  data: {train: planted:train, test: planted:test, planted: {model: ising-ferro, rows: 2, cols: 3, train: 60, valid: 10, test: 20}}
  model: {type: ising, rows: 2, cols: 3, init: zero}
  train: {method: chi2, epochs: 2, batch_size: 60, q_steps: 2, q_samples: 10, q_components: 2}
  evaluate: {splits: [test], every_epoch: [exact, {name: ais, runs: 4, betas: 10}, bp], final: [exact, bp]}
experiments:
  - {name: a, data: {planted: {weight_scale: 0.2}}}
  - {name: b, data: {planted: {weight_scale: 0.6}}}
`
	f, err := config.Parse([]byte(src), "sweep.yaml", config.Options{})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if _, err := runTiny(t, f, experiment.Options{Out: dir}); err != nil {
		t.Fatal(err)
	}
	ids := []string{"<h2>Across experiments</h2>", `id="across-sweep-epochs"`, `id="across-sweep-final"`}
	before := checkHTML(t, dir, ids...)
	if err := os.Remove(filepath.Join(dir, "report.html")); err != nil {
		t.Fatal(err)
	}
	if err := experiment.WriteHTMLReport(dir, experiment.ReadReportMeta(dir)); err != nil {
		t.Fatal(err)
	}
	if after := checkHTML(t, dir, ids...); after != before {
		t.Errorf("report.html redrawn from the folder differs from the run's")
	}
}
