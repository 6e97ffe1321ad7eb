package eval

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"

	"github.com/sajari/regression"
)

// ControlVariate estimates the mean of Y over all N examples of a data split
// when Y (e.g. the RAISE log-probability) is known only on a random
// subsample of n examples, while X (e.g. the exact log f(v) = −F(v)) is cheap
// and known for all N (Burda, Grosse & Salakhutdinov 2015, §4, eq. 14):
//
//	Ŷ = (1/n) Σ_{i∈sample} (Y_i − α X_i) + α (1/N) Σ_{j=1}^{N} X_j
//	  = ȳ − α (x̄ − X̄),
//
// with ȳ, x̄ the subsample means and X̄ the mean of X over all N. For a
// subsample drawn uniformly without replacement (SampleIndices) and a fixed
// α, Ŷ is unbiased for the mean over the N examples of E[Y_i]. α = 1 is the
// paper's choice (Y and X differ by about −log Z, so Y − X varies little).
// With Fit, α is the least-squares slope of Y on X over the subsample
// (github.com/sajari/regression), which minimises the sample variance of
// Y − αX; the estimator is then the regression estimator of survey sampling,
// with a bias of order 1/n (Cochran 1977, §7.7).
//
// Standard errors. With s² the sample variance of the residuals
// r_i = (Y_i − ȳ) − α (X_i − x̄) (divisor n−1 for α = 1, n−2 for a fitted α,
// which used one more degree of freedom),
//
//	SE = √(c · s²/n),   PlainSE = √(c · s_Y²/n),
//
// where c = 1 by default and c = 1 − n/N, the finite-population correction,
// if FPC is set. The correction is exact when Y_i is a fixed number per
// example (e.g. an exact log-likelihood); when Y_i is itself a noisy estimate
// (RAISE), its noise does not shrink as n → N and c = 1 is the honest
// (slightly conservative) choice, hence the default.
//
// The zero value (α = 1, no correction) is the paper's estimator.
type ControlVariate struct {
	// Fit chooses α by least squares of Y on X over the subsample; false
	// means α = 1.
	Fit bool
	// FPC multiplies the variances by the finite-population correction 1 − n/N.
	FPC bool
}

// CVResult is a control-variate estimate of a mean over N examples.
type CVResult struct {
	// Estimate is Ŷ = ȳ − α(x̄ − X̄) and SE its standard error.
	Estimate, SE float64
	// Alpha is the coefficient used (1, or the fitted slope).
	Alpha float64
	// PlainMean = ȳ is the subsample mean of Y, PlainSE its standard error.
	PlainMean, PlainSE float64
	// VarianceReduction = s_Y² / s²_{Y−αX} (both with divisor n−1): the factor
	// by which the control variate divides the variance of the plain mean.
	// It is +Inf when Y − αX is constant over the subsample and Y is not, and
	// 1 when both are constant.
	VarianceReduction float64
	// N is the number of examples in the whole split, NSample = n.
	N, NSample int
	Warnings   []string
}

