package sbn

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/logz-ml/logz/internal/nmath"
)

// TestAISUnbiased: for any K, the AIS weight is unbiased for p(x)
// (docs/methods.md#testing): the mean of e^{log w} over many independent chains is p(x)
// within 4 standard errors of that mean, for K = 1, 2 and 5, plain and
// autoregressive, one and two latent layers.
func TestAISUnbiased(t *testing.T) {
	for _, c := range tiny {
		n := randomNet(c.sizes, c.ar, 2, 21)
		x := []uint8{1, 1, 0}
		exact, err := ExactLogProb(n, estRows{x}, 20, nil)
		if err != nil {
			t.Fatal(err)
		}
		p := math.Exp(exact[0])
		for _, K := range []int{1, 2, 5} {
			r, err := AIS{Chains: 20000, Betas: K, Seed: uint64(K)}.LogProb(n, estRows{x})
			if err != nil {
				t.Fatal(err)
			}
			mean, se := meanWeight(r.LogWeights[0])
			if math.Abs(mean-p) > 4*se {
				t.Errorf("%s, K = %d: mean AIS weight %.5f ± %.5f, exact p(x) %.5f (%.1f standard errors)", c.name, K, mean, se, p, (mean-p)/se)
			}
			// Power: the weights' spread is what these nets give (relative
			// standard error 0.005–0.018 with 20,000 chains); a noisier
			// estimator would pass the 4σ check above too easily.
			if se > 0.025*p {
				t.Errorf("%s, K = %d: standard error %.5f of the mean weight is more than 2.5%% of p(x) %.5f", c.name, K, se, p)
			}
		}
	}
}

// TestAISConverges: with K = 1000, AIS on every visible vector agrees with
// exact within 4 standard errors (delta method: the standard error of the
// mean weight over its mean, from the chains' sample variance) and that
// standard error is small (< 0.02 nats); the estimates do not depend on
// GOMAXPROCS (streams are keyed by example and chain).
func TestAISConverges(t *testing.T) {
	n := randomNet([]int{3, 3, 2}, true, 1.5, 22)
	x := allVisible(3)
	exact, _ := ExactLogProb(n, x, 20, nil)
	a := AIS{Chains: 20, Betas: 1000, Seed: 3}
	r, err := a.LogProb(n, x)
	if err != nil {
		t.Fatal(err)
	}
	for i := range x {
		mean, se := meanWeight(r.LogWeights[i])
		tol := 4 * se / mean
		if d := r.LogP[i] - exact[i]; math.Abs(d) > tol || tol > 0.08 {
			t.Errorf("x = %v: AIS %.4f, exact %.4f, 4 SE = %.4f", x[i], r.LogP[i], exact[i], tol)
		}
	}
	defer setProcs(setProcs(1))
	r1, _ := a.LogProb(n, x)
	for i := range x {
		if r1.LogP[i] != r.LogP[i] {
			t.Errorf("x = %v: %v with GOMAXPROCS=1, %v before", x[i], r1.LogP[i], r.LogP[i])
		}
	}
}

// TestGibbsConditional: the flip gain used by the Gibbs update equals
// log f_β(flipped) − log f_β(state) from LogJoint at β = 0.5, for every
// unit (latent, and visible as the completion uses them), before and after
// a run of updates (the incrementally kept inputs and softplus cache stay
// right). Each net runs twice: as is (the product form of the children's
// terms) and with W scaled by 40 (|W| > 30: a softplus per child).
func TestAISGibbsConditional(t *testing.T) {
	for _, c := range append(tiny, struct {
		name  string
		sizes []int
		ar    bool
	}{"arsbn 5-4-3", []int{5, 4, 3}, true}) {
		for _, big := range []bool{false, true} {
			gibbsConditional(t, c.name, c.sizes, c.ar, big)
		}
	}
}

