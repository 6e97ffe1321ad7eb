package report

import (
	"math"
	"strings"
	"testing"
)

func TestLoglikError(t *testing.T) {
	for _, c := range []struct {
		name string
		row  Row
		want float64
		ok   bool
	}{
		{"exact has no estimation error", Row{Estimator: "exact", LoglikSE: p(0.12)}, 0, true},
		{"ais: the error of log Ẑ", Row{Estimator: "ais", LogZ: p(10), LogZHi1: p(10.05), LoglikSE: p(0.12)}, 0.05, true},
		{"ais without a band: loglik_se", Row{Estimator: "ais", LoglikSE: p(0.12)}, 0.12, true},
		{"raise: loglik_se", Row{Estimator: "raise", LoglikSE: p(0.004)}, 0.004, true},
		{"csl without one", Row{Estimator: "csl"}, 0, false},
	} {
		got, ok := LoglikError(&c.row)
		if ok != c.ok || math.Abs(got-c.want) > 1e-12 {
			t.Errorf("%s: %v, %v; want %v, %v", c.name, got, ok, c.want, c.ok)
		}
	}
}

// TestCrossCheck checks CSL against exact, AIS and RAISE on synthetic rows:
// above by more than 3 combined standard errors is a warning, above within
// them a note, below nothing; only rows of the same evaluation and split are
// compared.
func TestCrossCheck(t *testing.T) {
	const exp = "e"
	row := func(est, split string, mean, se float64) Row {
		r := Row{Experiment: exp, Stage: StageFinal, Epoch: 30, Estimator: est, Split: split, MeanLoglik: p(mean)}
		if se >= 0 {
			r.LoglikSE = p(se)
		}
		return r
	}
	ais := func(split string, mean, sigma float64) Row {
		r := row("ais", split, mean, 0.12) // loglik_se over examples is not the comparison error
		r.Init, r.LogZ, r.LogZHi1 = "base-rate", p(10), p(10+sigma)
		return r
	}
	raise := func(split string, mean, se float64) Row {
		r := row("raise", split, mean, se)
		r.Init = "base-rate"
		return r
	}
	for _, c := range []struct {
		name       string
		rows       []Row
		warn, note []string // substrings of the CSL row's single warning / note; nil = none
	}{
		{
			name: "the real case: 1.5 nats above exact",
			rows: []Row{row("exact", "test", -100, 0.4), row("csl", "test", -98.5, 0.05)},
			warn: []string{"CSL is 1.50 nats above exact (30.0σ; 3σ = 0.15)", "only when its hidden states come from the model's distribution", "have not mixed", "cannot be trusted"},
		},
		{
			name: "after-epoch evaluations are checked too",
			rows: []Row{
				func() Row { r := row("exact", "test", -100, 0.4); r.Stage, r.Epoch = StageEpoch, 5; return r }(),
				func() Row { r := row("csl", "test", -98.5, 0.05); r.Stage, r.Epoch = StageEpoch, 5; return r }(),
			},
			warn: []string{"CSL is 1.50 nats above exact"},
		},
		{
			name: "slightly below: nothing, not even a note",
			rows: []Row{row("exact", "test", -7.7, 0.1), row("csl", "test", -7.705, 0.01)},
		},
		{
			name: "above exact within noise",
			rows: []Row{row("exact", "train", -7.6492, 0.08), row("csl", "train", -7.6301, 0.0108)},
			note: []string{"CSL is 0.02 nats above exact, within noise (1.8σ)"},
		},
		{
			name: "just inside 3σ is noise",
			rows: []Row{row("exact", "test", -10, 0), row("csl", "test", -9.71, 0.1)},
			note: []string{"within noise (2.9σ)"},
		},
		{
			name: "just outside 3σ is a warning",
			rows: []Row{row("exact", "test", -10, 0), row("csl", "test", -9.69, 0.1)},
			warn: []string{"0.31 nats above exact (3.1σ; 3σ = 0.30)"},
		},
		{
			name: "below everything: nothing",
			rows: []Row{row("exact", "test", -7.7, 0.1), ais("test", -7.69, 0.02), raise("test", -7.71, 0.005), row("csl", "test", -30, 0.5)},
		},
		{
			name: "above AIS: σ from its log Ẑ band, not its loglik_se",
			rows: []Row{ais("test", -7.7, 0.05), row("csl", "test", -7.4, 0.01)},
			warn: []string{"0.30 nats above ais (base-rate) (5.9σ; 3σ = 0.15)"},
		},
		{
			name: "above exact and AIS: both named in one warning",
			rows: []Row{row("exact", "test", -7.7, 0.1), ais("test", -7.69, 0.02), row("csl", "test", -7.0, 0.01)},
			warn: []string{"0.70 nats above exact", "0.69 nats above ais (base-rate)"},
		},
		{
			name: "above RAISE only: RAISE may be the one too low",
			rows: []Row{raise("test", -90, 0.1), row("csl", "test", -88, 0.2)},
			warn: []string{"2.00 nats above raise (base-rate)", "unless RAISE is the one far too low"},
		},
		{
			name: "other split, epoch or experiment: not compared",
			rows: []Row{
				row("exact", "train", -5, 0.1),
				func() Row { r := row("exact", "test", -5, 0.1); r.Epoch = 29; return r }(),
				func() Row { r := row("exact", "test", -5, 0.1); r.Stage = StageEpoch; return r }(),
				func() Row { r := row("exact", "test", -5, 0.1); r.Experiment = "other"; return r }(),
				row("csl", "test", -4, 0.01),
			},
		},
		{
			name: "pll and bounds are not references",
			rows: []Row{{Experiment: exp, Stage: StageFinal, Epoch: 30, Estimator: "pll", Split: "test", Value: p(-1)},
				row("dbn-bound", "test", -20, 0.1), row("csl", "test", -10, 0.01)},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			rows := c.rows
			CrossCheck(rows)
			var csl *Row
			for i := range rows {
				if rows[i].Estimator == "csl" {
					csl = &rows[i]
				} else if len(rows[i].Warnings)+len(rows[i].Notes) > 0 {
					t.Errorf("%s row got %q %q; only CSL rows are annotated", rows[i].Estimator, rows[i].Warnings, rows[i].Notes)
				}
			}
			check := func(what string, got []string, want []string) {
				if want == nil {
					if len(got) != 0 {
						t.Errorf("%s %q, want none", what, got)
					}
					return
				}
				if len(got) != 1 {
					t.Fatalf("%s %q, want one", what, got)
				}
				for _, w := range want {
					if !strings.Contains(got[0], w) {
						t.Errorf("%s %q lacks %q", what, got[0], w)
					}
				}
			}
			check("warnings", csl.Warnings, c.warn)
			check("notes", csl.Notes, c.note)
		})
	}
}
