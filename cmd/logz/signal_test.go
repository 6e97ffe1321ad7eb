package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/logz-ml/logz/eval/report"
	"github.com/logz-ml/logz/internal/testenv"
)

var (
	buildOnce sync.Once
	builtPath string
	buildErr  error
)

// logzBinary builds the command once per test binary, for tests that need
// a real process (signals, exit statuses).
func logzBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "logz-bin-")
		if err != nil {
			buildErr = err
			return
		}
		builtPath = filepath.Join(dir, "logz")
		goTool, err := exec.LookPath("go")
		if err != nil {
			buildErr = err
			return
		}
		out, err := exec.Command(goTool, "build", "-o", builtPath, ".").CombinedOutput()
		if err != nil {
			buildErr = errors.New(string(out))
		}
	})
	if buildErr != nil {
		t.Fatalf("building logz: %v", buildErr)
	}
	return builtPath
}

// TestInterruptKeepsAndResumes interrupts a run (SIGINT, then SIGTERM) once
// it has checkpoints, checks the exit status and the message — what was
// kept and the command that continues — and that resuming gives the rows
// of an uninterrupted run.
func TestInterruptKeepsAndResumes(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command")
	}
	bin := logzBinary(t)
	dir := t.TempDir()
	long := strings.Replace(tinyConfig, "epochs: 4", "epochs: 60", 1)
	cfg := writeConfig(t, dir, long)
	full := filepath.Join(dir, "full")
	if _, _, err := runLogz(t, "run", cfg, "--out", full); err != nil {
		t.Fatal(err)
	}
	want := stripTimes(t, filepath.Join(full, "results.json"))

	for _, sig := range []struct {
		s    syscall.Signal
		name string
		code int
		at   string
	}{
		{syscall.SIGINT, "SIGINT", 130, "cd: epoch 3/60"},
		{syscall.SIGTERM, "SIGTERM", 143, "pcd: epoch 2/60"},
	} {
		out := filepath.Join(dir, "part")
		args := []string{"run", cfg, "--out", out}
		if sig.code == 143 {
			args = append(args, "--resume") // continue the SIGINT'ed run, and stop it again
		}
		cmd := exec.Command(bin, args...)
		stderr, err := cmd.StderrPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		var text strings.Builder
		sc := bufio.NewScanner(stderr)
		sent := false
		for sc.Scan() {
			text.WriteString(sc.Text() + "\n")
			if !sent && strings.HasPrefix(sc.Text(), sig.at) {
				cmd.Process.Signal(sig.s)
				sent = true
			}
		}
		err = cmd.Wait()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != sig.code {
			t.Fatalf("%s: exit %v, want status %d\n%s", sig.name, err, sig.code, text.String())
		}
		msg := text.String()
		for _, w := range []string{
			"logz: interrupted by " + sig.name + "; kept in " + out + ":\n",
			"cd/model.npz holds epoch ",
			"continue with: logz run " + cfg + " --out " + out + " --resume\n",
		} {
			if !strings.Contains(msg, w) {
				t.Errorf("%s: stderr lacks %q:\n%s", sig.name, w, msg)
			}
		}
		if tmp, _ := filepath.Glob(filepath.Join(out, "*", ".*.tmp-*")); len(tmp) > 0 {
			t.Errorf("%s: temporary files left: %v", sig.name, tmp)
		}
	}
	_, stderr, err := runLogz(t, "run", cfg, "--out", filepath.Join(dir, "part"), "--resume")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stderr, "resuming after epoch") {
		t.Errorf("did not resume:\n%s", stderr)
	}
	if got := stripTimes(t, filepath.Join(dir, "part", "results.json")); !sameRows(got, want) {
		t.Error("interrupted and resumed results differ from the uninterrupted run")
	}
}

