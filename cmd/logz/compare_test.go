package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/logz-ml/logz/eval/report"
	"github.com/logz-ml/logz/internal/provenance"
)

// compareDoc is the user documentation of logz compare; its example is
// made by TestCompare from the config it shows.
const compareDoc = "docs/compare.md"

// docBlock returns the fenced code block that follows the marker
// <!-- compare-example:NAME --> in text (markedBlock), as text.
func docBlock(t *testing.T, text, name string) string {
	t.Helper()
	return strings.Join(markedBlock(t, compareDoc, text, "<!-- compare-example:"+name+" -->"), "\n") + "\n"
}

// The commands of the example, as the doc shows them (run in a folder of
// its own, cmp.yaml the doc's config).
var compareExample = []struct {
	doc  string // the command in the doc
	args []string
}{
	{"logz run cmp.yaml --out ra", []string{"run", "cmp.yaml", "--out", "ra"}},
	{"logz run cmp.yaml --out rb --seed 4", []string{"run", "cmp.yaml", "--out", "rb", "--seed", "4"}},
	{"logz run cmp.yaml --out rc --set data.planted.seed=1", []string{"run", "cmp.yaml", "--out", "rc", "--set", "data.planted.seed=1"}},
}

// makeCompareRuns writes the doc's config into a new folder, runs the three
// runs of the example there (two seeds on the same planted data, and one
// on other planted data) and changes into the folder for the rest of the
// test.
func makeCompareRuns(t *testing.T) (doc string) {
	doc = readRepo(t, compareDoc)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "cmp.yaml"), []byte(docBlock(t, doc, "config")), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	for _, c := range compareExample {
		if !strings.Contains(doc, c.doc) {
			t.Errorf("%s does not show the command %q", compareDoc, c.doc)
		}
		if _, stderr, err := runLogz(t, c.args...); err != nil {
			t.Fatalf("%s: %v\n%s", c.doc, err, stderr)
		}
	}
	return doc
}

var numberRE = regexp.MustCompile(`[-+]?\d+(\.\d+)?`)

// sameOutput reports where got differs from the doc's want: the text with
// numbers taken out and table borders and runs of spaces collapsed must be
// equal, and every number must agree with the doc's to its last printed
// digit (±1 in it: the doc was made by the same code on the same input;
// the one unit leaves room for a last bit of floating point on another
// machine).
func sameOutput(want, got string) string {
	norm := func(s string) string {
		s = numberRE.ReplaceAllString(s, "#")
		s = strings.Map(func(r rune) rune {
			if strings.ContainsRune("─┌┐└┘├┤┬┴┼", r) {
				return -1
			}
			return r
		}, s)
		return strings.Join(strings.Fields(s), " ")
	}
	if norm(want) != norm(got) {
		return "the text differs:\n--- doc\n" + want + "\n--- logz\n" + got
	}
	wn, gn := numberRE.FindAllString(want, -1), numberRE.FindAllString(got, -1)
	for i := range wn {
		w, _ := strconv.ParseFloat(wn[i], 64)
		g, _ := strconv.ParseFloat(gn[i], 64)
		dec := 0
		if _, frac, ok := strings.Cut(wn[i], "."); ok {
			dec = len(frac)
		}
		if math.Abs(w-g) > math.Pow(10, -float64(dec))+1e-12 {
			return "number " + strconv.Itoa(i+1) + ": doc " + wn[i] + ", logz " + gn[i] + "\n--- logz\n" + got
		}
	}
	return ""
}

