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
		// Degenerate data (issue 25, item 5): one example, or examples all
		// alike, give σ = 0 or a tiny σ, which measures no noise.
		{
			name: "one example: σ = 0, a rounding-size difference is within the floor",
			rows: []Row{row("exact", "test", -5.724204702416884, -1), row("csl", "test", -5.720513603320307, -1)},
			note: []string{"CSL is 0.00369 nats above exact, within the 0.01-nat floor; σ = 0: no spread to measure the noise by"},
		},
		{
			name: "all-ones data: σ = 2e-10 is no reason for 196120σ",
			rows: []Row{row("exact", "test", -0.06449657228598937, 8.987657003386712e-07), row("csl", "test", -0.06445482340230946, 2.128737313406808e-10)},
			note: []string{"CSL is less than 0.001 nats above exact, within the 0.01-nat floor; σ = 2.1e-10: almost no spread"},
		},
		{
			name: "σ = 0 and beyond the floor: a warning that says there is no spread",
			rows: []Row{raise("test", -5.757591465022633, -1), row("csl", "test", -5.720513603320307, -1)},
			warn: []string{"CSL is 0.0371 nats above raise (base-rate) (more than the 0.01-nat floor; σ = 0: no spread to measure the noise by)"},
		},
		{
			name: "large values: the floor grows with |value|",
			rows: []Row{row("exact", "test", -1e5, 0), row("csl", "test", -1e5+0.05, 0)},
			note: []string{"within the 0.1-nat floor"},
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

// TestJudge pins the tolerance of the cross-checks (issue 25, item 5): k·σ
// when σ measures noise, else the floor, and words that never say "∞σ".
func TestJudge(t *testing.T) {
	for _, c := range []struct {
		name          string
		d, sigma, v   float64
		beyond, floor bool
		why           string
	}{
		{"σ sets the tolerance, beyond", 0.31, 0.1, -10, true, false, "3.1σ; 3σ = 0.30"},
		{"σ sets the tolerance, within", 0.29, 0.1, -10, false, false, "2.9σ"},
		{"σ = 0, tiny difference", 1e-12, 0, -5, false, true, "within the 0.01-nat floor; σ = 0: no spread to measure the noise by"},
		{"σ = 0, difference above the floor", 0.04, 0, -5, true, true, "more than the 0.01-nat floor; σ = 0: no spread"},
		{"NaN σ is no spread", 0.001, math.NaN(), -5, false, true, "σ = 0: no spread"},
		{"tiny σ", 5e-4, 1e-13, -0.06, false, true, "σ = 1e-13: almost no spread"},
		{"3σ under the floor, d beyond both: σ's words", 0.02, 0.003, -5, true, false, "6.7σ; 3σ = 0.01"},
		{"3σ under the floor, d within 3σ: σ's words (the rbm quickstart's notes)", 0.005, 0.0023, -7.7, false, false, "2.2σ"},
		{"3σ under the floor, d between: the floor's words", 0.008, 0.0023, -7.7, false, true, "within the 0.01-nat floor; σ = 0.0023"},
		{"relative floor of a large value", 0.5, 0, -1e6, false, true, "within the 1-nat floor"},
	} {
		e := Judge(c.d, c.sigma, c.v)
		if e.Beyond != c.beyond || e.Floor != c.floor || !strings.Contains(e.Why(), c.why) {
			t.Errorf("%s: Judge(%v, %v, %v) = beyond %v floor %v %q; want %v %v %q", c.name, c.d, c.sigma, c.v, e.Beyond, e.Floor, e.Why(), c.beyond, c.floor, c.why)
		}
		if strings.Contains(e.Why(), "∞") || strings.Contains(Sigmas(c.d, c.sigma), "∞") {
			t.Errorf("%s: %q / %q says ∞", c.name, e.Why(), Sigmas(c.d, c.sigma))
		}
	}
}

// TestCheckAISStarts: of two AIS estimates of one model's log Z, the one
// below the other beyond 3 combined errors of log Ẑ is warned with the
// other's start, β and the distance (the numbers of the zero-bias CD1-500:
// uniform 340.70, band to 341.17, against base rates 361.64 ± 0.01); within
// noise, in another split, epoch or round, or without a log Ẑ, nothing.
func TestCheckAISStarts(t *testing.T) {
	ais := func(init string, betas int, logZ, hi1 float64) Row {
		return Row{Experiment: "e", Stage: StageFinal, Epoch: 45, Estimator: "ais", Split: "test", Init: init, Betas: betas, Runs: 1000,
			LogZ: p(logZ), LogZHi1: p(hi1), MeanLoglik: p(-100), LoglikSE: p(0.27)}
	}
	rows := []Row{ais("uniform", 10000, 340.70, 341.17), ais("base-rate", 10000, 361.64, 361.65)}
	CheckAISStarts(rows)
	if len(rows[1].Warnings) != 0 {
		t.Errorf("the larger log Ẑ was warned: %v", rows[1].Warnings)
	}
	want := "another AIS of this model (base-rate start, 10000 β, 1000 runs) reached a log Ẑ 20.94 nats higher (44.5σ; 3σ = 1.41): every AIS log Ẑ is a stochastic lower bound on log Z, so this one is at least that far short"
	if len(rows[0].Warnings) != 1 || !strings.Contains(rows[0].Warnings[0], want) {
		t.Errorf("uniform row: %q\nwant …%s…", rows[0].Warnings, want)
	}
	// Split-free rows (log Z alone) are compared among themselves.
	rows = []Row{ais("uniform", 10000, 340.70, 341.17), ais("base-rate", 10000, 361.64, 361.65)}
	rows[0].Split, rows[1].Split = "", ""
	CheckAISStarts(rows)
	if len(rows[0].Warnings) != 1 {
		t.Errorf("split-free rows: %q", rows[0].Warnings)
	}
	// 0.9 nats apart with σ = 0.47 and 0.01: within 3σ, no warning.
	rows = []Row{ais("uniform", 10000, 360.74, 361.21), ais("base-rate", 10000, 361.64, 361.65)}
	CheckAISStarts(rows)
	if len(rows[0].Warnings)+len(rows[1].Warnings) != 0 {
		t.Errorf("within noise: %q %q", rows[0].Warnings, rows[1].Warnings)
	}
	// Different experiments, splits, epochs, rounds, another estimator (a
	// χ² bound above log Z), or a row without log Ẑ: no pair.
	for _, edit := range []func(*Row){
		func(r *Row) { r.Experiment = "f" },
		func(r *Row) { r.Estimator = "chi2" },
		func(r *Row) { r.Split = "valid" },
		func(r *Row) { r.Epoch = 44 },
		func(r *Row) { r.Round = 2 },
		func(r *Row) { r.Stage = StageEpoch },
		func(r *Row) { r.LogZ, r.LogZHi1 = nil, nil },
	} {
		rows = []Row{ais("uniform", 10000, 340.70, 341.17), ais("base-rate", 10000, 361.64, 361.65)}
		edit(&rows[1])
		CheckAISStarts(rows)
		if len(rows[0].Warnings) != 0 {
			t.Errorf("unpaired rows were compared: %q", rows[0].Warnings)
		}
	}
}
