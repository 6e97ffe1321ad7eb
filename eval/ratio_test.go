package eval

import (
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"github.com/logz-ml/logz/inference"
	"github.com/logz-ml/logz/internal/nmath"
	"github.com/logz-ml/logz/models"
	"github.com/logz-ml/logz/models/modeltest"
)

// ratioRBM is the d×h RBM of the ratio tests: N(0, w²) weights and N(0,
// b²) biases from the stream (seed, 17) (modeltest.RandomRBM; the models the
// ais-ratio estimator's numbers were pinned on).
func ratioRBM(d, h int, w, b float64, seed uint64) *models.RBM {
	return modeltest.RandomRBM(d, h, w, b, rand.New(rand.NewPCG(seed, 17)))
}

// TestEstimateRatioMatchesExact: log Z_B − log Z_A of two RBMs with
// different hidden sizes and exact log Z lies within the ±3σ̂ band of
// EstimateRatio, and the band is narrow enough to mean something (≤ 0.5
// nats); the start resolves as documented and LogZStart is the exact
// log Z of the start's model (NaN from Gibbs starts). Forward from exact
// draws (A = 10×6 enumerated; start auto), reversed (B = 22×5 enumerated),
// and from Gibbs chains of A: start auto on A = 22×22, which has no exact
// sampler, and start gibbs on the 10×6 A. Mutation checked: negating the
// reversed bands the other way round (Lo3 = −(Lo3 − b)) or resolving auto
// to exact for the 22×22 A fails.
func TestEstimateRatioMatchesExact(t *testing.T) {
	a22, b22 := ratioRBM(22, 22, 0.15, 0.3, 3), ratioRBM(22, 5, 0.5, 0.3, 4)
	a10, b10 := ratioRBM(10, 6, 0.6, 0.5, 1), ratioRBM(10, 9, 0.6, 0.5, 2)
	for _, c := range []struct {
		name        string
		mA, mB      *models.RBM
		start, kind string
	}{
		{"forward 10×6 → 10×9", a10, b10, RatioAuto, RatioExact},
		{"reversed 22×22 → 22×5", a22, b22, RatioReversed, RatioReversed},
		{"auto gibbs 22×22 → 22×5", a22, b22, RatioAuto, RatioGibbs},
		{"gibbs 10×6 → 10×9", a10, b10, RatioGibbs, RatioGibbs},
	} {
		t.Run(c.name, func(t *testing.T) {
			lzA, lzB := exactLogZ(t, c.mA), exactLogZ(t, c.mB)
			want := lzB - lzA
			r, err := AIS{Runs: 100, Betas: inference.LinearSchedule(1000), Seed: 11}.EstimateRatio(c.mA, c.mB, c.start, 1000)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("log Z_B − log Z_A = %.4f [%.4f, %.4f], exact %.4f, ESS %.0f", r.LogRatio, r.Lo3, r.Hi3, want, r.AIS.ESS)
			if !(r.Lo3 <= want && want <= r.Hi3) {
				t.Errorf("exact %.4f outside the ±3σ band [%.4f, %.4f] of %.4f", want, r.Lo3, r.Hi3, r.LogRatio)
			}
			if !(r.Lo1 >= r.Lo3 && r.Lo1 <= r.LogRatio && r.LogRatio <= r.Hi1 && r.Hi1 <= r.Hi3) {
				t.Errorf("bands out of order: %v %v %v %v %v", r.Lo3, r.Lo1, r.LogRatio, r.Hi1, r.Hi3)
			}
			if w := r.Hi3 - r.Lo3; w > 0.5 {
				t.Errorf("band width %.3f nats: too wide for the check to mean anything", w)
			}
			if r.Start != c.kind || r.Reversed != (c.kind == RatioReversed) {
				t.Errorf("start %s, reversed %v; want %s", r.Start, r.Reversed, c.kind)
			}
			switch c.kind {
			case RatioExact:
				if math.Abs(r.LogZStart-lzA) > 1e-9 {
					t.Errorf("LogZStart %v, want log Z_A %v", r.LogZStart, lzA)
				}
			case RatioReversed:
				if math.Abs(r.LogZStart-lzB) > 1e-9 {
					t.Errorf("LogZStart %v, want log Z_B %v", r.LogZStart, lzB)
				}
			default:
				if !math.IsNaN(r.LogZStart) || r.AIS.GibbsSweeps != 1000 {
					t.Errorf("LogZStart %v (want NaN), %d sweeps", r.LogZStart, r.AIS.GibbsSweeps)
				}
			}
		})
	}
}

