package experiment_test

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/logz-ml/logz/eval/report"
	"github.com/logz-ml/logz/experiment"
)

// TestHTMLReportBrokenBracket: report.html of a run whose base-rate RAISE
// lies above exact beyond noise (the evaluation's check warned) and whose
// uniform pair is reversed beyond noise draws neither as a bracket: the
// final figure's legend has the two "no bracket" bands and no "RAISE–AIS
// bracket", and its caption explains the red hatched bands instead of
// calling any band a bracket of the truth. Mutation checked: drawing every
// pair as a bracket (pairBroken returning "") fails it.
func TestHTMLReportBrokenBracket(t *testing.T) {
	f := func(x float64) *float64 { return &x }
	row := func(est, init string, mean, se float64) report.Row {
		return report.Row{Experiment: "a", Model: "rbm 16-4", Stage: report.StageFinal, Epoch: 3, Estimator: est, Init: init, Split: "test",
			Betas: 100, MeanLoglik: f(mean), LoglikSE: f(se), NExamples: 40, Warnings: []string{}}
	}
	ais := func(init string, mean float64) report.Row {
		r := row("ais", init, mean, 0.3)
		r.Runs, r.LogZ, r.LogZHi1, r.LogZLo, r.LogZHi = 20, f(-mean), f(-mean+0.01), f(-mean-0.03), f(-mean+0.03)
		return r
	}
	exact := row("exact", "", -4.8, 0.3)
	exact.Betas, exact.LogZ = 0, f(4.8)
	rows := []report.Row{exact, ais("base-rate", -4.63), row("raise", "base-rate", -4.48, 0.05), ais("uniform", -4.9), row("raise", "uniform", -4.5, 0.05)}
	for _, i := range []int{1, 2} {
		rows[i].LoglikLo, rows[i].LoglikHi = f(-4.48), f(-4.63)
	}
	for _, i := range []int{3, 4} {
		rows[i].LoglikLo, rows[i].LoglikHi = f(-4.5), f(-4.9)
		rows[i].Warnings = []string{"RAISE is above AIS by 0.40 nats (7.9σ > 3σ = 0.15, uniform start): the bracket is reversed beyond noise, so one of the two is wrong or not converged"}
	}
	report.CheckRows(rows)
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "a"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := report.WriteResults(filepath.Join(dir, "results.json"), rows); err != nil {
		t.Fatal(err)
	}
	if err := experiment.WriteHTMLReport(dir, map[string]string{}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	// The figures are embedded as base64 data: their text too.
	for _, m := range embedded.FindAllStringSubmatch(page, -1) {
		if data, err := base64.StdEncoding.DecodeString(m[2]); err == nil {
			page += string(data)
		}
	}
	for _, want := range []string{"RAISE above exact: no bracket (base-rate)", "RAISE–AIS reversed: no bracket (uniform)", "A red hatched band marks a RAISE–AIS pair that is no bracket"} {
		if !strings.Contains(page, want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
	for _, bad := range []string{"RAISE–AIS bracket (", "The shaded band is the bracket"} {
		if strings.Contains(page, bad) {
			t.Errorf("report.html draws or calls a broken pair a bracket: %q", bad)
		}
	}
}
