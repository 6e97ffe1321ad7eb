package sbn

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/logz-ml/logz/internal/kernel"
)

// loadLanes puts the joint state h into lane k of c and random states
// (random x too) into the other active lanes, then refreshes them.
func loadLanes[F kernel.Float](c *gibbsChains[F], n *Net, g *gibbsTables, h [][]float64, k, active int, rng *rand.Rand) {
	r := n.States()
	for q := range active {
		if q == k {
			c.load(q, h)
			continue
		}
		randomState(r, rng)
		c.load(q, r)
	}
	c.refresh(active, g)
}

// laneState copies lane k's states (every layer) into h.
func laneState[F kernel.Float](c *gibbsChains[F], k int, h [][]float64) {
	for l := range h {
		for i := range h[l] {
			h[l][i] = float64(c.h[l][c.idx(l, k, i)])
		}
	}
}

// bruteLogOdds is log p(x, h with h_{l,j} = 1) − log p(x, h with h_{l,j} =
// 0) from LogJoint, and the first of the two; h is left as it was.
func bruteLogOdds(n *Net, h [][]float64, l, j int, sc *Scratch) (odds, up float64) {
	old := h[l][j]
	h[l][j] = 1
	up = n.LogJoint(h, 1, sc)
	h[l][j] = 0
	odds = up - n.LogJoint(h, 1, sc)
	h[l][j] = old
	return odds, up
}

