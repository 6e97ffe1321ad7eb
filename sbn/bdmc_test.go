package sbn

import (
	"math"
	"testing"
)

// meanSE returns the mean of v and its standard error.
func meanSE(v []float64) (mean, se float64) {
	var s, s2 float64
	for _, x := range v {
		s += x
		s2 += x * x
	}
	m := float64(len(v))
	mean = s / m
	return mean, math.Sqrt(max(s2/m-mean*mean, 0) / (m - 1))
}

// TestBDMCUnbiased: with one chain per example, the forward weight has
// E[w] = p(x) and the reverse weight E[e^r] = 2^{−D}/p(x) for every x, so
// over simulated data E[e^{Lower − log p(x)}] = 1 and
// E[e^{log p(x) − Upper}] = 1 (Upper = −D log 2 − r), each within 4
// standard errors of the mean; K = 3 so that transitions matter. The data
// are checked against exact sampling too: the mean of log p(x) over the
// simulated examples is −H(x) within 4 standard errors.
func TestBDMCUnbiased(t *testing.T) {
	for _, c := range tiny[1:] {
		n := randomNet(c.sizes, c.ar, 2, 31)
		r, err := BDMC{Chains: 1, Betas: 3, Examples: 10000, Seed: 4}.Run(n)
		if err != nil {
			t.Fatal(err)
		}
		exact, err := ExactLogProb(n, r.Data, 20, nil)
		if err != nil {
			t.Fatal(err)
		}
		fw, rv := make([]float64, len(exact)), make([]float64, len(exact))
		for i, lp := range exact {
			fw[i] = math.Exp(r.Lower[i] - lp)
			rv[i] = math.Exp(lp - r.Upper[i])
		}
		for _, k := range []struct {
			name string
			v    []float64
		}{{"forward w/p(x)", fw}, {"reverse p(x)·e^r/2^−D", rv}} {
			if m, se := meanSE(k.v); math.Abs(m-1) > 4*se {
				t.Errorf("%s: mean %s = %.4f ± %.4f, want 1", c.name, k.name, m, se)
			}
		}
		// −H(x) = Σ_x p(x) log p(x) by enumeration.
		all, _ := ExactLogProb(n, allVisible(3), 20, nil)
		negH := 0.0
		for _, lp := range all {
			negH += math.Exp(lp) * lp
		}
		if m, se := meanSE(exact); math.Abs(m-negH) > 4*se {
			t.Errorf("%s: mean log p(x) of the simulated data %.4f ± %.4f, −H = %.4f", c.name, m, se, negH)
		}
	}
}

// TestBDMCBrackets: on data simulated from a 10-6-4 net (plain and
// autoregressive), the mean forward estimate lies below the mean exact
// log p(x) and the mean reverse estimate above it (each allowing 4
// standard errors of the mean difference), the gap at K = 1000 is smaller
// than at K = 10, and at K = 1000 the gap is below 0.1 nats.
func TestBDMCBrackets(t *testing.T) {
	for _, ar := range []bool{false, true} {
		n := randomNet([]int{10, 6, 4}, ar, 1.5, 32)
		gap := map[int]float64{}
		for _, K := range []int{10, 1000} {
			r, err := BDMC{Chains: 2, Betas: K, Examples: 20, Seed: 5}.Run(n)
			if err != nil {
				t.Fatal(err)
			}
			exact, err := ExactLogProb(n, r.Data, 20, nil)
			if err != nil {
				t.Fatal(err)
			}
			lo, up := make([]float64, len(exact)), make([]float64, len(exact))
			for i, lp := range exact {
				lo[i], up[i] = r.Lower[i]-lp, r.Upper[i]-lp
			}
			ml, sl := meanSE(lo)
			mu, su := meanSE(up)
			t.Logf("ar %v, K = %d: lower − exact %.4f ± %.4f, upper − exact %.4f ± %.4f", ar, K, ml, sl, mu, su)
			if ml > 4*sl || mu < -4*su {
				t.Errorf("ar %v, K = %d: lower − exact %.4f ± %.4f, upper − exact %.4f ± %.4f: not a bracket", ar, K, ml, sl, mu, su)
			}
			gap[K] = r.MeanUpper - r.MeanLower
		}
		if gap[1000] >= gap[10] || gap[1000] > 0.1 {
			t.Errorf("ar %v: gap %.4f at K = 10, %.4f at K = 1000", ar, gap[10], gap[1000])
		}
	}
}
