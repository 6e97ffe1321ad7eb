//go:build !amd64 || purego

package kernel

var transposeAVX2 = false

func tiles32(dst []float32, ldd int, src []float32, lds, r, c int) (int, int) { return 0, 0 }
func tiles64(dst []float64, ldd int, src []float64, lds, r, c int) (int, int) { return 0, 0 }
