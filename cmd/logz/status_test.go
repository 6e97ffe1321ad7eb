package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// statusConfig is a small two-experiment run for the status and merge
// tests.
const statusConfig = `name: st
seed: 5
base:
  data: {train: planted:train, test: planted:test, planted: {train: 100, test: 50}}
  model: {type: rbm, hidden: 3}
  train: {epochs: 2, batch_size: 20, checkpoint_every: 1}
  evaluate: {splits: [test], every_epoch: [exact], final: [exact, {name: ais, runs: 4, betas: 50}]}
experiments:
  - name: a
  - name: b
`

// runPrinted runs the commands that `logz status` printed after "to
// finish:" (each after its "label: "; "for I in …; do CMD; done" runs CMD
// for each I), in this process, and fails on any error: the printed
// commands must run as they are.
func runPrinted(t *testing.T, status string) {
	t.Helper()
	_, todo, ok := strings.Cut(status, "to finish:\n")
	if !ok {
		t.Fatalf("no commands in:\n%s", status)
	}
	loop := regexp.MustCompile(`^for I in ([0-9 ]+); do (.*); done`)
	for _, line := range strings.Split(strings.TrimSpace(todo), "\n") {
		_, cmd, ok := strings.Cut(line, ": ")
		if !ok {
			t.Fatalf("no command in %q", line)
		}
		cmd, _, _ = strings.Cut(cmd, " (")
		var cmds []string
		if m := loop.FindStringSubmatch(cmd); m != nil {
			for _, i := range strings.Fields(m[1]) {
				cmds = append(cmds, strings.ReplaceAll(m[2], "$I", i))
			}
		} else {
			cmds = []string{cmd}
		}
		for _, c := range cmds {
			args := strings.Fields(c)
			if len(args) < 2 || args[0] != "logz" || strings.ContainsAny(c, "$'\"") {
				t.Fatalf("%q is not a plain logz command line", c)
			}
			if _, errb, err := runLogz(t, args[1:]...); err != nil {
				t.Fatalf("%s: %v\n%s", c, err, errb)
			}
		}
	}
}

