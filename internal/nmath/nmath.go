// Package nmath holds the numerically safe scalar functions shared by every
// model, trainer and estimator: softplus, log-sigmoid, logsumexp and friends.
// Everything here works in log space and cannot overflow for finite input.
package nmath

import "math"

// Softplus returns log(1+e^x) = max(x,0) + log1p(e^{-|x|}), exact to rounding
// for every finite x and never overflowing.
func Softplus(x float64) float64 {
	if x > 0 {
		return x + math.Log1p(math.Exp(-x))
	}
	return math.Log1p(math.Exp(x))
}

// LogSigmoid returns log σ(x) = -softplus(-x).
func LogSigmoid(x float64) float64 { return -Softplus(-x) }

// Sigmoid returns σ(x) = 1/(1+e^{-x}) without overflow.
func Sigmoid(x float64) float64 {
	if x >= 0 {
		return 1 / (1 + math.Exp(-x))
	}
	e := math.Exp(x)
	return e / (1 + e)
}

// Logit returns log(p/(1-p)).
func Logit(p float64) float64 { return math.Log(p) - math.Log1p(-p) }

// LogSumExp returns log Σ_i e^{x_i}; -Inf for an empty slice or all -Inf.
// A +Inf or NaN element propagates.
func LogSumExp(x []float64) float64 {
	m := math.Inf(-1)
	for _, v := range x {
		if v > m || math.IsNaN(v) {
			m = v
		}
	}
	if math.IsInf(m, 0) || math.IsNaN(m) {
		return m
	}
	s := 0.0
	for _, v := range x {
		s += math.Exp(v - m)
	}
	return m + math.Log(s)
}

// LogMeanExp returns log((1/n) Σ_i e^{x_i}).
func LogMeanExp(x []float64) float64 {
	return LogSumExp(x) - math.Log(float64(len(x)))
}

// LogAddExp returns log(e^a + e^b).
func LogAddExp(a, b float64) float64 {
	if a < b {
		a, b = b, a
	}
	if math.IsInf(b, -1) {
		return a
	}
	return a + math.Log1p(math.Exp(b-a))
}

// LogSubExp returns log(e^a - e^b) for a ≥ b; NaN when a < b and -Inf when a == b.
func LogSubExp(a, b float64) float64 {
	switch {
	case a < b:
		return math.NaN()
	case a == b || math.IsInf(b, -1) && math.IsInf(a, -1):
		return math.Inf(-1)
	case math.IsInf(b, -1):
		return a
	}
	return a + math.Log(-math.Expm1(b-a))
}

// LogStats summarises a set of log weights log w_m without leaving log space.
type LogStats struct {
	LogMean float64 // log( (1/M) Σ w_m )
	// LogStdErr is log σ̂ where σ̂ = sd(w)/√M is the standard error of the mean weight.
	LogStdErr float64
	// ESS is the effective sample size (Σ w)² / Σ w², in [1, M].
	ESS float64
}

// Summarise computes the mean weight, its standard error and the effective
// sample size of the weights e^{logw}, all in log space.
func Summarise(logw []float64) LogStats {
	n := float64(len(logw))
	if len(logw) == 0 {
		return LogStats{LogMean: math.NaN(), LogStdErr: math.NaN(), ESS: 0}
	}
	lse := LogSumExp(logw)
	mean := lse - math.Log(n)
	// Σ w² in log space.
	sq := make([]float64, len(logw))
	for i, v := range logw {
		sq[i] = 2 * v
	}
	lse2 := LogSumExp(sq)
	ess := math.Exp(2*lse - lse2)
	// Sample variance: (Σ w² - n·mean²)/(n-1), computed as log of a difference.
	logSE := math.Inf(-1)
	if len(logw) > 1 {
		// Σ (w - mean)² = Σ w² - n mean²
		lv := LogSubExp(lse2, math.Log(n)+2*mean)
		if math.IsNaN(lv) { // rounding made it slightly negative
			lv = math.Inf(-1)
		}
		logSE = 0.5 * (lv - math.Log(n-1) - math.Log(n))
	}
	return LogStats{LogMean: mean, LogStdErr: logSE, ESS: ess}
}

// LogWeights accumulates importance weights w = e^{lw}, given by their logs,
// in one pass without overflow: M is the largest lw so far, S1 = Σ e^{lw−M}
// and S2 = Σ e^{2(lw−M)}, so that log Σ w = M + log S1 and the effective
// sample size is S1²/S2. A NaN or +Inf weight propagates; a weight of 0
// (lw = −Inf) adds nothing. Start from NewLogWeights; accumulators of
// parts of the weights combine with Merge.
type LogWeights struct{ M, S1, S2 float64 }

// NewLogWeights is an empty accumulator.
func NewLogWeights() LogWeights { return LogWeights{M: math.Inf(-1)} }

// Add adds the weight e^{lw}.
func (a *LogWeights) Add(lw float64) {
	switch {
	case math.IsInf(lw, -1): // weight 0
	case math.IsNaN(a.M): // stays NaN
	case math.IsNaN(lw) || math.IsInf(lw, 1):
		a.M, a.S1, a.S2 = lw, 1, 1
	case lw <= a.M:
		e := math.Exp(lw - a.M)
		a.S1 += e
		a.S2 += e * e
	default:
		e := math.Exp(a.M - lw)
		a.S1 = a.S1*e + 1
		a.S2 = a.S2*e*e + 1
		a.M = lw
	}
}

// Merge adds b's weights to a's.
func (a *LogWeights) Merge(b LogWeights) {
	switch {
	case b.S1 == 0:
	case a.S1 == 0:
		*a = b
	case b.M > a.M:
		e := math.Exp(a.M - b.M)
		a.M, a.S1, a.S2 = b.M, b.S1+a.S1*e, b.S2+a.S2*e*e
	default:
		e := math.Exp(b.M - a.M)
		a.S1 += b.S1 * e
		a.S2 += b.S2 * e * e
	}
}

// LogSum is log Σ w (−Inf when empty).
func (a LogWeights) LogSum() float64 { return a.M + math.Log(a.S1) }

// ESS is the effective sample size (Σ w)²/Σ w².
func (a LogWeights) ESS() float64 { return a.S1 * a.S1 / a.S2 }
