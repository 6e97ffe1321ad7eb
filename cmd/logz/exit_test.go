package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/logz-ml/logz/internal/workgroup"
)

// TestExitStatus builds the logz binary and checks the exit status, stdout
// and stderr of command lines: 0 for success and help, 1 for a failed run
// or evaluation, 2 for a usage error, never the Go runtime's 2 of a crash,
// 3 for a run stopped at its --time-limit.
func TestExitStatus(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := logzBinary(t)
	dir := t.TempDir()
	badYAML := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(badYAML, []byte("experiments:\n  - name: a\n    data: {train: planted:train, test: [planted:test}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	limited := filepath.Join(dir, "limited")
	eval := []string{"eval", "--model", numpyModel, "--data", numpyData}
	with := func(base []string, more ...string) []string { return append(append([]string(nil), base...), more...) }
	cases := []struct {
		name   string
		args   []string
		status int
		stderr string // the last line of stderr ("" = stderr empty)
		stdout string // text stdout must contain ("" = stdout empty)
	}{
		{"no command", nil, 2, "logz: no command given", ""},
		{"unknown command", []string{"frobnicate"}, 2, `logz: unknown command "frobnicate"`, ""},
		{"help for an unknown command", []string{"help", "frobnicate"}, 2, `logz: unknown command "frobnicate"`, ""},
		{"help for two commands", []string{"help", "run", "eval"}, 2, `logz: help: one command at most, got "run eval"`, ""},
		{"version with an argument", []string{"version", "2"}, 2, `logz: version: unexpected argument "2"`, ""},
		{"unknown flag", []string{"eval", "--bogus"}, 2, "logz: eval: flag provided but not defined: -bogus (see 'logz eval --help')", ""},
		{"flag without its value", with(eval, "--limit"), 2, "logz: eval: flag needs an argument: -limit (see 'logz eval --help')", ""},
		{"flag value of the wrong type", with(eval, "--limit", "many"), 2, `logz: eval: invalid value "many" for flag -limit: parse error (see 'logz eval --help')`, ""},
		{"bad run flag value", []string{"run", "--seed", "x"}, 2, `logz: run: --seed wants a non-negative integer, got "x"`, ""},
		{"two config files", []string{"run", "a.yaml", "b.yaml"}, 2, "logz: run: one config file at most, got 2 (a.yaml b.yaml)", ""},
		{"models with both formats", []string{"models", "--json", "--markdown"}, 2, "logz: models: --json and --markdown exclude each other", ""},
		{"missing --model", []string{"eval", "--data", "planted:test"}, 2, "logz: eval: --model and --data are required (see 'logz eval --help'); --data may be left out for a model written by logz run", ""},
		{"eval argument", with(eval, "extra"), 2, `logz: eval: unexpected argument "extra" (flags only; see 'logz eval --help')`, ""},
		{"unknown estimator", with(eval, "--estimator", "magic"), 2, `logz: eval: --estimator: unknown estimator "magic" (known: exact, ais, chi2, bp, ais-ratio, raise, sandwich, csl, pll, recon, dbn-bound, mf-bound, is, bdmc, completion, elbo)`, ""},
		{"another family's estimator", with(eval, "--estimator", "dbn-bound"), 2, "logz: eval: --estimator: dbn-bound is not an estimator of model type rbm (its estimators: exact, ais, ais-ratio, raise, sandwich, csl, chi2, pll, recon)", ""},
		{"empty --estimator", with(eval, "--estimator", ""), 2, "logz: eval: --estimator: no estimator given (known: exact, ais, chi2, bp, ais-ratio, raise, sandwich, csl, pll, recon, dbn-bound, mf-bound, is, bdmc, completion, elbo)", ""},
		{"repeated estimator", with(eval, "--estimator", "exact,exact"), 2, "logz: eval: --estimator: exact is listed twice", ""},
		{"negative --limit", with(eval, "--limit", "-5"), 2, "logz: eval: --limit wants an integer ≥ 0 (0 = all), got -5", ""},
		{"bad --binarize", with(eval, "--binarize", "maybe"), 2, `logz: eval: --binarize wants stochastic, threshold or none, got "maybe"`, ""},
		{"bad --threshold", with(eval, "--threshold", "7"), 2, "logz: eval: --threshold wants a number in (0,1) (pixel/255 > t is 1; for any ink use e.g. 0.001), got 7", ""},
		{"bad --split", with(eval, "--split", "my split"), 2, `logz: eval: --split wants a plain word (letters, digits, '_' or '-', such as test), got "my split"`, ""},
		{"bad estimator flag value", with(eval, "--estimator", "ais", "--chains", "1"), 2, "logz: eval: --chains wants an integer ≥ 2, got 1 (ais: runs)", ""},
		{"missing model file", []string{"eval", "--model", "nope.npz", "--data", "planted:test", "--estimator", "exact"}, 1, "logz: --model: stat nope.npz: no such file or directory", ""},
		{"not a model file", []string{"eval", "--model", "../../models/testdata/numpy_expected.json", "--data", "planted:test"}, 1, "logz: --model: ../../models/testdata/numpy_expected.json: not a valid .npz (zip) archive: zip: not a valid zip file", ""},
		{"data of the wrong size", []string{"eval", "--model", numpyModel, "--data", "planted:test", "--estimator", "exact"}, 1, "logz: planted:test has 20 units per example but the model in ../../models/testdata/numpy_rbm.npz has 24 visible units", ""},
		{"missing config file", []string{"run", filepath.Join(dir, "missing.yaml")}, 1, "logz: config: open " + filepath.Join(dir, "missing.yaml") + ": no such file or directory", ""},
		{"bad config file", []string{"run", badYAML}, 1, "logz: " + badYAML + ":3: invalid YAML: did not find expected ',' or ']' (the [ list that opens on this line lacks its ] or a ',' between items)", ""},
		{"eval", with(eval, "--estimator", "exact"), 0, "", "Test log-prob"},
		{"eval with an ignored flag", with(eval, "--estimator", "exact", "--chains", "1"), 0, "logz eval: --chains is not a setting of exact for a rbm; ignored", "Test log-prob"},
		{"help", []string{"help"}, 0, "", "Exit status:"},
		{"--help", []string{"--help"}, 0, "", "Exit status:"},
		{"eval --help", []string{"eval", "--help"}, 0, "", "-split string"},
		{"help eval", []string{"help", "eval"}, 0, "", "-split string"},
		{"run -h", []string{"run", "-h"}, 0, "", "Usage: logz run"},
		{"version", []string{"version"}, 0, "", "logz "},
		{"data without action", []string{"data"}, 2, "logz: data: which action? logz data get NAME (see 'logz data --help')", ""},
		{"data get of an unknown set", []string{"data", "get", "cifar"}, 2, `logz: data get: unknown data set "cifar"; known: binarized-mnist, caltech-silhouettes, digits, fashion-mnist, mnist, ocr-letters, omniglot`, ""},
		{"data get with another set's flag", []string{"data", "get", "mnist", "--shifts"}, 2, "logz: data get: --shifts is a flag of digits only, not of mnist", ""},
		{"help data", []string{"help", "data"}, 0, "", "Usage: logz data get NAME"},
		{"negative --time-limit", []string{"run", "--time-limit", "-1m"}, 2, "logz: run: --time-limit wants a positive duration such as 1h50m, got -1m0s", ""},
		{"run stopped at its --time-limit", []string{"run", "--out", limited, "--time-limit", "1ns"}, 3, "continue with: logz run --out " + limited + " --time-limit 1ns --resume", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cmd := exec.Command(bin, c.args...)
			cmd.Env = append(os.Environ(), debugEnv+"=")
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			status := 0
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				status = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimRight(stderr.String(), "\n"), "\n")
			last := lines[len(lines)-1]
			if status != c.status || last != c.stderr {
				t.Errorf("logz %s: status %d, last line of stderr\n%s\nwant status %d and\n%s", strings.Join(c.args, " "), status, last, c.status, c.stderr)
			}
			if c.stdout == "" && stdout.Len() > 0 || !strings.Contains(stdout.String(), c.stdout) {
				t.Errorf("logz %s: stdout\n%s\nwant it to contain %q", strings.Join(c.args, " "), stdout.String(), c.stdout)
			}
			if strings.Contains(stderr.String(), "goroutine ") {
				t.Errorf("logz %s: a stack on stderr:\n%s", strings.Join(c.args, " "), stderr.String())
			}
		})
	}
}

