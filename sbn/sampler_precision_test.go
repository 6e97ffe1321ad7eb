package sbn

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/logz-ml/logz/data"
	"github.com/logz-ml/logz/internal/kernel"
	"github.com/logz-ml/logz/internal/nmath"
)

// loadBoth puts the same random states (random x too) into the lanes of a
// float64 and a float32 chain set, and refreshes both.
func loadBoth(c64 *gibbsChains[float64], c32 *gibbsChains[float32], n *Net, g *gibbsTables, active int, rng *rand.Rand) {
	h := n.States()
	for k := range active {
		randomState(h, rng)
		c64.load(k, h)
		c32.load(k, h)
	}
	c64.refresh(active, g)
	c32.refresh(active, g)
}

// tol32 bounds |Δ_f32 − Δ_f64| of unit j of layer l in lane k of c32 given
// flips, the number of updates of each layer's values since the last
// refresh (u = 2⁻²⁴, float32's relative rounding). A latent layer's factor
// t + s·e of float32 t, s, e (each rounded once) is formed with two
// roundings: relative error at most 4u after a refresh, and each
// multiplicative update of a pair adds at most 6u (r, 1/r, e·(1/r) and the
// products); a factor's relative error ε moves its log by ≈ ε. The direct
// formula of a bad block sees the float32 activation, off by |a|·u per
// rounding. The visible layer's factor 1 + ρ·e (ρ = e^{a}, e rounded once,
// two roundings, then a float32 product of four) is within 5u, each update
// of ρ adds 2u, and Σ softplus(a) it subtracts is the log of an earlier
// such product: twice the bound. The
// start a_j is rounded once; float64 rounding is below 1e−9 relative.
func tol32(c *gibbsChains[float32], g *gibbsTables, l, j, k int, flips []int) float64 {
	const u = 0x1p-24
	n := c.n
	tol := math.Abs(c.act(g, l, k, j)) * (1 + float64(flips[l])) * u
	add := func(ll, i0, m int, w []float64) {
		F := float64(flips[ll])
		for i := range m {
			if ll == 0 {
				tol += 2 * (5 + 2*F) * u
				continue
			}
			a := math.Abs(c.act(g, ll, k, i0+i))
			tol += (4 + 6*F + (a+math.Abs(w[i]))*(1+F)) * u
		}
	}
	m := n.Sizes[l-1]
	add(l-1, 0, m, g.wt[l][j*m:(j+1)*m])
	if n.S != nil {
		K := n.Sizes[l]
		add(l, j+1, K-j-1, g.st[l][j*K+j+1:(j+1)*K])
	}
	return tol
}

