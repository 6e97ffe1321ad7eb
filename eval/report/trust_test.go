package report

import (
	"math"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestCheckAgainstExact: RAISE above exact's mean beyond 3 of its standard
// errors, and AIS's log Ẑ above exact's log Z beyond 3 errors of log Ẑ, are
// warnings naming the culprit, its distance and exact's value; within 3σ,
// below exact, on other examples (a subsample's own mean) or in another
// evaluation they are not; the check is idempotent. The first case is the
// CD1-20 RBM of the RAISE paper, reduced: RAISE from the base rates 8.4
// nats above exact at K = 2000. Mutations checked: |RAISE − exact| for
// the difference (the sign) fails the below-exact case; dropping the AIS
// case fails the log Ẑ cases; σ/100 for the row's σ fails the within-3σ
// case.
func TestCheckAgainstExact(t *testing.T) {
	row := func(est string, mean, se float64) Row {
		return Row{Experiment: "cd1-20", Stage: StageFinal, Epoch: 10, Estimator: est, Split: "test", MeanLoglik: p(mean), LoglikSE: p(se), NExamples: 10000}
	}
	exact := row("exact", -163.9, 0.4)
	exact.LogZ = p(250)
	raise := func(mean, se float64) Row {
		r := row("raise", mean, se)
		r.Init, r.Betas, r.NExamples = "base-rate", 2000, 100
		r.Notes = []string{"RAISE on 100 of 10000 examples, extended by the control variate log f(v) (α = 1; variance reduced 40×)"}
		return r
	}
	ais := func(logZ, sigma float64) Row {
		r := row("ais", -163.9-(logZ-250), 0.4)
		r.Init, r.Betas, r.Runs, r.LogZ, r.LogZHi1 = "base-rate", 2000, 100, p(logZ), p(logZ+sigma)
		return r
	}
	for _, c := range []struct {
		name string
		r    Row
		warn []string // substrings of the single new warning; nil: none
	}{
		{"RAISE 8.4 nats above exact", raise(-155.5, 0.3),
			[]string{"RAISE is 8.40 nats above exact (-163.90; 28.0σ; 3σ = 0.90)", "annealed model beats the model itself at K = 2000 (base-rate start)", "raise K"}},
		{"RAISE 5σ above exact", raise(-163.4, 0.1), []string{"RAISE is 0.50 nats above exact", "5.0σ"}},
		{"RAISE within 3σ", raise(-163.7, 0.1), nil},
		{"RAISE below exact", raise(-170, 0.1), nil},
		{"RAISE on a subsample without a control variate", func() Row {
			r := raise(-150, 0.1)
			r.Notes = []string{"RAISE on 100 of 10000 examples"}
			return r
		}(), nil},
		{"RAISE on the whole split", func() Row { r := raise(-163, 0.1); r.Notes, r.NExamples = nil, 10000; return r }(),
			[]string{"RAISE is 0.90 nats above exact"}},
		{"AIS's log Ẑ 2 nats above exact", ais(252, 0.1),
			[]string{"AIS's log Ẑ 252.000 is 2.00 nats above the exact log Z 250.000 (20.0σ; 3σ = 0.30)", "base-rate start, 2000 β, 100 runs", "log-probabilities are that much too low"}},
		{"AIS's log Ẑ below exact", ais(245, 0.1), nil},
		{"AIS's log Ẑ within 3σ", ais(250.2, 0.1), nil},
	} {
		rows := []Row{exact, c.r}
		CheckAgainstExact(rows)
		CheckAgainstExact(rows)
		got := rows[1].Warnings
		if c.warn == nil {
			if len(got) > 0 {
				t.Errorf("%s: warned %q", c.name, got)
			}
			continue
		}
		if len(got) != 1 {
			t.Errorf("%s: warnings %q, want one", c.name, got)
			continue
		}
		for _, s := range c.warn {
			if !strings.Contains(got[0], s) {
				t.Errorf("%s: warning %q lacks %q", c.name, got[0], s)
			}
		}
		if !ViolatesExact(&rows[1]) {
			t.Errorf("%s: ViolatesExact is false", c.name)
		}
		// Another evaluation's exact is not compared.
		other := exact
		other.Epoch = 9
		rows = []Row{other, c.r}
		CheckAgainstExact(rows)
		if len(rows[1].Warnings) > 0 {
			t.Errorf("%s: warned against another epoch's exact: %q", c.name, rows[1].Warnings)
		}
	}
}

// TestCheckAgainstExactSandwich: a sandwich round whose note says its
// bracket closed loses the note for a warning when a member lies above
// exact (exact listed after the sandwich), on every row of that round and
// split, and keeps it otherwise. Mutation checked: skipping the rewrite
// loop fails it.
func TestCheckAgainstExactSandwich(t *testing.T) {
	closed := "sandwich: the bracket closed at K = 40 in round 1 of at most 3: gap 0.10 ± 0.05 nats, |gap| + σ ≤ 0.5"
	mk := func(est string, mean float64) Row {
		return Row{Experiment: "e", Stage: StageFinal, Estimator: est, Split: "test", MeanLoglik: p(mean), LoglikSE: p(0.05),
			NExamples: 50, Round: 1, Betas: 40, Init: "base-rate", Notes: []string{closed}}
	}
	exact := Row{Experiment: "e", Stage: StageFinal, Estimator: "exact", Split: "test", MeanLoglik: p(-20), NExamples: 50}
	for _, c := range []struct {
		name  string
		raise float64
		open  bool
	}{{"RAISE 14σ above exact", -19.3, true}, {"RAISE below exact", -20.2, false}} {
		ais := mk("ais", c.raise+0.1)
		ais.LogZ, ais.LogZHi1 = p(1), p(1.01)
		rows := []Row{ais, mk("raise", c.raise), exact}
		CheckAgainstExact(rows)
		for _, r := range rows[:2] {
			hasNote := strings.Contains(strings.Join(r.Notes, "\n"), "bracket closed")
			warned := strings.Contains(strings.Join(r.Warnings, "\n"), "sandwich: not closed — RAISE lies beyond noise on the wrong side of the exact value")
			if c.open && (hasNote || !warned) {
				t.Errorf("%s: %s keeps notes %q, warnings %q", c.name, r.Estimator, r.Notes, r.Warnings)
			}
			if !c.open && (!hasNote || warned) {
				t.Errorf("%s: %s lost its closed note: %q, %q", c.name, r.Estimator, r.Notes, r.Warnings)
			}
		}
	}
}

// TestCheckFinite: an estimate F turned into null where the row should
// have one, or a field holding NaN or ±Inf, is a warning naming the
// estimator, the quantity and the likely cause (never a silent "—"), once
// — so is a mean over 64 examples without a standard error (its per-example
// values overflowed), but not one over a single example nor one that says
// why it has none;
// a NaN field becomes null so the row can be written; rows without an
// estimate by design (train, pll's value, a split-free log Z) are left
// alone. Mutation checked: dropping the "mean log-likelihood" case leaves
// the is row without a warning.
func TestCheckFinite(t *testing.T) {
	nan := math.NaN()
	rows := []Row{
		{Experiment: "e", Stage: StageFinal, Estimator: "is", Split: "test", NExamples: 10},
		{Experiment: "e", Stage: StageFinal, Estimator: "ais", LogZ: &nan},
		{Experiment: "e", Stage: StageFinal, Estimator: "chi2"},
		{Experiment: "e", Stage: StageFinal, Estimator: "pll", Split: "test", Value: p(-3)},
		{Experiment: "e", Stage: StageEpoch, Epoch: 1, Estimator: "train", Split: "train"},
		{Experiment: "e", Stage: StageFinal, Estimator: "exact", LogZ: p(3)},
		{Experiment: "e", Stage: StageFinal, Estimator: "elbo", Split: "test", MeanLoglik: p(-8e200), NExamples: 64},
		{Experiment: "e", Stage: StageFinal, Estimator: "raise", Split: "test", MeanLoglik: p(-8), NExamples: 1},
		{Experiment: "e", Stage: StageFinal, Estimator: "dbn-bound", Split: "test", MeanLoglik: p(-80), NExamples: 64,
			Warnings: []string{"DBN bound: log Z of the top RBM has no standard error (a single AIS run?): the error of the estimate is incomplete"}},
	}
	CheckFinite(rows)
	CheckFinite(rows)
	want := [][]string{
		{"is: the mean log-likelihood is not a finite number (NaN or ±Inf; shown as —)", "overflow", "check the parameters"},
		{"ais: log_z is NaN is not a finite number (now null)"},
		{"chi2: log Z is not a finite number"},
		nil, nil, nil,
		{"elbo: the standard error of the mean log-likelihood is not a finite number (NaN or ±Inf), so the mean -8e+200 has no error bar"},
		nil,
		{"DBN bound: log Z of the top RBM has no standard error"}, // its own warning, no other
	}
	for i, w := range want {
		got := rows[i].Warnings
		if w == nil {
			if len(got) > 0 {
				t.Errorf("%s: warned %q", rows[i].Estimator, got)
			}
			continue
		}
		if len(got) != 1 {
			t.Errorf("%s: warnings %q, want one", rows[i].Estimator, got)
			continue
		}
		for _, s := range w {
			if !strings.Contains(got[0], s) {
				t.Errorf("%s: warning %q lacks %q", rows[i].Estimator, got[0], s)
			}
		}
	}
	if err := validateRows(rows); err != nil {
		t.Errorf("after CheckFinite: %v", err)
	}
}

// TestCheckOneExample: a per-example estimator's mean over one example gets
// a warning saying n = 1 and no standard error, its loglik_se dropped (not
// 0), and the table cell says n = 1 without ±; exact and AIS through log Ẑ
// on one example are left alone. Mutation checked: keeping LoglikSE fails
// the "no ±" check.
func TestCheckOneExample(t *testing.T) {
	rows := []Row{
		{Experiment: "e", Stage: StageFinal, Estimator: "raise", Split: "test", MeanLoglik: p(-10), LoglikSE: p(0), NExamples: 1, SplitExamples: 100},
		{Experiment: "e", Stage: StageFinal, Estimator: "csl", Split: "test", MeanLoglik: p(-10), NExamples: 1},
		{Experiment: "e", Stage: StageFinal, Estimator: "exact", Split: "test", MeanLoglik: p(-10), NExamples: 1},
		{Experiment: "e", Stage: StageFinal, Estimator: "ais", Split: "test", MeanLoglik: p(-10), NExamples: 1, LogZ: p(3)},
	}
	CheckOneExample(rows)
	CheckOneExample(rows)
	if w := rows[0].Warnings; len(w) != 1 || !strings.Contains(w[0], "raise ran on 1 example (n = 1) of the split's 100") || !strings.Contains(w[0], "no standard error") {
		t.Errorf("raise: warnings %q", w)
	}
	if rows[0].LoglikSE != nil {
		t.Errorf("raise: loglik_se %v kept", *rows[0].LoglikSE)
	}
	if c := loglikCell(&rows[0]); strings.Contains(c, "±") || !strings.Contains(c, "n = 1 of 100") {
		t.Errorf("raise cell %q", c)
	}
	if w := rows[1].Warnings; len(w) != 1 || !strings.Contains(w[0], "csl ran on 1 example (n = 1):") {
		t.Errorf("csl: warnings %q", w)
	}
	if c := loglikCell(&rows[1]); c != "-10.00 (n = 1)" {
		t.Errorf("csl cell %q, want \"-10.00 (n = 1)\"", c)
	}
	for _, r := range rows[2:] {
		if len(r.Warnings) > 0 {
			t.Errorf("%s: warned %q", r.Estimator, r.Warnings)
		}
	}
}

// TestBrokenBracketsNotDrawnAsBrackets: a RAISE/AIS pair reversed beyond
// noise, or one whose RAISE lies above exact beyond noise, is drawn in the
// final figure as a red hatched band labelled "no bracket" (never the
// shaded "RAISE–AIS bracket"), its caption and the K figure's do not call
// it a bracket of the truth, and its table cell is marked with the legend
// explaining it, and the legend does not call a reversal within noise
// harmless when exact shows RAISE wrong; a sound pair keeps the shaded
// band and the usual words.
// Mutations checked: pairBroken returning "" draws the broken pairs as
// brackets (the label and caption checks fail); dropping the marker in
// loglikCell fails the table check, and the BracketBroken skip in
// reversedWithinNoise the first case's.
func TestBrokenBracketsNotDrawnAsBrackets(t *testing.T) {
	pair := func(raise, ais, se float64, k int) []Row {
		r := Row{Experiment: "e", Stage: StageFinal, Estimator: "raise", Init: "base-rate", Split: "test", Betas: k, MeanLoglik: p(raise), LoglikSE: p(se), NExamples: 100,
			LoglikLo: p(raise), LoglikHi: p(ais)}
		a := Row{Experiment: "e", Stage: StageFinal, Estimator: "ais", Init: "base-rate", Split: "test", Betas: k, MeanLoglik: p(ais), NExamples: 100,
			LogZ: p(5), LogZHi1: p(5.01), LogZLo: p(4.97), LogZHi: p(5.03), LoglikLo: p(raise), LoglikHi: p(ais)}
		if raise > ais+3*se {
			w := "RAISE is above AIS by 1.33 nats (base-rate start): the bracket is reversed beyond noise, so one of the two is wrong or not converged"
			r.Warnings, a.Warnings = []string{w}, []string{w}
		}
		return []Row{r, a}
	}
	exact := Row{Experiment: "e", Stage: StageFinal, Estimator: "exact", Split: "test", MeanLoglik: p(-10), NExamples: 100}
	for _, c := range []struct {
		name  string
		rows  []Row
		label string // of the band; "" = the shaded bracket
	}{
		{"reversed within noise, RAISE above exact", append(pair(-9.6, -9.65, 0.05, 100), exact), "RAISE above exact: no bracket (base-rate)"},
		{"sound", append(pair(-10.2, -9.9, 0.05, 100), exact), ""},
		{"reversed", append(pair(-8.5, -9.8, 0.05, 100), exact), "RAISE–AIS reversed: no bracket (base-rate)"},
		{"RAISE above exact", append(pair(-9.5, -9.4, 0.05, 100), exact), "RAISE above exact: no bracket (base-rate)"},
	} {
		rows := slices.Clone(c.rows)
		CheckRows(rows)
		figure := func(rows []Row, name string) *Figure {
			figs, err := ExperimentFigures(rows)
			if err != nil {
				t.Fatal(err)
			}
			for i := range figs {
				if figs[i].Name == name {
					return &figs[i]
				}
			}
			return nil
		}
		final := figure(rows, "final-test")
		// A second, sound pair at another K so that the K figure is drawn.
		byK := figure(append(slices.Clone(rows), pair(-10.05, -9.95, 0.02, 1000)...), "bracket-k-test")
		if final == nil || byK == nil {
			t.Fatalf("%s: final figure %v, K figure %v", c.name, final != nil, byK != nil)
		}
		svg := string(final.Data)
		if c.label == "" {
			if !strings.Contains(svg, "RAISE–AIS bracket (base-rate)") || strings.Contains(final.Caption, "no bracket") || strings.Contains(byK.Caption, "Not every pair") {
				t.Errorf("%s: caption %q, K caption %q", c.name, final.Caption, byK.Caption)
			}
			continue
		}
		if !strings.Contains(svg, c.label) || strings.Contains(svg, "RAISE–AIS bracket (base-rate)") {
			t.Errorf("%s: the final figure lacks the band %q or draws a bracket", c.name, c.label)
		}
		if strings.Contains(final.Caption, "The shaded band is the bracket") || !strings.Contains(final.Caption, "red hatched band marks a RAISE–AIS pair that is no bracket") {
			t.Errorf("%s: caption %q", c.name, final.Caption)
		}
		if !strings.Contains(byK.Caption, "Not every pair here is a bracket: at K = 100 (base-rate start): ") {
			t.Errorf("%s: K caption %q", c.name, byK.Caption)
		}
		var b strings.Builder
		if err := RenderTable(&b, rows, TableOptions{}); err != nil {
			t.Fatal(err)
		}
		mark := "reversed"
		if c.name != "reversed" {
			mark = "no bracket"
		}
		if out := b.String(); strings.Contains(out, "not a sign that either estimate is wrong") || !regexp.MustCompile(`[0-9]\] `+mark).MatchString(out) || !strings.Contains(out, "the pair brackets nothing") {
			t.Errorf("%s: table lacks the mark %q or its legend:\n%s", c.name, mark, out)
		}
	}
}

// TestCrossCheckSkipsSubsampleMeans: CSL on 1 of 40 examples (a subsample's
// own mean, not extended) is not compared with exact's mean over all 40,
// nor is RAISE's such mean used against a whole-split CSL: they cover other
// examples. Mutation checked: dropping the subsample test in CrossCheck's
// grouping warns on the csl row.
func TestCrossCheckSkipsSubsampleMeans(t *testing.T) {
	rows := []Row{
		{Experiment: "e", Stage: StageFinal, Estimator: "exact", Split: "test", MeanLoglik: p(-10), NExamples: 40},
		{Experiment: "e", Stage: StageFinal, Estimator: "csl", Split: "test", MeanLoglik: p(-6), NExamples: 1, SplitExamples: 40},
		{Experiment: "e", Stage: StageFinal, Estimator: "raise", Split: "test", MeanLoglik: p(-20), NExamples: 1, SplitExamples: 40},
		{Experiment: "e", Stage: StageFinal, Estimator: "csl", Split: "test", MeanLoglik: p(-10.5), LoglikSE: p(0.1), NExamples: 40},
	}
	CrossCheck(rows)
	for _, r := range rows {
		if len(r.Warnings)+len(r.Notes) > 0 {
			t.Errorf("%s n %d: warnings %q notes %q", r.Estimator, r.NExamples, r.Warnings, r.Notes)
		}
	}
}
