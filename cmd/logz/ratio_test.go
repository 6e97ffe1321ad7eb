package main

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/logz-ml/logz/eval"
	"github.com/logz-ml/logz/family"
	"github.com/logz-ml/logz/models"
)

// ratioRBM is a d×h RBM with small random parameters from seed alone.
func ratioRBM(d, h int, seed uint64) *models.RBM {
	rng := rand.New(rand.NewPCG(seed, 3))
	m := models.NewRBM(d, h)
	for i := range m.W {
		m.W[i] = 0.5 * rng.NormFloat64()
	}
	for i := range m.VBias {
		m.VBias[i] = 0.4 * rng.NormFloat64()
	}
	for j := range m.HBias {
		m.HBias[j] = 0.4 * rng.NormFloat64()
	}
	return m
}

func saveCLIModel(t *testing.T, dir, name string, m models.Model) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := models.Save(p, &models.Checkpoint{Model: m}, family.Codecs()); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestEvalRatioTo: logz eval --model A.npz --ratio-to B.npz prints
// log Z_B − log Z_A with its band and the exact difference beside it, as a
// table and as results.json, without --data.
func TestEvalRatioTo(t *testing.T) {
	dir := t.TempDir()
	mA, mB := ratioRBM(12, 5, 1), ratioRBM(12, 8, 2)
	a, b := saveCLIModel(t, dir, "a.npz", mA), saveCLIModel(t, dir, "b.npz", mB)
	lzA, _ := eval.Exact{}.LogZ(mA)
	lzB, _ := eval.Exact{}.LogZ(mB)
	want := lzB - lzA
	out, stderr, err := runLogz(t, "eval", "--model", a, "--ratio-to", b, "--chains", "50", "--betas", "500", "--schedule", "linear", "--json")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	var res struct {
		Estimates []struct {
			Estimator   string
			LogZ        *float64 `json:"log_z"`
			LogZLo      *float64 `json:"log_z_lo"`
			LogZHi      *float64 `json:"log_z_hi"`
			ExactLogZ   *float64 `json:"exact_log_z"`
			Runs, Betas int
			Notes       []string
		}
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if len(res.Estimates) != 1 {
		t.Fatalf("%d rows, want 1:\n%s", len(res.Estimates), out)
	}
	r := res.Estimates[0]
	if r.Estimator != "ais-ratio" || r.LogZ == nil || r.LogZLo == nil || r.LogZHi == nil || r.ExactLogZ == nil || r.Runs != 50 || r.Betas != 500 {
		t.Fatalf("row %+v", r)
	}
	if math.Abs(*r.ExactLogZ-want) > 1e-9 || !(*r.LogZLo <= want && want <= *r.LogZHi) {
		t.Errorf("log ratio %.4f [%.4f, %.4f], exact %.4f (row says %.4f)", *r.LogZ, *r.LogZLo, *r.LogZHi, want, *r.ExactLogZ)
	}
	if n := strings.Join(r.Notes, " "); !strings.Contains(n, "rbm 12-5") || !strings.Contains(n, b) {
		t.Errorf("notes %q do not name both models", r.Notes)
	}
	out, stderr, err = runLogz(t, "eval", "--model", a, "--ratio-to", b, "--chains", "20", "--betas", "200")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	t.Logf("table:\n%s", out)
	if !strings.Contains(out, "ais-ratio") || !strings.Contains(out, "log Z_B − log Z_A") {
		t.Errorf("table lacks the ratio row:\n%s", out)
	}
}

// TestEvalRatioGibbsStart: --ratio-start gibbs --gibbs-steps N runs the
// ratio from Gibbs chains of A and says so in the notes; without
// --ratio-start, an A with no exact sampler (22×22) gets Gibbs starts too
// (auto). Both bands contain the exact difference.
func TestEvalRatioGibbsStart(t *testing.T) {
	dir := t.TempDir()
	small, smallB := ratioRBM(12, 5, 1), ratioRBM(12, 8, 2)
	wide, wideB := ratioRBM(22, 22, 5), ratioRBM(22, 5, 6)
	for i := range wide.W {
		wide.W[i] *= 0.3
	}
	for _, c := range []struct {
		name   string
		mA, mB *models.RBM
		flags  []string
	}{
		{"gibbs", small, smallB, []string{"--ratio-start", "gibbs", "--gibbs-steps", "300"}},
		{"auto", wide, wideB, []string{"--gibbs-steps", "300"}},
	} {
		a, b := saveCLIModel(t, dir, c.name+"-a.npz", c.mA), saveCLIModel(t, dir, c.name+"-b.npz", c.mB)
		lzA, _ := eval.Exact{}.LogZ(c.mA)
		lzB, _ := eval.Exact{}.LogZ(c.mB)
		want := lzB - lzA
		args := append([]string{"eval", "--model", a, "--ratio-to", b, "--chains", "100", "--betas", "500", "--schedule", "linear", "--json"}, c.flags...)
		out, stderr, err := runLogz(t, args...)
		if err != nil {
			t.Fatalf("%s: %v\n%s", c.name, err, stderr)
		}
		var res struct {
			Estimates []struct {
				LogZ      *float64 `json:"log_z"`
				LogZLo    *float64 `json:"log_z_lo"`
				LogZHi    *float64 `json:"log_z_hi"`
				ExactLogZ *float64 `json:"exact_log_z"`
				Notes     []string
			}
		}
		if err := json.Unmarshal([]byte(out), &res); err != nil || len(res.Estimates) != 1 || res.Estimates[0].LogZ == nil || res.Estimates[0].ExactLogZ == nil {
			t.Fatalf("%s: %v\n%s", c.name, err, out)
		}
		r := res.Estimates[0]
		t.Logf("%s: %.4f [%.4f, %.4f], exact %.4f", c.name, *r.LogZ, *r.LogZLo, *r.LogZHi, want)
		if !(*r.LogZLo <= want && want <= *r.LogZHi) {
			t.Errorf("%s: exact %.4f outside [%.4f, %.4f]", c.name, want, *r.LogZLo, *r.LogZHi)
		}
		if n := strings.Join(r.Notes, " "); !strings.Contains(n, "approximate starts") || !strings.Contains(n, "after 300 sweeps") {
			t.Errorf("%s: notes %q do not say the starts were 300 Gibbs sweeps", c.name, r.Notes)
		}
	}
}

// TestEvalRatioToBadInput: a missing file, a B with other visible units, a
// DBN as B and a DBN as A are errors naming the flag; so are a bad
// --ratio-start or --gibbs-steps, --ratio-start exact for an A and
// --ratio-start reversed for a B without an exact sampler.
func TestEvalRatioToBadInput(t *testing.T) {
	dir := t.TempDir()
	a := saveCLIModel(t, dir, "a.npz", ratioRBM(12, 5, 1))
	wide := saveCLIModel(t, dir, "wide.npz", ratioRBM(13, 5, 3))
	d, err := models.NewDBN(12, 4, 3)
	if err != nil {
		t.Fatal(err)
	}
	dbn := saveCLIModel(t, dir, "dbn.npz", d)
	missing := filepath.Join(dir, "missing.npz")
	bigAPath := saveCLIModel(t, dir, "big-a.npz", ratioRBM(22, 22, 5))
	bigB := saveCLIModel(t, dir, "big-b.npz", ratioRBM(22, 5, 6))
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--model", a, "--ratio-to", missing}, "--ratio-to wants the path of an rbm .npz; " + missing + " does not exist (ais-ratio: to)"},
		{[]string{"--model", a, "--ratio-to", wide}, "--ratio-to: ais-ratio: to: " + wide + " has 13 visible units, the evaluated model 12"},
		{[]string{"--model", a, "--ratio-to", dbn}, "--ratio-to wants the path of an rbm .npz; " + dbn + " holds a dbn, not an rbm"},
		{[]string{"--model", dbn, "--ratio-to", a}, "--model: " + dbn + " holds a dbn; --ratio-to is a setting of ais-ratio, which only rbm models have"},
		{[]string{"--model", a, "--ratio-to", a, "--estimator", "exact"}, "--ratio-to is a setting of ais-ratio, which --estimator exact does not list"},
		{[]string{"--model", a, "--ratio-to", a, "--ratio-start", "sideways"}, `--ratio-start wants auto, exact, gibbs or reversed, got "sideways" (ais-ratio: start)`},
		{[]string{"--model", a, "--ratio-to", a, "--gibbs-steps", "0"}, "--gibbs-steps wants an integer ≥ 1, got 0 (ais-ratio: gibbs_steps)"},
		{[]string{"--model", a, "--ratio-to", a, "--gibbs-steps", "many"}, "--gibbs-steps"},
		{[]string{"--model", bigAPath, "--ratio-to", bigB, "--ratio-start", "exact"},
			"ais-ratio: start: exact needs exact draws of A, but the evaluated rbm 22-22 has non-zero weights and its smaller layer has 22 units, more than the 20 of an exact sampler; use start: gibbs or auto (--ratio-start)"},
		{[]string{"--model", bigB, "--ratio-to", bigAPath, "--ratio-start", "reversed"},
			"--ratio-start wants auto, exact or gibbs (reversed needs exact draws of B, but " + bigAPath + " (rbm 22-22) has non-zero weights and its smaller layer has 22 units, more than the 20 of an exact sampler) (ais-ratio: start)"},
	} {
		_, _, err := runLogz(t, append([]string{"eval"}, c.args...)...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want one containing %q", c.args, err, c.want)
		}
		if err != nil && strings.Contains(c.want, "start: exact") && strings.Contains(err.Error(), "--ratio-to") {
			t.Errorf("%q: error %v blames --ratio-to for a problem of the start", c.args, err)
		}
	}
}
