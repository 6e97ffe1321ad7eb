package sbn

import (
	"math"
	"math/rand/v2"
	"testing"
)

// gaussianRun runs the dynamics on D independent coordinates with the
// potential U(θ) = θ²/(2s²) (N = 1, so η = λ), the gradient θ/s² plus
// N(0, V) noise when V > 0, and returns the mean over coordinates of each
// coordinate's time average of θ² after burn-in, its standard error from
// the spread over coordinates (so the autocorrelation of each chain is
// accounted for), and the thermostat ξ averaged over the same steps.
func gaussianRun(d *dynamics, s, V float64, burn, T int) (mean, se, xi float64) {
	const D = 1000
	rng := rand.New(rand.NewPCG(42, 42))
	theta, g, acc := make([]float64, D), make([]float64, D), make([]float64, D)
	for i := range theta {
		theta[i] = s * rng.NormFloat64()
	}
	for t := range burn + T {
		for i, x := range theta {
			g[i] = x / (s * s)
			if V > 0 {
				g[i] += math.Sqrt(V) * rng.NormFloat64()
			}
		}
		d.step(theta, g, rng)
		if t >= burn {
			xi += d.xi / float64(T)
			for i, x := range theta {
				acc[i] += x * x
			}
		}
	}
	m, m2 := 0.0, 0.0
	for _, a := range acc {
		a /= float64(T)
		m += a
		m2 += a * a
	}
	m /= D
	return m, math.Sqrt((m2/D - m*m) / (D - 1)), xi
}

// sghmcVariance is the exact stationary variance of θ under the
// discretised SGHMC of train_dynamics.go on U = θ²/(2s²) with total
// per-step noise variance q (k = η/s²): solving Σ = AΣAᵀ + Q for the
// linear recursion v' = (1−α)v − kθ + ε, θ' = θ + v' gives
// Var θ = q / (α k (2 − k/(2−α))), which is s²/(1 − k/(2(2−α))) when
// q = 2αη: the discretisation bias is about η/(4s²).
func sghmcVariance(alpha, k, q float64) float64 { return q / (alpha * k * (2 - k/(2-alpha))) }

// TestSGHMCGaussian: SGHMC samples N(0, s²) — with the exact gradient, and
// with noisy gradients when β̂ = ηV/2 removes the matching injected noise —
// within 4 standard errors of the exact stationary variance of the
// discretised chain (which is s² up to a bias far below the error); SGNHT
// with noisy gradients and no noise estimate finds its thermostat
// equilibrium (E v² = η) and the variance that equilibrium implies.
func TestSGHMCGaussian(t *testing.T) {
	const s, lr, alpha = 2.0, 0.01, 0.1
	k := lr / (s * s)
	for _, c := range []struct {
		name    string
		V, beta float64
	}{{"exact gradient", 0, 0}, {"noisy gradient, β̂ = ηV/2", 8, lr * 8 / 2}} {
		d, err := newDynamics("sghmc", lr, alpha, c.beta, 0, 1, 1000)
		if err != nil {
			t.Fatal(err)
		}
		got, se, _ := gaussianRun(d, s, c.V, 2000, 4000)
		want := sghmcVariance(alpha, k, 2*(alpha-c.beta)*lr+lr*lr*c.V)
		t.Logf("sghmc, %s: Var θ = %.4f ± %.4f; discretised chain %.4f, s² = %g", c.name, got, se, want, s*s)
		if math.Abs(got-want) > 4*se || math.Abs(want-s*s) > se {
			t.Errorf("sghmc, %s: Var θ = %.4f ± %.4f, want %.4f (s² = %g)", c.name, got, se, want, s*s)
		}
	}
	// SGNHT: the thermostat settles where E v² = η, i.e. (from the same
	// recursion) Var θ = s²(2 − ξ)/2 and Var θ = q/(ξ k (2 − k/(2−ξ))) with
	// q = 2ηA + η²V; solve for ξ by bisection.
	for _, c := range []struct {
		name string
		A, V float64
	}{{"A = 0.1, exact gradient", 0.1, 0}, {"A = 0.02, noisy gradient", 0.02, 2}} {
		d, err := newDynamics("sgnht", lr, 0, 0, c.A, 1, 1000)
		if err != nil {
			t.Fatal(err)
		}
		got, se, xi := gaussianRun(d, s, c.V, 4000, 8000)
		q := 2*lr*c.A + lr*lr*c.V
		lo, hi := 1e-6, 1.0
		for range 100 {
			m := (lo + hi) / 2
			if sghmcVariance(m, k, q) > s*s*(2-m)/2 {
				lo = m
			} else {
				hi = m
			}
		}
		wantXi := (lo + hi) / 2
		want := s * s * (2 - wantXi) / 2
		t.Logf("sgnht, %s: Var θ = %.4f ± %.4f, ξ = %.4f; equilibrium Var θ %.4f, ξ %.4f; s² = %g", c.name, got, se, xi, want, wantXi, s*s)
		if math.Abs(got-want) > 4*se || math.Abs(xi-wantXi) > 0.1*wantXi {
			t.Errorf("sgnht, %s: Var θ = %.4f ± %.4f, ξ = %.4f; want %.4f, ξ ≈ %.4f", c.name, got, se, xi, want, wantXi)
		}
		if math.Abs(got-s*s) > 0.6*wantXi*s*s {
			t.Errorf("sgnht, %s: Var θ = %.4f is further from s² = %g than the O(ξ/2) discretisation bias", c.name, got, s*s)
		}
	}
	if _, err := newDynamics("sghmc", lr, 0.1, 0.2, 0, 1, 1); err == nil {
		t.Error("β̂ > α accepted")
	}
}

