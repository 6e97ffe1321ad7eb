package sbn

import (
	"math/rand/v2"
	"testing"

	"github.com/logz-ml/logz/internal/kernel"
)

// sweepSetup makes gibbsLanes Gibbs chains in F (a trainer's sampling task) of an SBN 784-200
// with weights N(0, 0.1²) on MNIST-like rows (15% of the pixels on), in
// lanes and one by one (the reference sampler), in the same states.
func sweepSetup[F kernel.Float]() (*gibbsTables, *gibbsChains[F], []*gibbsChain, []*rand.Rand) {
	n := New([]int{784, 200}, false)
	InitNormal(n, 0.1, 1)
	g := n.newGibbsTables(true)
	g.refresh(n)
	lc := newGibbsChains[F](n, gibbsLanes)
	one := make([]*gibbsChain, gibbsLanes)
	rngs := mnistLikeStates(n, gibbsLanes, func(k int, h [][]float64) {
		lc.load(k, h)
		one[k] = n.newGibbsChain()
		for l := range h {
			copy(one[k].h[l], h[l])
		}
		one[k].refresh()
	})
	lc.refresh(gibbsLanes, g)
	return g, lc, one, rngs
}

// mnistLikeStates passes chains 0 … lanes−1 their states: MNIST-like rows
// (15% of the pixels on) with latent layers drawn from the prior, and
// returns each chain's random stream.
func mnistLikeStates(n *Net, lanes int, load func(k int, h [][]float64)) []*rand.Rand {
	rng := rand.New(rand.NewPCG(1, 1))
	sc := n.NewScratch()
	h := n.States()
	rngs := make([]*rand.Rand, lanes)
	for k := range rngs {
		for i := range h[0] {
			h[0][i] = 0
			if rng.Float64() < 0.15 {
				h[0][i] = 1
			}
		}
		rngs[k] = rand.New(rand.NewPCG(uint64(k), 2))
		n.samplePrior(h, rngs[k], sc)
		load(k, h)
	}
	return rngs
}

// BenchmarkGibbsSweep times one sweep of the float64 chains side by side
// over the 200 latent units (BenchmarkGibbsSweepFloat32: float32);
// BenchmarkGibbsSweepOneChain the same sweeps with the one-chain reference
// sampler, chain after chain.
func BenchmarkGibbsSweep(b *testing.B) { benchSweep[float64](b) }

func BenchmarkGibbsSweepFloat32(b *testing.B) { benchSweep[float32](b) }

func benchSweep[F kernel.Float](b *testing.B) {
	g, lc, _, rngs := sweepSetup[F]()
	lc.sweep(g, rngs)
	b.ReportAllocs()
	for b.Loop() {
		lc.sweep(g, rngs)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/gibbsLanes, "ns/chain")
}

func BenchmarkGibbsSweepOneChain(b *testing.B) {
	g, _, one, rngs := sweepSetup[float64]()
	b.ReportAllocs()
	for b.Loop() {
		for k, c := range one {
			c.sweep(g, rngs[k])
		}
	}
}
