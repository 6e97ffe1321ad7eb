//go:build unix

package main

import (
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The examples of docs/guide.md that write models with NumPy, and the Go
// program, run here as a reader would run them. The NumPy ones need
// /usr/bin/python3 with numpy and skip without it (Debian: apt-get install
// python3-numpy).

const python = "/usr/bin/python3"

func needNumPy(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("runs the guide's examples")
	}
	if err := exec.Command(python, "-c", "import numpy").Run(); err != nil {
		t.Skipf("needs %s with numpy: %v", python, err)
	}
}

// markedBlocks returns, for every occurrence of marker in text, the lines
// of the fenced block that follows it and of the plain ``` block right
// after that one, if any (its expected output).
func markedBlocks(text, marker string) (blocks, outputs [][]string) {
	for rest := text; ; {
		i := strings.Index(rest, marker)
		if i < 0 {
			return
		}
		rest = rest[i+len(marker):]
		lines := strings.Split(rest, "\n")
		var block, output []string
		k := 1
		for k < len(lines) && !strings.HasPrefix(lines[k], "```") {
			k++
		}
		for k++; k < len(lines) && !strings.HasPrefix(lines[k], "```"); k++ {
			block = append(block, lines[k])
		}
		k++
		for k < len(lines) && strings.TrimSpace(lines[k]) == "" {
			k++
		}
		if k < len(lines) && lines[k] == "```" {
			for k++; k < len(lines) && !strings.HasPrefix(lines[k], "```"); k++ {
				output = append(output, strings.TrimRight(lines[k], " "))
			}
		}
		blocks, outputs = append(blocks, block), append(outputs, output)
	}
}

// runShellExample runs an example's lines in the working directory:
// python3 lines with /usr/bin/python3, ./logz lines in process, mkdir -p as
// a folder. It returns the stdout of the last ./logz line.
func runShellExample(t *testing.T, lines []string) string {
	t.Helper()
	var joined []string
	for i := 0; i < len(lines); i++ {
		l := strings.TrimSpace(lines[i])
		for strings.HasSuffix(l, "\\") && i+1 < len(lines) {
			i++
			l = strings.TrimSuffix(l, "\\") + " " + strings.TrimSpace(lines[i])
		}
		if l != "" {
			joined = append(joined, l)
		}
	}
	last := ""
	for _, l := range joined {
		switch {
		case strings.HasPrefix(l, "mkdir -p "):
			if err := os.MkdirAll(strings.TrimPrefix(l, "mkdir -p "), 0o755); err != nil {
				t.Fatal(err)
			}
		case strings.HasPrefix(l, "python3 "):
			out, err := exec.Command("sh", "-c", python+strings.TrimPrefix(l, "python3")).CombinedOutput()
			if err != nil {
				t.Fatalf("%s: %v\n%s", l, err, out)
			}
		case strings.HasPrefix(l, "./logz "):
			stdout, stderr, err := runLogz(t, strings.Fields(strings.TrimPrefix(l, "./logz "))...)
			if err != nil {
				t.Fatalf("%s: %v\n%s", l, err, stderr)
			}
			last = stdout
		default:
			t.Fatalf("the test cannot run %q", l)
		}
	}
	return last
}

// compareOutput checks a quoted terminal output against what logz printed,
// line by line: box-table rows cell by cell, the Minutes column within half
// a minute; every other line exactly.
func compareOutput(t *testing.T, what string, quoted []string, got string) {
	t.Helper()
	real := strings.Split(strings.TrimRight(got, "\n"), "\n")
	if len(real) != len(quoted) {
		t.Errorf("%s: %d lines quoted, logz printed %d:\n%s", what, len(quoted), len(real), got)
		return
	}
	var header []string
	for i, q := range quoted {
		r := strings.TrimRight(real[i], " ")
		if !strings.HasPrefix(q, "│") {
			if q != r {
				t.Errorf("%s: line %d quoted\n%s\nlogz printed\n%s", what, i+1, q, r)
			}
			continue
		}
		qc, rc := cells(q, "│"), cells(r, "│")
		if header == nil {
			header = qc
		}
		if len(qc) != len(rc) {
			t.Errorf("%s: line %d quoted\n%s\nlogz printed\n%s", what, i+1, q, r)
			continue
		}
		for j := range qc {
			if j < len(header) && header[j] == "Minutes" && qc[j] != "Minutes" {
				a, err1 := strconv.ParseFloat(qc[j], 64)
				b, err2 := strconv.ParseFloat(rc[j], 64)
				if err1 != nil || err2 != nil || math.Abs(a-b) > 0.5 {
					t.Errorf("%s: Minutes %s quoted, %s printed (more than half a minute apart)", what, qc[j], rc[j])
				}
				continue
			}
			if qc[j] != rc[j] {
				t.Errorf("%s: line %d, column %q: quoted %q, logz printed %q", what, i+1, header[j], qc[j], rc[j])
			}
		}
	}
}