// TestStepRange: a step taken in ranges (begin, stepRange over a
// partition, finish) is step itself when one range covers θ with step's
// noise stream, for every method; and, with a stream per range, its
// numbers depend on the partition alone.
func TestStepRange(t *testing.T) {
	const P = 37
	for _, method := range []string{"sghmc", "sgnht", "adam"} {
		mk := func() (*dynamics, []float64, []float64) {
			d, err := newDynamics(method, 0.3, 0.1, 0.01, 0.2, 7, P)
			if err != nil {
				t.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(3, 4))
			theta, g := make([]float64, P), make([]float64, P)
			for i := range theta {
				theta[i], g[i] = rng.NormFloat64(), rng.NormFloat64()
			}
			return d, theta, g
		}
		d1, th1, g1 := mk()
		d2, th2, g2 := mk()
		for step := range 3 {
			d1.step(th1, g1, rand.New(rand.NewPCG(uint64(step), 9)))
			d2.begin()
			kin := d2.stepRange(th2, g2, rand.New(rand.NewPCG(uint64(step), 9)), 0, P)
			d2.finish(th2, kin)
		}
		for i := range th1 {
			if math.Float64bits(th1[i]) != math.Float64bits(th2[i]) {
				t.Fatalf("%s: θ[%d] %v in ranges, %v by step", method, i, th2[i], th1[i])
			}
		}
		if d1.xi != d2.xi || d1.adam.T != d2.adam.T {
			t.Errorf("%s: ξ %v, T %d in ranges; %v, %d by step", method, d2.xi, d2.adam.T, d1.xi, d1.adam.T)
		}
		// A partition into two ranges, each with its own stream, twice.
		var got [2][]float64
		for k := range got {
			d, th, g := mk()
			d.begin()
			kin := d.stepRange(th, g, rand.New(rand.NewPCG(1, 1)), 0, 20)
			kin += d.stepRange(th, g, rand.New(rand.NewPCG(1, 2)), 20, P)
			d.finish(th, kin)
			got[k] = th
		}
		for i := range got[0] {
			if math.Float64bits(got[0][i]) != math.Float64bits(got[1][i]) {
				t.Fatalf("%s: the same partition gave θ[%d] = %v and %v", method, i, got[0][i], got[1][i])
			}
		}
	}
}
