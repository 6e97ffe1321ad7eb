package eval

import (
	"fmt"
	"math"

	"github.com/logz-ml/logz/data"
	"github.com/logz-ml/logz/internal/nmath"
	"github.com/logz-ml/logz/models"
)

// VerdictZ is the number of standard errors beyond which a paired verdict
// calls a difference established: the two-sided 95% point of the normal
// distribution, so that ±VerdictZ·σ is the verdict's 95% interval.
const VerdictZ = 1.959963984540054

// Paired is the paired comparison of two models A and B on the same
// examples: Δ = mean log p_B − mean log p_A with one error bar.
type Paired struct {
	// N is the number of examples.
	N int
	// Delta estimates mean_n log p_B(v_n) − mean_n log p_A(v_n); Sigma is
	// its standard error, √(SEPaired² + SigmaRatio²) for two RBMs.
	Delta, Sigma float64
	// FreeDiff is mean_n[−F_B(v_n) + F_A(v_n)] and SEPaired its standard
	// error over the examples, sd_n[−F_B(v_n) + F_A(v_n)]/√N (paired: the
	// examples' own spread, shared by both models, cancels).
	FreeDiff, SEPaired float64
	// LogRatio is log Z_B − log Z_A and SigmaRatio its standard error: 0
	// when both were enumerated (Exact), else the AIS ratio's σ̂/r̂ (the
	// delta-method error of log r̂).
	LogRatio, SigmaRatio float64
	// Exact: both log Z were enumerated; Ratio is then nil.
	Exact bool
	// Ratio is the AIS estimate of log Z_B − log Z_A (nil when Exact).
	Ratio *Ratio
	// MinESSFraction is PairedRBM's: Notes warns below it.
	MinESSFraction float64
}

// PairedRBM compares two RBMs over the same visible units on the same
// examples (Compare).
type PairedRBM struct {
	// AIS runs the ratio estimator when log Z is not enumerated.
	AIS AIS
	// Start and GibbsSteps are the start of the ratio's runs
	// (AIS.EstimateRatio).
	Start      string
	GibbsSteps int
	// MaxExactUnits: when both models' smaller layers have at most this
	// many units, both log Z are enumerated (Exact) and no AIS runs; 0
	// never enumerates.
	MaxExactUnits int
	// MinESSFraction: Paired.Notes warns when the ESS of the AIS ratio's
	// weights is below this fraction of its runs (as ais-ratio's setting
	// min_ess_fraction does).
	MinESSFraction float64
}

// Compare returns Δ = mean_n[−F_B(v_n) + F_A(v_n)] − (log Z_B − log Z_A)
// over the examples x, with σ = √(SE_paired² + σ_ratio²): SE_paired the
// standard error of the per-example free-energy differences (the error of
// the example average as an estimate of the difference of the expected
// log-likelihoods under the distribution the examples were drawn from),
// σ_ratio the error of the log Z difference — 0 when both log Z are
// enumerated, else the AIS ratio estimator's σ̂/r̂ along the joint path.
func (p PairedRBM) Compare(mA, mB *models.RBM, x data.Examples) (Paired, error) {
	if mA.NVis != mB.NVis {
		return Paired{}, fmt.Errorf("paired: A has %d visible units, B %d; the paired comparison needs the same visible units", mA.NVis, mB.NVis)
	}
	n := x.Len()
	if n < 2 {
		return Paired{}, fmt.Errorf("paired: %d examples; the standard error of the per-example differences needs at least 2", n)
	}
	v := make([]float64, mA.NVis)
	sa, sb := make([]float64, mA.NHid), make([]float64, mB.NHid)
	var s, s2 float64
	for i := range n {
		for j, b := range x.Row(i) {
			v[j] = float64(b)
		}
		d := mB.LogUnnorm(v, sb) - mA.LogUnnorm(v, sa)
		s += d
		s2 += d * d
	}
	ms := meanStat(s, s2, n)
	out := Paired{N: n, FreeDiff: ms.Mean, SEPaired: ms.SE, MinESSFraction: p.MinESSFraction}
	small := func(m *models.RBM) bool { return min(m.NVis, m.NHid) <= p.MaxExactUnits }
	if p.MaxExactUnits > 0 && small(mA) && small(mB) {
		ex := Exact{MaxUnits: p.MaxExactUnits}
		za, err := ex.LogZ(mA)
		if err != nil {
			return Paired{}, err
		}
		zb, err := ex.LogZ(mB)
		if err != nil {
			return Paired{}, err
		}
		out.LogRatio, out.Exact = zb-za, true
	} else {
		r, err := p.AIS.EstimateRatio(mA, mB, p.Start, p.GibbsSteps)
		if err != nil {
			return Paired{}, err
		}
		out.LogRatio, out.SigmaRatio, out.Ratio = r.LogRatio, RatioSigma(r), &r
	}
	out.Delta = out.FreeDiff - out.LogRatio
	out.Sigma = math.Hypot(out.SEPaired, out.SigmaRatio)
	return out, nil
}

