package sbn

import (
	"math"
	"math/rand/v2"
)

// Pólya-Gamma draws ω ~ PG(1, c) (Polson, Scott & Windle 2013, "Bayesian
// inference for logistic models using Pólya-Gamma latent variables",
// JASA), for the batch Gibbs sampler of pg_train.go.
//
// PG(1, c) = J*(1, c/2)/4, and J*(1, z) is drawn by Devroye's exact
// accept–reject sampler (PSW 2013, §4 and Alg. 1; the reference code is
// BayesLogit's rpg_devroye): the proposal is a mixture of an exponential
// truncated to [t, ∞) and an inverse Gaussian IG(1/z, 1) truncated to
// (0, t), t = 0.64, and the target density is the alternating series
//
//	f(x | z) = cosh(z) e^{−z²x/2} Σ_n (−1)^n a_n(x),
//	a_n(x) = π(n+½) (2/(πx))^{3/2} e^{−2(n+½)²/x}   x ≤ t,
//	a_n(x) = π(n+½) e^{−(n+½)²π²x/2}               x > t,
//
// whose partial sums bracket it alternately (a_n decreases in n), so the
// accept test stops at the first partial sum that decides it. Every
// exponential is taken of a finite log (a_n underflows to 0 for extreme
// x, which the series then treats as a negligible term), the mixture weight
// is formed from logs (log Φ accurate far into the lower tail), and the
// inverse Gaussian's root is written without cancellation. The expected
// number of proposals is below 1.001 for every z (PSW 2013, Prop. 5).

// pgTrunc is Devroye's t, the point where the series change form.
const pgTrunc = 0.64

// pgMeanVar returns the exact mean tanh(c/2)/(2c) and variance
// (sinh c − c)/(4c³) · sech²(c/2) of PG(1, c) (PSW 2013, §3.1 and the
// cumulants of the Laplace transform), by their series near 0.
func pgMeanVar(c float64) (mean, variance float64) {
	c = math.Abs(c)
	mean = pgMean(c)
	if c < 1e-3 {
		return mean, 1.0/24 - c*c/120 // Taylor: variance 1/24 − c²/120 + …
	}
	sech := 1 / math.Cosh(c/2)
	if c > 700 { // sinh and cosh overflow: variance ≈ (e^c/2)/(4c³) · 4e^{−c} = 1/(2c³)
		return mean, 1 / (2 * c * c * c)
	}
	return mean, (math.Sinh(c) - c) / (4 * c * c * c) * sech * sech
}

// pgMean is the mean tanh(c/2)/(2c) of PG(1, c), by its Taylor series
// ¼ − c²/48 + … for |c| < 10⁻³ (the limit ¼ at c = 0).
func pgMean(c float64) float64 {
	c = math.Abs(c)
	if c < 1e-3 {
		return 0.25 - c*c/48
	}
	return math.Tanh(c/2) / (2 * c)
}

// logCosh is log cosh x without overflow.
func logCosh(x float64) float64 {
	x = math.Abs(x)
	return x + math.Log1p(math.Exp(-2*x)) - math.Ln2
}

// pgLaplace is E[e^{−sω}] for ω ~ PG(1, c): cosh(c/2)/cosh(√(c²/4 + s/2)),
// from logs.
func pgLaplace(c, s float64) float64 {
	return math.Exp(logCosh(c/2) - logCosh(math.Sqrt(c*c/4+s/2)))
}

// drawPG returns a draw of PG(1, c).
func drawPG(rng *rand.Rand, c float64) float64 {
	z := math.Abs(c) * 0.5
	fz := math.Pi*math.Pi/8 + z*z/2
	pExp := pgExpMass(z, fz)
	for {
		var x float64
		if rng.Float64() < pExp {
			x = pgTrunc + rng.ExpFloat64()/fz
		} else {
			x = pgTruncIG(rng, z)
		}
		lx := 0.0 // log (2/(πx))^{3/2}, for x ≤ t
		if x <= pgTrunc {
			lx = -1.5 * math.Log(0.5*math.Pi*x)
		}
		s := pgCoef(0, x, lx)
		y := rng.Float64() * s
		for n := 1; ; n++ {
			if n&1 == 1 {
				s -= pgCoef(n, x, lx)
				if y <= s {
					return 0.25 * x
				}
			} else {
				s += pgCoef(n, x, lx)
				if y > s {
					break
				}
			}
		}
	}
}

