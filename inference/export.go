package inference

// ExpNegAbs sets dst[j] = e^{−β|x[j]|} for β ≥ 0 with the fast exp of the
// annealing chains (see expNegAbs: relative error below 1e-15, arguments
// below −708 clamped). The trainers share it to compute a sigmoid with one
// exp per pre-activation.
func ExpNegAbs(dst, x []float64, beta float64) { expNegAbs(dst, x, beta) }

// Sigmoids sets p_j = σ(x_j) (p may alias x) with one exp per element,
// e^{−|x|} as in ExpNegAbs: 1/(1+e) for x ≥ 0, e/(1+e) for x < 0.
func Sigmoids(p, x []float64) { sigmoids(p, x) }