// RatioSigma is the standard error of log r̂ of an AIS ratio estimate by the
// delta method, σ̂/r̂ with σ̂ the standard error of the mean weight (of the
// reversed runs' r̂' for a reversed start: log r̂ = −log r̂' has the same
// error).
func RatioSigma(r Ratio) float64 {
	st := nmath.Summarise(r.AIS.LogW)
	return math.Exp(st.LogStdErr - st.LogMean)
}

// Verdict says in words what Δ = mean log p_B − mean log p_A ± σ
// establishes, the models named a and b: "b is better by 1.30 ± 0.40 nats
// (3.2σ)" (σ with two significant digits, 2 to 4 decimals) when |Δ| > VerdictZ·σ (the 95% interval Δ ± VerdictZ·σ excludes
// 0), else "no difference established: 0.20 ± 0.40 nats (0.5σ)". A σ of 0
// (both log Z exact, per-example differences all alike) establishes any
// non-zero difference.
func Verdict(a, b string, delta, sigma float64) string {
	z, d := "σ = 0", verdictDecimals(delta, sigma)
	if sigma > 0 {
		z = fmt.Sprintf("%.1fσ", math.Abs(delta)/sigma)
	}
	if math.Abs(delta) > VerdictZ*sigma && delta != 0 {
		better := b
		if delta < 0 {
			better = a
		}
		return fmt.Sprintf("%s is better by %.*f ± %.*f nats (%s)", better, d, math.Abs(delta), d, sigma, z)
	}
	return fmt.Sprintf("no difference established: %.*f ± %.*f nats (%s)", d, delta, d, sigma, z)
}

// verdictDecimals shows σ with two significant digits: 2 decimals for
// σ ≥ 0.1, up to 4 for smaller σ; for σ = 0, enough to show Δ (up to 4).
func verdictDecimals(delta, sigma float64) int {
	x := sigma
	if !(x > 0) {
		x = math.Abs(delta)
	}
	if !(x > 0) {
		return 2
	}
	return min(4, max(2, 1+int(math.Ceil(-math.Log10(x)))))
}

// Verdict is the package Verdict of p with what the ratio rests on: "; the
// AIS ratio's ESS is 40 of 100", or "; both log Z exact".
func (p Paired) Verdict(a, b string) string {
	s := Verdict(a, b, p.Delta, p.Sigma)
	switch {
	case p.Exact:
		s += "; both log Z exact (enumerated), so the ± is the paired standard error over the examples alone"
	case p.Ratio != nil:
		s += fmt.Sprintf("; the AIS ratio's ESS is %.0f of %d", p.Ratio.AIS.ESS, p.Ratio.AIS.Runs)
	}
	return s
}

// Notes say when the verdict's error bar should not be trusted: an AIS
// ratio whose ESS is below MinESSFraction of its runs (σ̂ is then estimated
// from a few dominant weights and is typically far too small), one whose
// runs started from Gibbs chains rather than exact draws, and the AIS
// warnings.
func (p Paired) Notes() []string {
	if p.Ratio == nil {
		return nil
	}
	a := p.Ratio.AIS
	var out []string
	if a.ESS < p.MinESSFraction*float64(a.Runs) {
		out = append(out, fmt.Sprintf("warning: the AIS ratio's ESS %.1f is below %.0f%% of its %d runs: σ_ratio rests on a few weights and may be far too small; run more β (--betas) or runs (--chains)",
			a.ESS, 100*p.MinESSFraction, a.Runs))
	}
	if p.Ratio.Start == RatioGibbs {
		out = append(out, fmt.Sprintf("the AIS ratio's runs started where Gibbs chains of A were after %d sweeps (A has no exact sampler): σ_ratio holds only to the extent those chains reached A's distribution", a.GibbsSweeps))
	}
	for _, w := range a.Warnings {
		out = append(out, "warning: "+w)
	}
	return out
}