// TestRunRefusalIsAUsageError: a second `logz run` into a finished run is
// refused before anything is written, as a usage error (exit status 2),
// said once and without claiming to have written the folder.
func TestRunRefusalIsAUsageError(t *testing.T) {
	dir := t.TempDir()
	cfg := writeConfig(t, dir, tinyConfig)
	out := filepath.Join(dir, "out")
	if _, _, err := runLogz(t, "run", cfg, "--out", out); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(filepath.Join(out, "results.json"))
	_, stderr, err := runLogz(t, "run", cfg, "--out", out)
	var ue usageError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "already holds a run") {
		t.Fatalf("err = %v", err)
	}
	if strings.Contains(stderr, "wrote") || strings.Contains(stderr, "already holds a run") || strings.Contains(stderr, "running") {
		t.Errorf("stderr should be empty (main prints the error once):\n%s", stderr)
	}
	after, _ := os.ReadFile(filepath.Join(out, "results.json"))
	if string(before) != string(after) {
		t.Error("results.json changed")
	}
	if _, _, err := runLogz(t, "run", cfg, "--out", out, "--resume", "--force"); err == nil || !strings.Contains(err.Error(), "--resume and --force contradict each other") {
		t.Errorf("--resume --force: %v", err)
	}
}

// TestMain puts the tests' temporary folders on a memory file system (see
// testenv.Run): they write run folders, each file fsync'ed.
func TestMain(m *testing.M) {
	code := testenv.Run(m)
	if builtPath != "" {
		os.RemoveAll(filepath.Dir(builtPath))
	}
	os.Exit(code)
}

// sandwichConfig runs a sandwich that never closes (until_gap tiny) over
// three rounds, the last one long.
const sandwichConfig = `name: sw
seed: 5
experiments:
  - name: a
    data: {train: planted:train, test: planted:test, planted: {train: 200, test: 40}}
    model: {type: rbm, hidden: 6}
    train: {epochs: 1, batch_size: 20}
    evaluate:
      splits: [test]
      every_epoch: []
      final:
        - {name: sandwich, until_gap: 1e-9, start_betas: 1000, growth: 10, max_betas: 100000, schedule: linear, init: uniform, ais: {runs: 100}, raise: {chains: 2, examples: 4}}
`

// TestSandwichResumesAtItsRound kills a run (SIGKILL) in its sandwich's
// third round, once final.progress.json records the first two, and
// resumes it: the two recorded rounds are taken as they were (their rows
// keep the recorded seconds), not computed again.
func TestSandwichResumesAtItsRound(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command")
	}
	bin := logzBinary(t)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "sw.yaml")
	if err := os.WriteFile(cfg, []byte(sandwichConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "run")
	cmd := exec.Command(bin, "run", cfg, "--out", out)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	progress := filepath.Join(out, "a", "final.progress.json")
	var p struct {
		Pieces map[string][][]report.Row `json:"pieces"`
	}
	deadline := time.Now().Add(60 * time.Second)
	for len(p.Pieces["0"]) < 2 {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("no two rounds recorded within a minute")
		}
		time.Sleep(5 * time.Millisecond)
		if b, err := os.ReadFile(progress); err == nil {
			json.Unmarshal(b, &p)
		}
	}
	cmd.Process.Kill()
	cmd.Wait()
	if len(p.Pieces["0"]) != 2 {
		t.Skipf("the run got past round 3 before it was killed (%d rounds recorded)", len(p.Pieces["0"]))
	}
	if _, errOut, err := runLogz(t, "run", cfg, "--out", out, "--resume"); err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	rows, err := report.ReadResults(filepath.Join(out, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rounds [4]int
	for _, r := range rows {
		if r.Stage != report.StageFinal || r.Round == 0 {
			continue
		}
		rounds[r.Round]++
		if r.Round <= 2 {
			rec := p.Pieces["0"][r.Round-1]
			if !slices.ContainsFunc(rec, func(x report.Row) bool { return x.Estimator == r.Estimator && x.Seconds == r.Seconds }) {
				t.Errorf("round %d %s took %v s: computed again, not the recorded row", r.Round, r.Estimator, r.Seconds)
			}
		}
	}
	if rounds[1] == 0 || rounds[2] == 0 || rounds[3] == 0 {
		t.Errorf("rows per round %v; want rounds 1 to 3", rounds[1:])
	}
}
