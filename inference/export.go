package inference

// ExpNegAbs sets dst[j] = e^{−β|x[j]|} for β ≥ 0 with the fast exp of the
// annealing chains (see expNegAbs: relative error below 1e-15, arguments
// below −708 clamped). The trainers share it to compute a sigmoid with one
// exp per pre-activation.
func ExpNegAbs(dst, x []float64, beta float64) { expNegAbs(dst, x, beta) }
