//go:build amd64 && !purego

package kernel

// kern6x16AVX2 is kernGeneric32(6, 16, …) with AVX2 and FMA (row stride
// 16 in t): twelve 8-lane accumulators, one broadcast of a_{rp} per row
// and two loads of b_p per p.
//
//go:noescape
func kern6x16AVX2(k int, a *float32, lda int, b *float32, ldb int, t *[96]float32)

// kern6x16 sets t to the 6×16 tile's fused chains (GemmCols32x6 calls it
// only with the assembly available and k > 0).
func kern6x16(k int, a []float32, lda int, b []float32, ldb int, t *[96]float32) {
	_ = a[5*lda+k-1]
	_ = b[(k-1)*ldb+15]
	kern6x16AVX2(k, &a[0], lda, &b[0], ldb, t)
}

// kern6x16SetAVX2 is kern6x16AVX2 storing the tile into c (row stride ldc).
//
//go:noescape
func kern6x16SetAVX2(k int, a *float32, lda int, b *float32, ldb int, c *float32, ldc int)

// kern6x16Set sets the 6×16 block of C at c to the tile's fused chains
// (α = 1, GemmSet).
func kern6x16Set(k int, a []float32, lda int, b []float32, ldb int, c []float32, ldc int) {
	_ = a[5*lda+k-1]
	_ = b[(k-1)*ldb+15]
	_ = c[5*ldc+15]
	kern6x16SetAVX2(k, &a[0], lda, &b[0], ldb, &c[0], ldc)
}