// TestCompare makes the example of docs/compare.md (three small runs on
// planted data: two seeds, and one on other planted data) and checks:
//
//   - logz compare puts the runs side by side, Δ of the second run being
//     the difference of the two runs' numbers in results.json with ± 0 for
//     exact and √(σ_A² + σ_B²) for AIS (σ from log(Ẑ+σ̂) − log Ẑ), and it
//     refuses to rank the third run (other data bits: data.sha256), while
//     listing it, and lists the config keys that differ;
//   - --out writes report.md and report.html, the latter with the per-epoch
//     curves overlaid;
//   - the paired verdict of the run's two experiments (both log Z exact) has
//     Δ equal to the difference of the exact rows' mean log-likelihoods,
//     the same from the --model files (their run's split), and with AIS instead of
//     enumeration (--max-units 0) a Δ within 3σ of it;
//   - every output the doc shows is what logz prints on the same input.
func TestCompare(t *testing.T) {
	doc := makeCompareRuns(t)
	rows := map[string][]report.Row{}
	for _, r := range []string{"ra", "rb", "rc"} {
		var err error
		if rows[r], err = report.ReadResults(filepath.Join(r, "results.json")); err != nil {
			t.Fatal(err)
		}
	}
	find := func(run, exp, est string) report.Row {
		for _, r := range rows[run] {
			if r.Stage == report.StageFinal && r.Experiment == exp && r.Estimator == est && r.Split == "test" {
				return r
			}
		}
		t.Fatalf("%s has no final %s row of %s", run, est, exp)
		return report.Row{}
	}

	out, _, err := runLogz(t, "compare", "ra", "rb", "rc", "--out", "cmp")
	if err != nil {
		t.Fatal(err)
	}
	table, _, _ := strings.Cut(out, "wrote ")
	if d := sameOutput(docBlock(t, doc, "runs"), table); d != "" {
		t.Errorf("logz compare ra rb rc: %s", d)
	}
	lines := strings.Split(out, "\n")
	lineOf := func(exp, est string) string {
		for _, l := range lines {
			f := strings.Split(l, "│")
			if len(f) > 3 && strings.TrimSpace(f[1]) == exp && strings.HasPrefix(strings.TrimSpace(f[2]), est) {
				return l
			}
		}
		t.Fatalf("no line of %s %s:\n%s", exp, est, out)
		return ""
	}
	for _, exp := range []string{"cd", "pcd"} {
		ea, eb := find("ra", exp, "exact"), find("rb", exp, "exact")
		want := signedD(*eb.MeanLoglik-*ea.MeanLoglik, 4) + " ± 0 (exact: no estimator error)"
		if l := lineOf(exp, "exact"); !strings.Contains(l, want) {
			t.Errorf("%s exact: want Δ %q in\n%s", exp, want, l)
		}
		aa, ab := find("ra", exp, "ais"), find("rb", exp, "ais")
		sig := math.Hypot(*aa.LogZHi1-*aa.LogZ, *ab.LogZHi1-*ab.LogZ)
		want = signedD(*ab.MeanLoglik-*aa.MeanLoglik, 4) + " ± " + strconv.FormatFloat(sig, 'f', 4, 64)
		if l := lineOf(exp, "ais"); !strings.Contains(l, want) {
			t.Errorf("%s ais: want Δ %q in\n%s", exp, want, l)
		}
		for _, est := range []string{"exact", "ais"} {
			if l := lineOf(exp, est); !strings.Contains(l, "not comparable: data sha256") {
				t.Errorf("%s %s: rc (other planted data) is not refused:\n%s", exp, est, l)
			}
		}
	}
	for _, want := range []string{"experiments[cd].data.planted.seed: 0 | 0 | 1", "seed: 3 | 4 | 3", "4 of 4 lines hold rows that are not comparable"} {
		if !strings.Contains(out, want) {
			t.Errorf("logz compare does not say %q:\n%s", want, out)
		}
	}
	md, err := os.ReadFile(filepath.Join("cmp", "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), "not comparable: data sha256") || !strings.Contains(string(md), "## Config differences") {
		t.Errorf("report.md lacks the table or the config differences:\n%s", md)
	}
	html, err := os.ReadFile(filepath.Join("cmp", "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{`id="cd-compare-loglik-test"`, `id="pcd-compare-logz"`} {
		if !strings.Contains(string(html), id) {
			t.Errorf("report.html has no figure %s", id)
		}
	}
	// A run folder is not a place for the comparison's reports.
	if _, _, err := runLogz(t, "compare", "ra", "rb", "--out", "rc"); err == nil {
		t.Error("compare --out into a run folder was not refused")
	}

	// The paired verdict, both log Z exact.
	exactDelta := *find("ra", "pcd", "exact").MeanLoglik - *find("ra", "cd", "exact").MeanLoglik
	paired, _, err := runLogz(t, "compare", "ra", "--experiments", "cd,pcd")
	if err != nil {
		t.Fatal(err)
	}
	if d := sameOutput(docBlock(t, doc, "paired"), paired); d != "" {
		t.Errorf("logz compare ra --experiments cd,pcd: %s", d)
	}
	delta, sigma := pairedDelta(t, paired)
	if math.Abs(delta-exactDelta) > 0.5e-4+1e-12 {
		t.Errorf("paired Δ %.4f, exact rows' difference %.6f", delta, exactDelta)
	}
	if !strings.Contains(paired, "both log Z exact") {
		t.Errorf("the verdict does not say both log Z are exact:\n%s", paired)
	}
	fromFiles, _, err := runLogz(t, "compare", "--model", "ra/cd/model.npz", "--model", "ra/pcd/model.npz")
	if err != nil {
		t.Fatal(err)
	}
	if fromFiles != paired {
		t.Errorf("--model files (their run's test split) differ from --experiments:\n%s\n%s", fromFiles, paired)
	}
	// --data gives other examples: the default planted test split (1000).
	other, _, err := runLogz(t, "compare", "--model", "ra/cd/model.npz", "--model", "ra/pcd/model.npz", "--data", "planted:test")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(other, "1000 × 20") || !strings.Contains(other, "over the 1000 examples") {
		t.Errorf("--data planted:test should measure the 1000 default planted test examples:\n%s", other)
	}

	// With AIS instead of enumeration.
	ais, _, err := runLogz(t, "compare", "ra", "--experiments", "cd,pcd", "--max-units", "0", "--chains", "50", "--betas", "300", "--schedule", "linear")
	if err != nil {
		t.Fatal(err)
	}
	if d := sameOutput(docBlock(t, doc, "paired-ais"), ais); d != "" {
		t.Errorf("logz compare with AIS: %s", d)
	}
	da, sa := pairedDelta(t, ais)
	ze, _ := pairedRatio(t, paired)
	za, sr := pairedRatio(t, ais)
	// The exact Δ on these examples differs from the AIS one only by the
	// ratio's error: within 3σ_ratio but for a 0.3% chance (this seed is
	// fixed); the printed numbers are rounded to 4 decimals.
	if math.Abs(za-ze) > 3*sr+1e-4 || math.Abs(da-exactDelta-(ze-za)) > 2e-4 {
		t.Errorf("AIS ratio %.4f ± %.4f is more than 3σ from the exact %.4f, or Δ %.4f moved by other than the ratio from %.4f", za, sr, ze, da, exactDelta)
	}
	if !(sa > sigma) || !strings.Contains(ais, "ESS") {
		t.Errorf("the AIS verdict's σ %.4f should exceed the exact one's %.4f (the ratio's error) and name the ESS:\n%s", sa, sigma, ais)
	}
}

// pairedDelta reads Δ and σ from the line "Δ = … = Δ ± σ" of a paired
// verdict.
func pairedDelta(t *testing.T, out string) (delta, sigma float64) {
	t.Helper()
	return pairedLine(t, out, `mean log p_A = (\S+) ± (\S+)`)
}

// pairedRatio reads log Z_B − log Z_A and its σ from a paired verdict.
func pairedRatio(t *testing.T, out string) (ratio, sigma float64) {
	t.Helper()
	return pairedLine(t, out, `log Z_B − log Z_A += +(\S+) ± (\S+)`)
}

// pairedLine reads the two numbers the two groups of the expression re
// match in out.
func pairedLine(t *testing.T, out, re string) (x, sigma float64) {
	t.Helper()
	m := regexp.MustCompile(re).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no line %s:\n%s", re, out)
	}
	x, err1 := strconv.ParseFloat(m[1], 64)
	sigma, err2 := strconv.ParseFloat(m[2], 64)
	if err1 != nil || err2 != nil {
		t.Fatalf("line %q", m[0])
	}
	return x, sigma
}

// signedD formats x with d decimals and its sign, as the table does.
func signedD(x float64, d int) string {
	s := strconv.FormatFloat(x, 'f', d, 64)
	if !strings.HasPrefix(s, "-") {
		s = "+" + s
	}
	return s
}

// TestCompareFromRows: two experiments that are not both RBMs are compared
// by their final rows: Δ with √(σ_A² + σ_B²), σ each row's error with its
// examples' spread, and rows of other protocols are refused.
func TestCompareFromRows(t *testing.T) {
	mk := func(exp, est string, m, se float64, seed uint64) report.Row {
		r := report.Row{Experiment: exp, Stage: report.StageFinal, Estimator: est, Split: "test", MeanLoglik: report.F(m), LoglikSE: report.F(se)}
		r.Data = &provenance.Data{SHA256: "ab", BinarizeSeed: seed}
		return r
	}
	rows := []report.Row{mk("a", "raise", -90, 0.3, 1), mk("b", "raise", -89, 0.4, 1), mk("a", "csl", -95, 1, 1), mk("b", "csl", -94, 1, 2)}
	var b strings.Builder
	if err := compareFromRows(&b, rows, "a", "b", "experiment a", "experiment b", "test", nil); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"raise: Δ = 1.0000 ± 0.5000; B is better by 1.00 ± 0.50 nats (2.0σ).", "csl: not comparable: data.binarize_seed 1 vs 2"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("want %q in\n%s", want, b.String())
		}
	}
}

