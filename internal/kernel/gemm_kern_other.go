//go:build !amd64 || purego

package kernel

var gemmAVX2 = false

func kern4x8(k int, a []float64, lda int, b []float64, ldb int, t *[32]float64) {
	kern4x4(k, a, lda, b, ldb, t, 0)
	kern4x4(k, a, lda, b[4:], ldb, t, 4)
}