// TestGibbs32Conditional: the float32 chains' log-odds are the float64
// chains' (gibbsChains[float64], themselves checked against brute force) within
// tol32, for every unit of random SBNs, deep SBNs and ARSBNs (moderate
// weights, and weights of scale 60 and 300: bad blocks, NaN exponentials
// and pairs, the fallbacks) and an SBN 784-200 on MNIST-like rows, right
// after a refresh and after sweeps of the float32 chains (the pairs then
// carry the rounding of their updates; the float64 chains are loaded with
// the same states and refreshed). It logs the largest difference seen on
// the 784-200 net.
func TestGibbs32Conditional(t *testing.T) {
	nets := []struct {
		sizes []int
		ar    bool
		scale float64
	}{{[]int{3, 2}, false, 1.5}, {[]int{3, 2, 2}, true, 1.5}, {[]int{70, 40}, false, 1}, {[]int{70, 40, 33}, false, 1}, {[]int{70, 40, 33}, true, 1},
		{[]int{90, 37}, true, 60}, {[]int{40, 20, 9}, false, 300}, {[]int{60, 30}, false, 12}, {[]int{60, 30}, false, 20}, {[]int{784, 200}, false, 0}}
	for ni, c := range nets {
		var n *Net
		if c.scale == 0 {
			n = New(c.sizes, false)
			InitNormal(n, 0.3, 5)
		} else {
			n = randomNet(c.sizes, c.ar, c.scale, uint64(60+ni))
		}
		g := n.newGibbsTables(true)
		g.refresh(n)
		const active = 13
		c64, c32 := newGibbsChains[float64](n, active), newGibbsChains[float32](n, active)
		rng := rand.New(rand.NewPCG(uint64(ni), 61))
		loadBoth(c64, c32, n, g, active, rng)
		if c.scale == 0 { // MNIST-like rows: 15% of the pixels on
			h := n.States()
			for k := range active {
				c32.latent(k, h)
				for i := range h[0] {
					h[0][i] = 0
					if rng.Float64() < 0.15 {
						h[0][i] = 1
					}
				}
				c64.load(k, h)
				c32.load(k, h)
			}
			c64.refresh(active, g)
			c32.refresh(active, g)
		}
		rngs := make([]*rand.Rand, active)
		for k := range rngs {
			rngs[k] = rand.New(rand.NewPCG(uint64(k), 62))
		}
		worst := 0.0
		h := n.States()
		for round := range 3 {
			// Sweeps of the float32 chains (round > 0), counting the
			// updates of each layer's pairs per lane (at most one per unit
			// of the layers feeding it and per sweep).
			sweeps := 2 * round
			for range sweeps {
				c32.sweep(g, rngs)
			}
			c32.flush(g)
			flips := make([]int, len(n.Sizes))
			for l := range n.Sizes {
				if l+1 < len(n.Sizes) {
					flips[l] += sweeps * n.Sizes[l+1]
				}
				if n.S != nil && l > 0 {
					flips[l] += sweeps * n.Sizes[l]
				}
			}
			for k := range active {
				c32.latent(k, h)
				for i := range h[0] {
					h[0][i] = float64(c32.h[0][c32.idx(0, k, i)])
				}
				c64.load(k, h)
			}
			c64.refresh(active, g)
			for l := 1; l <= n.Layers(); l++ {
				for j := range n.Sizes[l] {
					c64.logOdds(g, l, j)
					c32.logOdds(g, l, j)
					for k := range active {
						d := math.Abs(c32.lo[k] - c64.lo[k])
						tol := tol32(c32, g, l, j, k, flips) + 1e-9*(1+math.Abs(c64.lo[k]))
						if !(d <= tol) {
							t.Fatalf("%v ar %v scale %g, round %d: lane %d log-odds of h%d[%d] = %.9g in float32, %.9g in float64 (|Δ| %.3g > %.3g)",
								c.sizes, c.ar, c.scale, round, k, l, j, c32.lo[k], c64.lo[k], d, tol)
						}
						worst = max(worst, d)
					}
					c32.penJ = -1 // logOdds is called again for the same unit: no update waits
				}
			}
		}
		if c.scale == 0 {
			t.Logf("SBN 784-200 (weights N(0, 0.3²), 15%% of the pixels on): max |Δ_f32 − Δ_f64| = %.3g over %d lanes × 200 units × 3 rounds (0, 2, 4 sweeps)", worst, active)
		}
	}
}

// TestLanesIndependent: a chain's states, activations and σ pairs (odds)
// after sweeps do not depend on its lane nor on the chains beside it: 13
// chains side by side give the bits of each chain run alone in lane 0, in
// both precisions, for an SBN, a deep SBN and an ARSBN, with moderate and
// extreme weights.
func TestLanesIndependent(t *testing.T) {
	lanesIndependent[float64](t)
	lanesIndependent[float32](t)
}

