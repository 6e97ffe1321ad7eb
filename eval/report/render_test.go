package report

import (
	"bytes"
	"encoding/csv"
	"math"
	"strconv"
	"strings"
	"testing"
)

func TestEpochsCSV(t *testing.T) {
	rows := Select(fixtureRows(), "cd1-25")
	var buf bytes.Buffer
	if err := WriteEpochsCSV(&buf, rows); err != nil {
		t.Fatal(err)
	}
	golden(t, "epochs.csv.golden", buf.Bytes())
	recs, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatalf("epochs.csv does not parse: %v", err)
	}
	if strings.Join(recs[0], ",") != "epoch,estimator,split,log_z,log_z_lo,log_z_hi,mean_loglik,loglik_lo,loglik_hi,value,ess,n_examples,seconds,warnings,init,exact_log_z,log_z_bracket_lo,log_z_bracket_hi" {
		t.Fatalf("header %q", recs[0])
	}
	var epochRows []Row
	for _, r := range rows {
		if r.Stage == StageEpoch {
			epochRows = append(epochRows, r)
		}
	}
	if len(recs)-1 != len(epochRows) {
		t.Fatalf("%d data lines, want one per epoch row (%d); final rows must be skipped", len(recs)-1, len(epochRows))
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	for i, r := range epochRows {
		rec := recs[i+1]
		if len(rec) != len(EpochsCSVHeader) {
			t.Fatalf("line %d has %d cells", i+2, len(rec))
		}
		if rec[col["epoch"]] != strconv.Itoa(r.Epoch) || rec[col["estimator"]] != r.Estimator || rec[col["split"]] != r.Split {
			t.Errorf("line %d: %q", i+2, rec)
		}
		for name, want := range map[string]*float64{"log_z": r.LogZ, "log_z_lo": r.LogZLo, "log_z_hi": r.LogZHi,
			"mean_loglik": r.MeanLoglik, "loglik_lo": r.LoglikLo, "loglik_hi": r.LoglikHi, "value": r.Value, "ess": r.ESS} {
			cell := rec[col[name]]
			if want == nil {
				if cell != "" {
					t.Errorf("line %d: %s = %q, want empty for null", i+2, name, cell)
				}
				continue
			}
			if got, err := strconv.ParseFloat(cell, 64); err != nil || got != *want {
				t.Errorf("line %d: %s = %q, want exactly %v", i+2, name, cell, *want)
			}
		}
		if s, _ := strconv.ParseFloat(rec[col["seconds"]], 64); s != r.Seconds {
			t.Errorf("line %d: seconds %q", i+2, rec[col["seconds"]])
		}
		if rec[col["n_examples"]] != strconv.Itoa(r.NExamples) || rec[col["warnings"]] != strings.Join(r.Warnings, "; ") {
			t.Errorf("line %d: n_examples/warnings %q", i+2, rec)
		}
	}

	// Several warnings are joined with "; " and quoted as CSV requires.
	buf.Reset()
	err = WriteEpochsCSV(&buf, []Row{{Experiment: "e", Stage: StageEpoch, Epoch: 4, Estimator: "ais", Split: "valid",
		Warnings: []string{`low ESS, "3.1"`, "second"}}})
	if err != nil {
		t.Fatal(err)
	}
	recs, err = csv.NewReader(&buf).ReadAll()
	if err != nil || len(recs) != 2 || recs[1][13] != `low ESS, "3.1"; second` {
		t.Errorf("warnings cell: %q, %v", recs, err)
	}

	// No epoch rows: the header alone.
	buf.Reset()
	if err := WriteEpochsCSV(&buf, nil); err != nil || buf.String() != strings.Join(EpochsCSVHeader, ",")+"\n" {
		t.Errorf("empty epochs.csv = %q, %v", buf.String(), err)
	}

	// Two experiments in one file is a caller's mistake.
	buf.Reset()
	err = WriteEpochsCSV(&buf, fixtureRows())
	if err == nil || !strings.Contains(err.Error(), `"cd1-25" and "cd25-500"`) || buf.Len() != 0 {
		t.Errorf("mixed experiments: %v (%d bytes written)", err, buf.Len())
	}
}

