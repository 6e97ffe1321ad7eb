//go:build !amd64 || purego

package inference

var useAVX2 = false

func expNegAbsAsm(dst, x []float64, beta float64) int { return 0 }
func sigmoidAsm(p, x []float64) int                   { return 0 }
