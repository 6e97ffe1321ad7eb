//go:build !amd64 || purego

package kernel

var sgdAVX2 = false

func step64(w, vel, g []float64, mom, lr, c, wd float64) (int, float64, float64) { return 0, 0, 0 }

func step32(w, vel []float64, g, w32 []float32, mom, lr, c, wd float64) (int, float64, float64) {
	return 0, 0, 0
}
