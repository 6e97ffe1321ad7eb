package sbn

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/logz-ml/logz/internal/seeds"
)

// refAISWeights is the one-chain reference: every chain of AIS (forward)
// or of BDMC's reverse direction annealed alone by anneal, from the start
// AIS.LogProb / BDMC.Run give it, its stream keyed as they key it.
func refAISWeights(n *Net, x estRows, chains, K, sweeps int, seed uint64) [][]float64 {
	e := estPrepare(n)
	w := make([][]float64, len(x))
	for ex := range x {
		w[ex] = make([]float64, chains)
		for m := range chains {
			c := e.newChain()
			rng, pcg := estRand()
			pcg.Seed(seeds.Derive(seed, uint64(ex), uint64(m)), seeds.Derive(seed, uint64(ex), uint64(m), 1))
			c.setVisible(x[ex])
			c.uniformLatents(rng)
			lw := []float64{0}
			anneal([]*estChain{c}, []*rand.Rand{rng}, K, sweeps, false, lw)
			w[ex][m] = lw[0] - float64(n.Sizes[0])*math.Ln2
		}
	}
	return w
}

// laneCases are the nets the lanes are checked on: plain, deep and
// autoregressive, small and with layers wider than a product block
// (sigpair.BlockLen), and with weights large enough that blocks leave the
// product's safe range and take the direct formula.
var laneCases = []struct {
	name  string
	sizes []int
	ar    bool
	scale float64
}{
	{"sbn 3-2", []int{3, 2}, false, 2},
	{"sbn 3-2-2", []int{3, 2, 2}, false, 2},
	{"arsbn 3-2-2", []int{3, 2, 2}, true, 2},
	{"sbn 70-40", []int{70, 40}, false, 1},
	{"sbn 70-40-9", []int{70, 40, 9}, false, 1},
	{"arsbn 70-40-9", []int{70, 40, 9}, true, 0.5},
	{"sbn 70-40 (big W)", []int{70, 40}, false, 40},
	{"arsbn 40-35 (big W)", []int{40, 35}, true, 40},
}

// TestAISLanesMatchReference: the per-chain log weights of AIS.LogProb
// (chains side by side in lanes, several examples per batch) equal those of
// the one-chain reference anneal within 1e-9, for K = 1, 3 and 130 (past a
// recomputation of the inputs), with 1 and 2 sweeps; chains = 7 leaves idle
// lanes in a batch.
func TestAISLanesMatchReference(t *testing.T) {
	for _, c := range laneCases {
		n := randomNet(c.sizes, c.ar, c.scale, 61)
		x := laneExamples(n, 3)
		for _, s := range []struct{ K, sweeps int }{{1, 1}, {3, 2}, {130, 1}} {
			name := fmt.Sprintf("%s, K = %d, %d sweeps", c.name, s.K, s.sweeps)
			r, err := AIS{Chains: 7, Betas: s.K, Seed: 5, Sweeps: s.sweeps}.LogProb(n, x)
			if err != nil {
				t.Fatal(err)
			}
			ref := refAISWeights(n, x, 7, s.K, s.sweeps, 5)
			for ex := range x {
				for m, want := range ref[ex] {
					if got := r.LogWeights[ex][m]; !(math.Abs(got-want) <= 1e-9*max(1, math.Abs(want))) {
						t.Errorf("%s: example %d, chain %d: lanes %.15g, reference %.15g", name, ex, m, got, want)
					}
				}
			}
		}
	}
}

// laneExamples draws N examples from the net.
func laneExamples(n *Net, N int) estRows {
	rng := rand.New(rand.NewPCG(7, 7))
	var x estRows
	for range N {
		h := n.States()
		n.Sample(h, rng, n.NewScratch())
		row := make([]uint8, len(h[0]))
		for i, v := range h[0] {
			row[i] = uint8(v)
		}
		x = append(x, row)
	}
	return x
}

