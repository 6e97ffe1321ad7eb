package inference

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/logz-ml/logz/internal/nmath"
	"github.com/logz-ml/logz/models"
	"github.com/logz-ml/logz/models/modeltest"
)

// randDBM is a DBM with N(0, wScale²) weights and N(0, bScale²) biases
// from the stream (seed, 5).
func randDBM(t *testing.T, seed uint64, wScale, bScale float64, sizes ...int) *models.DBM {
	t.Helper()
	d, err := modeltest.RandomDBM(wScale, bScale, rand.New(rand.NewPCG(seed, 5)), sizes...)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// directLogF computes log f_β(x_E) = β Σ_{l even} b_lᵀx_l + (1−β) Σ_{l even}
// a_lᵀx_l + Σ_{l odd} Σ_j softplus(β z_{l,j}) from the chain's even layers in
// plain float64, with z from models.DBM.Preact (a[l] nil or missing: zeros).
func directLogF(d *models.DBM, a [][]float64, c *DBMChain, beta float64) float64 {
	L := d.NumLayers()
	xs := make([][]float64, L+1)
	for l := 0; l <= L; l += 2 {
		xs[l] = make([]float64, d.Sizes[l])
		for i, b := range c.Layer(l) {
			xs[l][i] = float64(b)
		}
	}
	s := 0.0
	for l := 0; l <= L; l += 2 {
		for i, x := range xs[l] {
			s += beta * d.B[l][i] * x
			if l < len(a) && a[l] != nil {
				s += (1 - beta) * a[l][i] * x
			}
		}
	}
	for l := 1; l <= L; l += 2 {
		z := make([]float64, d.Sizes[l])
		var above []float64
		if l < L {
			above = xs[l+1]
		}
		d.Preact(z, l, xs[l-1], above)
		for _, zj := range z {
			s += nmath.Softplus(beta * zj)
		}
	}
	return s
}

// checkPreacts compares every layer's cached pre-activations, after the
// pending updates, with a recomputation, and returns the largest difference.
func checkPreacts(c *DBMChain) float64 {
	c.syncOdd()
	c.syncEven(false)
	worst := 0.0
	for l := range c.z {
		z := append([]float64(nil), c.z[l]...)
		c.recomputeZ(l)
		for j := range z {
			worst = max(worst, math.Abs(z[j]-c.z[l][j]))
		}
	}
	t, b := c.evenT, c.evenB
	c.recomputeSums()
	return max(worst, math.Abs(t-c.evenT), math.Abs(b-c.evenB))
}

// TestDBMChainAgainstDirect checks, along a run of every kind of move
// (SampleBase, Step, Transition, StepClamped, TransitionClamped,
// SetVisible, SampleBaseHidden), that LogUnnorm equals the direct float64
// log f_β, that the weights of Step and StepClamped are log f_next − log
// f_prev at the state before the move, that the clamped moves leave v alone
// and that the cached pre-activations equal a recomputation; once more with
// every update incremental.
func TestDBMChainAgainstDirect(t *testing.T) {
	for ci, sizes := range [][]int{{7, 5, 6}, {6, 4, 5, 3}, {5, 3, 4, 3, 2}} {
		d := randDBM(t, uint64(ci+1), 0.8, 0.6, sizes...)
		a := make([]float64, sizes[0])
		for i := range a {
			a[i] = float64(i%3) - 1
		}
		// Base biases on the even hidden layers too (the last two cases).
		hidden := [][]float64{a}
		for l := 2; l < len(sizes); l += 2 {
			h := make([]float64, sizes[l])
			for i := range h {
				h[i] = 0.7*float64(i%4) - 1.2
			}
			hidden = append(hidden, nil, h)
		}
		for ti, base := range [][][]float64{nil, {a}, {a}, hidden, hidden} {
			p, err := NewDBMPathBase(d, base)
			if err != nil {
				t.Fatal(err)
			}
			p.alwaysIncremental = ti == 2 || ti == 4
			a0 := p.a
			c := p.NewDBMChain()
			rng := rand.New(rand.NewPCG(3, uint64(ci)))
			c.SampleBase(rng)
			data := make([]uint8, sizes[0])
			for k := range 400 {
				prev, next := rng.Float64(), rng.Float64()
				want := directLogF(d, a0, c, next) - directLogF(d, a0, c, prev)
				if got := c.LogUnnorm(prev); math.Abs(got-directLogF(d, a0, c, prev)) > 1e-10 {
					t.Fatalf("sizes %v move %d: LogUnnorm(%v) = %v, direct %v", sizes, k, prev, got, directLogF(d, a0, c, prev))
				}
				v := append([]uint8(nil), c.Visible()...)
				var got float64
				clamped := false
				switch k % 7 {
				case 0, 1, 2:
					got = c.Step(prev, next, rng)
				case 3:
					c.Transition(next, rng)
					got = want
				case 4:
					got, clamped = c.StepClamped(prev, next, rng), true
				case 5:
					c.TransitionClamped(next, rng)
					got, clamped = want, true
				case 6:
					for i := range data {
						data[i] = uint8(rng.IntN(2))
					}
					c.SetVisible(data)
					if k%2 == 0 {
						c.SampleBaseHidden(rng)
					}
					got = want
					copy(v, data)
					clamped = true
				}
				if math.Abs(got-want) > 1e-10 {
					t.Fatalf("sizes %v move %d (kind %d): weight %v, direct %v", sizes, k, k%7, got, want)
				}
				if clamped && string(v) != string(c.Visible()) {
					t.Fatalf("sizes %v move %d (kind %d): v changed from %v to %v", sizes, k, k%7, v, c.Visible())
				}
				if lb := c.LogBaseVisible(); k%7 == 6 {
					w := 0.0
					for i, x := range data {
						w += float64(x)*a0[0][i] - nmath.Softplus(a0[0][i])
					}
					if math.Abs(lb-w) > 1e-12 {
						t.Fatalf("LogBaseVisible = %v, want %v", lb, w)
					}
				}
				if k%50 == 0 {
					if e := checkPreacts(c); e > 1e-12 {
						t.Fatalf("sizes %v move %d: cached pre-activations off by %v", sizes, k, e)
					}
				}
			}
		}
	}
}

// TestDBMIncrementalDoesNotDrift runs 3,000 steps of a 120-80-100-40 chain
// with the periodic recomputation and the switch to recomputing when cheaper
// both disabled, checks that the pre-activations were in fact updated
// incrementally, and compares log f_β with the direct float64 computation and
// the pre-activations with a recomputation.
func TestDBMIncrementalDoesNotDrift(t *testing.T) {
	d := randDBM(t, 9, 0.3, 1, 120, 80, 100, 40)
	base := make([]float64, 120)
	for i := range base {
		base[i] = -1 + 0.01*float64(i)
	}
	p, err := NewDBMPath(d, base)
	if err != nil {
		t.Fatal(err)
	}
	p.recompute = math.MaxInt
	p.alwaysIncremental = true
	c := p.NewDBMChain()
	rng := rand.New(rand.NewPCG(4, 4))
	c.SampleBase(rng)
	betas := LinearSchedule(3000)
	for k := 1; k < len(betas); k++ {
		c.Step(betas[k-1], betas[k], rng)
	}
	c.syncOdd()
	for l, n := range c.since {
		if n < 2900 {
			t.Fatalf("layer %d: only %d incremental updates since the last recomputation: the test does not exercise the incremental path", l, n)
		}
	}
	if c.sinceSums < 2900 {
		t.Fatalf("only %d incremental updates of the bias sums", c.sinceSums)
	}
	for _, beta := range []float64{0, 0.5, 1} {
		got, want := c.LogUnnorm(beta), directLogF(d, p.a, c, beta)
		t.Logf("β=%v: log f_β = %.12f, direct %.12f", beta, got, want)
		if math.Abs(got-want) > 1e-9 {
			t.Errorf("β=%v: log f_β drifted: %v, direct %v", beta, got, want)
		}
	}
	e := checkPreacts(c)
	t.Logf("max |incremental − recomputed| after 3,000 steps: %.3g", e)
	if e > 1e-11 {
		t.Fatalf("pre-activations drifted by %.3g", e)
	}
}

// TestDBMSampleBaseIsExact checks the frequencies of v ~ Bern(σ(a_0)) and of
// the even hidden layer, uniform or ~ Bern(σ(a_2)), over 200,000 draws of
// SampleBase (and of SampleBaseHidden for h2), and log Z_0.
func TestDBMSampleBaseIsExact(t *testing.T) {
	d := randDBM(t, 2, 1, 1, 3, 2, 3)
	a := []float64{-2, 0.3, 1.5}
	for _, a2 := range [][]float64{nil, {1.1, -0.4, -2.5}} {
		p, err := NewDBMPathBase(d, [][]float64{a, nil, a2})
		if err != nil {
			t.Fatal(err)
		}
		logZ0 := 2 * math.Ln2
		for i := range 3 {
			logZ0 += nmath.Softplus(a[i])
			if a2 != nil {
				logZ0 += nmath.Softplus(a2[i])
			} else {
				logZ0 += math.Ln2
			}
		}
		if math.Abs(p.LogZ0()-logZ0) > 1e-12 {
			t.Errorf("a2 %v: log Z_0 = %v, want %v", a2, p.LogZ0(), logZ0)
		}
		c := p.NewDBMChain()
		rng := rand.New(rand.NewPCG(8, 8))
		const n = 200000
		var count [64]float64
		var countH [8]float64
		for range n {
			c.SampleBase(rng)
			s := 0
			for i, b := range append(append([]uint8(nil), c.Layer(0)...), c.Layer(2)...) {
				s |= int(b) << i
			}
			count[s]++
			c.SampleBaseHidden(rng)
			h := 0
			for i, b := range c.Layer(2) {
				h |= int(b) << i
			}
			countH[h]++
		}
		ph := func(h int) float64 {
			pr := 1.0
			for i := range 3 {
				if a2 == nil {
					pr /= 2
				} else {
					pr *= nmath.Sigmoid(float64(2*(h>>i&1)-1) * a2[i])
				}
			}
			return pr
		}
		check := func(what string, f, pr float64) {
			se := math.Sqrt(pr * (1 - pr) / n)
			if math.Abs(f-pr) > 5*se {
				t.Errorf("a2 %v: %s: frequency %.5f, p_0 = %.5f (SE %.2g)", a2, what, f, pr, se)
			}
		}
		for s := range count {
			pr := ph(s >> 3)
			for i := range 3 {
				pr *= nmath.Sigmoid(float64(2*(s>>i&1)-1) * a[i])
			}
			check(fmt.Sprintf("state %06b", s), count[s]/n, pr)
		}
		for h := range countH {
			check(fmt.Sprintf("h2 %03b", h), countH[h]/n, ph(h))
		}
	}
}

func TestDBMPathValidation(t *testing.T) {
	d := randDBM(t, 1, 1, 1, 3, 2, 2)
	if _, err := NewDBMPath(d, []float64{1, 2}); err == nil {
		t.Error("short base biases accepted")
	}
	if _, err := NewDBMPath(d, []float64{1, math.NaN(), 0}); err == nil {
		t.Error("NaN base bias accepted")
	}
	if _, err := NewDBMPath(nil, nil); err == nil {
		t.Error("nil model accepted")
	}
	for _, c := range []struct {
		base [][]float64
		want string
	}{
		{[][]float64{nil, {0, 0}}, "odd layers"},
		{[][]float64{nil, nil, {1}}, "layer 2 biases have length 1"},
		{[][]float64{nil, nil, {1, math.Inf(1)}}, "layer 2 bias 1 is +Inf"},
		{[][]float64{nil, nil, nil, nil}, "4 layers"},
	} {
		if _, err := NewDBMPathBase(d, c.base); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("base %v: error %v, want one saying %q", c.base, err, c.want)
		}
	}
	d.B[1] = d.B[1][:1]
	if _, err := NewDBMPath(d, nil); err == nil {
		t.Error("inconsistent model accepted")
	}
}