func TestRenderTableGolden(t *testing.T) {
	var buf bytes.Buffer
	if err := RenderTable(&buf, fixtureRows(), TableOptions{}); err != nil {
		t.Fatal(err)
	}
	golden(t, "table.golden", buf.Bytes())

	buf.Reset()
	if err := RenderTable(&buf, fixtureRows(), TableOptions{ASCII: true, WarningWidth: -1}); err != nil {
		t.Fatal(err)
	}
	golden(t, "table_ascii.golden", buf.Bytes())
	if strings.ContainsAny(strings.SplitN(buf.String(), "\nWarnings:", 2)[0], "┌│─") {
		t.Error("ASCII table contains box-drawing characters")
	}
}

// TestRenderTableContent checks the facts the golden file holds, so that an
// -update cannot silently bless a wrong table.
func TestRenderTableContent(t *testing.T) {
	var buf bytes.Buffer
	if err := RenderTable(&buf, fixtureRows(), TableOptions{ASCII: true, Width: -1}); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	lineWith := func(parts ...string) string {
		for _, l := range strings.Split(out, "\n") {
			ok := true
			for _, p := range parts {
				ok = ok && strings.Contains(l, p)
			}
			if ok {
				return l
			}
		}
		t.Errorf("no table line contains %q in\n%s", parts, out)
		return ""
	}
	cells := func(l string) []string {
		f := strings.Split(l, "|")
		for i := range f {
			f[i] = strings.TrimSpace(f[i])
		}
		return f[1 : len(f)-1]
	}
	header := cells(lineWith("Experiment", "Estimator"))
	wantHeader := []string{"Experiment", "Model", "Estimator", "Chains", "β", "log Ẑ", "log(Ẑ±σ̂)", "log(Ẑ±3σ̂)", "Minutes",
		"Test log-prob", "Valid log-prob", "Train log-prob", "True log Z", "Warnings"}
	// The final rows have no valid split: no Valid column.
	wantHeader = append(wantHeader[:10], wantHeader[11:]...)
	if strings.Join(header, "|") != strings.Join(wantHeader, "|") {
		t.Fatalf("header %q\nwant   %q", header, wantHeader)
	}
	// The AIS line of cd1-25 merges its split-free, test and train rows:
	// minutes (198+3+15)/60 = 3.60, the undefined log(Ẑ−3σ̂), the exact log Z.
	ais := cells(lineWith("cd1-25", "ais (base-rate)"))
	want := []string{"cd1-25", "rbm 784-25", "ais (base-rate)", "100 AIS runs", "14500", "256.52", "255.00, 257.10", "—, 257.73", "3.60",
		"-152.68", "-153.46", "255.41", "[1] effective sample size 3.7…"}
	if strings.Join(ais, "|") != strings.Join(want, "|") {
		t.Errorf("AIS line %q\nwant     %q", ais, want)
	}
	// Exact: missing bands and runs; the true log Z column shows its own log Z.
	exact := cells(lineWith("cd1-25", "exact"))
	want = []string{"cd1-25", "rbm 784-25", "exact", "—", "—", "255.41", "—", "—", "0.50", "-151.57 ± 0.45", "-152.35 ± 0.19", "255.41", ""}
	if strings.Join(exact, "|") != strings.Join(want, "|") {
		t.Errorf("exact line %q\nwant       %q", exact, want)
	}
	raise := cells(lineWith("raise (base-rate)"))
	if raise[9] != "-86.39 [-86.39, -86.34]" || raise[10] != "—" {
		t.Errorf("RAISE line %q", raise)
	}
	// Negative zero is not printed.
	if u := cells(lineWith("ais (uniform)")); u[7] != "0.00, 431.90" {
		t.Errorf("uniform AIS log(Ẑ±3σ̂) = %q", u[7])
	}
	// One line per configuration: 2 cd1-25 lines, 4 cd25-500 lines, 2 signals.
	if n := strings.Count(out, "| cd1-25 "); n != 4 {
		t.Errorf("%d cd1-25 lines, want 2 estimates + 2 signals", n)
	}
	if n := strings.Count(out, "| cd25-500 "); n != 4 {
		t.Errorf("%d cd25-500 lines, want 4", n)
	}
	sig := cells(lineWith("recon"))
	// No signal has a warning: the Warnings column is left out.
	if strings.Join(sig, "|") != "cd1-25|rbm 784-25|recon|0.0131|0.0123|0.05" {
		t.Errorf("recon line %q", sig)
	}
	// Full warning texts are numbered footnotes, each once.
	for i, w := range []string{
		"effective sample size 3.7 of 100 AIS runs: log Ẑ is dominated by a few weights",
		"AIS log Ẑ is 1.11 nats above the exact log Z (more than 3σ̂)",
		"CSL is 44.61 nats below AIS | a conservative estimate; chains may not have mixed",
		"AIS and RAISE disagree by 44.26 nats (AIS −106.52, RAISE −150.78): neither can be trusted",
	} {
		if n := strings.Count(out, "["+strconv.Itoa(i+1)+"] "+w+"\n"); n != 1 {
			t.Errorf("footnote [%d] %q appears %d times", i+1, w, n)
		}
	}
	// Notes on bounds for the estimators present, and only those.
	for est, present := range map[string]bool{"ais": true, "raise": true, "csl": true, "pll": true, "recon": true, "chi2": false, "is": false} {
		if got := strings.Contains(out, "\n  "+est+": "); got != present {
			t.Errorf("note for %s present = %v, want %v", est, got, present)
		}
	}
	if !strings.Contains(out, "overestimate") || !strings.Contains(out, "undefined") {
		t.Error("missing the AIS overestimate note or the undefined-band note")
	}
}

