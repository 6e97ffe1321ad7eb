//go:build !amd64 || purego

package optim

func adam32Asm(theta, m, s []float64, g, w []float32, k *[9]float64) (int, float64, bool) {
	return 0, 0, false
}