// TestEstimateRatioWeightUnbiased checks E[w] = Z_B/Z_A (forward) and
// E[w] = Z_A/Z_B (reversed) for the weights EstimateRatio anneals with, at
// K = 2 and K = 10 where AIS is far from converged: in log space, the log
// of the mean weight minus the true log ratio is within 4 standard errors,
// the standard error being σ̂/r̂ from the weights' sample variance.
// Mutation checked: annealing the reversed start from A's draws (LogRatio(mA,
// mB) under start reversed) fails.
func TestEstimateRatioWeightUnbiased(t *testing.T) {
	for _, c := range []struct {
		name   string
		mA, mB *models.RBM
		start  string
	}{
		{"forward 6×3 → 6×5", ratioRBM(6, 3, 0.8, 0.5, 5), ratioRBM(6, 5, 0.8, 0.5, 6), RatioAuto},
		{"reversed 21×21 → 21×3", ratioRBM(21, 21, 0.15, 0.3, 7), ratioRBM(21, 3, 0.8, 0.3, 8), RatioReversed},
	} {
		truth := exactLogZ(t, c.mB) - exactLogZ(t, c.mA)
		for _, K := range []int{2, 10} {
			r, err := AIS{Runs: 40000, Betas: inference.LinearSchedule(K), Seed: uint64(100 + K)}.EstimateRatio(c.mA, c.mB, c.start, 1)
			if err != nil {
				t.Fatal(err)
			}
			want := truth
			if r.Reversed {
				want = -truth // the weights estimate Z_A/Z_B
			}
			st := nmath.Summarise(r.AIS.LogW)
			d := st.LogMean - want
			se := math.Exp(st.LogStdErr - st.LogMean)
			t.Logf("%s K=%d: log mean w − true = %+.4f, SE %.4f, ESS %.0f", c.name, K, d, se, st.ESS)
			if se > 0.03 {
				t.Errorf("%s K=%d: standard error %.3g too large for a meaningful test", c.name, K, se)
			}
			if math.Abs(d) > 4*se {
				t.Errorf("%s K=%d: log mean weight is %+.4f from the true log ratio, beyond 4 SE (%.4f)", c.name, K, d, 4*se)
			}
		}
	}
}

// TestEstimateRatioExactStartsPinned pins EstimateRatio with exact starts
// (start auto and exact on a 12×8 A, start reversed on a 22×22 A) to the
// numbers it gave (linux/amd64) before Gibbs starts were added: the exact
// paths must not change. Mutation check: resolving auto to gibbs, or
// negating the reversed bands the other way round, moves the numbers.
func TestEstimateRatioExactStartsPinned(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		t.Skip("pinned on amd64; architectures that fuse multiply-adds may round differently")
	}
	a := AIS{Runs: 16, Betas: inference.LinearSchedule(200), Seed: 5}
	fA, fB := ratioRBM(12, 8, 0.5, 0.4, 61), ratioRBM(12, 10, 0.5, 0.4, 62)
	rA, rB := ratioRBM(22, 22, 0.15, 0.3, 63), ratioRBM(22, 5, 0.5, 0.3, 64)
	for _, c := range []struct {
		start  string
		mA, mB *models.RBM
		want   [4]float64 // LogRatio, Lo3, Hi3, LogZStart
	}{
		{RatioAuto, fA, fB, [4]float64{-3.6949877297229343, -3.8550487543732501, -3.5570463904020677, 20.369816627821098}},
		{RatioExact, fA, fB, [4]float64{-3.6949877297229343, -3.8550487543732501, -3.5570463904020677, 20.369816627821098}},
		{RatioReversed, rA, rB, [4]float64{-9.4277909427871514, -9.4884925981399348, -9.363165109800704, 22.629124073489791}},
	} {
		r, err := a.EstimateRatio(c.mA, c.mB, c.start, 10000)
		if err != nil {
			t.Fatal(err)
		}
		if got := [4]float64{r.LogRatio, r.Lo3, r.Hi3, r.LogZStart}; got != c.want || r.Reversed != (c.start == RatioReversed) {
			t.Errorf("start %s: %.17g (reversed %v), pinned %.17g", c.start, got, r.Reversed, c.want)
		}
	}
}

// TestEstimateRatioRefusesStarts: exact and reversed starts without an
// exact sampler of A or B, and an unknown start, are errors saying so.
func TestEstimateRatioRefusesStarts(t *testing.T) {
	wide, small := ratioRBM(22, 22, 0.15, 0.3, 3), ratioRBM(22, 5, 0.5, 0.3, 4)
	a := AIS{Runs: 2, Betas: inference.LinearSchedule(2), Seed: 1}
	for _, c := range []struct {
		mA, mB *models.RBM
		start  string
		want   string
	}{
		{wide, small, RatioExact, "ratio: start exact needs exact draws of A, but A has non-zero weights and its smaller layer has 22 units, more than the 20 of an exact sampler"},
		{small, wide, RatioReversed, "ratio: start reversed needs exact draws of B, but B has non-zero weights"},
		{small, wide, "sideways", `ratio: start "sideways" is not one of auto, exact, gibbs, reversed`},
	} {
		if _, err := a.EstimateRatio(c.mA, c.mB, c.start, 1); err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("start %s: %v, want %q", c.start, err, c.want)
		}
	}
}
