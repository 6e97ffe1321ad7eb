package eval

import (
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/logz-ml/logz/inference"
	"github.com/logz-ml/logz/models"
)

// TestLogRatioGibbsUnbiased checks E[w] = Z_B/Z_A for runs started by
// Gibbs chains of A (12×8 → 12×10, exact log Z by enumeration) at K = 2
// and K = 10, where the annealing cannot repair a wrong start: with 50
// sweeps the chains have reached p_A and the mean weight is the exact
// ratio within 4 standard errors (checkMeanWeight); the chains' free-energy
// drift is within 3 standard errors of 0 and raises no warning about it.
// Mutation check: starting the annealing at the uniform state (skipping the
// sweeps) or sweeping with B's kernel moves the mean weight by tens of SE.
func TestLogRatioGibbsUnbiased(t *testing.T) {
	mA, mB := testRBM(12, 8, 0.5, 0.4, 51), testRBM(12, 10, 0.5, 0.4, 52)
	truth := exactLogZ(t, mB) - exactLogZ(t, mA)
	for _, K := range []int{2, 10} {
		r, err := AIS{Runs: 40000, Betas: inference.LinearSchedule(K), Seed: uint64(20 + K)}.LogRatioGibbs(mA, mB, 50)
		if err != nil {
			t.Fatal(err)
		}
		name := "K=" + strconv.Itoa(K)
		checkMeanWeight(t, name, r, truth)
		if r.LogZBase != 0 || r.LogZ != r.LogRatio || r.GibbsSweeps != 50 {
			t.Errorf("%s: LogZBase %v, LogZ %v, LogRatio %v, GibbsSweeps %d; want 0, LogZ = LogRatio, 50", name, r.LogZBase, r.LogZ, r.LogRatio, r.GibbsSweeps)
		}
		t.Logf("%s: drift %+.4f ± %.4f", name, r.Drift, r.DriftSE)
		if !(r.DriftSE > 0) || math.Abs(r.Drift) > 3*r.DriftSE || slices.ContainsFunc(r.Warnings, func(w string) bool { return strings.Contains(w, "Gibbs") }) {
			t.Errorf("%s: drift %v ± %v, warnings %q", name, r.Drift, r.DriftSE, r.Warnings)
		}
	}
}

// TestLogRatioGibbsMatchesExact: 1,000 runs of 100 β (linear) from Gibbs
// starts of 200 sweeps give log Z_B − log Z_A of 12×8 → 12×10 within the
// ±3σ̂ band of the estimate, and the band is narrow enough to mean
// something. Mutation check: annealing from the uniform states (skipping
// the sweeps) gives +0.11 nats, from chains of B +0.15, both outside the
// band (±0.04).
func TestLogRatioGibbsMatchesExact(t *testing.T) {
	mA, mB := testRBM(12, 8, 0.8, 0.4, 53), testRBM(12, 10, 0.8, 0.4, 54)
	truth := exactLogZ(t, mB) - exactLogZ(t, mA)
	r, err := AIS{Runs: 1000, Betas: inference.LinearSchedule(100), Seed: 4}.LogRatioGibbs(mA, mB, 200)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("log r̂ %.4f [%.4f, %.4f], exact %.4f, ESS %.0f, drift %+.3f ± %.3f", r.LogRatio, r.LogZLo3, r.LogZHi3, truth, r.ESS, r.Drift, r.DriftSE)
	if !(r.LogZLo3 <= truth && truth <= r.LogZHi3) {
		t.Errorf("exact %.4f outside the ±3σ̂ band [%.4f, %.4f] of %.4f", truth, r.LogZLo3, r.LogZHi3, r.LogRatio)
	}
	if w := r.LogZHi3 - r.LogZLo3; w > 0.2 {
		t.Errorf("band width %.3f nats: too wide for the check to mean anything", w)
	}
}