// TestGuideNumPyExamples runs the guide's NumPy examples: the RBM export
// snippet (and checks the log Z logz computes from its file against
// enumeration in NumPy), and every shell example marked as run here,
// comparing the output shown under it.
func TestGuideNumPyExamples(t *testing.T) {
	needNumPy(t)
	guide := readRepo(t, "docs/guide.md")
	t.Chdir(t.TempDir())
	if err := os.MkdirAll("runs", 0o755); err != nil {
		t.Fatal(err)
	}

	snippet := strings.Join(markedBlock(t, "docs/guide.md", guide, "<!-- numpy rbm export:"), "\n")
	if out, err := exec.Command(python, "-c", snippet).CombinedOutput(); err != nil {
		t.Fatalf("the guide's NumPy snippet: %v\n%s", err, out)
	}
	const enumerate = `import numpy as np, itertools
z = np.load("runs/my-rbm.npz")
W, a, b = z["W"], z["vbias"], z["hbias"]
hs = np.array(list(itertools.product([0, 1], repeat=len(b))), dtype=float)
t = hs @ b + np.logaddexp(0, a[None, :] + hs @ W.T).sum(axis=1)
m = t.max()
print(repr(m + np.log(np.exp(t - m).sum())))`
	out, err := exec.Command(python, "-c", enumerate).CombinedOutput()
	if err != nil {
		t.Fatalf("enumeration in NumPy: %v\n%s", err, out)
	}
	want, err := strconv.ParseFloat(strings.TrimSpace(string(out)), 64)
	if err != nil {
		t.Fatal(err)
	}
	stdout, stderr, err := runLogz(t, "eval", "--model", "runs/my-rbm.npz", "--data", "planted:test", "--estimator", "exact", "--json")
	if err != nil {
		t.Fatalf("logz eval of the snippet's file: %v\n%s", err, stderr)
	}
	var res struct {
		Estimates []struct {
			LogZ *float64 `json:"log_z"`
		} `json:"estimates"`
	}
	if err := json.Unmarshal([]byte(stdout), &res); err != nil || len(res.Estimates) == 0 || res.Estimates[0].LogZ == nil {
		t.Fatalf("logz eval --json: %v\n%s", err, stdout)
	}
	if got := *res.Estimates[0].LogZ; math.Abs(got-want) > 1e-9*math.Abs(want) {
		t.Errorf("log Z of the guide's NumPy RBM: logz %v, NumPy enumeration %v", got, want)
	}

	blocks, outputs := markedBlocks(guide, "<!-- numpy example:")
	if len(blocks) < 3 {
		t.Fatalf("docs/guide.md marks %d NumPy examples", len(blocks))
	}
	for i, b := range blocks {
		got := runShellExample(t, b)
		if len(outputs[i]) > 0 {
			compareOutput(t, "docs/guide.md example "+strconv.Itoa(i+1)+" ("+strings.TrimSpace(b[len(b)-1])+")", outputs[i], got)
		}
	}
}

// TestGuideGoExample builds the guide's Go program against this checkout
// (a module of its own that replaces github.com/logz-ml/logz with it, the
// dependencies from the module cache) and compares what it prints with the
// output the guide shows.
func TestGuideGoExample(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a program")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	guide := readRepo(t, "docs/guide.md")
	program := markedBlock(t, "docs/guide.md", guide, "<!-- go example:")
	want := markedBlock(t, "docs/guide.md", guide, "<!-- go example output")
	root, err := filepath.Abs(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	gomod := readRepo(t, "go.mod")
	i := strings.Index(gomod, "\nrequire")
	if i < 0 {
		t.Fatal("go.mod has no require")
	}
	dir := t.TempDir()
	files := map[string]string{
		"main.go": strings.Join(program, "\n") + "\n",
		"go.mod":  "module guideexample\n\ngo 1.25\n\nrequire github.com/logz-ml/logz v0.0.0\n\nreplace github.com/logz-ml/logz => " + root + "\n" + gomod[i:],
		"go.sum":  readRepo(t, "go.sum"),
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(goBin, "run", ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		if strings.Contains(stderr.String(), "GOPROXY=off") {
			t.Skipf("a dependency is not in the module cache (go mod download fetches them):\n%s", stderr.String())
		}
		t.Fatalf("go run of the guide's program: %v\n%s", err, stderr.String())
	}
	if got := strings.TrimRight(string(out), "\n"); got != strings.Join(want, "\n") {
		t.Errorf("the guide's Go program printed\n%s\nthe guide shows\n%s", got, strings.Join(want, "\n"))
	}
}

// TestGuideStatusExample runs the guide's `logz status` example — the first
// of two shards of the Ising quickstart, then status — and compares what
// status prints with the guide.
func TestGuideStatusExample(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a shard of a config")
	}
	guide := readRepo(t, "docs/guide.md")
	lines := markedBlock(t, "docs/guide.md", guide, "<!-- status example:")
	t.Chdir(t.TempDir())
	var quoted []string
	var got string
	for i, l := range lines {
		cmd, ok := strings.CutPrefix(l, "$ ./logz ")
		if !ok {
			quoted = append(quoted, l)
			continue
		}
		stdout, stderr, err := runLogz(t, strings.Fields(cmd)...)
		if i == 0 {
			if err == nil {
				t.Errorf("%s: no error; the guide says it exits with status 1", l)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v\n%s", l, err, stderr)
		}
		got = stdout
	}
	compareOutput(t, "docs/guide.md logz status example", quoted, got)
}
