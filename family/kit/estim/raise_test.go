package estim

import (
	"strings"
	"testing"

	"github.com/logz-ml/logz/eval/report"
)

// TestPairSandwich checks the AIS/RAISE bracket on synthetic rows: the
// bracket [RAISE, AIS] on both rows; a gap above the tolerance and a
// reversed bracket beyond 3 combined standard errors are warnings on both
// rows; a reversed bracket within them is a note saying it is noise, with
// its size in σ. σ combines RAISE's loglik_se with the error of AIS's log Ẑ
// (log(Ẑ+σ̂) − log Ẑ), not AIS's loglik_se (the spread over examples).
func TestPairSandwich(t *testing.T) {
	f := func(x float64) *float64 { return &x }
	pair := func(raise, raiseSE, ais, aisSigma float64) []report.Row {
		base := report.Row{Experiment: "e", Stage: report.StageFinal, Epoch: 30, Split: "train", Init: "base-rate"}
		r, a := base, base
		r.Estimator, r.MeanLoglik, r.LoglikSE = "raise", f(raise), f(raiseSE)
		a.Estimator, a.MeanLoglik, a.LoglikSE = "ais", f(ais), f(0.08)
		a.LogZ, a.LogZHi1 = f(15.88), f(15.88+aisSigma)
		return []report.Row{r, a}
	}
	for _, c := range []struct {
		name       string
		rows       []report.Row
		warn, note string // substring expected on both rows; "" = none
	}{
		{name: "ordinary small gap", rows: pair(-7.71, 0.005, -7.70, 0.017)},
		{
			// The quickstart-dbn train row: [-7.70, -7.71], gap −0.01.
			name: "reversed within noise",
			rows: pair(-7.700, 0.006, -7.707, 0.017),
			note: "AIS − RAISE gap -0.01 nats (base-rate start) is reversed but within noise (0.4σ; σ = 0.02",
		},
		{
			name: "reversed beyond noise",
			rows: pair(-7.60, 0.006, -7.70, 0.017),
			warn: "RAISE is above AIS by 0.10 nats (5.5σ > 3σ = 0.05, base-rate start): the bracket is reversed beyond noise, so one of the two is wrong or not converged",
		},
		// Degenerate data (issue 25, item 5): σ = 0 or tiny measures no
		// noise; the 0.01-nat floor is the tolerance and the text says so.
		{
			name: "reversed by a rounding error, no spread",
			rows: pair(-5.7000000001, 0, -5.7000000002, 0),
			note: "is reversed but within the 0.01-nat floor; σ = 0: no spread to measure the noise by",
		},
		{
			name: "reversed by 0.005 with a tiny σ",
			rows: pair(-0.100, 1e-12, -0.105, 0),
			note: "within the 0.01-nat floor; σ = 1e-12: almost no spread",
		},
		{
			name: "reversed beyond the floor, no spread",
			rows: pair(-5.65, 0, -5.70, 0),
			warn: "RAISE is above AIS by 0.05 nats (more than the 0.01-nat floor; σ = 0: no spread to measure the noise by, base-rate start)",
		},
		{
			name: "gap above the tolerance",
			rows: pair(-90, 0.1, -87.5, 0.05),
			warn: "AIS − RAISE gap 2.50 nats (base-rate start) exceeds 1",
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			rows := c.rows
			PairSandwich(rows, nil)
			for _, r := range rows {
				if r.LoglikLo == nil || r.LoglikHi == nil || *r.LoglikLo != *rows[0].MeanLoglik || *r.LoglikHi != *rows[1].MeanLoglik {
					t.Errorf("%s row: bracket %v, %v", r.Estimator, r.LoglikLo, r.LoglikHi)
				}
				for _, k := range []struct {
					what, want string
					got        []string
				}{{"warnings", c.warn, r.Warnings}, {"notes", c.note, r.Notes}} {
					switch {
					case k.want == "" && len(k.got) > 0:
						t.Errorf("%s row %s %q, want none", r.Estimator, k.what, k.got)
					case k.want != "" && (len(k.got) != 1 || !strings.Contains(k.got[0], k.want)):
						t.Errorf("%s row %s %q, want one containing %q", r.Estimator, k.what, k.got, k.want)
					}
				}
			}
		})
	}

	// PairSandwich runs the CSL cross-check: every family's Finish gets it.
	rows := append(pair(-7.71, 0.005, -7.70, 0.017), report.Row{Experiment: "e", Stage: report.StageFinal, Epoch: 30,
		Split: "train", Estimator: "csl", MeanLoglik: f(-6.2), LoglikSE: f(0.01)})
	PairSandwich(rows, nil)
	if len(rows[2].Warnings) != 1 || !strings.Contains(rows[2].Warnings[0], "CSL is 1.51 nats above raise") {
		t.Errorf("CSL row warnings %q", rows[2].Warnings)
	}
}

// TestPairSandwichByK: with AIS and RAISE at several K each RAISE is paired
// with the AIS of its own K (before, every RAISE was paired with every AIS
// of its start and the last one won: RAISE at K = 2000 bracketed with AIS
// at K = 100); a RAISE without an AIS of its K takes the AIS with the most.
func TestPairSandwichByK(t *testing.T) {
	f := func(x float64) *float64 { return &x }
	row := func(est string, k int, m float64) report.Row {
		return report.Row{Experiment: "e", Stage: report.StageFinal, Split: "test", Init: "base-rate", Estimator: est, Betas: k,
			MeanLoglik: f(m), LoglikSE: f(0.01), LogZ: f(10), LogZHi1: f(10.01)}
	}
	rows := []report.Row{row("raise", 2000, -7.71), row("ais", 2000, -7.70), row("raise", 100, -7.72), row("ais", 100, -7.83), row("raise", 500, -7.715), row("ais", 14500, -7.705)}
	PairSandwich(rows, nil)
	for _, c := range []struct{ raise, ais int }{{0, 1}, {2, 3}, {4, 5}} {
		r := rows[c.raise]
		if *r.LoglikLo != *r.MeanLoglik || *r.LoglikHi != *rows[c.ais].MeanLoglik {
			t.Errorf("RAISE at K = %d: bracket [%v, %v], want [%v, %v] (AIS at K = %d)", r.Betas, *r.LoglikLo, *r.LoglikHi, *r.MeanLoglik, *rows[c.ais].MeanLoglik, rows[c.ais].Betas)
		}
	}
	var md strings.Builder
	if err := report.WriteMarkdown(&md, "", nil, rows); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"| Experiment | Split |    K |",
		"| e          | test  | 2000 |           -7.71 |         -7.70 |   0.01 ± 0.01 |     |",
		"| e          | test  |  100 |           -7.72 |         -7.83 |  -0.11 ± 0.01 | ⚠   |",
		"| e          | test  |  500 |           -7.71 |         -7.71 |   0.01 ± 0.01 |     |",
	} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("report.md lacks %q:\n%s", want, md.String())
		}
	}
}
