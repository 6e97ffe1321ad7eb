package sbn

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestPGMoments: draws of PG(1, c), for c from 0 through tiny to large
// |c| of both signs, have the exact mean tanh(c/2)/(2c) and variance
// (sinh c − c)/(4c³)·sech²(c/2) (PSW 2013) within 4.5 standard errors
// estimated from the draws (the variance's from the fourth central
// moment), and the Laplace transform E[e^{−sω}] = cosh(c/2)/cosh(√(c²/4 +
// s/2)) at s = 0.3, 2, 12 within 4.5 standard errors of e^{−sω}.
func TestPGMoments(t *testing.T) {
	const n = 200000
	rng := rand.New(rand.NewPCG(31, 7))
	for _, c := range []float64{0, 1e-9, -1e-4, 0.3, 1.2, -2.5, 3.2, 7, -20, 60} {
		xs := make([]float64, n)
		var m float64
		for i := range xs {
			xs[i] = drawPG(rng, c)
			if !(xs[i] > 0) || math.IsInf(xs[i], 0) {
				t.Fatalf("c = %g: draw %g", c, xs[i])
			}
			m += xs[i]
		}
		m /= n
		var m2, m4 float64
		for _, x := range xs {
			d := (x - m) * (x - m)
			m2 += d
			m4 += d * d
		}
		m2 /= n - 1
		m4 /= n
		mean, variance := pgMeanVar(c)
		if se := math.Sqrt(m2 / n); math.Abs(m-mean) > 4.5*se {
			t.Errorf("c = %g: mean %.6g, exact %.6g (se %.2g)", c, m, mean, se)
		}
		if se := math.Sqrt((m4 - m2*m2) / n); math.Abs(m2-variance) > 4.5*se {
			t.Errorf("c = %g: variance %.6g, exact %.6g (se %.2g)", c, m2, variance, se)
		}
		for _, s := range []float64{0.3, 2, 12} {
			var e, e2 float64
			for _, x := range xs {
				v := math.Exp(-s * x)
				e += v
				e2 += v * v
			}
			e /= n
			se := math.Sqrt((e2/n - e*e) / n)
			if want := pgLaplace(c, s); math.Abs(e-want) > 4.5*se {
				t.Errorf("c = %g, s = %g: E[e^{−sω}] %.6g, exact %.6g (se %.2g)", c, s, e, want, se)
			}
		}
	}
}

// TestPGExactForms: the closed forms the moment test relies on agree with
// their series near 0 and with a numerical derivative of the Laplace
// transform (mean = −d/ds E[e^{−sω}] at s = 0), and log Φ is continuous
// where it changes form.
func TestPGExactForms(t *testing.T) {
	for _, c := range []float64{1e-3, 0.7, 5, 40} {
		mean, _ := pgMeanVar(c)
		h := 1e-5
		d := -(pgLaplace(c, h) - pgLaplace(c, -h)) / (2 * h)
		if math.Abs(d-mean) > 1e-7 {
			t.Errorf("c = %g: mean %.10g, −L'(0) %.10g", c, mean, d)
		}
	}
	m0, v0 := pgMeanVar(0.999e-3)
	m1, v1 := pgMeanVar(1.001e-3)
	if math.Abs(m0-m1) > 1e-9 || math.Abs(v0-v1) > 1e-7 {
		t.Errorf("series and closed form disagree at c = 1e-3: %g %g, %g %g", m0, m1, v0, v1)
	}
	if a, b := logPhi(-30+1e-9), logPhi(-30-1e-9); math.Abs(a-b) > 1e-8*math.Abs(a) {
		t.Errorf("log Φ jumps at −30: %.15g %.15g", a, b)
	}
}

func pgRand() *rand.Rand { return rand.New(rand.NewPCG(1, 2)) }

// TestPGExpMassForms: the direct and the log form of the mixture weight
// agree where they meet (z = 10) and below it.
func TestPGExpMassForms(t *testing.T) {
	for _, z := range []float64{0, 0.3, 1.5625, 4, 9.99} {
		fz := math.Pi*math.Pi/8 + z*z/2
		direct := pgExpMass(z, fz)
		rt := math.Sqrt(1 / pgTrunc)
		x0 := math.Log(fz) + fz*pgTrunc
		xb := x0 - z + logPhi(rt*(pgTrunc*z-1))
		xa := x0 + z + logPhi(-rt*(pgTrunc*z+1))
		logForm := 1 / (1 + 4/math.Pi*(math.Exp(xb)+math.Exp(xa)))
		if math.Abs(direct-logForm) > 1e-12*logForm {
			t.Errorf("z = %g: direct %.15g, from logs %.15g", z, direct, logForm)
		}
	}
}
