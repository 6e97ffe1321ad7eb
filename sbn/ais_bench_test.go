package sbn

import (
	"math/rand/v2"
	"testing"

	"github.com/logz-ml/logz/internal/seeds"
)

// BenchmarkAIS: AIS on one example of a 784-200 SBN, 16 chains (one group) × 20 β per
// op (ns per chain per β reported).
func BenchmarkAIS(b *testing.B) {
	n, x := benchNet(b, []int{784, 200}, false)
	b.ReportAllocs()
	const chains, betas = 16, 20
	for b.Loop() {
		if _, err := (AIS{Chains: chains, Betas: betas, Seed: 1}).LogProb(n, x); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*chains*betas), "ns/chain-step")
}

// TestAISNoAllocs: annealing (weights and Gibbs sweeps; one chain and in
// lanes) and completion sweeps allocate nothing once the buffers exist.
func TestAISNoAllocs(t *testing.T) {
	n, x := benchNet(t, []int{20, 10, 5}, true)
	w := estPrepare(n).newWorker()
	for j, c := range w.cs {
		c.setVisible(x[0])
		c.uniformLatents(w.rngs[j])
	}
	vis := []int{15, 16, 17}
	if a := testing.AllocsPerRun(2, func() {
		anneal(w.cs, w.rngs, 50, 2, false, w.logw)
		anneal(w.cs, w.rngs, 50, 1, true, w.logw)
		w.cs[0].sweep(vis, w.rngs[0])
	}); a != 0 {
		t.Errorf("%g allocations per run", a)
	}
	e := estPrepare(n)
	steps := e.newSteps(50)
	lanes := e.newLanes(7)
	for k := range 7 {
		lanes.c.setVisible(x[0])
		lanes.c.uniformLatents(lanes.rngs[k])
		lanes.c.recompute()
		lanes.load(k)
	}
	if a := testing.AllocsPerRun(2, func() {
		lanes.anneal(7, 50, 2, false, steps)
		lanes.anneal(7, 50, 1, true, steps)
		lanes.anneal(7, 50, 1, true, nil)
	}); a != 0 {
		t.Errorf("lanes: %g allocations per run", a)
	}
}

// BenchmarkAISOneChain: BenchmarkAIS's work by the one-chain reference
// anneal (the 16 chains one after another, sharing a table of e^{βW}), as
// AIS ran before its lanes: the side-by-side baseline.
func BenchmarkAISOneChain(b *testing.B) {
	n, x := benchNet(b, []int{784, 200}, false)
	b.ReportAllocs()
	const chains, betas = 16, 20
	for b.Loop() {
		w := estPrepare(n).newWorker()
		for j, c := range w.cs {
			w.pcgs[j].Seed(seeds.Derive(1, 0, uint64(j)), seeds.Derive(1, 0, uint64(j), 1))
			c.setVisible(x[0])
			c.uniformLatents(w.rngs[j])
		}
		anneal(w.cs, w.rngs, betas, 1, false, w.logw)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*chains*betas), "ns/chain-step")
}

// estGroup is how many chains of one example the reference runs in
// lockstep (as AIS did before its lanes).
const estGroup = 16

// estWorker is the buffers of one goroutine running groups of chains.
type estWorker struct {
	cs   []*estChain
	rngs []*rand.Rand
	pcgs []*rand.PCG
	logw []float64
}

func (e *estNet) newWorker() *estWorker {
	w := &estWorker{cs: e.newGroup(estGroup), logw: make([]float64, estGroup)}
	for range estGroup {
		r, p := estRand()
		w.rngs, w.pcgs = append(w.rngs, r), append(w.pcgs, p)
	}
	return w
}