// TestAISLanesConditional: in every lane, the flip gains equal
// log f_β(flipped) − log f_β(state) from LogJoint at β = 0.5, the weight of
// a step equals LogJoint(β = 0.5) − LogJoint(β = 0.3), the inputs are
// those of estChain.recompute (its bits in a fresh state, to rounding
// after flips) and the σ pairs σ(±β in) (NaN beyond extreme) to rounding, in random states and after 30 sweeps, on the nets
// of laneCases and one whose weights reach β|w| > extreme.
func TestAISLanesConditional(t *testing.T) {
	cases := append(laneCases[:len(laneCases):len(laneCases)], struct {
		name  string
		sizes []int
		ar    bool
		scale float64
	}{"arsbn 40-35-5 (huge W)", []int{40, 35, 5}, true, 400})
	for _, c := range cases {
		for _, fuse := range []bool{false, true} {
			lanesConditional(t, fmt.Sprintf("%s (fast path %v)", c.name, fuse), randomNet(c.sizes, c.ar, c.scale, 62), fuse)
		}
	}
}

func lanesConditional(t *testing.T, name string, n *Net, fuse bool) {
	const lanes, b0, beta = 6, 0.3, 0.5
	e := estPrepare(n)
	w := e.newLanes(lanes)
	rng := rand.New(rand.NewPCG(1, 2))
	for k := range lanes {
		for l := range w.c.h {
			for i := range w.c.h[l] {
				w.c.h[l][i] = float64(rng.IntN(2))
			}
		}
		w.c.recompute()
		w.load(k)
		w.pcgs[k].Seed(3, uint64(k))
	}
	for k := lanes; k < w.lanes; k++ {
		w.clear(k)
	}
	if w.fuse = fuse; fuse {
		w.setDots()
	}
	sc := n.NewScratch()
	unnorm := 0 // group sweeps on the visible layer's fast path
	state := func(k int) [][]float64 { return w.laneState(n, k) }
	close := func(got, want, scale float64) bool { return math.Abs(got-want) <= 1e-9*max(1, math.Abs(scale)) }
	w.setBeta(beta)
	check := func(when string, fresh bool) {
		for g := range w.ng {
			before := make([]float64, 4)
			for q := range 4 {
				before[q] = w.logw[4*g+q]
			}
			w.weights(g, b0, beta)
			for q := range 4 {
				k := 4*g + q
				if k >= lanes {
					continue
				}
				h := state(k)
				want := n.LogJoint(h, beta, sc) - n.LogJoint(h, b0, sc)
				if got := w.logw[k] - before[q]; !close(got, want, n.LogJoint(h, b0, sc)) {
					t.Errorf("%s, %s, lane %d: step weight %.12g, LogJoint difference %.12g", name, when, k, got, want)
				}
			}
			w.checkGains(t, name+", "+when, g, lanes, n, beta)
		}
		for k := range lanes {
			g, q := k/4, k%4
			h := state(k)
			for l := range h {
				copy(w.c.h[l], h[l])
			}
			w.c.recompute()
			for l, in := range w.c.in {
				o := g * len(in) * 4
				for i, v := range in {
					j := o + 4*i + q
					if fresh && w.in[l][j] != v || !close(w.in[l][j], v, v) {
						t.Errorf("%s, %s, lane %d: input %d of layer %d is %v, recomputed %v", name, when, k, i, l, w.in[l][j], v)
					}
					s, tt := chainPair(beta * w.in[l][j])
					gs, gt := w.s[l][j], w.t[l][j]
					if l == 0 && w.unnorm[g] {
						// unnormalised: the ratio is e^{β in}
						gs, gt = gs/(gs+gt), gt/(gs+gt)
					}
					if math.IsNaN(s) != math.IsNaN(gs) || !math.IsNaN(s) && (math.Abs(gs-s) > 1e-12*s || math.Abs(gt-tt) > 1e-12*tt) {
						t.Errorf("%s, %s, lane %d: σ pair of unit %d of layer %d is %v, %v; want %v, %v", name, when, k, i, l, gs, gt, s, tt)
					}
				}
			}
		}
	}
	check("random state", true)
	for range 30 {
		for g := range w.ng {
			w.sweep(g, lanes, false)
			if w.unnorm[g] {
				unnorm++
			}
		}
	}
	// check's weights renormalise: the gains of the fast path are checked
	// after a sweep at beta without them
	for g := range w.ng {
		w.weights(g, beta, beta)
		w.sweep(g, lanes, false)
		w.checkGains(t, name+", after a sweep", g, lanes, n, beta)
	}
	check("after 30 sweeps", false)
	if fuse && w.fuse && unnorm == 0 && !strings.Contains(name, "big") && !strings.Contains(name, "huge") {
		t.Errorf("%s: the fast path never ran", name)
	}
}