// sbnCompareConfig trains two small sigmoid belief nets (2 and 4 epochs)
// with exact and importance-sampling final estimates.
const sbnCompareConfig = `name: s
seed: 1
base:
  data:
    train: planted:train
    test: planted:test
    planted: {model: sbn, visible: 20, hidden: 6, train: 400, test: 200}
  model: {type: sbn, layers: [6], init_weight_std: 0.1}
  train: {method: sghmc, sampler: adaptive-is, epochs: 2, batch_size: 100, steps: 5, samples: 5, learning_rate: 0.01, rec_learning_rate: 0.01}
  evaluate:
    splits: [test]
    final: [exact, {name: is, samples: 200, examples: 0}]
experiments:
  - name: a
  - name: b
    train: {epochs: 4}
`

// TestCompareNonRBM: two sigmoid belief nets whose log p(v) is enumerable
// are paired over the examples: Δ is the difference of the run's exact
// rows, its σ the paired standard error (below the unpaired √(se_A² +
// se_B²)), the same from --model files and from --experiments. Without
// enumeration (--max-units 0) the verdict comes from the runs' final rows:
// Δ of exact with ± √(se_A² + se_B²) (exact's only error is its examples'
// spread); --data is then refused.
func TestCompareNonRBM(t *testing.T) {
	dir := t.TempDir()
	cfg := writeConfig(t, dir, sbnCompareConfig)
	run := filepath.Join(dir, "rs")
	if _, stderr, err := runLogz(t, "run", cfg, "--out", run); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	var a, b report.Row
	for _, r := range finalOf(t, run, "a") {
		if r.Estimator == "exact" && r.Split == "test" {
			a = r
		}
	}
	for _, r := range finalOf(t, run, "b") {
		if r.Estimator == "exact" && r.Split == "test" {
			b = r
		}
	}
	if a.MeanLoglik == nil || b.MeanLoglik == nil || a.LoglikSE == nil || b.LoglikSE == nil {
		t.Fatal("no exact rows with their se")
	}
	unpaired := math.Hypot(*a.LoglikSE, *b.LoglikSE)

	ma, mb := filepath.Join(run, "a", "model.npz"), filepath.Join(run, "b", "model.npz")
	out, _, err := runLogz(t, "compare", "--model", ma, "--model", mb)
	if err != nil {
		t.Fatal(err)
	}
	exps, _, err := runLogz(t, "compare", run, "--experiments", "a,b")
	if err != nil {
		t.Fatal(err)
	}
	if out != exps {
		t.Errorf("--model and --experiments disagree:\n%s\n%s", out, exps)
	}
	d, sigma := pairedDelta(t, out)
	if math.Abs(d-(*b.MeanLoglik-*a.MeanLoglik)) > 0.5e-4+1e-9 || !strings.Contains(out, "both log p exact") {
		t.Errorf("paired Δ %.4f, the exact rows' difference %.6f:\n%s", d, *b.MeanLoglik-*a.MeanLoglik, out)
	}
	if !(sigma < unpaired) {
		t.Errorf("paired σ %.4f is not below the unpaired %.4f", sigma, unpaired)
	}

	rowsOut, _, err := runLogz(t, "compare", "--model", ma, "--model", mb, "--max-units", "0")
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("exact: Δ = %.4f ± %.4f;", *b.MeanLoglik-*a.MeanLoglik, unpaired)
	if !strings.Contains(rowsOut, want) {
		t.Errorf("want %q in\n%s", want, rowsOut)
	}
	if _, _, err := runLogz(t, "compare", "--model", ma, "--model", mb, "--data", "planted:test", "--max-units", "0"); err == nil || !strings.Contains(err.Error(), "needs per-example values") {
		t.Errorf("--data with two SBNs and no enumeration: want a refusal, got %v", err)
	}
}

