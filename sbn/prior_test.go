package sbn

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/integrate/quad"
)

// TestPriorGradient: −∂ log p_0/∂θ from AddGradU equals the central finite
// difference of LogDensity, for the paper's Student-t and a Gaussian, over
// the range of trained weights; each density integrates to 1.
func TestPriorGradient(t *testing.T) {
	for _, p := range []Prior{{"student-t", 0.09, 2.2}, {"student-t", 1.5, 5}, {"gaussian", 0.3, 0}} {
		if err := p.Check(); err != nil {
			t.Fatal(err)
		}
		for _, x := range []float64{-3, -0.7, -0.09, -0.01, 0, 0.02, 0.0953, 0.3, 1, 4} {
			g := []float64{0.25}
			p.AddGradU([]float64{x}, g)
			const eps = 1e-6
			fd := -(p.LogDensity(x+eps) - p.LogDensity(x-eps)) / (2 * eps)
			if math.Abs(g[0]-0.25-fd) > 1e-6*max(1, math.Abs(fd)) {
				t.Errorf("%+v at θ = %g: −∇ log p_0 = %.9g, finite difference %.9g", p, x, g[0]-0.25, fd)
			}
		}
		z := quad.Fixed(func(x float64) float64 { return math.Exp(p.LogDensity(x)) }, math.Inf(-1), math.Inf(1), 2000, nil, 0)
		if math.Abs(z-1) > 1e-4 {
			t.Errorf("%+v: ∫ p_0 = %g", p, z)
		}
	}
	if err := (Prior{"laplace", 1, 1}).Check(); err == nil {
		t.Error("unknown prior accepted")
	}
}