func lanesIndependent[F kernel.Float](t *testing.T) {
	for ni, c := range []struct {
		sizes []int
		ar    bool
		scale float64
	}{{[]int{70, 40}, false, 1}, {[]int{70, 40, 33}, true, 1}, {[]int{50, 20, 9}, false, 300}, {[]int{90, 37}, true, 60}} {
		n := randomNet(c.sizes, c.ar, c.scale, uint64(70+ni))
		g := n.newGibbsTables(true)
		g.refresh(n)
		const active = 13
		all := newGibbsChains[F](n, active)
		init := rand.New(rand.NewPCG(uint64(ni), 71))
		states := make([][][]float64, active)
		rngs := make([]*rand.Rand, active)
		for k := range active {
			states[k] = n.States()
			randomState(states[k], init)
			all.load(k, states[k])
			rngs[k] = rand.New(rand.NewPCG(uint64(k), 72))
		}
		all.refresh(active, g)
		for range 5 {
			all.sweep(g, rngs)
		}
		all.flush(g)
		for k := range active {
			one := newGibbsChains[F](n, 1)
			one.load(0, states[k])
			one.refresh(1, g)
			r := []*rand.Rand{rand.New(rand.NewPCG(uint64(k), 72))}
			for range 5 {
				one.sweep(g, r)
			}
			one.flush(g)
			if math.Float64bits(all.sp0[k]) != math.Float64bits(one.sp0[0]) {
				t.Fatalf("%v ar %v scale %g: lane %d: Σ softplus(a_0) %v beside 12 chains, %v alone", c.sizes, c.ar, c.scale, k, all.sp0[k], one.sp0[0])
			}
			for l := range n.Sizes {
				for i := range n.Sizes[l] {
					o, p := all.idx(l, k, i), one.idx(l, 0, i)
					if x, y := all.act(g, l, k, i), one.act(g, l, 0, i); math.Float64bits(x) != math.Float64bits(y) && !(x != x && y != y) {
						t.Fatalf("%v ar %v scale %g: lane %d layer %d unit %d: activation %v beside 12 chains, %v alone", c.sizes, c.ar, c.scale, k, l, i, x, y)
					}
					vals := [][2][]F{{all.h[l], one.h[l]}, {all.r0, one.r0}}
					if l > 0 {
						vals = [][2][]F{{all.h[l], one.h[l]}, {all.s[l], one.s[l]}, {all.t[l], one.t[l]}}
					}
					for _, v := range vals {
						x, y := float64(v[0][o]), float64(v[1][p])
						if math.Float64bits(x) != math.Float64bits(y) && !(x != x && y != y) {
							t.Fatalf("%v ar %v scale %g: lane %d layer %d unit %d: %v beside 12 chains, %v alone", c.sizes, c.ar, c.scale, k, l, i, x, y)
						}
					}
				}
			}
		}
	}
}

// TestGibbsNoAllocs: with one worker a minibatch of the Gibbs trainer
// allocates nothing once its buffers exist, in both precisions.
func TestGibbsNoAllocs(t *testing.T) {
	gibbsNoAllocs[float64](t)
	gibbsNoAllocs[float32](t)
}

func gibbsNoAllocs[F kernel.Float](t *testing.T) {
	n := randomNet([]int{20, 10, 5}, true, 1, 81)
	set := plantedData(n, 30, 9)
	o := DefaultTrainOptions()
	o.Sampler, o.Precision, o.Workers, o.BatchSize = "gibbs", kernel.Of[F](), 1, 30
	tr, err := NewTrainer(n, len(set), o)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := tr.gs.tasks[0].lc.(*gibbsChains[F]); !ok {
		t.Fatalf("the %s Gibbs sampler is not selected", kernel.Of[F]())
	}
	idx := make([]int, len(set))
	for i := range idx {
		idx[i] = i
	}
	var ex data.Examples = set
	b := 0
	if a := testing.AllocsPerRun(3, func() { b++; tr.minibatch(ex, idx, 1, b) }); a != 0 {
		t.Errorf("%g allocations per minibatch", a)
	}
}