// TestLogRatioGibbsWorkers: the log weights, the drift and the estimate
// are identical under GOMAXPROCS 1 and 2 (Workers 0) and with Workers 3:
// every run draws from its own generator keyed by (Seed, run). Mutation
// check: keying the generators by worker breaks it.
func TestLogRatioGibbsWorkers(t *testing.T) {
	mA, mB := testRBM(12, 8, 0.5, 0.4, 51), testRBM(12, 10, 0.5, 0.4, 52)
	run := func(procs, workers int) AISResult {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		r, err := AIS{Runs: 9, Betas: inference.LinearSchedule(100), Seed: 8, Workers: workers}.LogRatioGibbs(mA, mB, 30)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	one := run(1, 0)
	for _, c := range []struct{ procs, workers int }{{2, 0}, {2, 3}} {
		r := run(c.procs, c.workers)
		if !slices.Equal(r.LogW, one.LogW) || r.LogRatio != one.LogRatio || r.Drift != one.Drift || r.DriftSE != one.DriftSE {
			t.Errorf("GOMAXPROCS %d, Workers %d: log w %v, drift %v; GOMAXPROCS 1: %v, %v", c.procs, c.workers, r.LogW, r.Drift, one.LogW, one.Drift)
		}
	}
}

// TestLogRatioGibbsDriftWarning: chains of 1 sweep from uniform states of
// a sparse model (visible biases −2) are far from p_A, and the drift
// between sweep 0 and sweep 1 is flagged; 100 sweeps are not. Mutation
// check: recording the half-way free energy after the last sweep instead
// makes the drift 0 and the warning vanish.
func TestLogRatioGibbsDriftWarning(t *testing.T) {
	mA := testRBM(16, 12, 0.3, 0.2, 55)
	for i := range mA.VBias {
		mA.VBias[i] -= 2
	}
	mB := testRBM(16, 10, 0.3, 0.2, 56)
	for _, c := range []struct {
		sweeps int
		warn   bool
	}{{1, true}, {100, false}} {
		r, err := AIS{Runs: 100, Betas: inference.LinearSchedule(20), Seed: 2}.LogRatioGibbs(mA, mB, c.sweeps)
		if err != nil {
			t.Fatal(err)
		}
		warned := len(r.Warnings) == 1 && strings.Contains(r.Warnings[0], "Gibbs chains of A had not settled") && strings.Contains(r.Warnings[0], "sweeps 0 and 1")
		if c.sweeps > 1 {
			warned = len(r.Warnings) > 0
		}
		t.Logf("%d sweeps: drift %+.3f ± %.3f, warnings %q", c.sweeps, r.Drift, r.DriftSE, r.Warnings)
		if warned != c.warn {
			t.Errorf("%d sweeps: drift %+.3f ± %.3f, warnings %q; want a drift warning: %v", c.sweeps, r.Drift, r.DriftSE, r.Warnings, c.warn)
		}
	}
}

// TestLogRatioGibbsProgress: the start's sweeps count in the progress
// total, Runs·(sweeps + K), and the count ends there.
func TestLogRatioGibbsProgress(t *testing.T) {
	var last atomic.Int64
	mA, mB := testRBM(6, 4, 1, 1, 1), testRBM(6, 3, 1, 1, 2)
	_, err := AIS{Runs: 3, Betas: inference.LinearSchedule(2500), Workers: 2, Progress: func(done, total int64) {
		if total != 3*(2500+700) {
			t.Errorf("total %d, want %d", total, 3*(2500+700))
		}
		for {
			old := last.Load()
			if done <= old || last.CompareAndSwap(old, done) {
				break
			}
		}
	}}.LogRatioGibbs(mA, mB, 700)
	if err != nil {
		t.Fatal(err)
	}
	if last.Load() != 3*(2500+700) {
		t.Errorf("progress ended at %d", last.Load())
	}
}

// TestLogRatioGibbsBadInput: sweeps outside [1, MaxGibbsSteps], models
// with different visible units and a NaN weight are errors saying so; an
// A of 784×25 (no exact sampler) is accepted.
func TestLogRatioGibbsBadInput(t *testing.T) {
	mA, mB := testRBM(6, 4, 1, 1, 1), testRBM(6, 3, 1, 1, 2)
	nan := mA.Clone()
	nan.W[5] = math.NaN()
	for _, c := range []struct {
		name   string
		a, b   *models.RBM
		sweeps int
		want   string
	}{
		{"zero sweeps", mA, mB, 0, "0 Gibbs sweeps for the start of each run; want an integer in [1, 16777216]"},
		{"negative sweeps", mA, mB, -3, "-3 Gibbs sweeps"},
		{"too many sweeps", mA, mB, MaxGibbsSteps + 1, "want an integer in [1, 16777216]"},
		{"visible mismatch", mA, testRBM(7, 3, 1, 1, 2), 10, "model A has 6 visible units and model B 7"},
		{"NaN weight", nan, mB, 10, "W[1,1] is NaN"},
		{"nil B", mA, nil, 10, "nil model"},
	} {
		_, err := AIS{Runs: 2, Betas: inference.LinearSchedule(3)}.LogRatioGibbs(c.a, c.b, c.sweeps)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
	big, bigB := testRBM(784, 25, 0.01, 0.1, 1), testRBM(784, 30, 0.01, 0.1, 2)
	if HasExactSampler(big) {
		t.Error("HasExactSampler(784×25) = true")
	}
	if !HasExactSampler(testRBM(784, 20, 0.01, 0.1, 1)) || !HasExactSampler(models.NewRBM(784, 500)) {
		t.Error("HasExactSampler false for 784×20 or a weightless 784×500")
	}
	if _, err := (AIS{Runs: 2, Betas: inference.LinearSchedule(3)}).LogRatioGibbs(big, bigB, 2); err != nil {
		t.Errorf("784×25 A: %v", err)
	}
}
