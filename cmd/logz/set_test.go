package main

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/logz-ml/logz/config"
	"github.com/logz-ml/logz/eval/report"
)

// writeBitsNPY writes an n×d float64 .npy array of 0/1 values: pixel j of
// an example is on with probability (j+1)/(d+1), so the set has structure.
func writeBitsNPY(t *testing.T, path string, n, d int, seed uint64) {
	t.Helper()
	hdr := fmt.Sprintf("{'descr': '<f8', 'fortran_order': False, 'shape': (%d, %d), }", n, d)
	for (10+len(hdr)+1)%64 != 0 {
		hdr += " "
	}
	hdr += "\n"
	b := append([]byte("\x93NUMPY\x01\x00"), byte(len(hdr)), byte(len(hdr)>>8))
	b = append(b, hdr...)
	r := rand.New(rand.NewPCG(seed, 0))
	for range n {
		for j := range d {
			x := 0.0
			if r.Float64() < float64(j+1)/float64(d+1) {
				x = 1
			}
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(x))
		}
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// writeGreyIDX writes n grey images of rows×cols as an IDX file (bytes
// 0..255 spread over the whole range).
func writeGreyIDX(t *testing.T, path string, n, rows, cols int, seed uint64) {
	t.Helper()
	b := []byte{0, 0, 0x08, 3}
	for _, x := range []int{n, rows, cols} {
		b = binary.BigEndian.AppendUint32(b, uint32(x))
	}
	r := rand.New(rand.NewPCG(seed, 1))
	for range n * rows * cols {
		b = append(b, byte(r.IntN(256)))
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// tinyEvaluation makes a Table 1 config cheap: one epoch, a 10-example
// validation split, and small final estimates (every one of the file's
// kinds kept: importance sampling and the ELBO).
var tinyEvaluation = []string{
	"--set", "data.validation=10",
	"--set", "train.epochs=1",
	"--set", "evaluate.every_epoch=[]",
	"--set", "evaluate.final=[{name: is, samples: 20, examples: 20}, {name: elbo, samples: 5, examples: 20}]",
}

// TestSetTable1OnAnotherDataset: the 784-pixel MNIST config of Table 1
// runs unchanged on 20-pixel data given by --set, as npy: 0/1 data (which
// the config's stochastic binarisation leaves as it is) and as idx: grey
// images (which it binarises); the run records the overrides.
func TestSetTable1OnAnotherDataset(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(repoRoot, "configs", "repro-chi2-vae-ber200.yaml")
	for _, c := range []struct{ name, train, test string }{
		{"npy", "npy:" + filepath.Join(dir, "tr.npy"), "npy:" + filepath.Join(dir, "te.npy")},
		{"idx", "idx:" + filepath.Join(dir, "tr.idx"), "idx:" + filepath.Join(dir, "te.idx")},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.name == "npy" {
				writeBitsNPY(t, filepath.Join(dir, "tr.npy"), 60, 20, 1)
				writeBitsNPY(t, filepath.Join(dir, "te.npy"), 30, 20, 2)
			} else {
				writeGreyIDX(t, filepath.Join(dir, "tr.idx"), 60, 4, 5, 1)
				writeGreyIDX(t, filepath.Join(dir, "te.idx"), 30, 4, 5, 2)
			}
			out := filepath.Join(dir, "out-"+c.name)
			args := append([]string{"run", cfg, "--out", out, "--set", "data.train=" + c.train, "--set", "data.test=" + c.test}, tinyEvaluation...)
			// The paper's number for another data set replaces the MNIST one.
			args = append(args, "--set", "reference={source: Omniglot column, test: -135.1}")
			_, stderr, err := runLogz(t, args...)
			if err != nil {
				t.Fatalf("%v\n%s", err, stderr)
			}
			rows, err := report.ReadResults(filepath.Join(out, config.ResultsFile))
			if err != nil {
				t.Fatal(err)
			}
			finals := 0
			for _, r := range rows {
				if r.Stage != report.StageFinal {
					continue
				}
				if r.Estimator == "reference" {
					if r.MeanLoglik == nil || *r.MeanLoglik != -135.1 {
						t.Errorf("reference row %+v, want the --set test: -135.1", r)
					}
					continue
				}
				finals++
				if r.MeanLoglik == nil || math.IsNaN(*r.MeanLoglik) || math.IsInf(*r.MeanLoglik, 0) {
					t.Errorf("%s: no finite mean log-likelihood: %+v", r.Estimator, r)
				}
			}
			if finals != 2 {
				t.Errorf("%d final estimates, want the 2 of the overridden evaluate.final", finals)
			}
			res, err := os.ReadFile(filepath.Join(out, config.ResolvedFile))
			if err != nil {
				t.Fatal(err)
			}
			f, err := config.Parse(res, "resolved", config.Options{})
			if err != nil {
				t.Fatal(err)
			}
			e := f.Experiments[0]
			if e.Data.Train != c.train || e.Data.Binarize != "stochastic" || e.Data.BinarizeSeed != 1 || e.Data.Validation != 10 {
				t.Errorf("resolved data %+v, want the --set train spec and the file's binarisation", e.Data)
			}
			if got := config.ResolvedOverrides(res); len(got) != 3+len(tinyEvaluation)/2 || got[0] != "data.train="+c.train {
				t.Errorf("config.resolved.yaml names the overrides %q", got)
			}
			md, err := os.ReadFile(filepath.Join(out, config.ReportFile))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(md), "- **overrides**: --set data.train="+c.train) {
				t.Errorf("report.md has no overrides line:\n%s", md)
			}
			if !strings.Contains(string(md), "--set data.test="+c.test) || !strings.Contains(string(md), "'evaluate.final=[{name: is, samples: 20, examples: 20}, {name: elbo, samples: 5, examples: 20}]'") {
				t.Errorf("report.md does not name the overrides (quoted for a shell):\n%s", md)
			}
			if c.name != "idx" {
				return
			}
			// The grey images went through the config's binarisation: with
			// none they are refused.
			_, stderr, err = runLogz(t, append(args, "--out", out+"-none", "--set", "data.binarize=none")...)
			if err == nil || !strings.Contains(stderr, `binarisation "none" needs 0/1 data`) {
				t.Errorf("grey idx: data with --set data.binarize=none: got %v\n%s\nwant it refused", err, stderr)
			}
		})
	}
}

