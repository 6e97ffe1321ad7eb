//go:build amd64 && !purego

package kernel

// kern6x8SetAVX2 is kernGeneric(6 rows, 8, …) with AVX2 and FMA, storing
// the tile into c (row stride ldc): twelve 4-lane accumulators, one
// broadcast of a_{rp} per row and two loads of b_p per p.
//
//go:noescape
func kern6x8SetAVX2(k int, a *float64, lda int, b *float64, ldb int, c *float64, ldc int)

// kern6x8Set sets the 6×8 block of C at c (row stride ldc) to the fused
// chains (GemmCols6 calls it only with the assembly available and k > 0).
func kern6x8Set(k int, a []float64, lda int, b []float64, ldb int, c []float64, ldc int) {
	_ = a[5*lda+k-1]
	_ = b[(k-1)*ldb+7]
	_ = c[5*ldc+7]
	kern6x8SetAVX2(k, &a[0], lda, &b[0], ldb, &c[0], ldc)
}