// TestInternalError: a panic in a command is reported in one line as an
// internal error with exit status 1 (the Go runtime's would be 2, a usage
// error's), with the stack only under LOGZ_DEBUG.
func TestInternalError(t *testing.T) {
	crash := func() error {
		var m []int
		return fmt.Errorf("%d", m[3]) // index out of range
	}
	// The same crash in a worker goroutine, as in an estimator.
	inWorker := func() error {
		var g workgroup.Group
		var err error
		g.Go(func() { err = crash() })
		g.Wait()
		return err
	}
	for _, c := range []struct {
		debug string
		f     func() error
	}{{"", crash}, {"1", crash}, {"", inWorker}, {"1", inWorker}} {
		debug := c.debug
		crash := c.f
		t.Setenv(debugEnv, debug)
		var stderr bytes.Buffer
		status := exitStatus(crash, &stderr)
		want := "logz: internal error: runtime error: index out of range [3] with length 0 (please report it with the command line; LOGZ_DEBUG=1 prints the stack)\n"
		if debug != "" {
			want = "logz: internal error: runtime error: index out of range [3] with length 0 (please report it with the command line and this stack)\n"
		}
		got := stderr.String()
		if status != exitFailed || !strings.HasPrefix(got, want) {
			t.Errorf("LOGZ_DEBUG=%q: status %d, stderr\n%s\nwant status 1 and\n%s", debug, status, got, want)
		}
		if hasStack := strings.Contains(got, "goroutine ") && strings.Contains(got, "TestInternalError"); hasStack != (debug != "") {
			t.Errorf("LOGZ_DEBUG=%q: stack shown: %v\n%s", debug, hasStack, got)
		}
	}
	// Errors: a usage error (also wrapped) is 2, any other 1, none 0.
	for _, c := range []struct {
		err    error
		status int
		stderr string
	}{
		{nil, 0, ""},
		{usageError{"eval: bad"}, 2, "logz: eval: bad\n"},
		{fmt.Errorf("run: %w", usageError{"bad"}), 2, "logz: run: bad\n"},
		{errors.New("x.npz: broken"), 1, "logz: x.npz: broken\n"},
	} {
		var stderr bytes.Buffer
		if status := exitStatus(func() error { return c.err }, &stderr); status != c.status || stderr.String() != c.stderr {
			t.Errorf("%v: status %d, stderr %q; want %d, %q", c.err, status, stderr.String(), c.status, c.stderr)
		}
	}
}
