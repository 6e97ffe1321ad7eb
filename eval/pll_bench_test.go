package eval

import (
	"math/rand/v2"
	"testing"
)

// pllBenchData is n binary examples of d pixels, each on with probability
// 0.13 (MNIST's base rate), from a fixed stream.
func pllBenchData(n, d int) rowSet {
	rng := rand.New(rand.NewPCG(7, 7))
	x := make(rowSet, n)
	for k := range x {
		x[k] = make([]uint8, d)
		for i := range x[k] {
			if rng.Float64() < 0.13 {
				x[k][i] = 1
			}
		}
	}
	return x
}

// BenchmarkPseudoLogLik is the pseudo-log-likelihood of 200 examples
// under the synthetic 784×25 and 784×500 benchmark models (one op = the
// whole mean, with every worker GOMAXPROCS allows).
func BenchmarkPseudoLogLik(b *testing.B) {
	for _, h := range []int{25, 500} {
		b.Run(map[int]string{25: "784x25", 500: "784x500"}[h], func(b *testing.B) {
			m, x := benchRBM(784, h), pllBenchData(200, 784)
			b.ReportAllocs()
			for b.Loop() {
				PseudoLogLik(m, x)
			}
		})
	}
}