// TestStatusAndMerge (issue 25, item 11): merge and status on a run made
// without --shard say it is not a sharded run; --shards 0 is refused;
// status prints commands that run as printed (real config path, --out and
// shard numbers, no placeholders) and finish the run; a model deleted
// after training is reported as missing, trained again by the printed
// command, and the merged results equal those of the unsharded run.
func TestStatusAndMerge(t *testing.T) {
	dir := t.TempDir()
	cfg := writeConfig(t, dir, statusConfig)
	plain := filepath.Join(dir, "plain")
	if _, _, err := runLogz(t, "run", cfg, "--out", plain); err != nil {
		t.Fatal(err)
	}
	sharded := filepath.Join(dir, "sharded")
	if _, _, err := runLogz(t, "run", cfg, "--out", sharded, "--shard", "0/2", "--phase", "train"); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"merge", plain}, "merge: " + plain + " is not a sharded run: it was made by logz run without --shard (it has no parts folder), which writes its results itself, so there are no shards to merge or report on; its results are in " + filepath.Join(plain, "results.json")},
		{[]string{"status", plain}, "status: " + plain + " is not a sharded run"},
		{[]string{"status", sharded, "--shards", "0"}, "status: --shards wants an integer in [1, 10000], got 0"},
		{[]string{"status", sharded, "--shards", "-1"}, "status: --shards wants an integer in [1, 10000], got -1"},
		{[]string{"merge", sharded}, "b: not trained (no " + filepath.Join(sharded, "parts", "b.train.json") + ")"},
	} {
		_, _, err := runLogz(t, c.args...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want an error with %q", c.args, err, c.want)
		}
	}

	status, _, err := runLogz(t, "status", sharded, "--shards", "2")
	if err != nil {
		t.Fatal(err)
	}
	cfgPath := filepath.Join(sharded, "config.resolved.yaml")
	for _, want := range []string{
		"  a  trained (2 epochs); evaluation: 0 of 2 shards done; missing 0, 1\n",
		"  evaluate a: for I in 0 1; do logz run " + cfgPath + " --out " + sharded + " --shard $I/2 --phase eval --experiment a; done\n",
		"  train b: logz run " + cfgPath + " --out " + sharded + " --shard 0/1 --phase train --experiment b\n",
		"  then evaluate b: for I in 0 1; do logz run " + cfgPath + " --out " + sharded + " --shard $I/2 --phase eval --experiment b; done\n",
		"  then merge: logz merge " + sharded + "\n",
	} {
		if !strings.Contains(status, want) {
			t.Errorf("status lacks %q:\n%s", want, status)
		}
	}
	if strings.Contains(status, "i/T") || strings.Contains(status, "i/N") {
		t.Errorf("status prints placeholders:\n%s", status)
	}
	// Without --shards and without parts: one shard, and how to choose more.
	status1, _, _ := runLogz(t, "status", sharded)
	if want := "  evaluate a: logz run " + cfgPath + " --out " + sharded + " --shard 0/1 --phase eval --experiment a (one shard; to split it into N: logz status " + sharded + " --shards N)\n"; !strings.Contains(status1, want) {
		t.Errorf("status without --shards lacks %q:\n%s", want, status1)
	}
	runPrinted(t, status)
	// One shard lost: the count from the parts, the one command.
	os.Remove(filepath.Join(sharded, "parts", "b.eval-1-of-2.json"))
	status, _, _ = runLogz(t, "status", sharded)
	if want := "  evaluate b: logz run " + cfgPath + " --out " + sharded + " --shard 1/2 --phase eval --experiment b\n"; !strings.Contains(status, want) {
		t.Errorf("status with a lost shard lacks %q:\n%s", want, status)
	}
	if _, _, err := runLogz(t, "merge", sharded); err == nil || !strings.Contains(err.Error(), "b's final evaluation: shard 1 of 2 is missing") {
		t.Errorf("merge with a lost shard: %v", err)
	}
	runPrinted(t, status)
	if !sameRows(stripTimes(t, filepath.Join(sharded, "results.json")), stripTimes(t, filepath.Join(plain, "results.json"))) {
		t.Error("the merged results differ from the unsharded run's")
	}

	// model.npz deleted after training.
	model := filepath.Join(sharded, "a", "model.npz")
	os.Remove(model)
	status, _, _ = runLogz(t, "status", sharded)
	for _, want := range []string{
		"  a  trained (2 epochs), but " + model + " is missing: to be trained again; evaluation: 2 of 2 shards done\n",
		"  train a again: logz run " + cfgPath + " --out " + sharded + " --shard 0/1 --phase train --experiment a\n",
	} {
		if !strings.Contains(status, want) {
			t.Errorf("status with a deleted model lacks %q:\n%s", want, status)
		}
	}
	if strings.Contains(status, "every part is there") {
		t.Errorf("status with a deleted model says it is ready:\n%s", status)
	}
	for _, args := range [][]string{
		{"merge", sharded},
		{"run", cfgPath, "--out", sharded, "--shard", "0/2", "--phase", "eval", "--experiment", "a"},
	} {
		_, errb, err := runLogz(t, args...)
		if want := model + " is missing, though " + filepath.Join(sharded, "parts", "a.train.json") + " says a's training finished; train a again"; err == nil || !strings.Contains(err.Error()+errb, want) {
			t.Errorf("%v with a deleted model: %v\n%s\nwant %q", args, err, errb, want)
		}
	}
	runPrinted(t, status)
	if !sameRows(stripTimes(t, filepath.Join(sharded, "results.json")), stripTimes(t, filepath.Join(plain, "results.json"))) {
		t.Error("after training a again, the merged results differ from the unsharded run's")
	}
}
