package main

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/logz-ml/logz/config"
	"github.com/logz-ml/logz/eval/report"
)

const (
	numpyModel = "../../models/testdata/numpy_rbm.npz" // an RBM with 24 visible units
	numpyData  = "npy:../../models/testdata/numpy_data.npy"
)

// writeIDX writes n images of 4×6 = 24 pixels (the NumPy model's visible
// units) as an unsigned-byte IDX file, pixel i of image k being pix(k, i).
func writeIDX(t *testing.T, name string, n int, pix func(k, i int) byte) string {
	t.Helper()
	b := []byte{0, 0, 0x08, 3}
	for _, d := range []int{n, 4, 6} {
		b = binary.BigEndian.AppendUint32(b, uint32(d))
	}
	for k := range n {
		for i := range 24 {
			b = append(b, pix(k, i))
		}
	}
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestEvalBadFlags: every bad eval flag value is a usage error (exit status
// 2) naming the flag, found before any model or data is read.
func TestEvalBadFlags(t *testing.T) {
	base := []string{"eval", "--model", numpyModel, "--data", numpyData}
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--estimator", ""}, `eval: --estimator: no estimator given (known: exact, ais, chi2, bp, ais-ratio, raise, sandwich, csl, pll, recon, dbn-bound, mf-bound, is, bdmc, completion, elbo)`},
		{[]string{"--estimator", " , "}, `eval: --estimator: no estimator given (known: exact,`},
		{[]string{"--estimator", "exact,exact"}, `eval: --estimator: exact is listed twice`},
		{[]string{"--estimator", "exact,ais,pll,ais"}, `eval: --estimator: ais is listed twice`},
		{[]string{"--estimator", "exact,aiss"}, `eval: --estimator: unknown estimator "aiss" (did you mean "ais"?; known: exact, ais,`},
		{[]string{"--estimator", "dbn-bound"}, `eval: --estimator: dbn-bound is not an estimator of model type rbm (its estimators: exact, ais, ais-ratio, raise, sandwich, csl, chi2, pll, recon)`},
		{[]string{"--estimator", "exact", "--limit", "-5"}, `eval: --limit wants an integer ≥ 0 (0 = all), got -5`},
		{[]string{"--estimator", "exact", "--binarize", "maybe"}, `eval: --binarize wants stochastic, threshold or none, got "maybe"`},
		{[]string{"--estimator", "exact", "--binarize", "treshold"}, `eval: --binarize wants stochastic, threshold or none, got "treshold" (did you mean "threshold"?)`},
		{[]string{"--estimator", "exact", "--binarize", ""}, `eval: --binarize wants stochastic, threshold or none, got ""`},
		{[]string{"--estimator", "exact", "--threshold", "7"}, `eval: --threshold wants a number in (0,1) (pixel/255 > t is 1; for any ink use e.g. 0.001), got 7`},
		{[]string{"--estimator", "exact", "--binarize", "threshold", "--threshold", "1"}, `eval: --threshold wants a number in (0,1)`},
		{[]string{"--estimator", "exact", "--threshold", "0"}, `eval: --threshold wants a number in (0,1) (pixel/255 > t is 1; for any ink use e.g. 0.001), got 0`},
		{[]string{"--estimator", "exact", "--threshold", "-0.2"}, `got -0.2`},
		{[]string{"--estimator", "exact", "--threshold", "NaN"}, `eval: --threshold wants a number in (0,1) (pixel/255 > t is 1; for any ink use e.g. 0.001), got NaN`},
		{[]string{"--estimator", "exact", "--split", "a b"}, `eval: --split wants a plain word (letters, digits, '_' or '-', such as test), got "a b"`},
		{[]string{"--estimator", "exact", "--split", "../test"}, `eval: --split wants a plain word`},
		{[]string{"--estimator", "exact", "--split", "-test"}, `eval: --split wants a plain word`},
		{[]string{"--estimator", "exact", "--data", "mnst:test"}, `eval: --data: data spec "mnst:test": unknown scheme "mnst" (did you mean "mnist"?; known: mnist:train|test, fashion-mnist:train|test, digits:train|train-shifted|test, omniglot:train|test, caltech-silhouettes:train|valid|test, ocr-letters:train|valid|test, binarized-mnist:train|valid|test, idx:PATH, npy:PATH, planted:train|valid|test)`},
		{[]string{"--estimator", "exact", "--data", "npy:"}, `eval: --data: data spec "npy:" needs a file path after "npy:"`},
		{[]string{"--estimator", "ais", "--base-data", "planted:tain"}, `eval: --base-data: data spec "planted:tain": unknown part "tain" (did you mean "train"?; known: planted:train|valid|test)`},
		{[]string{"--estimator", "exact,ais", "--chains", "1"}, `eval: --chains wants an integer ≥ 2, got 1 (ais: runs)`},
		{[]string{"--estimator", "ais", "--init", "base_rate"}, `eval: --init wants base-rate or uniform, got "base_rate"`},
		// csl's steps 0 matched to the ais budget, checked before anything
		// runs (issue 25, item 6).
		{[]string{"--estimator", "ais,csl", "--chains", "1000", "--betas", "10000000"}, `eval: csl: steps 0 matches the Gibbs budget of the list's raise or ais: 10000000 steps per chain; chains × steps = 1000 × 10000000 = 10000000000 hidden states is more than the limit of 2147483647 (eval.MaxCSLStates)`},
	}
	for _, c := range cases {
		args := append(append([]string(nil), base...), c.args...)
		// The model file is not read before the flags are checked.
		args[2] = "no-such-model.npz"
		if strings.HasPrefix(c.want, "eval: --estimator: dbn-bound") || strings.Contains(c.want, "(ais: runs)") || strings.Contains(c.want, "--init") || strings.Contains(c.want, "csl:") {
			args[2] = numpyModel // checked against the model's family
		}
		_, _, err := runLogz(t, args...)
		var ue usageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("logz %s:\n err = %v (usage error: %v)\nwant %q", strings.Join(args, " "), err, errors.As(err, &ue), c.want)
		}
	}
}

