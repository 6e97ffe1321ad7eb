package eval

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// cvPopulation is a synthetic split of N examples: X spread over tens of
// nats (X = −100 + 25z) and Y = 0.95X − 8 + 2z′, so Y − X still varies a
// little with X and a fitted α (≈ 0.95) beats α = 1.
func cvPopulation(N int, seed uint64) (y, x []float64) {
	rng := rand.New(rand.NewPCG(seed, 1))
	x, y = make([]float64, N), make([]float64, N)
	for j := range N {
		x[j] = -100 + 25*rng.NormFloat64()
		y[j] = 0.95*x[j] - 8 + 2*rng.NormFloat64()
	}
	return y, x
}

// popVar is the population variance S² = Σ (v − v̄)²/(N−1) and the mean.
func popVar(v []float64) (mean, s2 float64) {
	for _, a := range v {
		mean += a
	}
	mean /= float64(len(v))
	for _, a := range v {
		s2 += (a - mean) * (a - mean)
	}
	return mean, s2 / float64(len(v)-1)
}

func gather(v []float64, idx []int) []float64 {
	out := make([]float64, len(idx))
	for k, i := range idx {
		out[k] = v[i]
	}
	return out
}

// sampleVar returns the mean and the sample variance (divisor R−1).
func sampleVar(v []float64) (mean, s2 float64) { return popVar(v) }

type cvRuns struct {
	one, fit, plain    []float64 // estimates
	se2One, se2Fit     []float64 // reported SE²
	se2Plain, logVR    []float64
	alphaFit, logVRFit []float64
}

// runCV draws R subsamples of size n from the population and collects the
// estimates of both estimators.
func runCV(t *testing.T, y, x []float64, n, R int, fpc bool, seed uint64) cvRuns {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 2))
	var r cvRuns
	for range R {
		idx, err := SampleIndices(len(x), n, rng)
		if err != nil {
			t.Fatal(err)
		}
		ys, xs := gather(y, idx), gather(x, idx)
		a, err := ControlVariate{FPC: fpc}.Estimate(ys, xs, x)
		if err != nil {
			t.Fatal(err)
		}
		f, err := ControlVariate{Fit: true, FPC: fpc}.Estimate(ys, xs, x)
		if err != nil {
			t.Fatal(err)
		}
		if a.Alpha != 1 || a.PlainMean != f.PlainMean || a.PlainSE != f.PlainSE || a.N != len(x) || a.NSample != n {
			t.Fatalf("inconsistent results %+v / %+v", a, f)
		}
		r.one = append(r.one, a.Estimate)
		r.fit = append(r.fit, f.Estimate)
		r.plain = append(r.plain, a.PlainMean)
		r.se2One = append(r.se2One, a.SE*a.SE)
		r.se2Fit = append(r.se2Fit, f.SE*f.SE)
		r.se2Plain = append(r.se2Plain, a.PlainSE*a.PlainSE)
		r.logVR = append(r.logVR, math.Log(a.VarianceReduction))
		r.logVRFit = append(r.logVRFit, math.Log(f.VarianceReduction))
		r.alphaFit = append(r.alphaFit, f.Alpha)
	}
	return r
}

// TestCVUnbiased: over 2,000 subsamples of n = 50 from a population of
// 5,000, the mean of the estimates equals the population mean of Y within 4
// standard errors of that mean, for α = 1 and for the plain mean (exactly
// unbiased), and for a fitted α within 4 SE plus the first-order bias of the
// regression estimator, −(1−f)/n · μ₁₂/S_x² with μ₁₂ = mean of e·(x−X̄)² over
// the population and e the population regression residual (Cochran 1977, §7.7).
func TestCVUnbiased(t *testing.T) {
	const N, n, R = 5000, 50, 2000
	y, x := cvPopulation(N, 1)
	mu, _ := popVar(y)
	xbar, sxx := popVar(x)
	B := 0.0
	for j := range N {
		B += (x[j] - xbar) * (y[j] - mu)
	}
	B /= sxx * (N - 1)
	mu12 := 0.0
	for j := range N {
		e := y[j] - mu - B*(x[j]-xbar)
		mu12 += e * (x[j] - xbar) * (x[j] - xbar)
	}
	mu12 /= N
	bias1 := -(1 - float64(n)/N) / n * mu12 / sxx
	r := runCV(t, y, x, n, R, true, 3)
	for _, c := range []struct {
		name string
		est  []float64
		tol  float64 // beyond 4 SE
	}{{"alpha=1", r.one, 0}, {"plain", r.plain, 0}, {"fitted alpha", r.fit, math.Abs(bias1)}} {
		m, v := sampleVar(c.est)
		se := math.Sqrt(v / R)
		t.Logf("%-12s mean of estimates %.5f, population mean %.5f, SE of the mean %.5f (first-order bias allowance %.2g)", c.name, m, mu, se, c.tol)
		if math.Abs(m-mu) > 4*se+c.tol {
			t.Errorf("%s: mean of %d estimates %.5f differs from the population mean %.5f by more than 4 SE (%.5f) + %.2g", c.name, R, m, mu, 4*se, c.tol)
		}
	}
	// α̂ estimates the population slope B (0.95 by construction).
	ma, va := sampleVar(r.alphaFit)
	if math.Abs(ma-B) > 4*math.Sqrt(va/R)+0.01 {
		t.Errorf("mean fitted α %.4f, population slope %.4f", ma, B)
	}
}

