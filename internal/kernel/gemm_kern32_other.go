//go:build !amd64 || purego

package kernel

func kern4x16(k int, a []float32, lda int, b []float32, ldb int, t *[64]float32) {
	kernGeneric32(4, 16, k, a, lda, b, ldb, t)
}
