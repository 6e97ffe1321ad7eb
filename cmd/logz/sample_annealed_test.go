package main

import (
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/logz-ml/logz/family"
	"github.com/logz-ml/logz/internal/npyx"
	"github.com/logz-ml/logz/models"
	"github.com/logz-ml/logz/models/modeltest"
)

// TestSampleBetas: --betas writes one .npy (and PNG grid) of binary
// samples per β, named by β; the samples at a β do not depend on the other
// βs asked for (keyed by seed, β and sample index); bad values are usage
// errors naming the flag.
func TestSampleBetas(t *testing.T) {
	dir := t.TempDir()
	out, png := filepath.Join(dir, "s.npy"), filepath.Join(dir, "s.png")
	_, stderr, err := runLogz(t, "sample", "--model", numpyModel, "--betas", "0.5,1", "--data", numpyDataPath, "--n", "9", "--steps", "5", "--sweeps", "2", "--out", out, "--png", png)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if !strings.Contains(stderr, "β = 0.5: 9 samples of p_β on the AIS path from the base-rate start (5 steps annealing from β = 0, then 2 sweeps at β)") {
		t.Errorf("stderr does not say how the samples were drawn:\n%s", stderr)
	}
	for _, b := range []string{"0.5", "1"} {
		a, err := npyx.ReadFile(filepath.Join(dir, "s-beta"+b+".npy"))
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(a.Shape, []int{9, 24}) {
			t.Fatalf("β %s: shape %v", b, a.Shape)
		}
		for _, v := range a.Data {
			if v != 0 && v != 1 {
				t.Fatalf("β %s: value %v", b, v)
			}
		}
		if _, err := os.Stat(filepath.Join(dir, "s-beta"+b+".png")); err != nil {
			t.Error(err)
		}
	}
	one := filepath.Join(dir, "one.npy")
	if _, stderr, err := runLogz(t, "sample", "--model", numpyModel, "--betas", "1", "--data", numpyDataPath, "--n", "9", "--steps", "5", "--sweeps", "2", "--out", one); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	a, _ := os.ReadFile(filepath.Join(dir, "s-beta1.npy"))
	b, _ := os.ReadFile(filepath.Join(dir, "one-beta1.npy"))
	if len(a) == 0 || string(a) != string(b) {
		t.Error("the samples at β = 1 depend on the other βs asked for")
	}

	// A DBM: its AIS path, with the even hidden layers' base rates from
	// --data (24 visible units, as numpyDataPath); an SBN has none.
	dm, err := modeltest.RandomDBM(1, 0.5, rand.New(rand.NewPCG(2, 3)), 24, 5, 4)
	if err != nil {
		t.Fatal(err)
	}
	dbmPath := filepath.Join(dir, "dbm.npz")
	if err := models.Save(dbmPath, &models.Checkpoint{Model: dm}, family.Codecs()); err != nil {
		t.Fatal(err)
	}
	if _, stderr, err := runLogz(t, "sample", "--model", dbmPath, "--betas", "0.7", "--data", numpyDataPath, "--n", "4", "--steps", "3", "--out", filepath.Join(dir, "d.npy")); err != nil {
		t.Fatalf("dbm: %v\n%s", err, stderr)
	}
	if a, err := npyx.ReadFile(filepath.Join(dir, "d-beta0.7.npy")); err != nil || !slices.Equal(a.Shape, []int{4, 24}) {
		t.Errorf("dbm samples: %v %+v", err, a)
	}

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--betas", "0.5,1.5"}, `sample: --betas wants numbers in [0, 1], got "1.5"`},
		{[]string{"--betas", "1,1"}, "sample: --betas: 1 is listed twice"},
		{[]string{"--betas", " "}, "sample: --betas: no β given"},
		{[]string{"--betas", "1"}, "sample: --init base-rate (the default with --betas) needs --data"},
		{[]string{"--betas", "1", "--init", "q"}, `sample: --init with --betas wants the start of the AIS path, base-rate or uniform, got "q"`},
		{[]string{"--betas", "1", "--init", "uniform", "--mean"}, "sample: --mean does not apply to the annealed samples of --betas"},
		{[]string{"--betas", "1", "--init", "uniform", "--sweeps", "-1"}, "sample: --steps and --sweeps want numbers of transitions in [0, "},
		{[]string{"--sweeps", "3"}, "sample: --sweeps is for the annealed samples of --betas"},
	} {
		args := append([]string{"sample", "--model", "m.npz"}, c.args...)
		_, _, err := runLogz(t, args...)
		var ue usageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("logz %s:\n err = %v\nwant %q", strings.Join(args, " "), err, c.want)
		}
	}
}
