package main

import (
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/logz-ml/logz/family"
	belief "github.com/logz-ml/logz/sbn"

	"github.com/logz-ml/logz/inference/chi2"
	"github.com/logz-ml/logz/internal/npyx"
	"github.com/logz-ml/logz/models"
)

const numpyDataPath = "../../models/testdata/numpy_data.npy"

// TestSampleBadFlags: every bad flag value is a usage error (exit status
// 2) naming the flag, found before the model is read.
func TestSampleBadFlags(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{}, "sample: --model is required"},
		{[]string{"--model", "m.npz", "--n", "0"}, "sample: --n wants a number of chains in [1, 1048576], got 0"},
		{[]string{"--model", "m.npz", "--steps", "-1"}, "sample: --steps wants a number of sweeps in [0, "},
		{[]string{"--model", "m.npz", "--every", "-3"}, "sample: --every wants an integer ≥ 0"},
		{[]string{"--model", "m.npz", "--init", "rnadom"}, `sample: --init wants q, data or random, got "rnadom" (did you mean "random"?`},
		{[]string{"--model", "m.npz", "--init", "data"}, "sample: --init data needs --data"},
		{[]string{"--model", "m.npz", "--compare", "q,random", "--init", "q"}, "sample: --init and --compare exclude each other"},
		{[]string{"--model", "m.npz", "--compare", " , "}, "sample: --compare: no start given"},
		{[]string{"--model", "m.npz", "--compare", "q,randm"}, `sample: --compare wants q, data or random, got "randm" (did you mean "random"?`},
		{[]string{"--model", "m.npz", "--compare", "q,q"}, "sample: --compare: q is listed twice"},
		{[]string{"--model", "m.npz", "--compare", "q,random", "--out", "x.npy"}, "sample: --out is for samples, and --compare writes none"},
		{[]string{"--model", "m.npz", "--compare", "random", "--steps", "0"}, "sample: --compare needs --steps ≥ 1"},
		{[]string{"--model", "m.npz", "--mean", "--steps", "0"}, "sample: --mean needs --steps ≥ 1"},
		{[]string{"--model", "m.npz", "--q-components", "0"}, "sample: --q-components wants an integer in [1, "},
		{[]string{"--model", "m.npz", "--q-lr", "-1"}, "sample: --q-samples/--q-lr: chi2: learning rate must be positive"},
		{[]string{"--model", "m.npz", "--out", ""}, `sample: --out "" names no file or folder; give a path, or leave --out out for the default, samples.npy`},
		{[]string{"--model", "m.npz", "--q-steps", "2000000000"}, "sample: --q-steps wants an integer in [0, 1000000] (family.MaxChi2Steps), got 2000000000"},
		{[]string{"--model", "m.npz", "--q-samples", "2000000000"}, "sample: --q-samples wants an integer in [2, 100000] (family.MaxRuns), got 2000000000"},
		{[]string{"--model", "m.npz", "--q-steps", "1000000", "--q-samples", "100000"}, "sample: --q-steps × --q-samples = 1000000 × 100000 draws is more than the limit of 10000000000 (family.MaxChi2Draws)"},
		{[]string{"--model", "m.npz", "--data", "mnst:train"}, `sample: --data: data spec "mnst:train": unknown scheme`},
		{[]string{"--model", "m.npz", "--data", "no/such/file"}, `sample: --data: "no/such/file" is neither a data spec`},
		{[]string{"--model", "m.npz", "--binarize", "maybe"}, `sample: --binarize wants stochastic, threshold or none, got "maybe"`},
		{[]string{"--model", "m.npz", "extra"}, `sample: unexpected argument "extra"`},
		{[]string{"--model", "m.npz", "--bogus"}, "sample: flag provided but not defined: -bogus"},
	}
	for _, c := range cases {
		args := append([]string{"sample"}, c.args...)
		_, _, err := runLogz(t, args...)
		var ue usageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("logz %s:\n err = %v (usage error: %v)\nwant %q", strings.Join(args, " "), err, errors.As(err, &ue), c.want)
		}
	}
}