// mnistCompareConfig trains two 784-20 RBMs (CD-1 and PCD-1) on grey
// images binarised stochastically; both log Z are enumerable (2^20 terms).
const mnistCompareConfig = `name: m
seed: 1
base:
  data: {train: mnist:train, test: mnist:test, binarize: stochastic, limit_train: 300, limit_test: 200, data_dir: %q}
  model: {type: rbm, hidden: 20}
  train: {epochs: 2, batch_size: 50, learning_rate: 0.05, checkpoint_every: 2}
  evaluate: {splits: [test], every_epoch: [], final: [exact]}
experiments:
  - name: cd
    train: {method: cd}
  - name: pcd
    train: {method: pcd, chains: 50}
`

// TestCompareMNISTSize: on MNIST-size models (784-20 RBMs; real MNIST with
// LOGZ_MNIST_DIR set, else grey images of its shape), a run with another
// binarisation seed is refused (data.binarize_seed named, with the bits'
// data.sha256), and the paired verdict from the AIS ratio (--max-units 0)
// lies within 3σ of the one with both log Z exact, whose Δ is the
// difference of the run's exact rows.
func TestCompareMNISTSize(t *testing.T) {
	if testing.Short() {
		t.Skip("784-20 models, exact log Z and an AIS ratio")
	}
	dir := t.TempDir()
	cfg := writeConfig(t, dir, fmt.Sprintf(mnistCompareConfig, mnistLikeDir(t)))
	ra, rb := filepath.Join(dir, "ra"), filepath.Join(dir, "rb")
	if _, stderr, err := runLogz(t, "run", cfg, "--out", ra); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if _, stderr, err := runLogz(t, "run", cfg, "--out", rb, "--set", "data.binarize_seed=7"); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	out, _, err := runLogz(t, "compare", ra, rb)
	if err != nil {
		t.Fatal(err)
	}
	for _, exp := range []string{"cd", "pcd"} {
		re := regexp.MustCompile(`(?m)^│ ` + exp + ` .*not comparable: data sha256 \w+ vs sha256 \w+; data\.binarize_seed \d+ vs 7`)
		if !re.MatchString(out) {
			t.Errorf("%s: the other binarisation seed is not refused by name:\n%s", exp, out)
		}
	}

	exact, _, err := runLogz(t, "compare", ra, "--experiments", "cd,pcd")
	if err != nil {
		t.Fatal(err)
	}
	de, _ := pairedDelta(t, exact)
	var want float64
	for i, exp := range []string{"cd", "pcd"} {
		for _, r := range finalOf(t, ra, exp) {
			if r.Estimator == "exact" && r.Split == "test" {
				want += float64(2*i-1) * *r.MeanLoglik
			}
		}
	}
	if math.Abs(de-want) > 0.5e-4+1e-9 || !strings.Contains(exact, "both log Z exact") {
		t.Errorf("exact paired Δ %.4f, the run's exact rows %.6f:\n%s", de, want, exact)
	}
	ais, _, err := runLogz(t, "compare", ra, "--experiments", "cd,pcd", "--max-units", "0", "--chains", "100", "--betas", "1000", "--schedule", "linear")
	if err != nil {
		t.Fatal(err)
	}
	da, sa := pairedDelta(t, ais)
	ze, _ := pairedRatio(t, exact)
	za, sr := pairedRatio(t, ais)
	t.Logf("exact Δ %.4f; AIS Δ %.4f ± %.4f\n%s", de, da, sa, ais)
	// Both Δ are on the same examples: they differ by the AIS ratio's error
	// alone, within 3σ_ratio but for a 0.3% chance (this seed is fixed);
	// the printed numbers are rounded to 4 decimals.
	if math.Abs(za-ze) > 3*sr+1e-4 || math.Abs(da-de-(ze-za)) > 2e-4 || !strings.Contains(ais, "ESS") {
		t.Errorf("AIS ratio %.4f ± %.4f is more than 3σ from the exact %.4f, or Δ moved by other than the ratio:\n%s", za, sr, ze, ais)
	}
}

