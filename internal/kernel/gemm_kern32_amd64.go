//go:build amd64 && !purego

package kernel

// kern4x16AVX2 is kernGeneric32(4, 16, …) with AVX2 and FMA: eight 8-lane
// accumulators, one broadcast of a_{rp} per row and two loads of b_p per p.
//
//go:noescape
func kern4x16AVX2(k int, a *float32, lda int, b *float32, ldb int, t *[64]float32)

func kern4x16(k int, a []float32, lda int, b []float32, ldb int, t *[64]float32) {
	if !gemmAVX2 || k == 0 {
		kernGeneric32(4, 16, k, a, lda, b, ldb, t)
		return
	}
	_ = a[3*lda+k-1]
	_ = b[(k-1)*ldb+15]
	kern4x16AVX2(k, &a[0], lda, &b[0], ldb, t)
}