// TestEvalIgnoredFlags: a flag given explicitly that has no effect on the
// evaluation is reported on stderr and the evaluation runs; a flag that is
// used is not reported; an ignored --base-data is not even read.
func TestEvalIgnoredFlags(t *testing.T) {
	grey := "idx:" + writeIDX(t, "grey.idx", 10, func(k, i int) byte { return byte((k*24 + i) * 37 % 256) })
	binary := "idx:" + writeIDX(t, "binary.idx", 10, func(k, i int) byte { return byte((k + i) % 2) })
	unread := "npy:" + filepath.Join(t.TempDir(), "missing.npy") // fails if it is read
	ais := []string{"--chains", "2", "--betas", "10", "--schedule", "linear"}
	cases := []struct {
		name   string
		args   []string
		want   []string // lines on stderr
		wantNo []string // text stderr must not have
	}{
		{"--chains with exact", []string{"--estimator", "exact", "--chains", "1"},
			[]string{"logz eval: --chains is not a setting of exact for a rbm; ignored"}, nil},
		{"--chains with exact and pll", []string{"--estimator", "exact,pll", "--chains", "0"},
			[]string{"logz eval: --chains is not a setting of exact, pll for a rbm; ignored"}, nil},
		{"--base-data with exact", []string{"--estimator", "exact", "--base-data", unread},
			[]string{"logz eval: --base-data is not used by exact (only by a base-rate start, --init base-rate); ignored"}, nil},
		{"--base-data with --init uniform", append([]string{"--estimator", "ais", "--init", "uniform", "--base-data", unread}, ais...),
			[]string{"logz eval: --base-data is not used with --init uniform; ignored"}, nil},
		{"--base-data used", append([]string{"--estimator", "ais", "--base-data", numpyData}, ais...),
			nil, []string{"ignored"}},
		{"--binarize on npy data", []string{"--estimator", "exact", "--binarize", "threshold", "--threshold", "0.3"},
			[]string{"logz eval: --binarize is not used for 0/1 data (npy:); ignored", "logz eval: --threshold is not used for 0/1 data (npy:); ignored"}, nil},
		{"--threshold with stochastic", []string{"--estimator", "exact", "--data", grey, "--threshold", "0.3"},
			[]string{"logz eval: --threshold is used only with --binarize threshold; ignored"}, nil},
		{"--threshold with none", []string{"--estimator", "exact", "--data", binary, "--binarize", "none", "--threshold", "0.3"},
			[]string{"logz eval: --threshold is used only with --binarize threshold; ignored"}, nil},
		{"--threshold used", []string{"--estimator", "exact", "--data", grey, "--binarize", "threshold", "--threshold", "0.3"},
			nil, []string{"ignored"}},
		{"--binarize used for the base data", append([]string{"--estimator", "ais", "--base-data", grey, "--binarize", "threshold", "--threshold", "0.3"}, ais...),
			nil, []string{"ignored"}},
		{"--data-dir with npy data", []string{"--estimator", "exact", "--data-dir", t.TempDir()},
			[]string{"logz eval: --data-dir is used only for mnist:, fashion-mnist:, digits: and the published sets (omniglot:, …); ignored"}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			args := append([]string{"eval", "--model", numpyModel, "--data", numpyData, "--json"}, c.args...)
			_, stderr, err := runLogz(t, args...)
			if err != nil {
				t.Fatalf("logz %s: %v", strings.Join(args, " "), err)
			}
			for _, w := range c.want {
				if !strings.Contains(stderr, w+"\n") {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
			for _, w := range c.wantNo {
				if strings.Contains(stderr, w) {
					t.Errorf("stderr has %q:\n%s", w, stderr)
				}
			}
		})
	}
	// A used --base-data is read (and checked).
	_, _, err := runLogz(t, append([]string{"eval", "--model", numpyModel, "--data", numpyData, "--estimator", "ais", "--base-data", unread}, ais...)...)
	if err == nil || !strings.Contains(err.Error(), "missing.npy") {
		t.Errorf("--base-data used by ais was not read: %v", err)
	}
}

// TestEvalSplitName: the evaluated split is named by --split, else after
// the data spec's part, else (a file) test.
func TestEvalSplitName(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "test"},
		{[]string{"--split", "valid"}, "valid"},
		{[]string{"--split", "held_out-2"}, "held_out-2"},
	} {
		args := append([]string{"eval", "--model", numpyModel, "--data", numpyData, "--estimator", "exact", "--json"}, c.args...)
		out, _, err := runLogz(t, args...)
		if err != nil {
			t.Fatal(err)
		}
		rows, err := report.DecodeResults(strings.NewReader(out), "stdout")
		if err != nil || len(rows) != 1 || rows[0].Split != c.want {
			t.Errorf("logz %s: split of %+v (%v), want %q", strings.Join(args, " "), rows, err, c.want)
		}
	}
	for spec, want := range map[string]string{
		"mnist:train": "train", "fashion-mnist:test": "test", "planted:valid": "valid",
		"npy:/x/y.npy": "test", "idx:t10k-images-idx3-ubyte": "test",
	} {
		d, err := config.ParseDataSpec(spec)
		if err != nil {
			t.Fatal(err)
		}
		if got := defaultSplit(d); got != want {
			t.Errorf("default split of %s = %q, want %q", spec, got, want)
		}
	}
}

// TestEvalSandwich: logz eval runs the sandwich from its flags, K growing
// ×4 from --start-betas to --max-betas, and its rows carry their round.
// With a tolerance no pair meets (--until-gap 1e-9), every round runs.
func TestEvalSandwich(t *testing.T) {
	out, _, err := runLogz(t, "eval", "--model", numpyModel, "--data", numpyData, "--estimator", "exact,sandwich",
		"--start-betas", "5", "--max-betas", "40", "--until-gap", "1e-9", "--init", "uniform", "--json")
	if err != nil {
		t.Fatal(err)
	}
	rows, err := report.DecodeResults(strings.NewReader(out), "stdout")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range rows {
		if r.Round > 0 {
			got = append(got, fmt.Sprintf("%d:%s:%d:%s", r.Round, r.Estimator, r.Betas, r.Init))
		}
	}
	want := "1:ais:5:uniform 1:raise:5:uniform 2:ais:20:uniform 2:raise:20:uniform 3:ais:40:uniform 3:raise:40:uniform"
	if strings.Join(got, " ") != want {
		t.Errorf("sandwich rows %q, want %q", got, want)
	}
}
