// Package sgd applies the momentum SGD step with L2 weight decay to a row
// of parameters w with velocities Δ and gradient c·g,
//
//	Δ_j ← μΔ_j + ε(c·g_j − λw_j),  w_j ← w_j + Δ_j,
//
// for the RBM trainer's update. The gradient is float64 (SGDStep) or float32
// (SGDStep32, which also writes w rounded to float32 for the trainer's float32
// copy). On amd64 with AVX2 four entries go at a time in assembly with the
// operations of the Go loop in the same order and no fused multiply-add, so
// w and Δ are the same bits (build tag purego: Go only).
package kernel

import "math"

// SGDStep applies the step to w and vel with gradient c·g (len(g) = len(w) =
// len(vel)) and returns max_j |w_j| after it and whether every w_j is
// finite. The check sums w: a NaN or ±Inf entry makes the sum non-finite;
// a sum that overflows with finite entries is reported as not finite too,
// which callers resolve by an exact check.
func SGDStep(w, vel, g []float64, mom, lr, c, wd float64) (big float64, finite bool) {
	vel, g = vel[:len(w)], g[:len(w)]
	j, s, big := step64(w, vel, g, mom, lr, c, wd)
	for ; j < len(w); j++ {
		x := w[j]
		u := mom*vel[j] + lr*(c*g[j]-wd*x)
		vel[j] = u
		y := x + u
		w[j] = y
		s += y
		big = max(big, math.Abs(y))
	}
	return big, !math.IsNaN(s) && !math.IsInf(s, 0)
}

// SGDStep32 is SGDStep with a float32 gradient g; it also sets w32_j = w_j
// rounded to float32.
func SGDStep32(w, vel []float64, g, w32 []float32, mom, lr, c, wd float64) (big float64, finite bool) {
	vel, g, w32 = vel[:len(w)], g[:len(w)], w32[:len(w)]
	j, s, big := step32(w, vel, g, w32, mom, lr, c, wd)
	for ; j < len(w); j++ {
		x := w[j]
		u := mom*vel[j] + lr*(c*float64(g[j])-wd*x)
		vel[j] = u
		y := x + u
		w[j] = y
		w32[j] = float32(y)
		s += y
		big = max(big, math.Abs(y))
	}
	return big, !math.IsNaN(s) && !math.IsInf(s, 0)
}