// TestSetGreyNPYBinarised: grey levels in an npy: file are binarised by
// data.binarize as an IDX file's are (the run's rows name the
// binarisation); with binarize none they are refused.
func TestSetGreyNPYBinarised(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "grey.npy")
	writeBitsNPY(t, p, 40, 20, 1)
	b, _ := os.ReadFile(p)
	binary.LittleEndian.PutUint64(b[len(b)-8:], math.Float64bits(0.5))
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(repoRoot, "configs", "repro-chi2-vae-ber200.yaml")
	args := append([]string{"run", cfg, "--set", "data.train=npy:" + p, "--set", "data.test=npy:" + p, "--set", "data.validation=0"}, tinyEvaluation...)
	out := filepath.Join(dir, "out")
	if _, stderr, err := runLogz(t, append(args, "--out", out)...); err != nil {
		t.Fatalf("grey npy: data: %v\n%s", err, stderr)
	}
	rows, err := report.ReadResults(filepath.Join(out, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	named := 0
	for _, r := range rows {
		if r.Data != nil {
			if r.Data.Binarize != "stochastic" {
				t.Errorf("grey npy: a row's data %+v do not name the stochastic binarisation", r.Data)
			}
			named++
		}
	}
	if named == 0 {
		t.Error("grey npy: no row names its data")
	}
	_, stderr, err := runLogz(t, append(args, "--out", out+"-none", "--set", "data.binarize=none")...)
	if err == nil || !strings.Contains(stderr, `binarisation "none" needs 0/1 data`) {
		t.Errorf("grey npy: data with binarize none: got %v\n%s\nwant it refused", err, stderr)
	}
}

// TestSetResume: --resume with the run's --set continues; without them (or
// with others) it is refused, naming the values that differ and both sets
// of overrides.
func TestSetResume(t *testing.T) {
	dir := t.TempDir()
	cfg := writeConfig(t, dir, tinyConfig)
	out := filepath.Join(dir, "out")
	set := []string{"--set", "train.epochs=1", "--set", "pcd:model.hidden=4", "--set", "evaluate.final=[exact]", "--set", "evaluate.every_epoch=[]"}
	if _, _, err := runLogz(t, append([]string{"run", cfg, "--out", out}, set...)...); err != nil {
		t.Fatal(err)
	}
	_, stderr, err := runLogz(t, append([]string{"run", cfg, "--out", out, "--resume"}, set...)...)
	if err != nil {
		t.Fatalf("--resume with the same --set: %v\n%s", err, stderr)
	}
	_, _, err = runLogz(t, "run", cfg, "--out", out, "--resume")
	for _, want := range []string{
		"was made with another config or seed (the run was made with --set train.epochs=1 --set pcd:model.hidden=4",
		"this command has no --set",
		"train.epochs: 1 in the run folder, 4 now",
		"experiments[1].model.hidden: 4 in the run folder, 6 now",
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("--resume without the --set: got\n%v\nwant it to contain %q", err, want)
		}
	}
	if err != nil && exitStatus(func() error { return err }, &strings.Builder{}) != exitUsage {
		t.Errorf("refused --resume: want exit status %d", exitUsage)
	}
}

