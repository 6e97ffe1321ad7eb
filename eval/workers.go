package eval

import "runtime"

// orMaxProcs is the number of goroutines an estimator uses for a Workers
// setting of w: w itself, or GOMAXPROCS when w ≤ 0. No estimator's result
// depends on it.
func orMaxProcs(w int) int {
	if w > 0 {
		return w
	}
	return runtime.GOMAXPROCS(0)
}
