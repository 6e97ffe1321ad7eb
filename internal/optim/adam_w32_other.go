//go:build !amd64 || purego

package optim

func adamW32Asm(theta []float64, m, s, g, w []float32, k *[9]float32) (int, float64, bool) {
	return 0, 0, false
}
