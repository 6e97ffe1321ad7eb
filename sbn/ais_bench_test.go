package sbn

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkAIS: AIS on one example of a 784-200 SBN, 2 chains × 100 β per
// op (ns per chain per β reported).
func BenchmarkAIS(b *testing.B) {
	n, x := benchNet(b, []int{784, 200}, false)
	b.ReportAllocs()
	const chains, betas = 2, 100
	for b.Loop() {
		if _, err := (AIS{Chains: chains, Betas: betas, Seed: 1}).LogProb(n, x); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*chains*betas), "ns/chain-step")
}

// TestAISNoAllocs: annealing (weights and Gibbs sweeps) and completion
// sweeps allocate nothing once the chain's buffers exist.
func TestAISNoAllocs(t *testing.T) {
	n, x := benchNet(t, []int{20, 10, 5}, true)
	c := estPrepare(n).newChain()
	c.setVisible(x[0])
	rng := rand.New(rand.NewPCG(1, 1))
	vis := []int{15, 16, 17}
	if a := testing.AllocsPerRun(10, func() {
		c.uniformLatents(rng)
		c.anneal(100, 2, false, rng)
		c.anneal(100, 1, true, rng)
		c.sweep(vis, rng)
	}); a != 0 {
		t.Errorf("%g allocations per run", a)
	}
}
