package sbn

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkGibbsSweep times one sweep of ten Gibbs chains side by side
// (a trainer's chunk) over the 200 latent units of an SBN 784-200 with
// weights N(0, 0.1²) on MNIST-like rows (15% of the pixels on).
func BenchmarkGibbsSweep(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	n := New([]int{784, 200}, false)
	InitNormal(n, 0.1, 1)
	g := n.newGibbsTables(true)
	g.refresh(n, true)
	lc := n.newLaneChains(10)
	sc := n.NewScratch()
	h := n.States()
	rngs := make([]*rand.Rand, 10)
	for k := range rngs {
		for i := range h[0] {
			h[0][i] = 0
			if rng.Float64() < 0.15 {
				h[0][i] = 1
			}
		}
		rngs[k] = rand.New(rand.NewPCG(uint64(k), 2))
		n.samplePrior(h, rngs[k], sc)
		lc.load(k, h)
	}
	lc.refresh(10, g)
	lc.sweep(g, rngs)
	b.ReportAllocs()
	for b.Loop() {
		lc.sweep(g, rngs)
	}
}