func TestRenderTableMerging(t *testing.T) {
	base := Row{Experiment: "e", Stage: StageFinal, Estimator: "ais", Runs: 10, Betas: 100}
	a, b, c, d := base, base, base, base
	a.Split, a.LogZ, a.Seconds = "test", F(5), 60
	b.Split, b.LogZ, b.Seconds = "train", F(5.5), 30 // disagrees on log Z
	c.Split, c.Runs, c.Seconds = "test", 0, 6        // runs unset: compatible, but test is taken
	d.Split, d.Betas, d.Seconds = "valid", 200, 6    // other β: a line of its own
	rows := []Row{a, b, c, d, {Experiment: "e", Stage: StageEpoch, Estimator: "ais", Split: "train"}}
	lines := finalLines(rows)
	if len(lines) != 3 {
		t.Fatalf("%d lines, want 3", len(lines))
	}
	if l := lines[0]; l.seconds != 90 || *l.logZ != 5 || len(l.warnings) != 1 || !strings.Contains(l.warnings[0], "disagree on log Z: 5.00 vs 5.50 (train row)") {
		t.Errorf("merged line: seconds %v, log Z %v, warnings %q", l.seconds, *l.logZ, l.warnings)
	}
	if l := lines[1]; len(l.splits) != 1 || l.splits["test"] != &rows[2] || l.runs != 0 || l.seconds != 6 {
		t.Errorf("second line %+v", l)
	}
	if l := lines[2]; l.betas != 200 {
		t.Errorf("third line β = %d", l.betas)
	}
}

func TestRenderTableEmptyAndRefusal(t *testing.T) {
	var buf bytes.Buffer
	epochOnly := []Row{{Experiment: "e", Stage: StageEpoch, Estimator: "exact", Split: "test", MeanLoglik: F(-1)}}
	if err := RenderTable(&buf, epochOnly, TableOptions{}); err != nil || buf.String() != "No final estimates.\n" {
		t.Errorf("no final rows: %q, %v", buf.String(), err)
	}
	buf.Reset()
	bad := []Row{{Experiment: "e", Stage: StageFinal, Estimator: "ais", Split: "test", MeanLoglik: p(math.NaN())}}
	if err := RenderTable(&buf, bad, TableOptions{}); err == nil || !strings.Contains(err.Error(), "mean_loglik") || buf.Len() != 0 {
		t.Errorf("NaN: %v, %q", err, buf.String())
	}
}

