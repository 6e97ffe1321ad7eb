// Package gemm computes dense products C ← α·A·B (or C + α·A·B) of
// row-major float64 matrices for the trainers' real-valued (mean-field)
// states, where products with binary states (package rowsum) do not apply.
//
// Every entry is the same fused multiply–add chain, whatever the path:
//
//	s_ij = fma(a_{i,k−1}, b_{k−1,j}, … fma(a_{i1}, b_{1j}, fma(a_{i0}, b_{0j}, 0)))
//	C_ij = α·s_ij  (GemmSet)   or   C_ij + α·s_ij  (GemmAdd),
//
// so results are bit-identical between the AVX2/FMA kernel (amd64, chosen at
// run time) and the portable Go kernel (math.FMA), and independent of how
// the columns are split among goroutines. The kernel holds a 4×8 tile of C
// in registers while p runs over the inner dimension; the caller's column
// blocks keep an 8-column strip of B in cache across all row tiles.
// GemmCols32 is the same in float32 (4×16 tiles, each fused multiply–add
// rounded once to float32, which the portable kernel emulates exactly), for
// the VAE trainer's batched layers.
package kernel

import "math"

// GemmOp says how the product is written into C.
type GemmOp int

const (
	// GemmSet writes C = α·A·B.
	GemmSet GemmOp = iota
	// GemmAdd writes C = C + α·A·B.
	GemmAdd
)

// GemmCols computes columns j0…j1−1 of C op α·A·B for A m×k (row stride lda),
// B k×n (ldb) and C m×n (ldc), all row-major. Disjoint column ranges may be
// computed concurrently. It does not allocate.
func GemmCols(op GemmOp, alpha float64, m, j0, j1, k int, a []float64, lda int, b []float64, ldb int, c []float64, ldc int) {
	var tile [32]float64
	cols(op, alpha, m, j0, j1, k, a, lda, b, ldb, c, ldc, tile[:], 8,
		func(a []float64, b []float64) { kern4x8(k, a, lda, b, ldb, &tile) },
		func(mr, nr int, a []float64, b []float64) { kernGeneric(mr, nr, k, a, lda, b, ldb, &tile) })
}

// cols is the loop of GemmCols and GemmCols32: strips of w columns, each in tiles
// of 4 rows by the full kernel (4×w), the edges by the generic one (mr×nr),
// both writing tile (row stride w).
func cols[F float32 | float64](op GemmOp, alpha F, m, j0, j1, k int, a []F, lda int, b []F, ldb int, c []F, ldc int,
	tile []F, w int, full func(a, b []F), edge func(mr, nr int, a, b []F)) {
	if m == 0 || j1 <= j0 {
		return
	}
	_ = a[(m-1)*lda+k-1]
	_ = b[(k-1)*ldb+j1-1]
	_ = c[(m-1)*ldc+j1-1]
	j := j0
	for ; j+w <= j1; j += w {
		i := 0
		for ; i+4 <= m; i += 4 {
			full(a[i*lda:], b[j:])
			store(op, alpha, tile, w, 4, w, c[i*ldc+j:], ldc)
		}
		if i < m {
			edge(m-i, w, a[i*lda:], b[j:])
			store(op, alpha, tile, w, m-i, w, c[i*ldc+j:], ldc)
		}
	}
	if j < j1 {
		nr := j1 - j
		for i := 0; i < m; i += 4 {
			mr := min(4, m-i)
			edge(mr, nr, a[i*lda:], b[j:])
			store(op, alpha, tile, w, mr, nr, c[i*ldc+j:], ldc)
		}
	}
}

// store writes the mr×nr tile t (row stride ts) into c; α·s is rounded
// before the addition (the conversion forbids fusing them).
func store[F float32 | float64](op GemmOp, alpha F, t []F, ts, mr, nr int, c []F, ldc int) {
	for r := range mr {
		tr, cr := t[r*ts:r*ts+nr], c[r*ldc:r*ldc+nr]
		if op == GemmSet {
			for q, s := range tr {
				cr[q] = alpha * s
			}
		} else {
			for q, s := range tr {
				cr[q] += F(alpha * s)
			}
		}
	}
}

// kernGeneric sets the mr×nr tile t (mr ≤ 4, nr ≤ 8; row stride 8) to the
// fused chains s_ij of the package comment, in portable Go.
func kernGeneric(mr, nr, k int, a []float64, lda int, b []float64, ldb int, t *[32]float64) {
	*t = [32]float64{}
	for p := range k {
		bp := b[p*ldb : p*ldb+nr]
		for r := range mr {
			x := a[r*lda+p]
			tr := t[r*8 : r*8+nr]
			for q, y := range bp {
				tr[q] = math.FMA(x, y, tr[q])
			}
		}
	}
}

// kern4x4 sets columns c0…c0+3 of the 4-row tile t (row stride 8) to the
// fused chains of the package comment for the 4×4 block of C at a, b, with
// the sixteen sums in local variables (registers) rather than in t: the
// portable kernel's fast path, on every platform without the assembly
// kernel. Each entry is still one fma chain over p in order, so the bits are
// those of kernGeneric.
func kern4x4(k int, a []float64, lda int, b []float64, ldb int, t *[32]float64, c0 int) {
	var s00, s01, s02, s03, s10, s11, s12, s13 float64
	var s20, s21, s22, s23, s30, s31, s32, s33 float64
	a0, a1, a2, a3 := a[:k], a[lda:lda+k], a[2*lda:2*lda+k], a[3*lda:3*lda+k]
	for p := range k {
		bp := b[p*ldb : p*ldb+4]
		b0, b1, b2, b3 := bp[0], bp[1], bp[2], bp[3]
		x := a0[p]
		s00, s01, s02, s03 = math.FMA(x, b0, s00), math.FMA(x, b1, s01), math.FMA(x, b2, s02), math.FMA(x, b3, s03)
		x = a1[p]
		s10, s11, s12, s13 = math.FMA(x, b0, s10), math.FMA(x, b1, s11), math.FMA(x, b2, s12), math.FMA(x, b3, s13)
		x = a2[p]
		s20, s21, s22, s23 = math.FMA(x, b0, s20), math.FMA(x, b1, s21), math.FMA(x, b2, s22), math.FMA(x, b3, s23)
		x = a3[p]
		s30, s31, s32, s33 = math.FMA(x, b0, s30), math.FMA(x, b1, s31), math.FMA(x, b2, s32), math.FMA(x, b3, s33)
	}
	t[c0], t[c0+1], t[c0+2], t[c0+3] = s00, s01, s02, s03
	t[8+c0], t[8+c0+1], t[8+c0+2], t[8+c0+3] = s10, s11, s12, s13
	t[16+c0], t[16+c0+1], t[16+c0+2], t[16+c0+3] = s20, s21, s22, s23
	t[24+c0], t[24+c0+1], t[24+c0+2], t[24+c0+3] = s30, s31, s32, s33
}