// TestBDMCLanesMatchReference: BDMC's forward and reverse log weights
// equal those of the one-chain reference anneal within 1e-9 (the reverse
// chains from the exact posterior sample, β downwards), on the nets of
// laneCases; and with GOMAXPROCS = 1 (other batches) they are the same bits.
func TestBDMCLanesMatchReference(t *testing.T) {
	for _, c := range laneCases {
		n := randomNet(c.sizes, c.ar, c.scale, 63)
		b := BDMC{Chains: 5, Betas: 70, Examples: 3, Seed: 8, Sweeps: 2}
		r, err := b.Run(n)
		if err != nil {
			t.Fatal(err)
		}
		e := estPrepare(n)
		for ex := range b.Examples {
			for m := range b.Chains {
				for dir := uint64(1); dir <= 2; dir++ {
					ch := e.newChain()
					rng, pcg := estRand()
					pcg.Seed(seeds.Derive(b.Seed, dir, uint64(ex), uint64(m)), seeds.Derive(b.Seed, dir, uint64(ex), uint64(m), 1))
					ch.setVisible(r.Data.Row(ex))
					got := r.ReverseLogWeights[ex][m]
					if dir == 1 {
						ch.uniformLatents(rng)
						got = r.ForwardLogWeights[ex][m] + float64(n.Sizes[0])*math.Ln2
					} else {
						for l, hl := range r.Latents[ex] {
							copy(ch.h[l+1], hl)
						}
					}
					lw := []float64{0}
					anneal([]*estChain{ch}, []*rand.Rand{rng}, b.Betas, 2, dir == 2, lw)
					if !(math.Abs(got-lw[0]) <= 1e-9*max(1, math.Abs(lw[0]))) {
						t.Errorf("%s: example %d, chain %d, direction %d: lanes %.15g, reference %.15g", c.name, ex, m, dir, got, lw[0])
					}
				}
			}
		}
		func() {
			defer setProcs(setProcs(1))
			r1, err := b.Run(n)
			if err != nil {
				t.Fatal(err)
			}
			for ex := range b.Examples {
				for m := range b.Chains {
					if r1.ForwardLogWeights[ex][m] != r.ForwardLogWeights[ex][m] || r1.ReverseLogWeights[ex][m] != r.ReverseLogWeights[ex][m] {
						t.Errorf("%s: example %d, chain %d: GOMAXPROCS = 1 gives other weights", c.name, ex, m)
					}
				}
			}
		}()
	}
}

// checkGains checks the flip gains of group g's lanes against LogJoint at
// beta in their current state (with the visible layer's pairs as they
// are: after a sweep, unnormalised on the fast path).
func (w *aisLanes) checkGains(t *testing.T, name string, g, lanes int, n *Net, beta float64) {
	sc := n.NewScratch()
	for l := 1; l < len(w.h); l++ {
		for u := range n.Sizes[l] {
			w.gains(g, l, u)
			for q := range 4 {
				k := 4*g + q
				if k >= lanes {
					continue
				}
				h := w.laneState(n, k)
				b := n.LogJoint(h, beta, sc)
				h[l][u] = 1 - h[l][u]
				a := n.LogJoint(h, beta, sc)
				if math.Abs(w.cur.gain[q]-(a-b)) > 1e-9*max(1, math.Abs(b)) {
					t.Errorf("%s (unnormalised %v), lane %d: unit %d of layer %d: flip gain %.12g, LogJoint difference %.12g", name, w.unnorm[g], k, u, l, w.cur.gain[q], a-b)
				}
			}
		}
	}
}

// laneState returns lane k's h as an estChain holds it.
func (w *aisLanes) laneState(n *Net, k int) [][]float64 {
	g, q := k/4, k%4
	h := n.States()
	for l := range h {
		o := g * len(h[l]) * 4
		for i := range h[l] {
			h[l][i] = w.h[l][o+4*i+q]
		}
	}
	return h
}
