package kernel

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

// TestRowsumAVX2SameBits compares the assembly pass with the Go loop bit for bit,
// for row lengths with and without a tail of fewer than four entries.
func TestRowsumAVX2SameBits(t *testing.T) {
	if !rowsumAVX2 {
		t.Skip("no AVX2 kernel on this build or CPU")
	}
	defer func() { rowsumAVX2 = true }()
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
			rowsumAVX2 = avx
			d := append([]float64(nil), start...)
			AddRows(d, w, idx)
			SubRows(d, w, idx[3:]) // a pass and three single rows
			got[k] = d
		}
		for j := range got[0] {
			if math.Float64bits(got[0][j]) != math.Float64bits(got[1][j]) {
				t.Fatalf("n=%d: entry %d: Go %v, AVX2 %v", n, j, got[0][j], got[1][j])
			}
		}
	}
}

// TestFloat32AgainstPlainSums checks AddRows32 and SubRows32 against sums
// accumulated one row at a time in float64: the four-row pass rounds each
// partial sum to float32, so they agree to a few float32 ulps of the
// largest magnitude involved, and SubRows32 undoes AddRows32 to the same.
func TestFloat32AgainstPlainSums(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const rows, n = 11, 19 // 19: two 8-lane blocks and a tail of 3
	w := make([]float32, rows*n)
	for i := range w {
		w[i] = float32(rng.NormFloat64())
	}
	for _, idx := range [][]int32{nil, {3}, {0, 5, 2}, {1, 2, 3, 4}, {10, 0, 7, 7, 2, 9}} {
		dst := make([]float32, n)
		want := make([]float64, n)
		scale := make([]float64, n)
		for j := range dst {
			dst[j] = float32(j)
			want[j] = float64(j)
			scale[j] = float64(j)
		}
		AddRows32(dst, w, idx)
		for _, r := range idx {
			for j := range want {
				want[j] += float64(w[int(r)*n+j])
				scale[j] += math.Abs(float64(w[int(r)*n+j]))
			}
		}
		// Each of the ≤ len(idx) additions rounds once: |error| ≤ len(idx)·2⁻²⁴·Σ|terms|.
		for j := range dst {
			if tol := float64(len(idx)+1) * 0x1p-24 * scale[j]; math.Abs(float64(dst[j])-want[j]) > tol {
				t.Fatalf("AddRows32 %v: dst[%d] = %v, want %v ± %g", idx, j, dst[j], want[j], tol)
			}
		}
		SubRows32(dst, w, idx)
		for j := range dst {
			if tol := float64(2*len(idx)+1) * 0x1p-24 * scale[j]; math.Abs(float64(dst[j])-float64(j)) > tol {
				t.Fatalf("SubRows32 %v did not undo AddRows32: dst[%d] = %v", idx, j, dst[j])
			}
		}
	}
}

// TestAVX2SameBits32 is TestRowsumAVX2SameBits for AddRows32 and SubRows32.
func TestAVX2SameBits32(t *testing.T) {
	if !rowsumAVX2 {
		t.Skip("no AVX2 kernel on this build or CPU")
	}
	defer func() { rowsumAVX2 = true }()
	rng := rand.New(rand.NewPCG(7, 8))
	for _, n := range []int{1, 7, 8, 13, 64, 501} {
		const rows = 13
		w := make([]float32, rows*n)
		for i := range w {
			w[i] = float32(rng.NormFloat64() * math.Exp(4*rng.NormFloat64()))
		}
		idx := []int32{3, 0, 12, 7, 7, 1, 9, 5, 2, 11}
		start := make([]float32, n)
		for j := range start {
			start[j] = float32(rng.NormFloat64())
		}
		var got [2][]float32
		for k, avx := range []bool{false, true} {
			rowsumAVX2 = avx
			d := append([]float32(nil), start...)
			AddRows32(d, w, idx)
			SubRows32(d, w, idx[3:])
			got[k] = d
		}
		for j := range got[0] {
			if math.Float32bits(got[0][j]) != math.Float32bits(got[1][j]) {
				t.Fatalf("n=%d: entry %d: Go %v, AVX2 %v", n, j, got[0][j], got[1][j])
			}
		}
	}
}