// TestCVVarianceReduction: the empirical variances of the estimates over
// repeated subsamples match the exact variances under sampling without
// replacement, (1−f)·S²/n with S² the population variance of Y (plain mean)
// or of Y − X (α = 1), within 5 standard deviations of a sample variance of
// R near-normal values (relative SD √(2/(R−1))); the mean reported SE² (with
// the finite-population correction, whose expectation is exactly that
// variance) matches it within 5 SE; the control variate divides the
// variance by a large factor; and the reported VarianceReduction matches the
// population ratio S_Y²/S²_{Y−X} roughly (geometric mean within 10%).
func TestCVVarianceReduction(t *testing.T) {
	const N, n, R = 5000, 50, 2000
	y, x := cvPopulation(N, 2)
	d := make([]float64, N)
	for j := range N {
		d[j] = y[j] - x[j]
	}
	_, sY := popVar(y)
	_, sD := popVar(d)
	f := float64(n) / N
	vPlain, vOne := (1-f)*sY/n, (1-f)*sD/n
	ratio := sY / sD
	r := runCV(t, y, x, n, R, true, 4)
	relSD := math.Sqrt(2.0 / (R - 1))
	_, ePlain := sampleVar(r.plain)
	_, eOne := sampleVar(r.one)
	_, eFit := sampleVar(r.fit)
	t.Logf("variance of plain means %.4f (exact %.4f), α=1 %.5f (exact %.5f), fitted α %.5f; reduction %.1f (exact %.1f)",
		ePlain, vPlain, eOne, vOne, eFit, ePlain/eOne, ratio)
	for _, c := range []struct {
		name      string
		emp, want float64
	}{{"plain", ePlain, vPlain}, {"alpha=1", eOne, vOne}} {
		if math.Abs(c.emp/c.want-1) > 5*relSD {
			t.Errorf("%s: empirical variance %.5g, exact %.5g (allowed ±%.0f%%)", c.name, c.emp, c.want, 500*relSD)
		}
	}
	if ratio < 50 || ePlain/eOne < 50 {
		t.Errorf("variance reduction %.1f (exact %.1f) is not large", ePlain/eOne, ratio)
	}
	// The two variances come from the same subsamples (positively
	// correlated), so the ratio's relative SD is at most √2·relSD.
	if math.Abs(ePlain/eOne/ratio-1) > 5*math.Sqrt2*relSD {
		t.Errorf("empirical variance ratio %.2f, exact %.2f", ePlain/eOne, ratio)
	}
	for _, c := range []struct {
		name string
		se2  []float64
		want float64
	}{{"plain", r.se2Plain, vPlain}, {"alpha=1", r.se2One, vOne}} {
		m, v := sampleVar(c.se2)
		if math.Abs(m-c.want) > 5*math.Sqrt(v/R) {
			t.Errorf("%s: mean reported SE² %.5g, exact variance %.5g (5 SE = %.2g)", c.name, m, c.want, 5*math.Sqrt(v/R))
		}
	}
	// Fitted α: the reported SE² estimates the first-order variance
	// (1−f)S_e²/n; the actual variance is larger by a factor ≈ 1 + 1/(n−3)
	// (the error of α̂ times x̄ − X̄).
	mF, vF := sampleVar(r.se2Fit)
	if want := eFit / (1 + 1.0/(n-3)); math.Abs(mF/want-1) > 5*relSD+5*math.Sqrt(vF/R)/mF {
		t.Errorf("fitted α: mean reported SE² %.5g, empirical variance / (1+1/(n−3)) %.5g", mF, want)
	}
	if eFit >= eOne {
		t.Errorf("fitted α variance %.5g is not below α = 1's %.5g although the population slope is 0.95", eFit, eOne)
	}
	lvr, _ := sampleVar(r.logVR)
	if gm := math.Exp(lvr); math.Abs(gm/ratio-1) > 0.10 {
		t.Errorf("geometric mean of the reported VarianceReduction %.1f, population ratio %.1f", gm, ratio)
	}
}

