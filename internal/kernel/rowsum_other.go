//go:build !amd64 || purego

package kernel

var rowsumAVX2 = false

func kern64(sub bool, dst, w []float64, stride int, idx []int32) int { return 0 }
func kern32(sub bool, dst, w []float32, stride int, idx []int32) int { return 0 }