// TestGibbsRoundTrip: a visible activation sent below −Extreme8 by flips
// (its ρ leaves [RhoLo, RhoHi]; in float32 it underflows to 0) and brought
// back far above by the reverse flips has its ρ and Σ softplus recomputed
// from the activations, so the log-odds after the round trip are those of
// float64 chains refreshed in the same states, in the lane that went round
// and in the lanes of its group that did not flip; likewise above
// +Extreme8 (ρ overflows in float32); in both precisions.
func TestGibbsRoundTrip(t *testing.T) {
	gibbsRoundTrip[float64](t)
	gibbsRoundTrip[float32](t)
}

func gibbsRoundTrip[F kernel.Float](t *testing.T) {
	for _, sg := range []float64{1, -1} {
		// Visible unit 0: a = 30 − 60 h_1 − 80 h_0 (times sg).
		n := New([]int{3, 2}, false)
		n.B[0][0], n.B[0][1], n.B[0][2] = 30*sg, -1, 0.5
		n.W[1][0*2+0], n.W[1][0*2+1], n.W[1][1*2+0], n.W[1][2*2+1] = -80*sg, -60*sg, 0.7, -0.4
		g := n.newGibbsTables(true)
		g.refresh(n)
		const active = 5
		c32, c64 := newGibbsChains[F](n, active), newGibbsChains[float64](n, active)
		h := n.States()
		h[0][0], h[0][2], h[1][1] = 1, 1, 1
		for k := range active {
			c32.load(k, h)
		}
		c32.refresh(active, g)
		cur := func(j int) func(k int) float64 {
			return func(k int) float64 { return float64(c32.h[1][c32.idx(1, k, j)]) }
		}
		step := func(j int, v func(k int) float64) {
			c32.logOdds(g, 1, j)
			for k := range active {
				c32.v[k] = v(k)
			}
			c32.set(g, 1, j)
		}
		lane2 := func(x float64) func(k int) float64 {
			return func(k int) float64 {
				if k == 2 {
					return x
				}
				return float64(c32.h[1][c32.idx(1, k, 0)])
			}
		}
		// Lane 2: unit 0 on (a = −110), off (−30), then unit 1 off (+30).
		step(0, lane2(1))
		step(1, cur(1))
		step(0, lane2(0))
		step(1, func(k int) float64 {
			if k == 2 {
				return 0
			}
			return cur(1)(k)
		})
		c32.flush(g)
		for k := range active {
			c32.latent(k, h)
			c64.load(k, h)
		}
		c64.refresh(active, g)
		for j := range 2 {
			c32.logOdds(g, 1, j)
			c64.logOdds(g, 1, j)
			for k := range active {
				if d := math.Abs(c32.lo[k] - c64.lo[k]); !(d <= 1e-5) {
					t.Errorf("%s sign %g, lane %d, unit %d after the round trip: log-odds %.9g, %.9g refreshed in float64", kernel.Of[F](), sg, k, j, c32.lo[k], c64.lo[k])
				}
			}
		}
	}
}

// TestGibbsVisibleSigmoid: the visible σ(a) a chain hands to the gradient
// after sweeps (ρ/(1 + ρ)) are σ of its activations recomputed in float64
// within the drift of ρ (relative u = 2⁻²⁴ in float32, 2⁻⁵³ in float64 per
// update and rounding, times the sweeps' updates), on a 784-200 net and on
// a net whose activations leave ±Extreme8 (NaN ρ: taken from the
// activations), in both precisions.
func TestGibbsVisibleSigmoid(t *testing.T) {
	gibbsVisibleSigmoid[float64](t, 0x1p-53)
	gibbsVisibleSigmoid[float32](t, 0x1p-24)
}

