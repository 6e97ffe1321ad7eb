package optim

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestStepRange: T++ and StepRange over a partition of the entries is Step,
// bit for bit.
func TestStepRange(t *testing.T) {
	const n = 29
	rng := rand.New(rand.NewPCG(1, 2))
	a, b := NewAdam(0.01, n), NewAdam(0.01, n)
	x, y, g := make([]float64, n), make([]float64, n), make([]float64, n)
	for i := range x {
		x[i] = rng.NormFloat64()
		y[i] = x[i]
	}
	for range 4 {
		for i := range g {
			g[i] = rng.NormFloat64()
		}
		a.Step(x, g, -0.5)
		b.T++
		b.StepRange(y, g, -0.5, 0, 11)
		b.StepRange(y, g, -0.5, 11, n)
	}
	for i := range x {
		if math.Float64bits(x[i]) != math.Float64bits(y[i]) || a.M[i] != b.M[i] || a.S[i] != b.S[i] {
			t.Fatalf("entry %d: θ %v vs %v", i, x[i], y[i])
		}
	}
}