// TestCVWithoutFPC: without the correction the reported SE² estimates S²/n.
func TestCVWithoutFPC(t *testing.T) {
	const N, n, R = 2000, 40, 500
	y, x := cvPopulation(N, 5)
	_, sY := popVar(y)
	r := runCV(t, y, x, n, R, false, 6)
	m, v := sampleVar(r.se2Plain)
	if want := sY / n; math.Abs(m-want) > 5*math.Sqrt(v/R) {
		t.Errorf("mean PlainSE² %.5g, want S²/n = %.5g", m, want)
	}
}

// TestCVExactForRBM: on a tiny RBM whose examples' log-likelihoods vary
// widely, Y = log p(v) (exact) and X = log f(v): Y − X = −log Z for every
// example, so the control-variate estimate from any subsample is the exact
// mean over all examples, with zero standard error, while the plain
// subsample mean is far off.
func TestCVExactForRBM(t *testing.T) {
	m := cslTestRBM(10, 6, 1.5, 4, 21)
	all := allStates(10)
	N := len(all)
	logF := make([]float64, N)
	scratch := make([]float64, m.NHid)
	for s, v := range all {
		logF[s] = m.LogUnnorm(toF64(v), scratch)
	}
	logZ, err := Exact{}.LogZ(m)
	if err != nil {
		t.Fatal(err)
	}
	logP := make([]float64, N)
	for s := range logP {
		logP[s] = logF[s] - logZ
	}
	mu, s2 := popVar(logP)
	if math.Sqrt(s2) < 5 {
		t.Fatalf("log p(v) varies by only %.2f nats; want a wide spread", math.Sqrt(s2))
	}
	rng := rand.New(rand.NewPCG(8, 8))
	worst := 0.0
	for range 20 {
		idx, err := SampleIndices(N, 20, rng)
		if err != nil {
			t.Fatal(err)
		}
		ys, xs := gather(logP, idx), gather(logF, idx)
		for _, fit := range []bool{false, true} {
			r, err := ControlVariate{Fit: fit}.Estimate(ys, xs, logF)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(r.Estimate-mu) > 1e-9*math.Abs(mu) || r.SE > 1e-9 || math.Abs(r.Alpha-1) > 1e-9 {
				t.Errorf("fit=%v: estimate %.12f ± %.3g (α = %.12f), exact mean %.12f", fit, r.Estimate, r.SE, r.Alpha, mu)
			}
			if r.PlainSE < 0.5 || r.VarianceReduction < 1e12 {
				t.Errorf("fit=%v: plain SE %.3g, variance reduction %.3g: the subsample mean should be noisy", fit, r.PlainSE, r.VarianceReduction)
			}
			worst = max(worst, math.Abs(r.PlainMean-mu))
		}
	}
	t.Logf("log p spread %.2f nats; plain subsample means off by up to %.2f nats; CV exact", math.Sqrt(s2), worst)
}

func TestCVWholePopulation(t *testing.T) {
	y, x := cvPopulation(30, 9)
	mu, _ := popVar(y)
	r, err := ControlVariate{FPC: true}.Estimate(y, x, x)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(r.Estimate-mu) > 1e-12*math.Abs(mu) || r.SE != 0 || r.PlainSE != 0 {
		t.Errorf("n = N with FPC: %+v, want estimate %.12f and zero SE", r, mu)
	}
}

func TestCVWarnings(t *testing.T) {
	// X anti-correlated with Y: α = 1 makes things worse.
	y := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}
	x := make([]float64, len(y))
	for i := range y {
		x[i] = -y[i]
	}
	r, err := ControlVariate{}.Estimate(y, x, x)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Warnings) != 1 || !strings.Contains(r.Warnings[0], "plain mean is the better") || r.VarianceReduction >= 1 {
		t.Errorf("warnings %q, VR %g", r.Warnings, r.VarianceReduction)
	}
	// Fitted α recovers the exact line (α = −1).
	f, err := ControlVariate{Fit: true}.Estimate(y, x, x)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(f.Alpha+1) > 1e-9 || len(f.Warnings) != 0 {
		t.Errorf("fitted α = %g, warnings %q", f.Alpha, f.Warnings)
	}
	// Constant X over the subsample: no fit possible.
	c, err := ControlVariate{Fit: true}.Estimate([]float64{1, 2, 4}, []float64{3, 3, 3}, []float64{3, 3, 3, 5})
	if err != nil {
		t.Fatal(err)
	}
	if c.Alpha != 1 || len(c.Warnings) != 2 || !strings.Contains(c.Warnings[0], "constant") || !strings.Contains(c.Warnings[1], "only 3") {
		t.Errorf("constant X: α = %g, warnings %q", c.Alpha, c.Warnings)
	}
	if math.Abs(c.Estimate-(7.0/3-(3-3.5))) > 1e-12 {
		t.Errorf("constant X: estimate %g", c.Estimate)
	}
}

