package eval

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/logz-ml/logz/data"
	"github.com/logz-ml/logz/internal/nmath"
	"github.com/logz-ml/logz/models"
)

// pseudoLogLikOld is the single-threaded implementation PLL replaced,
// kept verbatim as the reference: 2H softplus terms per visible unit.
func pseudoLogLikOld(m *models.RBM, x data.Examples) MeanStat {
	D, H := m.NVis, m.NHid
	v := make([]float64, D)
	pre := make([]float64, H)
	var s, s2 float64
	for n := range x.Len() {
		for i, b := range x.Row(n) {
			v[i] = float64(b)
		}
		m.HiddenPreact(pre, v)
		pll := 0.0
		for i := range D {
			row := m.W[i*H : (i+1)*H]
			d := m.VBias[i]
			if v[i] == 1 {
				for j, w := range row {
					d += nmath.Softplus(pre[j]) - nmath.Softplus(pre[j]-w)
				}
				pll += nmath.LogSigmoid(d)
			} else {
				for j, w := range row {
					d += nmath.Softplus(pre[j]+w) - nmath.Softplus(pre[j])
				}
				pll += nmath.LogSigmoid(-d)
			}
		}
		s += pll
		s2 += pll * pll
	}
	return meanStat(s, s2, x.Len())
}

func pllRows(n, d int, on float64, seed uint64) rowSet {
	rng := rand.New(rand.NewPCG(seed, 3))
	x := make(rowSet, n)
	for k := range x {
		x[k] = make([]uint8, d)
		for i := range x[k] {
			if rng.Float64() < on {
				x[k][i] = 1
			}
		}
	}
	return x
}

type pllCase struct {
	d, h  int
	scale float64
}

var pllCases = []pllCase{{1, 1, 1}, {6, 4, 1.5}, {20, 7, 3}, {50, 25, 0.5}, {784, 25, 0.05}, {100, 130, 0.2}, {30, 10, 40}}

// TestPLLMatchesOld: on random models the multiplicative kernel agrees
// with the old 2H-softplus implementation to float rounding, example by
// example (within 1e-14·(1 + D + |old|), a few units in the last place of
// a sum of D terms),
// and its mean within the same bound.
func TestPLLMatchesOld(t *testing.T) {
	for ci, c := range pllCases {
		m := smallRBM(c.d, c.h, c.scale, uint64(40+ci))
		x := pllRows(70, c.d, 0.3, uint64(ci))
		got := PLL{}.PerExample(m, x)
		worst := 0.0
		for n := range x {
			want := pseudoLogLikOld(m, x[n:n+1]).Mean
			tol := 1e-14 * (1 + float64(c.d) + math.Abs(want))
			if d := math.Abs(got[n] - want); d > tol || math.IsNaN(got[n]) {
				t.Fatalf("%d×%d (scale %g) example %d: %v, old %v (difference %.3g > %.3g)", c.d, c.h, c.scale, n, got[n], want, d, tol)
			} else if d/tol > worst {
				worst = d / tol
			}
		}
		g, w := PseudoLogLik(m, x), pseudoLogLikOld(m, x)
		if math.Abs(g.Mean-w.Mean) > 1e-12*(1+float64(c.d)+math.Abs(w.Mean)) || math.Abs(g.SE-w.SE) > 1e-9*(1+w.SE) || g.N != w.N {
			t.Fatalf("%d×%d: mean %v ± %v, old %v ± %v", c.d, c.h, g.Mean, g.SE, w.Mean, w.SE)
		}
		t.Logf("%d×%d scale %g: worst difference %.2g of the tolerance", c.d, c.h, c.scale, worst)
	}
}

// TestPLLDirectRowsSameBits: rows summed term by term (all of them, with
// the bound below 0) give the old implementation's bits, mean and SE.
func TestPLLDirectRowsSameBits(t *testing.T) {
	defer func(b float64) { pllMaxRowSum = b }(pllMaxRowSum)
	pllMaxRowSum = -1
	for ci, c := range pllCases {
		m := smallRBM(c.d, c.h, c.scale, uint64(40+ci))
		x := pllRows(70, c.d, 0.3, uint64(ci))
		g, w := PseudoLogLik(m, x), pseudoLogLikOld(m, x)
		if math.Float64bits(g.Mean) != math.Float64bits(w.Mean) || math.Float64bits(g.SE) != math.Float64bits(w.SE) {
			t.Fatalf("%d×%d: %v ± %v, old %v ± %v", c.d, c.h, g.Mean, g.SE, w.Mean, w.SE)
		}
	}
}

// TestPLLLargeWeightsUseDirectRows: a row with Σ_j |W_ij| above the bound
// (here 10 hidden units of weight 100) is summed term by term, so the
// value stays finite and equal to the old one, where the product of an
// example with v_2 = 0 would overflow (e^1000).
func TestPLLLargeWeightsUseDirectRows(t *testing.T) {
	m := smallRBM(5, 10, 1, 9)
	for j := range 10 {
		m.W[2*10+j] = 100
	}
	x := pllRows(20, 5, 0.5, 1)
	g, w := PseudoLogLik(m, x), pseudoLogLikOld(m, x)
	if math.IsNaN(g.Mean) || math.IsInf(g.Mean, 0) || math.Abs(g.Mean-w.Mean) > 1e-11*(1+math.Abs(w.Mean)) {
		t.Fatalf("%v, old %v", g.Mean, w.Mean)
	}
}

// TestPLLWorkersSameBits: the per-example values, mean and SE are the same
// bits whatever the number of workers, across chunk boundaries (N = 3
// chunks and a tail), and Progress counts every example once.
func TestPLLWorkersSameBits(t *testing.T) {
	m := smallRBM(40, 12, 0.7, 5)
	x := pllRows(2*pllChunk+17, 40, 0.3, 2)
	ref := PLL{Workers: 1}.PerExample(m, x)
	for _, w := range []int{2, 3, 8} {
		var last int64
		got := PLL{Workers: w, Progress: func(d, tot int64) {
			if tot != int64(len(x)) {
				t.Errorf("total %d", tot)
			}
			last = max(last, d)
		}}.PerExample(m, x)
		for n := range ref {
			if math.Float64bits(got[n]) != math.Float64bits(ref[n]) {
				t.Fatalf("workers %d, example %d: %v, one worker %v", w, n, got[n], ref[n])
			}
		}
		if last != int64(len(x)) {
			t.Fatalf("workers %d: progress reached %d of %d", w, last, len(x))
		}
	}
}

// TestPLLNoAllocsPerExample: the kernel of one example allocates nothing.
func TestPLLNoAllocsPerExample(t *testing.T) {
	m := smallRBM(50, 20, 0.5, 3)
	x := pllRows(1, 50, 0.3, 1)
	k := newPLLKernel(m, make([]float64, 50*20), make([]float64, 50*20), make([]bool, 50))
	if a := testing.AllocsPerRun(20, func() { k.example(x[0]) }); a != 0 {
		t.Fatalf("%v allocations per example", a)
	}
}
