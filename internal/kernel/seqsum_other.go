//go:build !amd64 || purego

package kernel

var seqsumAVX2 = false

func kern(dst []float64, ld int, w []float64, ldw int, n int, idx []int32, span []int32) int {
	return 0
}