func gibbsVisibleSigmoid[F kernel.Float](t *testing.T, u float64) {
	for _, c := range []struct {
		sizes []int
		scale float64
	}{{[]int{784, 200}, 0}, {[]int{60, 30}, 20}} {
		var n *Net
		if c.scale == 0 {
			n = New(c.sizes, false)
			InitNormal(n, 0.3, 5)
		} else {
			n = randomNet(c.sizes, false, c.scale, 91)
		}
		g := n.newGibbsTables(true)
		g.refresh(n)
		const active, sweeps = 11, 3
		lc := newGibbsChains[F](n, active)
		h := n.States()
		rng := rand.New(rand.NewPCG(9, 1))
		rngs := make([]*rand.Rand, active)
		for k := range active {
			randomState(h, rng)
			lc.load(k, h)
			rngs[k] = rand.New(rand.NewPCG(uint64(k), 92))
		}
		lc.refresh(active, g)
		for range sweeps {
			lc.sweep(g, rngs)
		}
		lc.flush(g)
		m := n.Sizes[0]
		got := make([]float64, m)
		tol := float64(4+2*sweeps*n.Sizes[1]) * u
		for k := range active {
			lc.visibleSigmoid(g, k, got)
			lc.a0ok[k] = false
			for i := range m {
				want := nmath.Sigmoid(lc.act(g, 0, k, i))
				if d := math.Abs(got[i] - want); !(d <= tol*max(want, 1e-300)) {
					t.Fatalf("%v: lane %d visible %d: σ %.9g from ρ, %.9g from the activation", c.sizes, k, i, got[i], want)
				}
			}
		}
	}
}

// TestGibbsGradientSigmoid: at a dynamics step before the last, the
// trainer's chunk gradients, whose visible σ(a) come from the chains, are
// the gradients summed from W for the same kept states within the
// rounding of the precision (relative tol of the gradient's scale: 1e−5
// in float32, 1e−12 in float64), for an SBN and a deep ARSBN.
func TestGibbsGradientSigmoid(t *testing.T) {
	gibbsGradientSigmoid[float64](t, 1e-12)
	gibbsGradientSigmoid[float32](t, 1e-5)
}

func gibbsGradientSigmoid[F kernel.Float](t *testing.T, tol float64) {
	for _, c := range []struct {
		sizes []int
		ar    bool
	}{{[]int{40, 12}, false}, {[]int{40, 7, 6}, true}} {
		n := randomNet(c.sizes, c.ar, 1, 40)
		n.Rec = nil
		set := plantedData(n, 30, 41)
		o := DefaultTrainOptions()
		o.Sampler, o.Precision, o.Steps, o.BatchSize, o.Workers = "gibbs", kernel.Of[F](), 4, 30, 1
		tr, err := NewTrainer(n, len(set), o)
		if err != nil {
			t.Fatal(err)
		}
		tr.gibbs.refresh(n)
		idx := rand.New(rand.NewPCG(3, 3)).Perm(len(set))
		var chunks []*trainTask
		for lo := 0; lo < len(idx); lo += chunkSize {
			tk := tr.tasks[len(chunks)]
			tk.rows, tk.pos = idx[lo:min(lo+chunkSize, len(idx))], lo
			chunks = append(chunks, tk)
		}
		tr.active = len(chunks)
		for _, step := range []int{0, 1} {
			tr.cur.data, tr.cur.epoch, tr.cur.batch, tr.cur.step = set, 1, 0, step
			tr.next.Store(0)
			tr.gibbsSteps(idx, 1)()
			S, H := o.Samples, tr.latent
			for ci, tk := range chunks {
				got := tk.gGen.clone()
				zeroNet(tk.gGen)
				K := len(tk.rows)
				n.addGradBatch(tk.gb, tk.xs, K, S, tr.gs.kept[tk.pos*S*H:(tk.pos+K)*S*H], tr.gibbs.wt, 1/float64(S), tk.gGen, false, nil)
				gn, gx := params(got)
				_, wx := params(tk.gGen)
				for p := range gx {
					for i := range gx[p] {
						if d := math.Abs(gx[p][i] - wx[p][i]); d > tol*float64(K) {
							t.Fatalf("%v step %d chunk %d: gradient %s[%d] = %.9g with the chains' σ, %.9g summed from W", c.sizes, step, ci, gn[p], i, gx[p][i], wx[p][i])
						}
					}
				}
			}
		}
	}
}
