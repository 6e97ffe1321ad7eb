package models

import (
	"fmt"
	"math"
)

// Limits on models, checked before anything is allocated (sizes) and by
// every Validate (values).
const (
	// MaxParams bounds the parameters of a model: 2^27 = 134,217,728, 1 GiB
	// of float64 per copy (training keeps several: gradients, momentum).
	// The largest models of the papers have 1.4 million (DBN 784-500-2000);
	// a model too large for this limit is a typo (hidden: 2000000000), and
	// the limit matches npyx.MaxElements, so every model fits in a file.
	MaxParams = 1 << 27
	// MaxUnits bounds the units of one layer: 2^20 = 1,048,576.
	MaxUnits = 1 << 20
	// MaxAbsParam bounds the magnitude of every weight and bias. Trained
	// models stay far below (|W| of a few units, base-rate biases about
	// ±12); sigmoids and softplus are saturated beyond |x| ≈ 40, so a
	// parameter of 10^4 already means p = 0 or 1 exactly. Beyond it the
	// energies, sums of up to MaxParams such terms, first lose every digit
	// of the log-likelihood and then overflow to ±Inf, and the estimators
	// print NaN or 300-digit numbers; a file with such values is corrupt or
	// comes from a diverged run.
	MaxAbsParam = 1e4
	// MaxLayers bounds the layers of a layered model (the largest layer
	// index an array of a model file may name), far above the papers' 3:
	// a file naming layer 10^11 is corrupt, and is refused before
	// anything is allocated for its layers.
	MaxLayers = 100
)

// CheckLayerIndex reports layer index l of array name of a model file of
// the given type above MaxLayers.
func CheckLayerIndex(typ, name string, l int) error {
	if l > MaxLayers {
		return fmt.Errorf("%s: array %s names layer %d; a model has at most %d layers (models.MaxLayers)", typ, name, l, MaxLayers)
	}
	return nil
}

// CheckSizes reports layer sizes [n_0 = D, n_1, …] of a model of the given
// type that are not positive, exceed MaxUnits, or make more than MaxParams
// parameters (weights between adjacent layers plus one bias per unit),
// without overflowing.
func CheckSizes(typ string, sizes []int) error {
	for l, n := range sizes {
		if n <= 0 {
			return fmt.Errorf("%s: layer %d has size %d; sizes must be positive", typ, l, n)
		}
		if n > MaxUnits {
			return fmt.Errorf("%s %s: layer %d has %d units; the limit is %d (models.MaxUnits)", typ, joinSizes(sizes), l, n, MaxUnits)
		}
	}
	// Every size is at most 2^20 now, so no product overflows.
	total := 0
	for l, n := range sizes {
		total += n
		if l+1 < len(sizes) {
			total += n * sizes[l+1]
		}
		if total > MaxParams {
			return fmt.Errorf("%s %s has %s parameters; the limit is %d (models.MaxParams, 1 GiB of float64)", typ, joinSizes(sizes), countParams(sizes), MaxParams)
		}
	}
	return nil
}

// countParams returns the parameter count of a layered model as a decimal
// string (as a float when it would overflow an int64).
func countParams(sizes []int) string {
	n := 0.0
	for l, s := range sizes {
		n += float64(s)
		if l+1 < len(sizes) {
			n += float64(s) * float64(sizes[l+1])
		}
	}
	if n < 1<<62 {
		return fmt.Sprintf("%d", int64(n))
	}
	return fmt.Sprintf("%.3g", n)
}

// checkValues reports the first parameter of xs (named name; a matrix with
// cols columns, a vector if cols is 0) that is NaN, ±Inf or larger in
// magnitude than MaxAbsParam, with its multi-index: "W2[3,7] is NaN".
func checkValues(name string, xs []float64, cols int) error {
	for k, x := range xs {
		if !math.IsNaN(x) && math.Abs(x) <= MaxAbsParam {
			continue
		}
		at := fmt.Sprintf("%s[%d]", name, k)
		if cols > 0 {
			at = fmt.Sprintf("%s[%d,%d]", name, k/cols, k%cols)
		}
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Errorf("%s is %v (not finite); parameters must be finite", at, x)
		}
		return fmt.Errorf("%s is %.6g; parameters must lie in [-%g, %g] (models.MaxAbsParam: larger values saturate every unit and make the energies lose all precision or overflow)", at, x, MaxAbsParam, MaxAbsParam)
	}
	return nil
}

// CheckValues is the parameter check of the built-in types for other
// model packages: the first value of xs (a matrix with cols columns, a
// vector if cols is 0) that is not finite or exceeds MaxAbsParam, named
// with its multi-index.
func CheckValues(name string, xs []float64, cols int) error { return checkValues(name, xs, cols) }
