package eval

import (
	"fmt"
	"math"
	"strings"

	"github.com/logz-ml/logz/models"
)

// The starts of the runs of AIS.EstimateRatio.
const (
	// RatioAuto is RatioExact when A has an exact sampler
	// (HasExactSampler), else RatioGibbs.
	RatioAuto = "auto"
	// RatioExact starts every run at an exact draw of p_A (AIS.LogRatio).
	RatioExact = "exact"
	// RatioGibbs starts every run at the end of its own block-Gibbs chain of
	// A (AIS.LogRatioGibbs).
	RatioGibbs = "gibbs"
	// RatioReversed starts every run at an exact draw of p_B and anneals
	// from B to A.
	RatioReversed = "reversed"
)

// RatioStarts lists the starts of AIS.EstimateRatio.
var RatioStarts = []string{RatioAuto, RatioExact, RatioGibbs, RatioReversed}

// ResolveRatioStart returns the start the runs of AIS.EstimateRatio will
// have for model A: start itself, or for RatioAuto RatioExact when A has an
// exact sampler, else RatioGibbs.
func ResolveRatioStart(start string, mA *models.RBM) string {
	if start != RatioAuto {
		return start
	}
	if HasExactSampler(mA) {
		return RatioExact
	}
	return RatioGibbs
}

// Ratio is an estimate of a log partition-function ratio log(Z_B/Z_A) with
// its error bars (AIS.EstimateRatio).
type Ratio struct {
	// LogRatio estimates log(Z_B/Z_A); Lo1, Hi1 and Lo3, Hi3 are the ends
	// of its ±σ̂ and ±3σ̂ bands, log(r̂ ∓ kσ̂) (−Inf/+Inf where undefined).
	LogRatio, Lo1, Hi1, Lo3, Hi3 float64
	// Start is the start the runs had: RatioExact, RatioGibbs or
	// RatioReversed (never auto).
	Start string
	// Reversed: the chains ran from B to A (RatioReversed), so LogRatio =
	// −log(Ẑ_A/Z_B)-hat, a stochastic upper bound on log(Z_B/Z_A).
	Reversed bool
	// LogZStart is the exact log Z of the start of the path (A, or B if
	// Reversed), computed on the way; NaN for Gibbs starts.
	LogZStart float64
	// AIS is the underlying estimate along the path actually run; its
	// GibbsSweeps and Drift describe Gibbs starts.
	AIS AISResult
}

// EstimateRatio estimates log(Z_B/Z_A) by AIS along the joint path of
// Salakhutdinov & Murray (2008, §3.2, eq. 14–17),
//
//	E_β(v, h_A, h_B) = (1−β)·E_A(v, h_A) + β·E_B(v, h_B),  r̂ = (1/M) Σ_m w_m,  E[w] = Z_B/Z_A,
//
// whose visible marginal f_β is inference.RBMPath's (f_0 = f_A, f_1 = f_B),
// the runs starting as start says:
//
//   - RatioExact: exact draws of p_A (LogRatio; A weightless or its smaller
//     layer at most MaxExactStartUnits units, else an error); log r̂ is a
//     stochastic lower bound on log(Z_B/Z_A), and its bands are
//     log(Ẑ_B ∓ kσ̂) − log Z_A.
//   - RatioGibbs: each run from its own block-Gibbs chain of A after
//     gibbsSteps sweeps from a uniform random state (LogRatioGibbs), as the
//     paper did for its 784×500 models; unbiased only to the extent the
//     chains reached p_A.
//   - RatioReversed: exact draws of p_B, the runs going from B to A; the
//     result is −log r̂' with r̂' ≈ Z_A/Z_B, its bands the reversed
//     estimate's, negated (−log(r̂' ± kσ̂')): a stochastic upper bound on
//     log(Z_B/Z_A).
//   - RatioAuto: ResolveRatioStart.
//
// Everything stays in log space.
func (a AIS) EstimateRatio(mA, mB *models.RBM, start string, gibbsSteps int) (Ratio, error) {
	switch start = ResolveRatioStart(start, mA); start {
	case RatioExact, RatioGibbs:
		var res AISResult
		var err error
		if start == RatioExact {
			if !HasExactSampler(mA) {
				return Ratio{}, fmt.Errorf("ratio: start %s needs exact draws of A, but A %s", start, NoExactSampler(mA))
			}
			res, err = a.LogRatio(mA, mB)
		} else {
			res, err = a.LogRatioGibbs(mA, mB, gibbsSteps)
		}
		if err != nil {
			return Ratio{}, err
		}
		lz := res.LogZBase
		r := Ratio{
			LogRatio: res.LogRatio, Lo1: res.LogZLo1 - lz, Hi1: res.LogZHi1 - lz,
			Lo3: res.LogZLo3 - lz, Hi3: res.LogZHi3 - lz,
			Start: start, LogZStart: lz, AIS: res,
		}
		if start == RatioGibbs {
			r.LogZStart = math.NaN()
		}
		return r, nil
	case RatioReversed:
		if !HasExactSampler(mB) {
			return Ratio{}, fmt.Errorf("ratio: start %s needs exact draws of B, but B %s", start, NoExactSampler(mB))
		}
		rev, err := a.LogRatio(mB, mA)
		if err != nil {
			return Ratio{}, err
		}
		b := rev.LogZBase
		return Ratio{
			LogRatio: -rev.LogRatio, Lo1: -(rev.LogZHi1 - b), Hi1: -(rev.LogZLo1 - b),
			Lo3: -(rev.LogZHi3 - b), Hi3: -(rev.LogZLo3 - b),
			Start: start, Reversed: true, LogZStart: b, AIS: rev,
		}, nil
	}
	return Ratio{}, fmt.Errorf("ratio: start %q is not one of %s", start, strings.Join(RatioStarts, ", "))
}

// NoExactSampler says why HasExactSampler(m) is false.
func NoExactSampler(m *models.RBM) string {
	return fmt.Sprintf("has non-zero weights and its smaller layer has %d units, more than the %d of an exact sampler", min(m.NVis, m.NHid), MaxExactStartUnits)
}
