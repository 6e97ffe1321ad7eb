package main

import (
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/logz-ml/logz/eval/report"
	"github.com/logz-ml/logz/models"
	"github.com/sbinet/npyio"
	"github.com/sbinet/npyio/npz"
	"gonum.org/v1/gonum/mat"
)

// TestEvalVAEWithoutMeta: `logz eval --estimator exact,is,elbo --samples N`
// on a VAE .npz holding only the documented arrays (no meta, as NumPy's
// np.savez would write it; no Python with NumPy here to write it) and every
// x ∈ {0,1}^6: is agrees with exact, elbo lies below, and all carry the
// prior's exact log Z.
func TestEvalVAEWithoutMeta(t *testing.T) {
	m, err := models.NewVAE(6, 4, []int{5}, 3)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for _, p := range [][]float64{m.Dec.Params(), m.Enc.Params(), m.Prior.W, m.Prior.VBias, m.Prior.HBias} {
		for i := range p {
			p[i] = rng.NormFloat64()
		}
	}
	dir := t.TempDir()
	mp := filepath.Join(dir, "vae.npz")
	f, err := os.Create(mp)
	if err != nil {
		t.Fatal(err)
	}
	w := npz.NewWriter(f)
	for _, a := range models.VAEType.Arrays(m) {
		var v any = a.Data
		if len(a.Shape) == 2 {
			v = mat.NewDense(a.Shape[0], a.Shape[1], a.Data)
		}
		if err := w.Write(a.Name, v); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	x := make([]float64, 64*6)
	for c := range 64 {
		for i := range 6 {
			x[c*6+i] = float64(c >> i & 1)
		}
	}
	dp := filepath.Join(dir, "x.npy")
	g, _ := os.Create(dp)
	if err := npyio.Write(g, mat.NewDense(64, 6, x)); err != nil {
		t.Fatal(err)
	}
	g.Close()
	got, out := evalRows(t, "--model", mp, "--data", "npy:"+dp, "--estimator", "exact,is,elbo", "--samples", "2000")
	ex, is, el := got["exact"], got["is"], got["elbo"]
	if ex.MeanLoglik == nil || is.MeanLoglik == nil || el.MeanLoglik == nil {
		t.Fatalf("rows: %s", out)
	}
	if d := *is.MeanLoglik - *ex.MeanLoglik; math.Abs(d) > 4**is.LoglikSE || d > 0.02 || is.Runs != 2000 {
		t.Errorf("is %.4f (%d samples), exact %.4f", *is.MeanLoglik, is.Runs, *ex.MeanLoglik)
	}
	if !(*el.MeanLoglik < *ex.MeanLoglik) || *el.LogZ != *ex.LogZ || *is.LogZ != *ex.LogZ {
		t.Errorf("elbo %.4f, exact %.4f; log Z %v %v %v", *el.MeanLoglik, *ex.MeanLoglik, *ex.LogZ, *is.LogZ, *el.LogZ)
	}
}

// TestEvalVAEWrittenByNumPy: a VAE .npz written by NumPy's np.savez with the
// documented arrays (float64, in×out weights, an RBM prior) evaluates with
// `logz eval --estimator exact,is`, and IS agrees with exact. Skipped where
// no python3 with NumPy is installed (Debian: python3-numpy).
func TestEvalVAEWrittenByNumPy(t *testing.T) {
	py := ""
	for _, p := range []string{"/usr/bin/python3", "python3"} {
		if exec.Command(p, "-c", "import numpy").Run() == nil {
			py = p
			break
		}
	}
	if py == "" {
		t.Skip("no python3 with numpy")
	}
	dir := t.TempDir()
	mp, dp := filepath.Join(dir, "vae.npz"), filepath.Join(dir, "x.npy")
	script := `
import sys, numpy as np
r = np.random.default_rng(7)
X, H, Z, P = 6, 5, 4, 3
np.savez(sys.argv[1],
    dec_W1=r.normal(size=(Z, H)), dec_b1=r.normal(size=H), dec_W2=r.normal(size=(H, X)), dec_b2=r.normal(size=X),
    enc_W1=r.normal(size=(X, H)), enc_b1=r.normal(size=H), enc_W2=r.normal(size=(H, Z)), enc_b2=r.normal(size=Z),
    prior_W=r.normal(size=(Z, P)), prior_vbias=r.normal(size=Z), prior_hbias=r.normal(size=P))
np.save(sys.argv[2], np.array([[(c >> i) & 1 for i in range(X)] for c in range(64)], dtype=np.float64))
`
	if out, err := exec.Command(py, "-c", script, mp, dp).CombinedOutput(); err != nil {
		t.Fatalf("numpy: %v\n%s", err, out)
	}
	got, out := evalRows(t, "--model", mp, "--data", "npy:"+dp, "--estimator", "exact,is", "--samples", "2000")
	ex, is := got["exact"], got["is"]
	if ex.MeanLoglik == nil || is.MeanLoglik == nil || !strings.Contains(ex.Model, "rbm(4,3)") {
		t.Fatalf("rows: %s", out)
	}
	if d := *is.MeanLoglik - *ex.MeanLoglik; math.Abs(d) > 4**is.LoglikSE || d > 0.02 {
		t.Errorf("is %.4f ± %.4f, exact %.4f", *is.MeanLoglik, *is.LoglikSE, *ex.MeanLoglik)
	}
}

// evalRows runs logz eval with args and --json and returns its rows by
// estimator, and the JSON.
func evalRows(t *testing.T, args ...string) (map[string]report.Row, string) {
	t.Helper()
	out, stderr, err := runLogz(t, append(append([]string{"eval"}, args...), "--json")...)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	rows, err := report.DecodeResults(strings.NewReader(out), "stdout")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	got := map[string]report.Row{}
	for _, r := range rows {
		got[r.Estimator] = r
	}
	return got, out
}
