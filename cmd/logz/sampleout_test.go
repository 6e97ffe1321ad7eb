package main

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/logz-ml/logz/internal/runlock"
)

// TestSampleOutputs: logz sample refuses an --out or --png that is the
// model it reads (by path, symbolic link or hard link) or each other,
// before reading anything; and writing into a finished run folder takes
// that folder's lock, so it is refused while another logz writes there.
func TestSampleOutputs(t *testing.T) {
	dir := t.TempDir()
	cfg := writeConfig(t, dir, strings.Replace(tinyConfig, "epochs: 4", "epochs: 1", 1))
	run := filepath.Join(dir, "run")
	if _, _, err := runLogz(t, "run", cfg, "--out", run); err != nil {
		t.Fatal(err)
	}
	model := filepath.Join(run, "cd", "model.npz")
	before, err := os.ReadFile(model)
	if err != nil {
		t.Fatal(err)
	}
	soft := filepath.Join(dir, "soft.npz")
	hard := filepath.Join(dir, "hard.npz")
	if err := os.Symlink(model, soft); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(model, hard); err != nil {
		t.Fatal(err)
	}
	base := []string{"sample", "--model", model, "--n", "3", "--steps", "2", "--init", "random"}
	wd, _ := os.Getwd()
	rel, err := filepath.Rel(wd, model) // ../../…: another spelling of it
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--out", model}, "sample: --out " + model + " is the file --model reads"},
		{[]string{"--out", filepath.Join(run, "cd", ".", "model.npz")}, "is the file --model reads"},
		{[]string{"--out", rel}, "is the file --model reads"},
		{[]string{"--out", soft}, "sample: --out " + soft + " is the file --model reads"},
		{[]string{"--out", hard}, "sample: --out " + hard + " is the file --model reads"},
		{[]string{"--out", filepath.Join(dir, "s.npy"), "--png", model}, "sample: --png " + model + " is the file --model reads"},
		{[]string{"--out", filepath.Join(dir, "s.npy"), "--png", filepath.Join(dir, "s.npy")}, "--out " + filepath.Join(dir, "s.npy") + " and --png " + filepath.Join(dir, "s.npy") + " are one file"},
		{[]string{"--out", numpyDataPath, "--data", numpyDataPath}, "sample: --out " + numpyDataPath + " is the file --data reads"},
	} {
		_, _, err := runLogz(t, append(base, c.args...)...)
		var ue usageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("logz sample %s: got %v, want a usage error containing %q", strings.Join(c.args, " "), err, c.want)
		}
	}
	if after, _ := os.ReadFile(model); !bytes.Equal(before, after) {
		t.Fatal("the model was overwritten")
	}
	if _, err := os.Stat(filepath.Join(dir, "s.npy")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a refused command wrote s.npy: %v", err)
	}

	// Into the finished run folder, while another process holds it.
	held, err := runlock.Acquire(run, runlock.Exclusive)
	if err != nil {
		t.Fatal(err)
	}
	into := filepath.Join(run, "cd", "more.npy")
	_, _, err = runLogz(t, append(base, "--out", into)...)
	if err == nil || !strings.Contains(err.Error(), "lies in the logz run folder "+run) || !strings.Contains(err.Error(), "is in use by logz") {
		t.Errorf("sample into a run folder in use: got %v", err)
	}
	if _, err := os.Stat(into); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("sample wrote into a run folder in use: %v", err)
	}
	held.Release()
	if _, stderr, err := runLogz(t, append(base, "--out", into, "--png", filepath.Join(run, "more.png"))...); err != nil {
		t.Fatalf("sample into a free run folder: %v\n%s", err, stderr)
	}
}

// TestEvalPartsNotARunFolder: logz eval --shard --parts RUN, RUN a finished
// run folder, is refused naming it (its parts made logz status and logz
// merge report the run as not started), and RUN is left as it was; so is
// the merge, logz eval --parts RUN without --shard.
func TestEvalPartsNotARunFolder(t *testing.T) {
	dir := t.TempDir()
	cfg := writeConfig(t, dir, strings.Replace(tinyConfig, "epochs: 4", "epochs: 1", 1))
	run := filepath.Join(dir, "run")
	if _, _, err := runLogz(t, "run", cfg, "--out", run); err != nil {
		t.Fatal(err)
	}
	model := filepath.Join(run, "cd", "model.npz")
	eval := []string{"eval", "--model", model, "--data", "planted:test", "--estimator", "exact"}
	for _, extra := range [][]string{{"--shard", "0/2", "--parts", run}, {"--parts", run}} {
		_, _, err := runLogz(t, append(eval, extra...)...)
		var ue usageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), "eval: --parts "+run+" holds a logz run") {
			t.Errorf("logz eval %s: got %v, want a usage error naming the run folder", strings.Join(extra, " "), err)
		}
	}
	if _, err := os.Stat(filepath.Join(run, "parts")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("eval --shard wrote parts into the run folder: %v", err)
	}
	if stdout, _, err := runLogz(t, "status", run); err == nil || !strings.Contains(err.Error(), "its results are in") || strings.Contains(stdout, "not started") {
		t.Errorf("logz status of the run: %v\n%s", err, stdout)
	}
	// A folder of its own works.
	own := filepath.Join(dir, "own")
	for _, extra := range [][]string{{"--shard", "0/1", "--parts", own}, {"--parts", own}} {
		if _, stderr, err := runLogz(t, append(eval, extra...)...); err != nil {
			t.Fatalf("logz eval %s: %v\n%s", strings.Join(extra, " "), err, stderr)
		}
	}
}
