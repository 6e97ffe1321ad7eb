//go:build !amd64 || purego

package kernel

var widen32AVX2 = false

func widen32(dst []float64, src []float32, a float64) int { return 0 }