// TestSampleOtherFamilies: a DBN (Gibbs in the top RBM, then a down-pass)
// and an SBN (ancestral) checkpoint are sampled through the registry,
// with a PNG grid; a start the family lacks and --compare without a
// mixing comparison are refused by name.
func TestSampleOtherFamilies(t *testing.T) {
	d, err := models.NewDBN(6, 4, 3)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, l := range d.Layers {
		for i := range l.W {
			l.W[i] = rng.NormFloat64()
		}
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "dbn.npz")
	if err := models.Save(p, &models.Checkpoint{Model: d}, family.Codecs()); err != nil {
		t.Fatal(err)
	}
	out, png := filepath.Join(dir, "s.npy"), filepath.Join(dir, "s.png")
	_, stderr, err := runLogz(t, "sample", "--model", p, "--n", "7", "--steps", "5", "--mean", "--out", out, "--png", png)
	if err != nil || !strings.Contains(stderr, "7 block-Gibbs chains of 5 sweeps in the top RBM from uniform random states, then a down-pass") || !strings.Contains(stderr, "drew them as 7 tiles of 2×3") {
		t.Fatalf("dbn: %v\n%s", err, stderr)
	}
	if a, err := npyx.ReadFile(out); err != nil || !slices.Equal(a.Shape, []int{7, 6}) {
		t.Errorf("dbn samples: %v %+v", err, a)
	}
	if fi, err := os.Stat(png); err != nil || fi.Size() == 0 {
		t.Errorf("dbn png: %v", err)
	}
	_, _, err = runLogz(t, "sample", "--model", p, "--init", "q", "--out", out)
	if err == nil || !strings.Contains(err.Error(), "--init q: the dbn sampler starts its chains from random or data") {
		t.Errorf("dbn --init q: %v", err)
	}
	_, _, err = runLogz(t, "sample", "--model", p, "--compare", "random,data", "--data", numpyDataPath)
	if err == nil || !strings.Contains(err.Error(), "--compare: the dbn family has no mixing comparison") {
		t.Errorf("dbn --compare: %v", err)
	}
	n := belief.New([]int{4, 2}, false)
	belief.InitNormal(n, 1, 3)
	p = filepath.Join(dir, "sbn.npz")
	if err := models.Save(p, &models.Checkpoint{Model: n}, family.Codecs()); err != nil {
		t.Fatal(err)
	}
	_, stderr, err = runLogz(t, "sample", "--model", p, "--n", "5", "--steps", "9", "--out", out)
	if err != nil || !strings.Contains(stderr, "the sbn family draws ancestral samples: --steps does not apply; ignored") || !strings.Contains(stderr, "5 ancestral samples") {
		t.Fatalf("sbn: %v\n%s", err, stderr)
	}
	if a, err := npyx.ReadFile(out); err != nil || !slices.Equal(a.Shape, []int{5, 4}) {
		t.Errorf("sbn samples: %v %+v", err, a)
	}
}

// TestSampleWritesSamplesIndependentOfCPUs: every start writes an n×D
// array (0/1 states, or probabilities with --mean), the same bytes and the
// same printed free energies whatever GOMAXPROCS.
func TestSampleWritesSamplesIndependentOfCPUs(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	dir := t.TempDir()
	for _, c := range []struct {
		name string
		args []string
	}{
		{"q", []string{"--init", "q", "--q-steps", "20", "--q-components", "3"}},
		{"data", []string{"--init", "data", "--data", numpyDataPath}},
		{"random-mean", []string{"--init", "random", "--mean"}},
	} {
		var outs, files []string
		for _, procs := range []int{1, 4} {
			runtime.GOMAXPROCS(procs)
			path := filepath.Join(dir, c.name+".npy")
			args := append([]string{"sample", "--model", numpyModel, "--n", "13", "--steps", "7", "--every", "2", "--seed", "9", "--out", path}, c.args...)
			stdout, stderr, err := runLogz(t, args...)
			if err != nil {
				t.Fatalf("%s: %v\n%s", c.name, err, stderr)
			}
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			outs, files = append(outs, stdout), append(files, string(b))
			a, err := npyx.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(a.Shape, []int{13, 24}) {
				t.Fatalf("%s: shape %v, want [13 24]", c.name, a.Shape)
			}
			for _, v := range a.Data {
				if c.name == "random-mean" && !(v > 0 && v < 1) || c.name != "random-mean" && v != 0 && v != 1 {
					t.Fatalf("%s: value %v", c.name, v)
				}
			}
			for _, s := range []string{"0", "2", "4", "6", "7"} {
				if !strings.Contains(stdout, "\n"+strings.Repeat(" ", 8-len(s))+s+"  ") {
					t.Errorf("%s: no line for sweep %s in\n%s", c.name, s, stdout)
				}
			}
		}
		if outs[0] != outs[1] || files[0] != files[1] {
			t.Errorf("%s: the output depends on GOMAXPROCS", c.name)
		}
	}
}