// TestGibbsConditional: the lanes' single-site log-odds equal the
// brute-force log p(x, h with h_{l,j} = 1) − log p(x, h with h_{l,j} = 0)
// from LogJoint at every joint state of tiny SBNs and ARSBNs (one and two
// latent layers), in whichever lane the state sits, and after one lane's
// unit flips its incremental activations equal recomputed ones and the
// other lanes are untouched.
func TestGibbsConditional(t *testing.T) {
	rng := rand.New(rand.NewPCG(20, 20))
	for _, c := range tiny {
		for _, scale := range []float64{1.5, 300} { // 300: products leave the safe range, e^{w} overflows
			n := randomNet(c.sizes, c.ar, scale, 21)
			sc := n.NewScratch()
			g := n.newGibbsTables(false)
			g.refresh(n)
			ch := newGibbsChains[float64](n, 10)
			ref := newGibbsChains[float64](n, 10)
			worst := 0.0
			code := 0
			allStates(n, func(h [][]float64) {
				code++
				k := code % 10 // every lane in turn
				for l := 1; l <= n.Layers(); l++ {
					for j := range n.Sizes[l] {
						loadLanes(ch, n, g, h, k, 10, rng)
						ch.logOdds(g, l, j)
						got := ch.lo[k]
						old := h[l][j]
						want, _ := bruteLogOdds(n, h, l, j, sc)
						if d := math.Abs(got - want); d > 1e-9*max(1, math.Abs(want)) {
							t.Fatalf("%s (scale %g): log-odds of h%d[%d] at %s in lane %d = %.12g, brute force %.12g", c.name, scale, l, j, key(h), k, got, want)
						} else {
							worst = max(worst, d)
						}
						// Flip it in lane k only and compare every lane with a fresh refresh.
						for q := range 10 {
							ch.v[q] = float64(ch.h[l][ch.idx(l, q, j)])
						}
						ch.v[k] = 1 - old
						ch.set(g, l, j)
						ch.flush(g)
						st := n.States()
						for q := range 10 {
							laneState(ch, q, st)
							ref.load(q, st)
						}
						ref.refresh(10, g)
						for ll := range ch.s {
							for q := range 10 {
								if math.Abs(ch.sp0[q]-ref.sp0[q]) > 1e-9*max(1, scale) {
									t.Fatalf("%s: after flipping h%d[%d] in lane %d, lane %d has Σ softplus(a_0) = %g, recomputed %g", c.name, l, j, k, q, ch.sp0[q], ref.sp0[q])
								}
								for i := range n.Sizes[ll] {
									o := ch.idx(ll, q, i)
									ca, ra := ch.act(g, ll, q, i), ref.act(g, ll, q, i)
									cs, rs, ct, rt := ch.r0[o], ref.r0[o], 0.0, 0.0 // the visible layer's ρ
									if ll > 0 {
										cs, rs, ct, rt = ch.s[ll][o], ref.s[ll][o], ch.t[ll][o], ref.t[ll][o]
									}
									if math.Abs(ca-ra) > 1e-9*max(1, scale) || !closeOrNaN(cs, rs) && !(ll == 0 && math.Abs(cs-rs) <= 1e-12*rs) || !closeOrNaN(ct, rt) {
										t.Fatalf("%s: after flipping h%d[%d] in lane %d, layer %d unit %d of lane %d has a = %g σ (ρ) = %g, recomputed %g, %g", c.name, l, j, k, ll, i, q, ca, cs, ra, rs)
									}
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
			g := n.newGibbsTables(false)
			g.refresh(n)
			ch := newGibbsChains[float64](n, 6)
			h := n.States()
			for rep := range 5 {
				randomState(h, rng)
				k := rep % 6
				loadLanes(ch, n, g, h, k, 6, rng)
				for l := 1; l <= n.Layers(); l++ {
					for j := range n.Sizes[l] {
						ch.logOdds(g, l, j)
						got := ch.lo[k]
						want, up := bruteLogOdds(n, h, l, j, sc)
						if math.Abs(got-want) > 1e-9*max(1, math.Abs(up)) {
							t.Fatalf("ar %v scale %g: log-odds of h%d[%d] in lane %d = %.12g, brute force %.12g", ar, scale, l, j, k, got, want)
						}
					}
				}
			}
		}
	}
}

// exactPosterior is p(h | x) of every latent state h (by key), enumerated.
func exactPosterior(n *Net, x []float64, sc *Scratch) map[string]float64 {
	post := map[string]float64{}
	var lps []float64
	var keys []string
	allStates(n, func(h [][]float64) {
		for i, v := range x {
			if h[0][i] != v {
				return
			}
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
	return post
}

// checkPosterior reports the states whose frequencies among chains draws
// are more than 5 binomial standard errors from their posterior.
func checkPosterior(t *testing.T, name string, post map[string]float64, counts map[string]int, chains int) {
	t.Helper()
	for k, p := range post {
		got := float64(counts[k]) / float64(chains)
		if se := math.Sqrt(p * (1 - p) / float64(chains)); math.Abs(got-p) > 5*se+1e-9 {
			t.Errorf("%s: state %s drawn with frequency %.4f, posterior %.4f (5σ = %.4f)", name, k, got, p, 5*se)
		}
	}
}

// TestGibbsPosterior: independent chains run in lanes (in both
// precisions), started from the prior and run for 30 sweeps, draw h from
// the exact posterior p(h | x) (enumerated), within 5 binomial standard
// errors per state, on the tiny nets (float64: the autoregressive ones).
func TestGibbsPosterior(t *testing.T) {
	gibbsPosterior[float64](t, 2) // the autoregressive nets (the SBNs are special cases)
	gibbsPosterior[float32](t, 0)
}

func gibbsPosterior[F kernel.Float](t *testing.T, first int) {
	for _, c := range tiny[first:] {
		n := randomNet(c.sizes, c.ar, 1.5, 22)
		sc := n.NewScratch()
		g := n.newGibbsTables(true)
		g.refresh(n)
		const lanes = 16
		lc := newGibbsChains[F](n, lanes)
		x := []float64{1, 0, 1}
		post := exactPosterior(n, x, sc)
		const chains = 20000
		counts := map[string]int{}
		rngs := make([]*rand.Rand, lanes)
		for k := range rngs {
			rngs[k] = rand.New(rand.NewPCG(6, uint64(k)))
		}
		h := n.States()
		for range chains / lanes {
			for k := range lanes {
				copy(h[0], x)
				n.samplePrior(h, rngs[k], sc)
				lc.load(k, h)
			}
			lc.refresh(lanes, g)
			for range 30 {
				lc.sweep(g, rngs)
			}
			for k := range lanes {
				lc.latent(k, h)
				counts[key(h)]++
			}
		}
		checkPosterior(t, c.name+" "+string(kernel.Of[F]()), post, counts, chains)
	}
}

// TestGibbsTaskMatchesOneChain: a float64 Gibbs trainer's dynamics step —
// the minibatch's chains sampled side by side in lanes, gibbsLanes at a
// time, then each chunk's gradient — leaves the same stored chain states
// and signal in every chunk, and the same gradient within 1e−9 (the
// visible σ(a) come from the chains' odds), as the one-chain loop
// (runTaskRef, chunk by chunk) given the same draws, at the first
// dynamics step (prior draws, burn-in), a middle and the last step (the
// signal), persistent or not, with one or two workers, for an SBN, a deep
// SBN and an ARSBN, on a minibatch whose sampling groups and chunks do not
// line up and on a short one.
func TestGibbsTaskMatchesOneChain(t *testing.T) {
	for _, c := range []struct {
		sizes []int
		ar    bool
	}{{[]int{40, 12}, false}, {[]int{40, 9, 5}, false}, {[]int{40, 11}, true}, {[]int{40, 7, 6}, true}} {
		for _, persistent := range []bool{false, true} {
			n := randomNet(c.sizes, c.ar, 1, 40)
			n.Rec = nil
			data := plantedData(n, 30, 41)
			o := DefaultTrainOptions()
			o.Sampler, o.Persistent, o.Steps, o.BurnIn, o.GibbsSweeps, o.Samples, o.Precision = "gibbs", persistent, 4, 3, 2, 3, "float64"
			tr, err := NewTrainer(n, len(data), o)
			if err != nil {
				t.Fatal(err)
			}
			ch, rb := n.newGibbsChain(), tr.newRefBufs()
			tr.gibbs.refresh(n)
			perm := rand.New(rand.NewPCG(3, 3)).Perm(len(data))
			for _, step := range []int{0, 1, 3} {
				for bi, idx := range [][]int{perm[:25], perm[25:]} {
					tr.cur.data, tr.cur.epoch, tr.cur.batch, tr.cur.step = data, 2, 5+bi, step
					var chunks []*trainTask
					for lo := 0; lo < len(idx); lo += chunkSize {
						tk := tr.tasks[len(chunks)]
						tk.rows, tk.pos = idx[lo:min(lo+chunkSize, len(idx))], lo
						chunks = append(chunks, tk)
					}
					tr.active = len(chunks)
					states := func() []uint8 {
						if persistent {
							return tr.persist
						}
						return tr.batchSt
					}
					saved := append([]uint8(nil), states()...)
					seen := append([]uint8(nil), tr.seen...)
					var wantG []*Net
					var wantSig []float64
					for _, tk := range chunks {
						tr.runTaskRef(tk, ch, rb)
						wantG, wantSig = append(wantG, tk.gGen.clone()), append(wantSig, tk.signal)
					}
					wantSt := append([]uint8(nil), states()...)
					for _, workers := range []int{1, 2} {
						copy(states(), saved)
						copy(tr.seen, seen)
						// A dynamics step's two phases, as minibatch runs them.
						tr.next.Store(0)
						work := tr.gibbsSteps(idx, workers)
						if workers == 1 {
							work()
						} else {
							for range workers {
								tr.wg.Go(work)
							}
							tr.wg.Wait()
						}
						for ci, tk := range chunks {
							if math.Abs(tk.signal-wantSig[ci]) > 1e-9*(1+math.Abs(wantSig[ci])) {
								t.Fatalf("%v ar %v step %d: chunk %d signal %v, one chain %v", c.sizes, c.ar, step, ci, tk.signal, wantSig[ci])
							}
							gn, gx := params(tk.gGen)
							_, wx := params(wantG[ci])
							for p := range gx {
								for i := range gx[p] {
									if math.Abs(gx[p][i]-wx[p][i]) > 1e-9*(1+math.Abs(wx[p][i])) {
										t.Fatalf("%v ar %v persistent %v step %d workers %d: chunk %d gradient %s[%d] = %v, one chain %v", c.sizes, c.ar, persistent, step, workers, ci, gn[p], i, gx[p][i], wx[p][i])
									}
								}
							}
						}
						for i, v := range states() {
							if v != wantSt[i] {
								t.Fatalf("%v ar %v persistent %v step %d workers %d: stored state byte %d = %d, one chain %d", c.sizes, c.ar, persistent, step, workers, i, v, wantSt[i])
							}
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