func TestCVValidation(t *testing.T) {
	ok := []float64{1, 2, 3, 4}
	nan := []float64{1, 2, 3, math.NaN()}
	inf := []float64{math.Inf(-1), 2, 3, 4}
	for _, tc := range []struct {
		name       string
		cv         ControlVariate
		y, x, xAll []float64
		want       string
	}{
		{"lengths", ControlVariate{}, ok, ok[:3], ok, "ySample has 4 values and xSample 3"},
		{"one example", ControlVariate{}, ok[:1], ok[:1], ok, "1 sampled examples; need at least 2"},
		{"fit needs three", ControlVariate{Fit: true}, ok[:2], ok[:2], ok, "need at least 3"},
		{"xAll short", ControlVariate{}, ok, ok, ok[:3], "xAll has 3 values but the subsample has 4"},
		{"NaN y", ControlVariate{}, nan, ok, ok, "ySample[3] is NaN"},
		{"Inf x", ControlVariate{}, ok, inf, ok, "xSample[0] is -Inf"},
		{"NaN xAll", ControlVariate{}, ok, ok, append(slices.Clone(ok), math.NaN()), "xAll[4] is NaN"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.cv.Estimate(tc.y, tc.x, tc.xAll)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
	rng := rand.New(rand.NewPCG(1, 1))
	for _, c := range []struct {
		N, n int
		rng  *rand.Rand
		want string
	}{{5, 6, rng, "cannot draw 6 of 5"}, {5, -1, rng, "cannot draw -1 of 5"}, {5, 2, nil, "nil random generator"}} {
		if _, err := SampleIndices(c.N, c.n, c.rng); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("SampleIndices(%d, %d): error %v, want %q", c.N, c.n, err, c.want)
		}
	}
}

// TestSampleIndices: sorted distinct indices in range; reproducible from the
// generator; every index included with probability n/N and every pair with
// n(n−1)/(N(N−1)), as sampling without replacement requires (binomial
// tolerance, 5 SD).
func TestSampleIndices(t *testing.T) {
	const N, n, R = 20, 5, 20000
	a, _ := SampleIndices(N, n, rand.New(rand.NewPCG(3, 3)))
	b, _ := SampleIndices(N, n, rand.New(rand.NewPCG(3, 3)))
	if !slices.Equal(a, b) {
		t.Errorf("same generator, different draws %v %v", a, b)
	}
	if z, err := SampleIndices(7, 0, rand.New(rand.NewPCG(3, 3))); err != nil || len(z) != 0 {
		t.Errorf("n = 0: %v, %v", z, err)
	}
	rng := rand.New(rand.NewPCG(4, 4))
	single := make([]int, N)
	pair := make([]int, N*N)
	for range R {
		idx, err := SampleIndices(N, n, rng)
		if err != nil {
			t.Fatal(err)
		}
		if len(idx) != n {
			t.Fatalf("got %d indices, want %d", len(idx), n)
		}
		for k, i := range idx {
			if i < 0 || i >= N || k > 0 && idx[k-1] >= i {
				t.Fatalf("indices %v are not sorted, distinct and in [0,%d)", idx, N)
			}
			single[i]++
			for _, j := range idx[:k] {
				pair[j*N+i]++
			}
		}
	}
	check := func(what string, cnt int, p float64) {
		mu, sd := R*p, math.Sqrt(R*p*(1-p))
		if math.Abs(float64(cnt)-mu) > 5*sd {
			t.Errorf("%s: %d of %d draws, want %.0f ± %.0f", what, cnt, R, mu, 5*sd)
		}
	}
	for i, c := range single {
		check(fmt.Sprintf("index %d", i), c, float64(n)/N)
	}
	for i := range N {
		for j := i + 1; j < N; j++ {
			check(fmt.Sprintf("pair (%d,%d)", i, j), pair[i*N+j], float64(n*(n-1))/(N*(N-1)))
		}
	}
}