// Estimate returns the control-variate estimate of the mean of Y over all
// examples, given Y and X on the subsample (ySample[k] and xSample[k] belong
// to the same example) and X on every example (xAll, which includes the
// subsample). It needs n ≥ 2 (n ≥ 3 with Fit), equal lengths for ySample and
// xSample, n ≤ N, and finite values; errors name the offending slice and index.
func (c ControlVariate) Estimate(ySample, xSample, xAll []float64) (CVResult, error) {
	n, N := len(ySample), len(xAll)
	if len(xSample) != n {
		return CVResult{}, fmt.Errorf("control variate: ySample has %d values and xSample %d; they must pair up (one Y and one X per sampled example)", n, len(xSample))
	}
	minN := 2
	if c.Fit {
		minN = 3
	}
	if n < minN {
		what := "a standard error"
		if c.Fit {
			what = "a fitted α and its standard error"
		}
		return CVResult{}, fmt.Errorf("control variate: %d sampled examples; need at least %d for %s", n, minN, what)
	}
	if N < n {
		return CVResult{}, fmt.Errorf("control variate: xAll has %d values but the subsample has %d; xAll must hold X for every example of the split", N, n)
	}
	for _, s := range []struct {
		name string
		v    []float64
	}{{"ySample", ySample}, {"xSample", xSample}, {"xAll", xAll}} {
		for i, v := range s.v {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return CVResult{}, fmt.Errorf("control variate: %s[%d] is %v; every value must be finite", s.name, i, v)
			}
		}
	}
	r := CVResult{N: N, NSample: n}
	ybar, xbar := cvMean(ySample), cvMean(xSample)
	xAllBar := cvMean(xAll)
	var syy, sxx, sxy float64
	for i := range n {
		dy, dx := ySample[i]-ybar, xSample[i]-xbar
		syy += dy * dy
		sxx += dx * dx
		sxy += dx * dy
	}
	alpha := 1.0
	dof := float64(n - 1)
	if c.Fit {
		if sxx == 0 {
			r.Warnings = append(r.Warnings, "control variate: X is constant over the subsample, so α cannot be fitted; α = 1 used")
		} else {
			a, err := fitSlope(ySample, xSample, xbar)
			if err != nil {
				return CVResult{}, err
			}
			alpha = a
			dof = float64(n - 2)
		}
	}
	var srr float64
	for i := range n {
		d := (ySample[i] - ybar) - alpha*(xSample[i]-xbar)
		srr += d * d
	}
	fpc := 1.0
	if c.FPC {
		fpc = 1 - float64(n)/float64(N)
	}
	r.Alpha = alpha
	r.Estimate = ybar - alpha*(xbar-xAllBar)
	r.SE = math.Sqrt(fpc * srr / dof / float64(n))
	r.PlainMean = ybar
	r.PlainSE = math.Sqrt(fpc * syy / float64(n-1) / float64(n))
	switch {
	case srr > 0:
		r.VarianceReduction = syy / srr
	case syy > 0:
		r.VarianceReduction = math.Inf(1)
	default:
		r.VarianceReduction = 1
	}
	if r.VarianceReduction < 1 {
		msg := fmt.Sprintf("control variate: Y − αX varies more than Y over the subsample (variance reduction %.3g < 1): the plain mean is the better estimate here", r.VarianceReduction)
		if !c.Fit {
			msg += "; a fitted α (Fit) cannot do worse than the plain mean in-sample"
		}
		r.Warnings = append(r.Warnings, msg)
	}
	if n < 10 {
		r.Warnings = append(r.Warnings, fmt.Sprintf("control variate: only %d sampled examples: the standard error rests on few values", n))
	}
	return r, nil
}

// fitSlope returns the least-squares slope of y on x (with an intercept),
// regressing on x − xbar for conditioning.
func fitSlope(y, x []float64, xbar float64) (float64, error) {
	var reg regression.Regression
	reg.SetObserved("Y")
	reg.SetVar(0, "X")
	for i := range y {
		reg.Train(regression.DataPoint(y[i], []float64{x[i] - xbar}))
	}
	if err := reg.Run(); err != nil {
		return 0, fmt.Errorf("control variate: fitting α by least squares: %w", err)
	}
	a := reg.Coeff(1)
	if math.IsNaN(a) || math.IsInf(a, 0) {
		return 0, fmt.Errorf("control variate: the least-squares fit of Y on X gave α = %v", a)
	}
	return a, nil
}

func cvMean(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += v
	}
	return s / float64(len(x))
}

// SampleIndices returns n distinct indices drawn uniformly from 0…N−1 without
// replacement (a partial Fisher–Yates shuffle), in increasing order; every
// subset of size n is equally likely. The draw depends only on rng.
func SampleIndices(N, n int, rng *rand.Rand) ([]int, error) {
	if rng == nil {
		return nil, errors.New("sample indices: nil random generator")
	}
	if n < 0 || N < 0 || n > N {
		return nil, fmt.Errorf("sample indices: cannot draw %d of %d examples without replacement; want 0 ≤ n ≤ N", n, N)
	}
	perm := make([]int, N)
	for i := range perm {
		perm[i] = i
	}
	for k := range n {
		j := k + rng.IntN(N-k)
		perm[k], perm[j] = perm[j], perm[k]
	}
	idx := perm[:n:n]
	sort.Ints(idx)
	return idx, nil
}