// TestSetSharded: the shards of a run take --set; merge names them in
// report.md (from config.resolved.yaml), and a shard without them is
// refused as a shard of another config.
func TestSetSharded(t *testing.T) {
	dir := t.TempDir()
	cfg := writeConfig(t, dir, tinyConfig)
	out := filepath.Join(dir, "out")
	set := []string{"--set", "train.epochs=1", "--set", "evaluate.final=[exact]", "--set", "evaluate.every_epoch=[]"}
	if _, _, err := runLogz(t, append([]string{"run", cfg, "--out", out, "--shard", "0/1"}, set...)...); err != nil {
		t.Fatal(err)
	}
	if _, _, err := runLogz(t, "run", cfg, "--out", out, "--shard", "0/1"); err == nil || !strings.Contains(err.Error(), "this command has no --set") {
		t.Errorf("a shard without the run's --set: got %v, want it refused", err)
	}
	if _, _, err := runLogz(t, "merge", out); err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(out, config.ReportFile))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), "- **overrides**: --set train.epochs=1 --set evaluate.final=") {
		t.Errorf("the merged report.md does not name the shards' overrides:\n%s", md)
	}
}

// TestSetErrors: a malformed --set is a usage error; a value the config
// cannot take names the --set, not a line of the file.
func TestSetErrors(t *testing.T) {
	dir := t.TempDir()
	cfg := writeConfig(t, dir, tinyConfig)
	for _, c := range []struct {
		args  []string
		want  string
		usage bool
	}{
		{[]string{"--set", "train.epochs"}, "run: --set train.epochs: expected PATH=VALUE", true},
		{[]string{"--set", "=1"}, "run: --set =1: empty PATH", true},
		{[]string{"--set", "data.trian=npy:x.npy"}, `--set data.trian=npy:x.npy: unknown key (did you mean "train"?; known keys: train, test,`, false},
		{[]string{"--set", "train.epochs=-1"}, "--set train.epochs=-1: expected a positive integer, got -1", false},
		{[]string{"--set", "nope:train.k=2"}, `--set nope:train.k=2: no experiment named "nope" in the file (its experiments: cd, pcd)`, false},
	} {
		_, _, err := runLogz(t, append([]string{"run", cfg, "--out", filepath.Join(dir, "never")}, c.args...)...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: got %v, want %q", c.args, err, c.want)
			continue
		}
		if strings.Contains(err.Error(), "tiny.yaml:") {
			t.Errorf("%v: the error names a line of the file: %v", c.args, err)
		}
		if _, isUsage := err.(usageError); isUsage != c.usage {
			t.Errorf("%v: usage error %v, want %v", c.args, isUsage, c.usage)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "never")); err == nil {
		t.Error("a refused --set wrote the run folder")
	}
}

// TestSetPassedOn: logz slurm writes the --set into every job's command
// line; the command printed to continue an interrupted run repeats them.
func TestSetPassedOn(t *testing.T) {
	dir := t.TempDir()
	cfg := writeConfig(t, dir, tinyConfig)
	stdout, _, err := runLogz(t, "slurm", cfg, "--shards", "2", "--out", filepath.Join(dir, "out"), "--logz", "/opt/logz", "--dry-run",
		"--set", "train.epochs=1", "--set", "evaluate.final=[exact, pll]")
	if err != nil {
		t.Fatal(err)
	}
	scripts := strings.Split(stdout, "==> ")
	jobs := 0
	for _, s := range scripts {
		if !strings.Contains(s, "/opt/logz run ") {
			continue
		}
		jobs++
		if !strings.Contains(s, "--set train.epochs=1 --set 'evaluate.final=[exact, pll]'") {
			t.Errorf("a job script without the --set:\n%s", s)
		}
	}
	if jobs != 3 { // training, and the evaluation of cd and of pcd
		t.Errorf("%d job scripts run logz run, want 3:\n%s", jobs, stdout)
	}
	got := resumeCommand([]string{"c.yaml"}, "out", "", setFlags{"data.train=npy:a b.npy"}, 0)
	if want := "logz run c.yaml --out out --set 'data.train=npy:a b.npy' --resume"; got != want {
		t.Errorf("resumeCommand = %q, want %q", got, want)
	}
}
