package kernel

// GemmCols32x6 is GemmCols32 (the same bits: every entry the same float32
// fused chain over p in order) computed in tiles of 6×16 where the rows
// allow: twelve accumulators instead of eight hide more of the fused
// multiply–add latency and load each 16-column strip of B a third fewer
// times, for the VAE trainer's batched layers (100 rows, or 16 per
// gradient job). The leftover rows and a partial last strip go to
// GemmCols32's kernels (a remainder of 1 or 3 rows to its portable edge
// kernel, which emulates each float32 fma: slow). Disjoint column ranges
// may be computed concurrently. It does not allocate.
func GemmCols32x6(op GemmOp, alpha float32, m, j0, j1, k int, a []float32, lda int, b []float32, ldb int, c []float32, ldc int) {
	if m == 0 || j1 <= j0 {
		return
	}
	if !gemmAVX2 || k == 0 || m < 6 {
		GemmCols32(op, alpha, m, j0, j1, k, a, lda, b, ldb, c, ldc)
		return
	}
	_ = a[(m-1)*lda+k-1]
	_ = b[(k-1)*ldb+j1-1]
	_ = c[(m-1)*ldc+j1-1]
	var tile [96]float32
	// The rows in 6-row tiles; the rest goes to GemmCols32 in 4-row tiles,
	// so a remainder of 2 takes 8 rows there (4+4) rather than leaving 2
	// rows to its portable edge kernel.
	m6 := m - m%6
	if m%6 == 2 && m >= 8 {
		m6 -= 6
	}
	j := j0
	for ; j+16 <= j1; j += 16 {
		for i := 0; i < m6; i += 6 {
			if op == GemmSet && alpha == 1 { // α·s = s: the kernel writes C
				kern6x16Set(k, a[i*lda:], lda, b[j:], ldb, c[i*ldc+j:], ldc)
				continue
			}
			kern6x16Set(k, a[i*lda:], lda, b[j:], ldb, tile[:], 16)
			store(op, alpha, tile[:], 16, 6, 16, c[i*ldc+j:], ldc)
		}
	}
	if m6 < m {
		GemmCols32(op, alpha, m-m6, j0, j, k, a[m6*lda:], lda, b, ldb, c[m6*ldc:], ldc)
	}
	if j < j1 {
		GemmCols32(op, alpha, m, j, j1, k, a, lda, b, ldb, c, ldc)
	}
}
