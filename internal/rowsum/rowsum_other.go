//go:build !amd64 || purego

package rowsum

var useAVX2 = false

func pass4(sub bool, dst, r0, r1, r2, r3 []float64) int    { return 0 }
func pass4f32(sub bool, dst, r0, r1, r2, r3 []float32) int { return 0 }
