package main

import (
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"
)

// TestDocsModelFamilies keeps the "Model families" section of
// docs/reference.md equal to `logz models --markdown`: regenerate it with
// that command when a family, a setting or a default changes.
func TestDocsModelFamilies(t *testing.T) {
	b, err := os.ReadFile("../../docs/reference.md")
	if err != nil {
		t.Fatal(err)
	}
	const begin, end = "<!-- BEGIN logz models --markdown -->\n", "<!-- END logz models -->"
	s := string(b)
	i, j := strings.Index(s, begin), strings.Index(s, end)
	if i < 0 || j < i {
		t.Fatalf("docs/reference.md lacks the %q … %q section", begin, end)
	}
	got := s[i+len(begin) : j]
	out, _, err := runLogz(t, "models", "--markdown")
	if err != nil {
		t.Fatal(err)
	}
	if got != out {
		t.Errorf("docs/reference.md's model families section differs from `logz models --markdown`; regenerate it.\ndocs/reference.md:\n%s\ncommand:\n%s", got, out)
	}
}

// TestModelsCommand checks that `logz models --json` lists the three
// families with their trainers, settings and estimators.
func TestModelsCommand(t *testing.T) {
	out, _, err := runLogz(t, "models", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var reg struct {
		Families []familyInfo `json:"families"`
	}
	if err := json.Unmarshal([]byte(out), &reg); err != nil {
		t.Fatalf("--json output: %v\n%s", err, out)
	}
	want := map[string][]string{
		"rbm":   {"exact", "ais", "ais-ratio", "raise", "sandwich", "csl", "chi2", "pll", "recon"},
		"dbn":   {"exact", "dbn-bound", "ais", "raise", "sandwich"},
		"dbm":   {"exact", "mf-bound", "ais", "raise", "sandwich"},
		"sbn":   {"exact", "is", "ais", "bdmc", "completion", "mf-bound"},
		"arsbn": {"exact", "is", "ais", "bdmc", "completion"},
		"ising": {"exact", "ais", "chi2", "bp"},
		"mob":   {"exact"},
		"vae":   {"exact", "is", "elbo", "chi2"},
	}
	if len(reg.Families) != len(want) {
		t.Fatalf("%d families, want %d: %s", len(reg.Families), len(want), out)
	}
	for _, f := range reg.Families {
		names := make([]string, len(f.Estimators))
		for i, e := range f.Estimators {
			names[i] = e.Name
		}
		if strings.Join(names, ",") != strings.Join(want[f.Name], ",") {
			t.Errorf("%s estimators %v, want %v", f.Name, names, want[f.Name])
		}
		if len(f.Trainers) == 0 || len(f.Train) == 0 || len(f.Model) == 0 || f.Doc == "" {
			t.Errorf("%s: incomplete entry %+v", f.Name, f)
		}
	}
	text, _, err := runLogz(t, "models")
	if err != nil || !strings.Contains(text, "dbm —") || !strings.Contains(text, "mean_field_iters: 10") {
		t.Errorf("logz models: %v\n%s", err, text)
	}
	if _, _, err := runLogz(t, "models", "--json", "--markdown"); err == nil {
		t.Error("--json with --markdown accepted")
	}
}

// TestEvalEstimatorsOfTheFamily: logz eval takes the estimators of the
// loaded model's family, passes a flag to the estimators that declare it,
// and refuses another family's estimator with a usage error listing the
// family's own.
func TestEvalEstimatorsOfTheFamily(t *testing.T) {
	model, data := "../../models/testdata/numpy_rbm.npz", "npy:../../models/testdata/numpy_data.npy"
	_, _, err := runLogz(t, "eval", "--model", model, "--data", data, "--estimator", "exact,mf-bound")
	var ue usageError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "mf-bound is not an estimator of model type rbm (its estimators: exact, ais, ais-ratio, raise, sandwich, csl, chi2, pll, recon)") {
		t.Errorf("another family's estimator: %v", err)
	}
	_, stderr, err := runLogz(t, "eval", "--model", model, "--data", data, "--estimator", "exact", "--samples", "7", "--json")
	if err != nil || !strings.Contains(stderr, "--samples is not a setting of exact for a rbm; ignored") {
		t.Errorf("unused flag: %v\n%s", err, stderr)
	}
	_, _, err = runLogz(t, "eval", "--model", model, "--data", data, "--estimator", "ais", "--schedule", "2008", "--betas", "2")
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), `ais: schedule "2008" (three segments) needs betas ≥ 3, got 2`) {
		t.Errorf("cross-setting problem of flags: %v", err)
	}
	_, _, err = runLogz(t, "eval", "--model", model, "--data", data, "--estimator", "raise", "--control-variate", "fitt")
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), `--control-variate wants alpha1, fit or none, got "fitt"`) {
		t.Errorf("bad flag value: %v", err)
	}
}

// TestHelpConfigMeanings: `logz help config` and `logz models FAMILY`
// give each key with its default and its meaning, and a section or
// family that does not exist is a usage error naming the known ones.
func TestHelpConfigMeanings(t *testing.T) {
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"help", "config"}, []string{"data — the data an experiment trains and evaluates on", "binarize_seed: 0", "seeds the stochastic binarisation", "'logz help config FAMILY'"}},
		{[]string{"help", "config", "evaluate"}, []string{"every: 1", "runs the every_epoch estimators after epochs e with e mod every = 0"}},
		{[]string{"help", "config", "rbm"}, []string{"hidden: 25", "the number of hidden units", "train (rbm)", "evaluate entry {name: ais} (rbm)"}},
		{[]string{"models", "dbm"}, []string{"model (dbm)", "train (dbm)"}},
	} {
		out, _, err := runLogz(t, c.args...)
		if err != nil {
			t.Fatalf("logz %s: %v", strings.Join(c.args, " "), err)
		}
		for _, w := range c.want {
			if !strings.Contains(out, w) {
				t.Errorf("logz %s lacks %q:\n%.2000s", strings.Join(c.args, " "), w, out)
			}
		}
	}
	for _, args := range [][]string{{"help", "config", "dta"}, {"models", "rmb"}} {
		if _, _, err := runLogz(t, args...); err == nil || !strings.Contains(err.Error(), "rbm") && !strings.Contains(err.Error(), "data") {
			t.Errorf("logz %s: %v; want a usage error naming the known ones", strings.Join(args, " "), err)
		}
	}
}
