package sbn

import (
	"math"
	"math/rand/v2"
	"testing"
)

// randomState fills the latent layers (and x) of h with fair coin flips.
func randomState(h [][]float64, rng *rand.Rand) {
	for l := range h {
		for i := range h[l] {
			h[l][i] = float64(rng.IntN(2))
		}
	}
}

// params lists every parameter slice of a net (generative then
// recognition) with a name, so tests can walk them in step.
func params(n *Net) (names []string, xs [][]float64) {
	for l := range n.Sizes {
		names, xs = append(names, "b"), append(xs, n.B[l])
		if l > 0 {
			names, xs = append(names, "W"), append(xs, n.W[l])
		}
		if n.S != nil {
			names, xs = append(names, "S"), append(xs, n.S[l])
		}
	}
	return
}

func recParams(r *Recognition) (names []string, xs [][]float64) {
	for l := 1; l < len(r.R); l++ {
		names, xs = append(names, "R", "c"), append(xs, r.R[l], r.C[l])
		if r.T != nil {
			names, xs = append(names, "T"), append(xs, r.T[l])
		}
	}
	return
}

// TestGradLogJoint: AddGradLogJoint agrees with central finite differences
// of LogJoint for every generative parameter, including the upper triangle
// and diagonal of S (whose entries do not enter log p: gradient exactly 0),
// on random states of tiny SBNs and ARSBNs; its return value is LogJoint.
func TestGradLogJoint(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for _, c := range tiny {
		n := randomNet(c.sizes, c.ar, 1.2, 11)
		sc, gs := n.NewScratch(), n.NewGradScratch()
		h := n.States()
		for trial := range 5 {
			randomState(h, rng)
			g := New(c.sizes, c.ar)
			const wt = 0.7
			lp := n.AddGradLogJoint(h, wt, g, gs)
			if want := n.LogJoint(h, 1, sc); math.Abs(lp-want) > 1e-12 {
				t.Fatalf("%s: AddGradLogJoint returned %g, LogJoint %g", c.name, lp, want)
			}
			names, ps := params(n)
			_, gsl := params(g)
			for k, p := range ps {
				for i := range p {
					const eps = 1e-5
					old := p[i]
					p[i] = old + eps
					up := n.LogJoint(h, 1, sc)
					p[i] = old - eps
					down := n.LogJoint(h, 1, sc)
					p[i] = old
					fd := wt * (up - down) / (2 * eps)
					if math.Abs(gsl[k][i]-fd) > 1e-7 {
						t.Errorf("%s trial %d: ∂/∂%s[%d] = %.9g, finite difference %.9g", c.name, trial, names[k], i, gsl[k][i], fd)
					}
				}
			}
			if c.ar {
				for l, s := range g.S {
					k := c.sizes[l]
					for i := range k {
						for j := i; j < k; j++ {
							if s[i*k+j] != 0 {
								t.Errorf("%s: gradient of S%d[%d,%d] = %g on or above the diagonal", c.name, l, i, j, s[i*k+j])
							}
						}
					}
				}
			}
		}
	}
}

// TestGradLogQ: AddGradLogQ agrees with finite differences of LogQ, and
// sampling through forwardQ scores what it draws.
func TestGradLogQ(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	for _, c := range tiny {
		n := randomNet(c.sizes, c.ar, 1.2, 12)
		sc, gs := n.NewScratch(), n.NewGradScratch()
		h := n.States()
		for trial := range 5 {
			randomState(h, rng)
			g := NewRecognition(c.sizes, c.ar)
			const wt = 1.3
			lq := n.AddGradLogQ(h, wt, g, gs)
			if want := n.LogQ(h, sc); math.Abs(lq-want) > 1e-12 {
				t.Fatalf("%s: AddGradLogQ returned %g, LogQ %g", c.name, lq, want)
			}
			names, ps := recParams(n.Rec)
			_, gsl := recParams(g)
			for k, p := range ps {
				for i := range p {
					const eps = 1e-5
					old := p[i]
					p[i] = old + eps
					up := n.LogQ(h, sc)
					p[i] = old - eps
					down := n.LogQ(h, sc)
					p[i] = old
					fd := wt * (up - down) / (2 * eps)
					if math.Abs(gsl[k][i]-fd) > 1e-7 {
						t.Errorf("%s trial %d: ∂/∂%s[%d] = %.9g, finite difference %.9g", c.name, trial, names[k], i, gsl[k][i], fd)
					}
				}
			}
			// Draw through forwardQ: its log Q is LogQ of the draw.
			gs.on[0] = onUnits(h[0], gs.on[0])
			lq = n.forwardQ(h, gs.pq, gs.on, rng)
			if want := n.LogQ(h, sc); math.Abs(lq-want) > 1e-12 {
				t.Fatalf("%s: forwardQ drew with log Q %g, LogQ %g", c.name, lq, want)
			}
		}
	}
}

// TestForwardQDraws: the proposals the trainer draws through forwardQ
// follow Q(h | x): frequencies within 5 binomial standard errors of
// exp(LogQ) for every latent state.
func TestForwardQDraws(t *testing.T) {
	for _, c := range tiny {
		n := randomNet(c.sizes, c.ar, 1.5, 13)
		sc, gs := n.NewScratch(), n.NewGradScratch()
		rng := rand.New(rand.NewPCG(9, 9))
		h := n.States()
		x := []float64{0, 1, 1}
		copy(h[0], x)
		gs.on[0] = onUnits(h[0], gs.on[0])
		const draws = 100000
		counts := map[string]int{}
		for range draws {
			n.forwardQ(h, gs.pq, gs.on, rng)
			counts[key(h)]++
		}
		allStates(n, func(h [][]float64) {
			if h[0][0] != x[0] || h[0][1] != x[1] || h[0][2] != x[2] {
				return
			}
			p := math.Exp(n.LogQ(h, sc))
			got := float64(counts[key(h)]) / draws
			if se := math.Sqrt(p * (1 - p) / draws); math.Abs(got-p) > 5*se+1e-9 {
				t.Errorf("%s: state %s drawn with frequency %.5f, Q = %.5f (5σ = %.5f)", c.name, key(h), got, p, 5*se)
			}
		})
	}
}
