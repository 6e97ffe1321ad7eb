// Package kernel holds the numeric kernels every engine shares, written once
// for both floating-point precisions, and the precision type that names them.
package kernel

import "fmt"

// Float is the element type of an engine generic over its precision.
type Float interface{ ~float32 | ~float64 }

// Precision names the floating-point type an engine computes in. It is
// recorded in every trainer's checkpoint, so a resumed run computes as the
// uninterrupted one did. The zero value means "not recorded": checkpoints
// written before precision was recorded, whose engine was float64.
type Precision string

const (
	Float32 Precision = "float32"
	Float64 Precision = "float64"
)

// Of is the precision of F.
func Of[F Float]() Precision {
	// 1 + 2⁻³⁰ rounds to 1 in float32's 24-bit significand, not in float64's.
	if F(1)+F(1.0/(1<<30)) == F(1) {
		return Float32
	}
	return Float64
}

// Parse reads a precision as written in a config or a checkpoint; "" is
// the given default.
func Parse(s string, def Precision) (Precision, error) {
	switch Precision(s) {
	case "":
		return def, nil
	case Float32, Float64:
		return Precision(s), nil
	}
	return "", fmt.Errorf("precision %q: expected %s or %s", s, Float32, Float64)
}

// Or is p, or def when p is unset (a checkpoint that predates the field).
func (p Precision) Or(def Precision) Precision {
	if p == "" {
		return def
	}
	return p
}

// Check is the error a resume gets when the checkpoint's precision (got,
// "" read as float64) differs from the trainer's (want): a resumed run
// must compute as the uninterrupted one did.
func Check(what string, got, want Precision) error {
	g, w := got.Or(Float64), want.Or(Float64)
	if g == w {
		return nil
	}
	return fmt.Errorf("%s was trained in %s precision, this trainer runs in %s (a resumed run must compute as the uninterrupted one did: set the precision back to %s, or start a new run)", what, g, w, g)
}