func TestWriteMarkdownGolden(t *testing.T) {
	meta := map[string]string{
		"config":  "mnist_rbm.yaml",
		"date":    "2025-01-02T03:04:05Z",
		"seed":    "1",
		"logz":    "v0.1.0",
		"go":      "go1.26.8",
		"command": "logz run configs/mnist_rbm.yaml --out runs/a|b",
	}
	var buf bytes.Buffer
	if err := WriteMarkdown(&buf, "logz report: mnist_rbm", meta, fixtureRows()); err != nil {
		t.Fatal(err)
	}
	golden(t, "report.md.golden", buf.Bytes())
	out := buf.String()

	// Every table line has as many unescaped | as its header: a | in a
	// warning or in the meta cannot break a table.
	var header int
	for _, l := range strings.Split(out, "\n") {
		if !strings.HasPrefix(l, "|") {
			header = 0
			continue
		}
		n := strings.Count(l, "|") - strings.Count(l, `\|`)
		if header == 0 {
			header = n
		} else if n != header {
			t.Errorf("table line has %d cell separators, header %d: %s", n, header, l)
		}
	}
	for _, want := range []string{
		"- **command**: logz run configs/mnist_rbm.yaml --out runs/a\\|b\n",
		"| Epoch | exact log Ẑ | exact test | exact train | pll train |",
		"|     2 |      250.50 |    -160.25 |           — |  -95.50 † |",
		"| Epoch | ais (base-rate) log Ẑ | ais (base-rate) valid |",
		"- pll computed on a subsample of 1000 training examples (pll train: epochs 1–3)\n",
		"- CSL is 44.61 nats below AIS \\| a conservative estimate; chains may not have mixed (csl test: final)\n",
		"1. effective sample size 3.7 of 100 AIS runs: log Ẑ is dominated by a few weights\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report.md lacks %q", want)
		}
	}
	// Meta keys are sorted.
	if strings.Index(out, "**command**") > strings.Index(out, "**config**") || strings.Index(out, "**seed**") < strings.Index(out, "**logz**") {
		t.Error("meta not sorted by key")
	}

	// Nothing at all still gives a valid document.
	buf.Reset()
	if err := WriteMarkdown(&buf, "empty", nil, nil); err != nil {
		t.Fatal(err)
	}
	if buf.String() != "# empty\n\n## Final estimates\n\nNo final estimates.\n\n## Warnings\n\nNone.\n" {
		t.Errorf("empty report:\n%s", buf.String())
	}
}

func TestEscapeMD(t *testing.T) {
	for in, want := range map[string]string{
		"a|b":       `a\|b`,
		`x\y`:       `x\\y`,
		"2*3*4":     `2\*3\*4`,
		"<script>":  "&lt;script>",
		"one\ntwo":  "one<br>two",
		"one\r\ntw": "one<br>tw",
		"σ̂ ± 3":    "σ̂ ± 3",
	} {
		if got := escapeMD(in); got != want {
			t.Errorf("escapeMD(%q) = %q, want %q", in, got, want)
		}
	}
	if displayWidth("log(Ẑ±σ̂)") != 8 {
		t.Errorf("displayWidth(log(Ẑ±σ̂)) = %d, want 8", displayWidth("log(Ẑ±σ̂)"))
	}
}

