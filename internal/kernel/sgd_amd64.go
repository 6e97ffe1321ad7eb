//go:build amd64 && !purego

package kernel

import "golang.org/x/sys/cpu"

// sgdAVX2 selects the assembly kernels; the tests switch it off to compare.
var sgdAVX2 = cpu.X86.HasAVX2

// stepAVX2 applies the step to the first n entries (n a positive multiple
// of 4) and writes the four lanes' sums of the new w to acc[0:4] and their
// largest |w| to acc[4:8]; with w32 non-nil it also stores w rounded to
// float32 there and reads grad32 (float32) instead of grad.
//
//go:noescape
func stepAVX2(w, vel, grad *float64, grad32, w32 *float32, n int, p *[4]float64, acc *[8]float64)

// step64 runs the kernel on the leading multiple of 4 entries and returns
// how many it did, the sum of the new w over them and its largest |w|.
func step64(w, vel, g []float64, mom, lr, c, wd float64) (int, float64, float64) {
	n := len(w) &^ 3
	if !sgdAVX2 || n == 0 {
		return 0, 0, 0
	}
	var acc [8]float64
	stepAVX2(&w[0], &vel[0], &g[0], nil, nil, n, &[4]float64{mom, lr, c, wd}, &acc)
	return n, (acc[0] + acc[1]) + (acc[2] + acc[3]), max(acc[4], acc[5], acc[6], acc[7])
}

// step32 is step64 with a float32 gradient and the float32 copy of w.
func step32(w, vel []float64, g, w32 []float32, mom, lr, c, wd float64) (int, float64, float64) {
	n := len(w) &^ 3
	if !sgdAVX2 || n == 0 {
		return 0, 0, 0
	}
	var acc [8]float64
	stepAVX2(&w[0], &vel[0], nil, &g[0], &w32[0], n, &[4]float64{mom, lr, c, wd}, &acc)
	return n, (acc[0] + acc[1]) + (acc[2] + acc[3]), max(acc[4], acc[5], acc[6], acc[7])
}
