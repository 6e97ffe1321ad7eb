package kernel

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkForward sums, for 50 binary states of 200 units (half on), the
// rows of a 200 × 784 matrix they select (the activations of a trainer
// chunk's kept Gibbs states), with the matrix rows 784 apart and padded.
func BenchmarkForward(b *testing.B) {
	for _, ldw := range []int{784, 792} {
		b.Run(fmt.Sprint("ldw=", ldw), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 2))
			const M, rows, n = 50, 200, 784
			w := make([]float64, rows*ldw)
			for i := range w {
				w[i] = rng.NormFloat64()
			}
			dst := make([]float64, M*n)
			var idx, span []int32
			for range M {
				span = append(span, int32(len(idx)))
				for j := range rows {
					if rng.IntN(2) == 0 {
						idx = append(idx, int32(j))
					}
				}
				span = append(span, int32(len(idx)))
			}
			b.ReportAllocs()
			for b.Loop() {
				AddSelected(dst, n, w, ldw, n, idx, span)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(idx)*n/4), "ns/vector-add")
		})
	}
}