// pgCoef is a_n(x) of the alternating series, given lx = log (2/(πx))^{3/2}
// when x ≤ t.
func pgCoef(n int, x, lx float64) float64 {
	k := float64(n) + 0.5
	if x > pgTrunc {
		return math.Pi * k * math.Exp(-k*k*math.Pi*math.Pi*x/2)
	}
	return math.Pi * k * math.Exp(lx-2*k*k/x)
}

// pgExpMass is the probability p/(p+q) that a proposal comes from the
// truncated exponential (PSW 2013, §4.3:
// q/p = (4/π)(e^{x_b} + e^{x_a}), x_b = x₀ − z + log Φ(b), x_a = x₀ + z +
// log Φ(a), x₀ = log f_z + f_z·t): directly for z < 10, where no factor
// leaves the float64 range (f_z·t < 33, Φ(a) > 10⁻²⁰), else from logs.
func pgExpMass(z, fz float64) float64 {
	rt := math.Sqrt(1 / pgTrunc)
	b := rt * (pgTrunc*z - 1)
	a := -rt * (pgTrunc*z + 1)
	if z < 10 {
		phiB := 0.5 * math.Erfc(-b/math.Sqrt2)
		phiA := 0.5 * math.Erfc(-a/math.Sqrt2)
		qp := 4 / math.Pi * fz * math.Exp(fz*pgTrunc-z) * (phiB + math.Exp(2*z)*phiA)
		return 1 / (1 + qp)
	}
	x0 := math.Log(fz) + fz*pgTrunc
	xb := x0 - z + logPhi(b)
	xa := x0 + z + logPhi(a)
	hi := math.Max(xa, xb)
	lq := math.Log(4/math.Pi) + hi + math.Log(math.Exp(xa-hi)+math.Exp(xb-hi))
	// 1/(1 + e^{lq}) = σ(−lq)
	if lq > 0 {
		e := math.Exp(-lq)
		return e / (1 + e)
	}
	return 1 / (1 + math.Exp(lq))
}

// logPhi is log Φ(x), the standard normal's log CDF, accurate in the
// lower tail (asymptotic series below −30, where Φ nears the float64
// underflow).
func logPhi(x float64) float64 {
	if x > -30 {
		return math.Log(0.5 * math.Erfc(-x/math.Sqrt2))
	}
	// Φ(x) = φ(x)/|x| · (1 − 1/x² + 3/x⁴ − 15/x⁶ + 105/x⁸ …)
	r := 1 / (x * x)
	series := 1 - r*(1-r*(3-r*(15-105*r)))
	return -0.5*x*x - math.Log(-x) - 0.5*math.Log(2*math.Pi) + math.Log(series)
}

// pgTruncIG draws IG(μ = 1/z, 1) truncated to (0, t) (PSW 2013, §4.2 and
// BayesLogit's rtigauss): for μ > t by proposals from the truncated
// 1/χ²₁ (itself by exponentials) accepted with probability e^{−z²x/2},
// else by the inverse Gaussian's root transform repeated until below t.
func pgTruncIG(rng *rand.Rand, z float64) float64 {
	t := pgTrunc
	if 1/t > z {
		for {
			e1, e2 := rng.ExpFloat64(), rng.ExpFloat64()
			for e1*e1 > 2*e2/t {
				e1, e2 = rng.ExpFloat64(), rng.ExpFloat64()
			}
			x := 1 + e1*t
			x = t / (x * x)
			if rng.Float64() <= math.Exp(-0.5*z*z*x) {
				return x
			}
		}
	}
	mu := 1 / z
	for {
		y := rng.NormFloat64()
		muY := mu * y * y
		// μ + μ²y²/2 − (μ/2)√(4μy² + μ²y⁴) = μ − 2μ·μy²/(√(μy²(4 + μy²)) + μy²), no cancellation
		x := mu - 2*mu*muY/(math.Sqrt(muY*(4+muY))+muY)
		if muY == 0 {
			x = mu
		}
		if rng.Float64() > mu/(mu+x) {
			x = mu * mu / x
		}
		if x < t && x > 0 {
			return x
		}
	}
}
