package kernel

import (
	"testing"
)

// TestTranspose checks every entry, and that nothing outside the block is
// written, for blocks with and without whole tiles and edges, strided
// inside larger matrices, with and without the assembly.
func TestTranspose(t *testing.T) {
	for _, avx := range []bool{false, true} {
		old := transposeAVX2
		transposeAVX2 = avx && old
		for _, s := range [][2]int{{1, 1}, {3, 5}, {4, 4}, {8, 8}, {16, 500}, {17, 13}, {9, 31}} {
			r, c := s[0], s[1]
			lds, ldd := c+3, r+5
			src32, src64 := make([]float32, r*lds), make([]float64, r*lds)
			for i := range src32 {
				src32[i], src64[i] = float32(i+1), float64(i+1)
			}
			dst32, dst64 := make([]float32, c*ldd), make([]float64, c*ldd)
			Transpose32(dst32, ldd, src32, lds, r, c)
			Transpose64(dst64, ldd, src64, lds, r, c)
			for j := range c {
				for i := range ldd {
					want := float64(0)
					if i < r {
						want = float64(i*lds + j + 1)
					}
					if float64(dst32[j*ldd+i]) != want || dst64[j*ldd+i] != want {
						t.Fatalf("avx=%v %d×%d: dst[%d][%d] = %v, %v, want %v", avx, r, c, j, i, dst32[j*ldd+i], dst64[j*ldd+i], want)
					}
				}
			}
		}
		transposeAVX2 = old
	}
}

// TestTransposeOutside: a block that does not fit panics.
func TestTransposeOutside(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("no panic")
		}
	}()
	Transpose32(make([]float32, 64), 8, make([]float32, 63), 8, 8, 8)
}

func BenchmarkTranspose16x500(b *testing.B) {
	src, dst := make([]float32, 16*500), make([]float32, 500*784)
	b.ReportAllocs()
	for b.Loop() {
		Transpose32(dst, 784, src, 500, 16, 500)
	}
}