// TestSampleIgnoresUnusedData: --data with random starts is reported and
// not read.
func TestSampleIgnoresUnusedData(t *testing.T) {
	_, stderr, err := runLogz(t, "sample", "--model", numpyModel, "--init", "random", "--n", "2", "--steps", "1",
		"--data", "npy:"+filepath.Join(t.TempDir(), "missing.npy"), "--out", filepath.Join(t.TempDir(), "s.npy"))
	if err != nil || !strings.Contains(stderr, "--data is used only by the data start and a fitted q; ignored") {
		t.Fatalf("err = %v, stderr:\n%s", err, stderr)
	}
}

// TestSampleUsesSavedProposal: a proposal saved in the checkpoint (the χ²
// trainer's chi2_q_ first, else a tracked estimator's track_<i>_) starts
// the chains and is named; without one, q is fitted and its fit reported.
func TestSampleUsesSavedProposal(t *testing.T) {
	ck, err := models.Load(numpyModel, family.Codecs())
	if err != nil {
		t.Fatal(err)
	}
	opt := chi2.FitOptions{Samples: 10, LearningRate: 0.05, Decay: 0.9}
	put := func(prefix string, D int) {
		q, err := chi2.NewMixture(D, 2, nil, 1, rand.New(rand.NewPCG(1, 2)))
		if err != nil {
			t.Fatal(err)
		}
		f, _ := chi2.NewFitter(q, opt)
		chi2.PutState(prefix, f, ck.State, ck.Bytes)
	}
	dir := t.TempDir()
	sample := func(name string) string {
		t.Helper()
		p := filepath.Join(dir, name+".npz")
		if err := models.Save(p, ck, family.Codecs()); err != nil {
			t.Fatal(err)
		}
		_, stderr, err := runLogz(t, "sample", "--model", p, "--n", "3", "--steps", "2", "--q-steps", "5", "--out", filepath.Join(dir, name+".npy"))
		if err != nil {
			t.Fatalf("%s: %v\n%s", name, err, stderr)
		}
		return stderr
	}
	if s := sample("none"); !strings.Contains(s, "no χ² proposal in the checkpoint; fitted a mixture of 20 Bernoulli products from uniform (5 steps of 100 draws)") || !strings.Contains(s, "χ² bound of q: log Z ≤") {
		t.Errorf("no saved q:\n%s", s)
	}
	put("track_10_", 24)
	put("track_2_", 7) // wrong size: skipped with a message
	if s := sample("track"); !strings.Contains(s, "under track_2_ cannot start the chains: it has 7 units, the model 24") || !strings.Contains(s, "saved in the checkpoint under track_10_ (mixture, shape [24 2]") {
		t.Errorf("tracked q:\n%s", s)
	}
	put("chi2_q_", 24)
	if s := sample("trainer"); !strings.Contains(s, "saved in the checkpoint under chi2_q_ (mixture") {
		t.Errorf("trainer's q:\n%s", s)
	}
}

// TestSampleCompare prints one line per start with the sweeps to reach
// the level.
func TestSampleCompare(t *testing.T) {
	stdout, stderr, err := runLogz(t, "sample", "--model", numpyModel, "--n", "50", "--steps", "40", "--compare", "q,random,data", "--data", numpyDataPath, "--q-steps", "20")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	for _, want := range []string{"long-run mean free energy (sweeps 33–40, all starts):", "\nq     ", "\nrandom  ", "\ndata    ", "mean F ± se (random)", "own tail level ± se"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("no %q in\n%s", want, stdout)
		}
	}
}

// TestSampleSizeRefusedFirst: --n × visible units beyond what a .npy logz
// reads back, and a --png grid beyond imagegrid.MaxPixels, are usage errors
// before any chain runs (they used to allocate gigabytes, or to fail only
// after the whole run and after --out was written); no --out is left.
func TestSampleSizeRefusedFirst(t *testing.T) {
	m := models.NewRBM(200, 1)
	dir := t.TempDir()
	p := filepath.Join(dir, "rbm.npz")
	if err := models.Save(p, &models.Checkpoint{Model: m}, family.Codecs()); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "s.npy")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--n", "1000000"}, "sample: --n 1000000 chains × 200 visible units = 200000000 values is more than a .npy logz reads back (134217728, npyx.MaxElements); lower --n"},
		{[]string{"--n", "100000", "--png", filepath.Join(dir, "s.png")}, "sample: --png with --n 100000: imagegrid: a "},
	} {
		args := append([]string{"sample", "--model", p, "--steps", "1", "--out", out}, c.args...)
		_, _, err := runLogz(t, args...)
		var ue usageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("logz %s:\n err = %v\nwant %q", strings.Join(args, " "), err, c.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("logz %s wrote %s", strings.Join(args, " "), out)
		}
	}
}