func TestEpochList(t *testing.T) {
	for _, c := range []struct {
		in   []int
		want string
	}{
		{[]int{3}, "epoch 3"},
		{[]int{-1}, "final"},
		{[]int{1, 2, 3, 5, 7, 8, -1}, "epochs 1–3, 5, 7, 8, final"},
		{[]int{4, 2, 3, 3}, "epochs 2–4"},
		{[]int{0, 10, -1}, "epochs 0, 10, final"},
	} {
		if got := epochList(c.in); got != c.want {
			t.Errorf("epochList(%v) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestAbbreviate(t *testing.T) {
	for _, c := range []struct {
		in    string
		width int
		want  string
	}{
		{"short", 10, "short"},
		{"exactly ten", 11, "exactly ten"},
		{"a warning that is long", 10, "a warning…"},
		{"a warning that is long", 13, "a warning…"},
		{"a warning that is long", 16, "a warning that…"},
		{"abcdefghijklmnop", 8, "abcdefg…"},
		{"σ̂σ̂σ̂σ̂σ̂", 4, "σ̂σ…"},
		{"line\nbreak  spaces", 40, "line break spaces"},
	} {
		if got := abbreviate(c.in, c.width); got != c.want {
			t.Errorf("abbreviate(%q, %d) = %q, want %q", c.in, c.width, got, c.want)
		}
	}
}

func TestRenderTableExtraSplits(t *testing.T) {
	rows := []Row{
		{Experiment: "e", Stage: StageFinal, Estimator: "exact", Split: "heldout", MeanLoglik: F(-3)},
		{Experiment: "e", Stage: StageFinal, Estimator: "exact", Split: "train", MeanLoglik: F(-1)},
		{Experiment: "e", Stage: StageFinal, Estimator: "exact", Split: "valid", MeanLoglik: F(-2)},
		{Experiment: "e", Stage: StageFinal, Estimator: "ais", Split: "test", MeanLoglik: F(-4)},
	}
	var buf bytes.Buffer
	if err := RenderTable(&buf, rows, TableOptions{ASCII: true}); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	iTest, iValid, iTrain, iHeld := strings.Index(out, "Test log-prob"), strings.Index(out, "Valid log-prob"),
		strings.Index(out, "Train log-prob"), strings.Index(out, "Heldout log-prob")
	if iTest < 0 || !(iTest < iValid && iValid < iTrain && iTrain < iHeld) {
		t.Errorf("split columns out of order (test %d, valid %d, train %d, heldout %d):\n%s", iTest, iValid, iTrain, iHeld, out)
	}
	if !strings.Contains(out, "|             — |          -2.00 |          -1.00 |            -3.00 |") {
		t.Errorf("split cells misplaced:\n%s", out)
	}
}

// quickstartRows imitates the final evaluation of the quickstarts: exact,
// AIS and RAISE from the base rate with the train bracket reversed by 0.01
// nats (as quickstart-dbn's was) and a CSL on test far above exact, put
// through CrossCheck.
func quickstartRows() []Row {
	base := Row{Experiment: "q", Model: "rbm 20-12", Stage: StageFinal, Epoch: 30}
	mk := func(est, split, init string, runs, betas int, mean, se float64) Row {
		r := base
		r.Estimator, r.Split, r.Init, r.Runs, r.Betas, r.MeanLoglik, r.LoglikSE = est, split, init, runs, betas, p(mean), p(se)
		return r
	}
	rows := []Row{
		mk("exact", "test", "", 0, 0, -7.71, 0.12), mk("exact", "train", "", 0, 0, -7.52, 0.09),
		mk("ais", "test", "base-rate", 100, 2000, -7.70, 0.12), mk("ais", "train", "base-rate", 100, 2000, -7.707, 0.09),
		mk("raise", "test", "base-rate", 10, 2000, -7.71, 0.005), mk("raise", "train", "base-rate", 10, 2000, -7.700, 0.006),
		mk("csl", "test", "base-rate", 100, 0, -6.2, 0.01), mk("csl", "train", "base-rate", 100, 0, -7.75, 0.01),
	}
	for i := range rows {
		r := &rows[i]
		switch r.Estimator {
		case "exact":
			r.LogZ = p(14.79)
		case "ais":
			r.LogZ, r.LogZHi1, r.LogZLo1, r.ExactLogZ = p(14.78), p(14.797), p(14.763), p(14.79)
		}
	}
	for _, split := range []string{"test", "train"} {
		var lo, hi float64
		for _, r := range rows {
			if r.Split == split && r.Estimator == "raise" {
				lo = *r.MeanLoglik
			}
			if r.Split == split && r.Estimator == "ais" {
				hi = *r.MeanLoglik
			}
		}
		for i := range rows {
			if rows[i].Split == split && (rows[i].Estimator == "raise" || rows[i].Estimator == "ais") {
				rows[i].LoglikLo, rows[i].LoglikHi = p(lo), p(hi)
			}
		}
	}
	CrossCheck(rows)
	return rows
}

// TestRenderLegendAndColumns checks what the tables say about their own
// cells: Chains names what it counts per estimator, a legend explains ±
// and [lo, hi] and lists a reversed bracket within noise with its size in
// σ, the sandwich shows the gap ± σ and flags CSL's overshoot, and columns
// empty in every line (the uniform start that did not run, Warnings when
// there are none) are left out.
func TestRenderLegendAndColumns(t *testing.T) {
	var buf bytes.Buffer
	rows := quickstartRows()
	if err := RenderTable(&buf, rows, TableOptions{ASCII: true, Width: -1}); err != nil {
		t.Fatal(err)
	}
	if err := RenderSandwich(&buf, rows, TableOptions{ASCII: true}); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{
		"|     100 AIS runs |", "|   10 per example |", "| 100 Gibbs chains |",
		"\n  mean ± se: for exact, ais and the bounds, se is the standard error over the split's examples",
		"\n  [lo, hi]: RAISE (lo) and AIS (hi) of the same start bracket the true value",
		"\n  Reversed brackets within noise, not a sign that either estimate is wrong: q train (base-rate, K = 2000) by 0.01 nats (0.4σ).\n",
		"[1] CSL is 1.51 nats above exact (151.0σ; 3σ = 0.03), 1.50 nats above ais (base-rate)",
		"| q          | rbm 20-12 | test  | -7.71 | -6.20 |           -7.71 |         -7.70 |   0.01 ± 0.02 | ⚠ |",
		"| q          | rbm 20-12 | train | -7.52 | -7.75 |           -7.70 |         -7.71 |  -0.01 ± 0.02 |   |",
		"\n  gap ± σ: σ = √(σ_AIS² + σ_RAISE²)", "\n  ⚠: a warning on the pair",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "uniform") || strings.Contains(out, "Runs") {
		t.Errorf("an always-empty uniform column or the old Runs header:\n%s", out)
	}

	// Without warnings the Warnings column goes and the text says none;
	// without brackets or standard errors there is no legend for them.
	buf.Reset()
	plain := []Row{{Experiment: "e", Model: "m", Stage: StageFinal, Estimator: "exact", Split: "test", MeanLoglik: p(-3), LogZ: p(2)}}
	if err := RenderTable(&buf, plain, TableOptions{ASCII: true}); err != nil {
		t.Fatal(err)
	}
	out = buf.String()
	if strings.Contains(out, "| Warnings |") || !strings.HasSuffix(out, "Warnings: none.\n") || strings.Contains(out, "mean ± se") || strings.Contains(out, "[lo, hi]") {
		t.Errorf("table without warnings, se or brackets:\n%s", out)
	}
	// A reversed bracket beyond noise is a warning (on the rows), not listed
	// as noise.
	rows = quickstartRows()
	for i := range rows {
		if rows[i].Split == "train" && rows[i].Estimator == "raise" {
			rows[i].MeanLoglik = p(-7.5)
		}
	}
	buf.Reset()
	if err := RenderTable(&buf, rows, TableOptions{ASCII: true}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), "Reversed brackets within noise") {
		t.Errorf("a bracket reversed by 0.21 nats (>3σ) listed as noise:\n%s", buf.String())
	}
}

// TestReversedNoteNamesK: with AIS and RAISE run at two K (as the
// quickstart does, K = 2000 and 100), the legend's list of brackets
// reversed within noise pairs each RAISE with the AIS of its own K — not
// with every AIS of the split — and names that K, so each (experiment,
// split, start, K) appears once and two entries of one split read apart.
func TestReversedNoteNamesK(t *testing.T) {
	base := Row{Experiment: "cd1", Model: "rbm 20-12", Stage: StageFinal, Epoch: 30, Init: "base-rate"}
	mk := func(est, split string, runs, betas int, mean, se float64) Row {
		r := base
		r.Estimator, r.Split, r.Runs, r.Betas, r.MeanLoglik, r.LoglikSE = est, split, runs, betas, p(mean), p(se)
		if est == "ais" {
			// log(Ẑ±σ̂) a band of ±0.02 (K = 2000) or ±0.07 (K = 100).
			h := map[int]float64{2000: 0.02, 100: 0.07}[betas]
			r.LogZ, r.LogZLo1, r.LogZHi1 = p(14.78), p(14.78-h), p(14.78+h)
		}
		return r
	}
	rows := []Row{
		mk("ais", "test", 100, 2000, -7.70, 0.12), mk("raise", "test", 10, 2000, -7.71, 0.005),
		mk("ais", "test", 100, 100, -7.83, 0.12), mk("raise", "test", 10, 100, -7.72, 0.02),
		mk("ais", "train", 100, 2000, -7.51, 0.09), mk("raise", "train", 10, 2000, -7.52, 0.005),
		mk("ais", "train", 100, 100, -7.64, 0.09), mk("raise", "train", 10, 100, -7.52, 0.02),
	}
	got := reversedWithinNoise(rows)
	want := "Reversed brackets within noise, not a sign that either estimate is wrong: " +
		"cd1 test (base-rate, K = 100) by 0.11 nats (1.5σ); cd1 train (base-rate, K = 100) by 0.12 nats (1.6σ)."
	if got != want {
		t.Errorf("reversed note\n got %q\nwant %q", got, want)
	}
	// Without a start the K alone is named.
	for i := range rows {
		rows[i].Init = ""
	}
	if got := reversedWithinNoise(rows); !strings.Contains(got, "cd1 test (K = 100) by 0.11 nats") || strings.Contains(got, "K = 2000") {
		t.Errorf("reversed note without a start: %q", got)
	}
}

// TestDBNBoundNoteSaysWhereLogZCameFrom: the note under the table says the
// dbn-bound's top-RBM log Z came from AIS only on a line that ran AIS; a
// line whose top RBM was enumerated (no runs, as in quickstart-dbn) says
// it was exact. With both kinds in one table both notes appear.
func TestDBNBoundNoteSaysWhereLogZCameFrom(t *testing.T) {
	exactTop := Row{Experiment: "small", Model: "dbn 20-12-20", Stage: StageFinal, Epoch: 30, Estimator: "dbn-bound", Split: "test", MeanLoglik: p(-7.91), LoglikSE: p(0.12), LogZ: p(15.87)}
	aisTop := Row{Experiment: "big", Model: "dbn 784-500-2000", Stage: StageFinal, Epoch: 30, Estimator: "dbn-bound", Split: "test", Init: "base-rate", Runs: 100, Betas: 14500,
		MeanLoglik: p(-97.5), LoglikSE: p(0.4), LogZ: p(231.46), LogZLo: p(229.17), LogZHi: p(232.10), LogZLo1: p(231.10), LogZHi1: p(231.72)}
	render := func(rows ...Row) string {
		var buf bytes.Buffer
		if err := RenderTable(&buf, rows, TableOptions{ASCII: true}); err != nil {
			t.Fatal(err)
		}
		return buf.String()
	}
	const fromAIS, exact = "top RBM's log Z from AIS", "top RBM's log Z computed exactly"
	if out := render(exactTop); strings.Contains(out, fromAIS) || !strings.Contains(out, exact) {
		t.Errorf("dbn-bound with an enumerated top RBM:\n%s", out)
	}
	if out := render(aisTop); !strings.Contains(out, fromAIS) || strings.Contains(out, exact) {
		t.Errorf("dbn-bound with an AIS top RBM:\n%s", out)
	}
	if out := render(exactTop, aisTop); !strings.Contains(out, fromAIS) || !strings.Contains(out, exact) {
		t.Errorf("dbn-bound of both kinds:\n%s", out)
	}
}

// TestEpochGridTrainingRecon: the trainer's own row (estimator "train" on
// split "train") is headed "recon (training)", not "train train".
func TestEpochGridTrainingRecon(t *testing.T) {
	rows := []Row{
		{Experiment: "e", Stage: StageEpoch, Epoch: 1, Estimator: "train", Split: "train", Value: p(1.5)},
		{Experiment: "e", Stage: StageEpoch, Epoch: 1, Estimator: "recon", Split: "train", Value: p(1.25)},
	}
	g := epochGrid(rows)
	if got := strings.Join(g.header, "|"); got != "Epoch|recon (training)|recon train" {
		t.Errorf("header %q", got)
	}
}