func gibbsConditional(t *testing.T, name string, sizes []int, ar, big bool) {
	c := struct{ name string }{fmt.Sprintf("%s (big W %v)", name, big)}
	{
		n := randomNet(sizes, ar, 1.5, 23)
		if big {
			for _, w := range n.W[1:] {
				for i := range w {
					w[i] *= 40
				}
			}
		}
		e := estPrepare(n)
		if e.fast == big {
			t.Fatalf("%s: fast path %v", c.name, e.fast)
		}
		ch := e.newChain()
		rng := rand.New(rand.NewPCG(1, 1))
		for l := range ch.h {
			for i := range ch.h[l] {
				ch.h[l][i] = float64(rng.IntN(2))
			}
		}
		ch.recompute()
		ch.setBeta(0.5)
		sc := n.NewScratch()
		check := func(when string) {
			for l := range ch.h {
				for u := range ch.h[l] {
					g := ch.flipGain(l, u)
					before := n.LogJoint(ch.h, 0.5, sc)
					ch.h[l][u] = 1 - ch.h[l][u]
					after := n.LogJoint(ch.h, 0.5, sc)
					ch.h[l][u] = 1 - ch.h[l][u]
					if math.Abs(g-(after-before)) > 1e-10 {
						t.Errorf("%s, %s: unit %d of layer %d: flip gain %.12f, LogJoint difference %.12f", c.name, when, u, l, g, after-before)
					}
				}
			}
			if lj, want := ch.logJoint(0.5), n.LogJoint(ch.h, 0.5, sc); math.Abs(lj-want) > 1e-10 {
				t.Errorf("%s, %s: logJoint %.12f, LogJoint %.12f", c.name, when, lj, want)
			}
		}
		check("fresh state")
		vis := []int{0, 2}
		for range 50 {
			ch.sweep(vis, rng)
		}
		check("after 50 sweeps")
	}
}

// TestGibbsInvariant: one sweep leaves p_β(z | x) invariant exactly. The
// sweep's transition matrix T is computed by summing over every sequence
// of single-site outcomes (flip or keep, with the probabilities the
// sampler uses) from every start state, and πT = π to rounding, π from
// LogJoint at β = 0.5.
func TestGibbsInvariant(t *testing.T) {
	for _, c := range tiny {
		n := randomNet(c.sizes, c.ar, 2, 24)
		e := estPrepare(n)
		ch := e.newChain()
		sc := n.NewScratch()
		x := []uint8{0, 1, 1}
		var units [][2]int
		for l := 1; l < len(n.Sizes); l++ {
			for u := range n.Sizes[l] {
				units = append(units, [2]int{l, u})
			}
		}
		H := len(units)
		set := func(z int) {
			ch.setVisible(x)
			for k, lu := range units {
				ch.h[lu[0]][lu[1]] = float64(z >> k & 1)
			}
			ch.recompute()
			ch.setBeta(0.5)
		}
		code := func() int {
			z := 0
			for k, lu := range units {
				z |= int(ch.h[lu[0]][lu[1]]) << k
			}
			return z
		}
		logPi := make([]float64, 1<<H)
		for z := range logPi {
			set(z)
			logPi[z] = n.LogJoint(ch.h, 0.5, sc)
		}
		lz := nmath.LogSumExp(logPi)
		piT := make([]float64, 1<<H)
		for z0 := range 1 << H {
			for path := range 1 << H {
				set(z0)
				prob := math.Exp(logPi[z0] - lz)
				for k, lu := range units {
					pf := nmath.Sigmoid(ch.flipGain(lu[0], lu[1]))
					if path>>k&1 == 1 {
						prob *= pf
						ch.flip(lu[0], lu[1])
					} else {
						prob *= 1 - pf
					}
				}
				piT[code()] += prob
			}
		}
		for z := range piT {
			if want := math.Exp(logPi[z] - lz); math.Abs(piT[z]-want) > 1e-12 {
				t.Errorf("%s: (πT)(%d) = %.15f, π = %.15f", c.name, z, piT[z], want)
			}
		}
	}
}

// setProcs sets GOMAXPROCS and returns the previous value.
func setProcs(n int) int { return runtime.GOMAXPROCS(n) }
