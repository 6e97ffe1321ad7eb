//go:build !amd64 || purego

package kernel

// Without the assembly GemmCols32x6 is GemmCols32 (gemmAVX2 is false).
func kern6x16Set(k int, a []float32, lda int, b []float32, ldb int, c []float32, ldc int) {
	panic("kernel: kern6x16Set without AVX2")
}
