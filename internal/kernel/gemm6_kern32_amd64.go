//go:build amd64 && !purego

package kernel

// kern6x16SetAVX2 is kernGeneric32(6, 16, …) with AVX2 and FMA, storing
// the tile into c (row stride ldc): twelve 8-lane accumulators, one
// broadcast of a_{rp} per row and two loads of b_p per p.
//
//go:noescape
func kern6x16SetAVX2(k int, a *float32, lda int, b *float32, ldb int, c *float32, ldc int)

// kern6x16Set sets the 6×16 block of C at c (row stride ldc) to the
// fused chains (GemmCols32x6 calls it only with the assembly available
// and k > 0).
func kern6x16Set(k int, a []float32, lda int, b []float32, ldb int, c []float32, ldc int) {
	_ = a[5*lda+k-1]
	_ = b[(k-1)*ldb+15]
	_ = c[5*ldc+15]
	kern6x16SetAVX2(k, &a[0], lda, &b[0], ldb, &c[0], ldc)
}