// benchRows times the sum of 100 of the 784 rows of a 784×500 matrix (one
// example's hidden pre-activation on MNIST-like data).
func benchRows[F float32 | float64](b *testing.B, add func(dst, w []F, idx []int32)) {
	const D, H = 784, 500
	w := make([]F, D*H)
	for i := range w {
		w[i] = F(i%7) - 3
	}
	idx := make([]int32, 100)
	for k := range idx {
		idx[k] = int32(k * 7)
	}
	dst := make([]F, H)
	b.ReportAllocs()
	for b.Loop() {
		add(dst, w, idx)
	}
}

func BenchmarkAddRows100of784x500(b *testing.B) {
	b.Run("float64", func(b *testing.B) { benchRows(b, AddRows) })
	b.Run("float32", func(b *testing.B) { benchRows(b, AddRows32) })
}

// TestRowOutOfRange: a row index outside w panics (as indexing does)
// instead of the assembly reading past w.
func TestRowOutOfRange(t *testing.T) {
	for _, idx := range [][]int32{{0, 1, 2, 3}, {0, 1, 2, 3, 1}} {
		for _, bad := range []int32{3, -1} {
			idx := append([]int32(nil), idx...)
			idx[len(idx)-1] = bad
			func() {
				defer func() {
					if recover() == nil {
						t.Errorf("rows %v of a 3-row matrix: no panic", idx)
					}
				}()
				AddRows32(make([]float32, 8), make([]float32, 24), idx)
			}()
		}
	}
}

// TestStride32: AddRowsStride32 on a block of columns [c0, c0+n) of a
// wider matrix equals AddRows32 on the block copied out (the same
// additions, so the same bits), with and without AVX2, for blocks with
// and without a tail; a row whose block would end past w panics.
func TestStride32(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	const rows, stride = 13, 37
	w := make([]float32, rows*stride)
	for i := range w {
		w[i] = float32(rng.NormFloat64() * math.Exp(3*rng.NormFloat64()))
	}
	idx := []int32{3, 0, 12, 7, 7, 1, 9, 5, 2, 11}
	defer func(u bool) { rowsumAVX2 = u }(rowsumAVX2)
	for _, avx := range []bool{false, rowsumAVX2} {
		rowsumAVX2 = avx
		for _, b := range [][2]int{{0, 37}, {0, 16}, {5, 8}, {8, 21}, {29, 8}, {36, 1}} {
			c0, n := b[0], b[1]
			block := make([]float32, rows*n)
			for r := range rows {
				copy(block[r*n:(r+1)*n], w[r*stride+c0:])
			}
			want, got := make([]float32, n), make([]float32, n)
			for j := range want {
				want[j] = float32(j)
				got[j] = float32(j)
			}
			AddRows32(want, block, idx)
			AddRowsStride32(got, w[c0:], stride, idx)
			for j := range want {
				if math.Float32bits(got[j]) != math.Float32bits(want[j]) {
					t.Fatalf("avx %v, columns [%d,%d): entry %d: %v, want %v", avx, c0, c0+n, j, got[j], want[j])
				}
			}
		}
	}
	for _, c := range []struct {
		c0, n int
		row   int32
	}{{30, 8, 12}, {0, 8, 13}, {0, 8, -1}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("columns [%d,%d) of row %d: no panic", c.c0, c.c0+c.n, c.row)
				}
			}()
			AddRowsStride32(make([]float32, c.n), w[c.c0:], stride, []int32{0, 1, 2, c.row})
		}()
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Error("stride below the row length: no panic")
			}
		}()
		AddRowsStride32(make([]float32, 9), w, 8, []int32{0})
	}()
}
