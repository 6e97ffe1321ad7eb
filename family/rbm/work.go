package rbm

import (
	"math"

	"github.com/logz-ml/logz/family"
	"github.com/logz-ml/logz/family/kit/estim"
	"github.com/logz-ml/logz/models"
)

// The reference machine's costs, in nanoseconds, from the eval package's
// benchmarks on the machine the estimators were tuned on (2 cores, every
// worker): an exact enumeration of 2^25 states × 784 summed units took
// 33 s (BenchmarkExactLogZ784x25), 100 AIS runs × 14,500 β on a 784×500
// RBM 103 s (BenchmarkAISFull784x500), the pseudo-log-likelihood of 200
// examples 28 ms at 784×25 and 153 ms at 784×500 (BenchmarkPseudoLogLik).
// Only their ratios matter: the run's ETA scales the sum by how long the
// per-epoch evaluations took against their own foreseen time.
const (
	// nsExactTerm is one enumerated state × one summed unit.
	nsExactTerm = 1.26
	// nsSweepWeight and nsSweepUnit make one Gibbs sweep of a D×H RBM
	// (AIS, RAISE, CSL): nsSweepWeight·D·H + nsSweepUnit·(D + H).
	nsSweepWeight, nsSweepUnit = 0.18, 5
	// nsPLL makes one example's pseudo-log-likelihood nsPLL·D·(H +
	// pllPerUnit): H multiply–adds and about pllPerUnit more for the log
	// and log σ of each visible unit.
	nsPLL, pllPerUnit = 1.7, 82
	// nsReconWeight and nsReconUnit make one example's reconstruction (one
	// goroutine): nsReconWeight·D·H + nsReconUnit·(D + H).
	nsReconWeight, nsReconUnit = 1.2, 40
	// nsLogFWeight and nsLogFUnit make one example's log f(v) = −F(v),
	// which exact and ais compute for every example of every split:
	// nsLogFWeight·D·H + nsLogFUnit·H.
	nsLogFWeight, nsLogFUnit = 0.3, 20
	// nsEntry is an entry's fixed cost (goroutines, tables, rows), which
	// dominates on tiny models.
	nsEntry = 1e6
)

// logFWork is the time of log f(v) on every example, and an entry's fixed
// cost, in seconds.
func logFWork(r *models.RBM, examples []int) float64 {
	return (nsEntry + sum(examples)*(nsLogFWeight*float64(r.NVis)*float64(r.NHid)+nsLogFUnit*float64(r.NHid))) * 1e-9
}

func sweepNS(r *models.RBM) float64 {
	return nsSweepWeight*float64(r.NVis)*float64(r.NHid) + nsSweepUnit*float64(r.NVis+r.NHid)
}

func sum(examples []int) float64 {
	n := 0
	for _, e := range examples {
		n += e
	}
	return float64(n)
}

// sampled is the number of examples a subsampling estimator evaluates on
// splits of the given sizes (n ≤ 0: all).
func sampled(examples []int, n int) float64 {
	t := 0
	for _, e := range examples {
		if n > 0 && n < e {
			e = n
		}
		t += e
	}
	return float64(t)
}

func exactWork(r *models.RBM, s *estim.Exact, examples []int) float64 {
	k, n := min(r.NVis, r.NHid), max(r.NVis, r.NHid)
	if k > s.MaxUnits {
		return 0
	}
	return nsExactTerm*math.Ldexp(float64(n), k)*1e-9 + logFWork(r, examples)
}

func aisWork(r *models.RBM, s *AISSettings, examples []int) float64 {
	return float64(s.Runs)*float64(s.Betas)*sweepNS(r)*1e-9 + logFWork(r, examples)
}

func raiseWork(r *models.RBM, s *estim.RAISE, examples []int) float64 {
	return (nsEntry + sampled(examples, s.Examples)*float64(s.Chains)*float64(s.Betas)*sweepNS(r)) * 1e-9
}

func cslWork(r *models.RBM, s *CSLSettings, examples []int) float64 {
	if s.Steps == 0 {
		return 0 // steps matched to the list's raise or ais: not known here
	}
	states := float64(s.Chains) * float64(s.Steps)
	chains := float64(len(examples)) * float64(s.Chains) * float64(s.Steps+s.BurnIn) * sweepNS(r)
	return (nsEntry + chains + sampled(examples, s.Examples)*states*float64(r.NVis)*nsExactTerm) * 1e-9
}

func pllWork(r *models.RBM, _ *family.NoSettings, examples []int) float64 {
	return (nsEntry + sum(examples)*nsPLL*float64(r.NVis)*float64(r.NHid+pllPerUnit)) * 1e-9
}

func reconWork(r *models.RBM, _ *ReconSettings, examples []int) float64 {
	return (nsEntry + sum(examples)*(nsReconWeight*float64(r.NVis)*float64(r.NHid)+nsReconUnit*float64(r.NVis+r.NHid))) * 1e-9
}
