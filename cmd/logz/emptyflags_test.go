package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEmptyOutput: an output flag given as "" (--out "", which used to
// write to runs/<config name> silently) and an empty file or folder
// argument are usage errors naming the flag or the argument, for every
// command, before anything is read or written.
func TestEmptyOutput(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"run", "--out", ""}, `run: --out "" names no file or folder; give a path, or leave --out out for the default, runs/<config name>`},
		{[]string{"run", "x.yaml", "--out="}, `run: --out "" names no file or folder`},
		{[]string{"run", "--out", "  "}, `run: --out "  " names no file or folder`},
		{[]string{"run", "--shard", "0/2", "--out", ""}, `run: --out "" names no file or folder`},
		{[]string{"slurm", "--shards", "2", "--out", ""}, `slurm: --out "" names no file or folder; give a path, or leave --out out for the default, runs/<config name>`},
		{[]string{"sample", "--model", "m.npz", "--out", ""}, `sample: --out "" names no file or folder; give a path, or leave --out out for the default, samples.npy`},
		{[]string{"sample", "--model", "m.npz", "--png", ""}, `sample: --png "" names no file or folder; give a path`},
		{[]string{"eval", "--model", "m.npz", "--data", "planted:test", "--parts", ""}, `eval: --parts "" names no file or folder; give a path`},
		{[]string{"eval", "--model", "m.npz", "--data", "planted:test", "--shard", "0/2", "--parts", ""}, `eval: --parts "" names no file or folder`},
		{[]string{"run", ""}, `run: argument 1 is empty (""); it should name a file or folder (see 'logz run --help')`},
		{[]string{"plot", ""}, `plot: argument 1 is empty ("")`},
		{[]string{"merge", ""}, `merge: argument 1 is empty ("")`},
		{[]string{"status", " "}, `status: argument 1 is empty (" ")`},
	}
	for _, c := range cases {
		_, _, err := runLogz(t, c.args...)
		var ue usageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("logz %q:\n err = %v (usage error: %v)\nwant %q", c.args, err, errors.As(err, &ue), c.want)
		}
	}
	// Nothing was written: no runs/ folder, no samples.npy.
	for _, p := range []string{"runs", "samples.npy"} {
		if _, err := os.Stat(filepath.Join(dir, p)); err == nil {
			t.Errorf("%s was written", p)
		}
	}
}
