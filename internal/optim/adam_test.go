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

// adamRef is StepRange's update as written before the assembly loop, the
// arithmetic both loops must reproduce.
func adamRef(a *Adam, theta, g []float64, scale float64) {
	c1 := 1 / (1 - math.Pow(AdamB1, float64(a.T)))
	c2 := 1 / (1 - math.Pow(AdamB2, float64(a.T)))
	for i := range theta {
		gi := scale * g[i]
		a.M[i] = AdamB1*a.M[i] + (1-AdamB1)*gi
		a.S[i] = AdamB2*a.S[i] + (1-AdamB2)*gi*gi
		theta[i] -= a.LR * (a.M[i] * c1) / (math.Sqrt(a.S[i]*c2) + AdamEps)
	}
}

// TestStepKernels: the assembly loop (where available) and the Go loop
// give the reference update bit for bit, over lengths with and without a
// remainder and gradients of many magnitudes (zeros included).
func TestStepKernels(t *testing.T) {
	defer func(u bool) { useAVX2 = u }(useAVX2)
	kernels := []bool{false}
	if useAVX2 {
		kernels = append(kernels, true)
	}
	for _, n := range []int{1, 3, 4, 7, 64, 1001} {
		for _, avx := range kernels {
			useAVX2 = avx
			rng := rand.New(rand.NewPCG(uint64(n), 9))
			a, b := NewAdam(0.003, n), NewAdam(0.003, n)
			x, y, g := make([]float64, n), make([]float64, n), make([]float64, n)
			for i := range x {
				x[i] = rng.NormFloat64()
				y[i] = x[i]
			}
			for step := range 5 {
				for i := range g {
					g[i] = math.Ldexp(rng.NormFloat64(), rng.IntN(60)-30)
					if rng.IntN(10) == 0 {
						g[i] = 0
					}
				}
				a.Step(x, g, -0.37)
				b.T++
				adamRef(&b, y, g, -0.37)
				for i := range x {
					if math.Float64bits(x[i]) != math.Float64bits(y[i]) || math.Float64bits(a.M[i]) != math.Float64bits(b.M[i]) || math.Float64bits(a.S[i]) != math.Float64bits(b.S[i]) {
						t.Fatalf("n %d avx %v step %d entry %d: θ %v vs %v, m %v vs %v, s %v vs %v", n, avx, step, i, x[i], y[i], a.M[i], b.M[i], a.S[i], b.S[i])
					}
				}
			}
		}
	}
}

func BenchmarkStep1M(b *testing.B) {
	const n = 1 << 20
	a := NewAdam(0.001, n)
	x, g := make([]float64, n), make([]float64, n)
	for i := range g {
		g[i] = float64(i%7) - 3
	}
	b.ReportAllocs()
	for b.Loop() {
		a.Step(x, g, -1)
	}
}
