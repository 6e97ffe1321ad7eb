package eval

import (
	"math"
	"slices"
	"testing"

	"github.com/logz-ml/logz/inference"
	"github.com/logz-ml/logz/internal/nmath"
	"github.com/logz-ml/logz/internal/sampletest"
)

// annealedLogP returns log p_β(v) for every visible state of the base-rate
// path from visible biases a0 to m, by enumeration of the 2008 form
//
//	log f_β(v) = (1−β) a0ᵀv + β aᵀv + Σ_j softplus(β (b_j + W_{:,j}ᵀv)).
func annealedLogP(t *testing.T, d, h int, a0, a, b, w []float64, beta float64) []float64 {
	t.Helper()
	lf := make([]float64, 1<<d)
	for s := range lf {
		x := 0.0
		for i := range d {
			if s>>i&1 == 1 {
				x += (1-beta)*a0[i] + beta*a[i]
			}
		}
		for j := range h {
			pre := b[j]
			for i := range d {
				if s>>i&1 == 1 {
					pre += w[i*h+j]
				}
			}
			x += nmath.Softplus(beta * pre)
		}
		lf[s] = x
	}
	lz := nmath.LogSumExp(lf)
	for s := range lf {
		lf[s] -= lz
	}
	return lf
}

// TestAnnealedSamplesMatchEnumeration: the samples at β of the base-rate
// path of a tiny RBM have the frequencies of p_β by enumeration (5
// binomial standard errors per state), at β = 0 (the base rate), an
// intermediate β and β = 1 (the model), for the uniform and a base-rate
// start; and the draws do not depend on the number of workers.
func TestAnnealedSamplesMatchEnumeration(t *testing.T) {
	const d, h, n = 4, 3, 8000
	m := cslTestRBM(d, h, 1.5, 0.5, 11)
	for _, a0 := range [][]float64{make([]float64, d), {1.5, -1, 0.3, -2}} {
		path, err := inference.NewBaseRatePath(m, a0)
		if err != nil {
			t.Fatal(err)
		}
		for _, beta := range []float64{0, 0.5, 1} {
			s := AnnealedSampler{Steps: 10, Sweeps: 15, Seed: 3, Workers: 2}
			x, D, err := s.Sample(path, beta, n)
			if err != nil {
				t.Fatal(err)
			}
			if D != d {
				t.Fatalf("width %d, want %d", D, d)
			}
			lp := annealedLogP(t, d, h, a0, m.VBias, m.HBias, m.W, beta)
			p := make([]float64, len(lp))
			for i, l := range lp {
				p[i] = math.Exp(l)
			}
			xf := make([]float64, len(x))
			for i, b := range x {
				xf[i] = float64(b)
			}
			sampletest.CheckFrequencies(t, "annealed samples", xf, d, p)
			s.Workers = 3
			y, _, _ := s.Sample(path, beta, n)
			if !slices.Equal(x, y) {
				t.Errorf("β = %v: samples depend on the number of workers", beta)
			}
		}
	}
}

// TestAnnealedSamplesKeyedByBeta: the samples at a β are the same whatever
// other βs were asked for, and differ between βs; bad arguments are
// refused.
func TestAnnealedSamplesKeyedByBeta(t *testing.T) {
	m := cslTestRBM(6, 3, 1, 0.5, 2)
	path, err := inference.NewBaseRatePath(m, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := AnnealedSampler{Steps: 5, Sweeps: 5, Seed: 9, Workers: 1}
	a, _, _ := s.Sample(path, 0.9, 50)
	b, _, _ := s.Sample(path, 0.9, 80)
	c, _, _ := s.Sample(path, 0.5, 50)
	if !slices.Equal(a, b[:len(a)]) {
		t.Error("sample i depends on how many were drawn")
	}
	if slices.Equal(a, c) {
		t.Error("samples at β = 0.9 and 0.5 are identical")
	}
	for _, bad := range []float64{-0.1, 1.5, math.NaN()} {
		if _, _, err := s.Sample(path, bad, 5); err == nil {
			t.Errorf("β = %v accepted", bad)
		}
	}
	if _, _, err := s.Sample(path, 1, 0); err == nil {
		t.Error("n = 0 accepted")
	}
}
