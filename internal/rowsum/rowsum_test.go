package rowsum

import (
	"math/rand/v2"
	"testing"
)

func TestAgainstPlainSums(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const rows, n = 11, 7
	w := make([]float64, rows*n)
	for i := range w {
		w[i] = rng.NormFloat64()
	}
	for _, idx := range [][]int32{nil, {3}, {0, 5, 2}, {1, 2, 3, 4}, {10, 0, 7, 7, 2, 9}} {
		dst := make([]float64, n)
		want := make([]float64, n)
		for j := range dst {
			dst[j] = float64(j)
			want[j] = float64(j)
		}
		AddRows(dst, w, idx)
		for _, r := range idx {
			for j := range want {
				want[j] += w[int(r)*n+j]
			}
		}
		for j := range dst {
			if d := dst[j] - want[j]; d > 1e-12 || d < -1e-12 {
				t.Fatalf("AddRows %v: dst[%d] = %v, want %v", idx, j, dst[j], want[j])
			}
		}
		SubRows(dst, w, idx)
		for j := range dst {
			if d := dst[j] - float64(j); d > 1e-12 || d < -1e-12 {
				t.Fatalf("SubRows %v did not undo AddRows: dst[%d] = %v", idx, j, dst[j])
			}
		}
	}
}
