package rowsum

import (
	"math"
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

// TestAVX2SameBits compares the assembly pass with the Go loop bit for bit,
// for row lengths with and without a tail of fewer than four entries.
func TestAVX2SameBits(t *testing.T) {
	if !useAVX2 {
		t.Skip("no AVX2 kernel on this build or CPU")
	}
	defer func() { useAVX2 = true }()
	rng := rand.New(rand.NewPCG(7, 8))
	for _, n := range []int{1, 4, 7, 64, 501} {
		const rows = 13
		w := make([]float64, rows*n)
		for i := range w {
			w[i] = rng.NormFloat64() * math.Exp(4*rng.NormFloat64())
		}
		idx := []int32{3, 0, 12, 7, 7, 1, 9, 5, 2, 11}
		start := make([]float64, n)
		for j := range start {
			start[j] = rng.NormFloat64()
		}
		var got [2][]float64
		for k, avx := range []bool{false, true} {
			useAVX2 = avx
			d := append([]float64(nil), start...)
			AddRows(d, w, idx)
			SubRows(d, w, idx[2:])
			got[k] = d
		}
		for j := range got[0] {
			if math.Float64bits(got[0][j]) != math.Float64bits(got[1][j]) {
				t.Fatalf("n=%d: entry %d: Go %v, AVX2 %v", n, j, got[0][j], got[1][j])
			}
		}
	}
}
