package sbn

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestGibbsConditional: the chain's single-site log-odds equal the
// brute-force log p(x, h with h_{l,j} = 1) − log p(x, h with h_{l,j} = 0)
// from LogJoint at every joint state of tiny SBNs and ARSBNs (one and two
// latent layers), and after setting a unit the chain's incremental
// activations equal recomputed ones.
func TestGibbsConditional(t *testing.T) {
	for _, c := range tiny {
		for _, scale := range []float64{1.5, 300} { // 300: products leave the safe range, e^{w} overflows
			n := randomNet(c.sizes, c.ar, scale, 21)
			sc := n.NewScratch()
			g := n.newGibbsTables(true)
			g.refresh(n, true)
			ch := n.newGibbsChain()
			ref := n.newGibbsChain()
			worst := 0.0
			allStates(n, func(h [][]float64) {
				for l := 1; l <= n.Layers(); l++ {
					for j := range n.Sizes[l] {
						for ll := range h {
							copy(ch.h[ll], h[ll])
						}
						ch.refresh()
						got := ch.logOdds(g, l, j)
						old := h[l][j]
						h[l][j] = 1
						up := n.LogJoint(h, 1, sc)
						h[l][j] = 0
						want := up - n.LogJoint(h, 1, sc)
						h[l][j] = old
						if d := math.Abs(got - want); d > 1e-9*max(1, math.Abs(want)) {
							t.Fatalf("%s (scale %g): log-odds of h%d[%d] at %s = %.12g, brute force %.12g", c.name, scale, l, j, key(h), got, want)
						} else {
							worst = max(worst, d)
						}
						// Flip it and compare the incremental state with a fresh one.
						ch.set(g, l, j, 1-old)
						for ll := range h {
							copy(ref.h[ll], ch.h[ll])
						}
						ref.refresh()
						for ll := range ch.a {
							for i := range ch.a[ll] {
								if math.Abs(ch.a[ll][i]-ref.a[ll][i]) > 1e-9*max(1, scale) || !closeOrNaN(ch.sp[ll][i], ref.sp[ll][i]) || !closeOrNaN(ch.sn[ll][i], ref.sn[ll][i]) {
									t.Fatalf("%s: after flipping h%d[%d], layer %d unit %d has a = %g σ = %g, recomputed %g, %g", c.name, l, j, ll, i, ch.a[ll][i], ch.sp[ll][i], ref.a[ll][i], ref.sp[ll][i])
								}
							}
						}
					}
				}
			})
			t.Logf("%s scale %g: largest |Δ − brute force| %.3g", c.name, scale, worst)
		}
	}
}

// TestGibbsPosterior: independent chains started from the prior and run
// for 30 sweeps draw h from the exact posterior p(h | x) (enumerated),
// within 5 binomial standard errors per state.
func TestGibbsPosterior(t *testing.T) {
	for _, c := range tiny[2:] { // arsbn 3-2, arsbn 3-2-2 (the SBNs are special cases)
		n := randomNet(c.sizes, c.ar, 1.5, 22)
		sc := n.NewScratch()
		g := n.newGibbsTables(true)
		g.refresh(n, true)
		ch := n.newGibbsChain()
		x := []float64{1, 0, 1}
		// Exact posterior over the latent states of x.
		post := map[string]float64{}
		var lps []float64
		var keys []string
		allStates(n, func(h [][]float64) {
			if h[0][0] != x[0] || h[0][1] != x[1] || h[0][2] != x[2] {
				return
			}
			lps = append(lps, n.LogJoint(h, 1, sc))
			keys = append(keys, key(h))
		})
		z := 0.0
		for _, lp := range lps {
			z += math.Exp(lp)
		}
		for i, k := range keys {
			post[k] = math.Exp(lps[i]) / z
		}
		const chains = 20000
		counts := map[string]int{}
		rng := rand.New(rand.NewPCG(5, 5))
		for range chains {
			copy(ch.h[0], x)
			n.samplePrior(ch.h, rng, sc)
			ch.refresh()
			for range 30 {
				ch.sweep(g, rng)
			}
			counts[key(ch.h)]++
		}
		for k, p := range post {
			got := float64(counts[k]) / chains
			if se := math.Sqrt(p * (1 - p) / chains); math.Abs(got-p) > 5*se+1e-9 {
				t.Errorf("%s: state %s drawn with frequency %.4f, posterior %.4f (5σ = %.4f)", c.name, k, got, p, 5*se)
			}
		}
	}
}

// TestGibbsConditionalWide: the same check on random states of wide nets
// (70-40-3), whose rows of outgoing weights span several 32-unit blocks of
// the product — renormalised between blocks, and with scale 300 some
// blocks leaving the safe range and taking the term-by-term path.
func TestGibbsConditionalWide(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 6))
	for _, ar := range []bool{false, true} {
		for _, scale := range []float64{1.5, 300} {
			n := randomNet([]int{70, 40, 3}, ar, scale, 23)
			sc := n.NewScratch()
			g := n.newGibbsTables(true)
			g.refresh(n, true)
			ch := n.newGibbsChain()
			h := n.States()
			for range 5 {
				randomState(h, rng)
				for l := 1; l <= n.Layers(); l++ {
					for j := range n.Sizes[l] {
						for ll := range h {
							copy(ch.h[ll], h[ll])
						}
						ch.refresh()
						got := ch.logOdds(g, l, j)
						old := h[l][j]
						h[l][j] = 1
						up := n.LogJoint(h, 1, sc)
						h[l][j] = 0
						want := up - n.LogJoint(h, 1, sc)
						h[l][j] = old
						if math.Abs(got-want) > 1e-9*max(1, math.Abs(up)) {
							t.Fatalf("ar %v scale %g: log-odds of h%d[%d] = %.12g, brute force %.12g", ar, scale, l, j, got, want)
						}
					}
				}
			}
		}
	}
}

// closeOrNaN: both NaN (beyond extreme), or within 1e-12.
func closeOrNaN(a, b float64) bool {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.IsNaN(a) && math.IsNaN(b)
	}
	return math.Abs(a-b) <= 1e-12
}