// TestCompareExperimentsOlderRun: two experiments of a run whose rows
// record no data (an older logz wrote it) are compared when the run's
// config gives both the same data settings, marked ‡, and refused when it
// does not.
func TestCompareExperimentsOlderRun(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	if _, errOut, err := runLogz(t, "run", "--out", dir); err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	rows, err := report.ReadResults(filepath.Join(dir, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	for i := range rows {
		rows[i].Data = nil
	}
	if err := report.WriteResults(filepath.Join(dir, "results.json"), rows); err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{"cd1-h12", "pcd1-h12"} { // judged from the rows, not the models
		os.Remove(filepath.Join(dir, m, "model.npz"))
	}
	out, _, err := runLogz(t, "compare", dir, "--experiments", "cd1-h12,pcd1-h12")
	if err != nil || !strings.Contains(out, "exact ‡: Δ =") || !strings.Contains(out, "‡: the rows record no data") {
		t.Fatalf("older run: %v\n%s", err, out)
	}
	cfg := filepath.Join(dir, "config.resolved.yaml")
	b, _ := os.ReadFile(cfg)
	i := strings.LastIndex(string(b), "limit_test: 0")
	if i < 0 {
		t.Fatal("no limit_test in the resolved config")
	}
	os.WriteFile(cfg, []byte(string(b[:i])+"limit_test: 500"+string(b[i+len("limit_test: 0"):])), 0o644)
	out, _, err = runLogz(t, "compare", dir, "--experiments", "cd1-h12,pcd1-h12")
	if err == nil || !strings.Contains(out, "config data.limit_test") {
		t.Errorf("older run, other data settings: %v\n%s", err, out)
	}
}
