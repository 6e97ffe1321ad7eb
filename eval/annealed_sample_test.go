package eval

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/logz-ml/logz/inference"
	"github.com/logz-ml/logz/internal/nmath"
	"github.com/logz-ml/logz/internal/sampletest"
	"github.com/logz-ml/logz/models/modeltest"
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

// TestAnnealedSamplesDBM: on a tiny DBM (v, h1 summed out, h2) the visible
// samples at β of its AIS path, from a base with biases on v and h2, have
// the frequencies of the marginal p_β(v) = Σ_{h2} f_β(v, h2)/Z_β by
// enumeration of
//
//	log f_β(v, h2) = β(b0ᵀv + b2ᵀh2) + (1−β)(a0ᵀv + a2ᵀh2) + Σ_j softplus(β(b1_j + (W0ᵀv)_j + (W1 h2)_j)).
func TestAnnealedSamplesDBM(t *testing.T) {
	const n = 8000
	d, err := modeltest.RandomDBM(1.2, 0.5, rand.New(rand.NewPCG(6, 2)), 3, 2, 2)
	if err != nil {
		t.Fatal(err)
	}
	a0, a2 := []float64{0.8, -1.2, 0.1}, []float64{-0.5, 1}
	path, err := inference.NewDBMPathBase(d, [][]float64{a0, nil, a2})
	if err != nil {
		t.Fatal(err)
	}
	for _, beta := range []float64{0.3, 1} {
		x, D, err := AnnealedSampler{Steps: 10, Sweeps: 15, Seed: 4, Workers: 2}.Sample(path, beta, n)
		if err != nil || D != 3 {
			t.Fatalf("D %d, %v", D, err)
		}
		lf := make([]float64, 8)
		for v := range 8 {
			var terms []float64
			for h2 := range 4 {
				bit := func(s, i int) float64 { return float64(s >> i & 1) }
				l := 0.0
				for i := range 3 {
					l += bit(v, i) * (beta*d.B[0][i] + (1-beta)*a0[i])
				}
				for k := range 2 {
					l += bit(h2, k) * (beta*d.B[2][k] + (1-beta)*a2[k])
				}
				for j := range 2 {
					z := d.B[1][j]
					for i := range 3 {
						z += bit(v, i) * d.W[0][i*2+j]
					}
					for k := range 2 {
						z += d.W[1][j*2+k] * bit(h2, k)
					}
					l += nmath.Softplus(beta * z)
				}
				terms = append(terms, l)
			}
			lf[v] = nmath.LogSumExp(terms)
		}
		lz := nmath.LogSumExp(lf)
		p := make([]float64, 8)
		for v := range p {
			p[v] = math.Exp(lf[v] - lz)
		}
		xf := make([]float64, len(x))
		for i, b := range x {
			xf[i] = float64(b)
		}
		sampletest.CheckFrequencies(t, "annealed DBM samples", xf, 3, p)
	}
}
