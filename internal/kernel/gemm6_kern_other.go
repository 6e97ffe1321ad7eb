//go:build !amd64 || purego

package kernel

// Without the assembly GemmCols6 is GemmCols (gemmAVX2 is false).
func kern6x8Set(k int, a []float64, lda int, b []float64, ldb int, c []float64, ldc int) {
	panic("kernel: kern6x8Set without AVX2")
}
