//go:build !amd64 || purego

package gemm

var useAVX2 = false

func kern4x8(k int, a []float64, lda int, b []float64, ldb int, t *[32]float64) {
	kernGeneric(4, 8, k, a, lda, b, ldb, t)
}
