package sbn

import (
	"math/rand/v2"
	"testing"
)

// benchNet is a random 784-200 SBN with a recognition net and one example
// drawn from it.
func benchNet(b testing.TB, sizes []int, ar bool) (*Net, estRows) {
	n := randomNet(sizes, ar, 0.1, 51)
	h := n.States()
	n.Sample(h, rand.New(rand.NewPCG(1, 2)), n.NewScratch())
	x := make([]uint8, len(h[0]))
	for i, v := range h[0] {
		x[i] = uint8(v)
	}
	return n, estRows{x}
}

// BenchmarkIS: IS on one example of a 784-200 SBN, 5,000 samples per op.
func BenchmarkIS(b *testing.B) {
	n, x := benchNet(b, []int{784, 200}, false)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := (IS{Samples: 5000, Seed: 1}).LogProb(n, x); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*5000), "ns/sample")
}

// TestISNoAllocs: drawing and scoring proposals allocates nothing once the
// chain's buffers exist.
func TestISNoAllocs(t *testing.T) {
	n, x := benchNet(t, []int{20, 10, 5}, true)
	c := estPrepare(n).newChain()
	c.setVisible(x[0])
	rng := rand.New(rand.NewPCG(1, 1))
	if a := testing.AllocsPerRun(10, func() { c.importance(100, rng) }); a != 0 {
		t.Errorf("%g allocations per 100 samples", a)
	}
}
