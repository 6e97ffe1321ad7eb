//go:build !amd64 || purego

package kernel

var logisticAVX2 = false

func sigmoid32Asm(p, x []float32) int { return 0 }

func logLikAsm(p, a, x []float32, acc *[16]float64) int { return 0 }

func expNegAbs32Asm(dst, x []float32, beta float32) int { return 0 }
