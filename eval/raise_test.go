package eval

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/logz-ml/logz/data"
	"github.com/logz-ml/logz/inference"
	"github.com/logz-ml/logz/internal/nmath"
	"github.com/logz-ml/logz/models"
)

// annealedModelProb returns p_ann(v) for every visible state of a tiny RBM:
// the distribution of v_K for v_0 ~ p_0 (independent Bernoulli(σ(aA))) and
// v_k ~ T_k(·|v_{k−1}), where T_β(v'|v) = Σ_h Π_j Bern(h_j; σ(β(b_j + W_{:,j}ᵀv)))
// · Π_i Bern(v'_i; σ((1−β)aA_i + β(a_i + W_{i,:}h))) is the block-Gibbs kernel
// of the 2008 path. Written from the formulas, independently of inference:
// the product p_0 T_1 ⋯ T_K sums over every state path of the chain.
func annealedModelProb(m *models.RBM, aA, betas []float64) []float64 {
	D, H := m.NVis, m.NHid
	nv, nh := 1<<D, 1<<H
	bern := func(bit float64, logit float64) float64 {
		if bit == 1 {
			return nmath.Sigmoid(logit)
		}
		return nmath.Sigmoid(-logit)
	}
	bit := func(s, i int) float64 { return float64(s >> i & 1) }
	p := make([]float64, nv)
	for s := range nv {
		p[s] = 1
		for i := range D {
			p[s] *= bern(bit(s, i), aA[i])
		}
	}
	for _, beta := range betas[1:] {
		next := make([]float64, nv)
		for s := range nv {
			if p[s] == 0 {
				continue
			}
			for hs := range nh {
				ph := 1.0
				for j := range H {
					x := m.HBias[j]
					for i := range D {
						x += bit(s, i) * m.W[i*H+j]
					}
					ph *= bern(bit(hs, j), beta*x)
				}
				for t := range nv {
					pv := 1.0
					for i := range D {
						y := m.VBias[i]
						for j := range H {
							y += m.W[i*H+j] * bit(hs, j)
						}
						pv *= bern(bit(t, i), (1-beta)*aA[i]+beta*y)
					}
					next[t] += p[s] * ph * pv
				}
			}
		}
		p = next
	}
	return p
}

// repeated is one example repeated n times: RAISE with one chain per
// example then returns n independent log weights.
type repeated struct {
	v []uint8
	n int
}

func (r repeated) Len() int        { return r.n }
func (r repeated) Row(int) []uint8 { return r.v }

// TestRAISEUnbiased checks E[w] = p_ann(v) for K = 1, 2 and 3 on a 4×3 RBM,
// from the base-rate and the uniform starts, with p_ann summed over every
// path of the annealing chain. The tolerance is 4 standard errors of the
// mean weight, and the test requires that SE to be small enough to see a
// 5% bias. Both precisions of the chain are tested.
func TestRAISEUnbiased(t *testing.T) {
	m := testRBM(4, 3, 1.5, 1.0, 7)
	aA := []float64{-0.7, 0.3, -1.2, 0.5}
	const n = 40000
	for _, prec := range precisions {
		for _, start := range []struct {
			name string
			base []float64
		}{{"base-rate", aA}, {"uniform", nil}} {
			a0 := start.base
			if a0 == nil {
				a0 = make([]float64, 4)
			}
			for _, K := range []int{1, 2, 3} {
				betas := inference.LinearSchedule(K)
				pann := annealedModelProb(m, a0, betas)
				for _, s := range []int{0b0000, 0b1011, 0b0110} {
					v := []uint8{uint8(s & 1), uint8(s >> 1 & 1), uint8(s >> 2 & 1), uint8(s >> 3 & 1)}
					res, err := RAISE{Chains: 1, Betas: betas, BaseVBias: start.base, Seed: uint64(100*K + s), Precision: prec}.LogProb(m, repeated{v, n})
					if err != nil {
						t.Fatal(err)
					}
					var sum, sum2 float64
					for _, lw := range res.LogP {
						w := math.Exp(lw) / pann[s] // normalised: mean should be 1
						sum += w
						sum2 += w * w
					}
					mean := sum / n
					se := math.Sqrt((sum2/n - mean*mean) / (n - 1))
					if se > 0.0125 {
						t.Errorf("%s K=%d v=%04b: SE %.3g too large to detect a 5%% bias", start.name, K, s, se)
					}
					if math.Abs(mean-1) > 4*se {
						t.Errorf("%s %s K=%d v=%04b: mean weight / p_ann = %.4f ± %.4f", prec, start.name, K, s, mean, se)
					}
				}
			}
		}
	}
}

// TestRAISEConvergesFromBelow: with many β, RAISE's mean log p̂ approaches
// the exact mean log p(v) from below (within 0.1 nats), while AIS's
// log-likelihood approaches it from above (its log Ẑ from below).
func TestRAISEConvergesFromBelow(t *testing.T) {
	m := testRBM(20, 10, 0.7, 0.5, 45)
	lz := exactLogZ(t, m)
	rng := rand.New(rand.NewPCG(3, 3))
	var xs rowSet
	for range 10 {
		x := make([]uint8, 20)
		for i := range x {
			if rng.Float64() < 0.4 {
				x[i] = 1
			}
		}
		xs = append(xs, x)
	}
	exact := MeanLogUnnorm(m, xs).Mean - lz
	base := make([]float64, 20)
	for i := range base {
		base[i] = -0.4
	}
	res, err := RAISE{Chains: 20, Betas: inference.LinearSchedule(3000), BaseVBias: base, Seed: 9}.LogProb(m, xs)
	if err != nil {
		t.Fatal(err)
	}
	var v float64
	for _, se := range res.LogPSE {
		v += se * se
	}
	se := math.Sqrt(v) / float64(len(xs))
	t.Logf("K=3000: exact %.4f  RAISE %.4f ± %.4f", exact, res.Mean.Mean, se)
	if d := exact - res.Mean.Mean; d < -4*se || d > 0.1 {
		t.Errorf("RAISE mean log p̂ %.4f ± %.4f is not within [exact − 0.1, exact + 4 SE] of %.4f", res.Mean.Mean, se, exact)
	}

	// From their own sides: a single AIS run has E[log w] < log Z − log Z_0
	// and a single RAISE chain E[log w] < log p_ann(v) (Jensen; strict for
	// non-degenerate weights). With K = 20 the gaps are clear: check them to
	// 4 standard errors over 4,000 independent runs.
	few := inference.LinearSchedule(20)
	a, err := AIS{Runs: 4000, Betas: few, BaseVBias: base, Seed: 2}.LogZ(m)
	if err != nil {
		t.Fatal(err)
	}
	mw, sw := meanSE(a.LogW)
	gapAIS := lz - a.LogZBase - mw
	if gapAIS < 4*sw {
		t.Errorf("AIS K=20: E[log w] is %.4f ± %.4f below log Z/Z_0: not clearly below", gapAIS, sw)
	}
	r, err := RAISE{Chains: 1, Betas: few, BaseVBias: base, Seed: 2}.LogProb(m, repeated{xs[0], 4000})
	if err != nil {
		t.Fatal(err)
	}
	mr, sr := meanSE(r.LogP)
	exact0 := m.LogUnnorm(toFloat(xs[0]), nil) - lz
	if gapRAISE := exact0 - mr; gapRAISE < 4*sr {
		t.Errorf("RAISE K=20: E[log w] is %.4f ± %.4f below log p(v): not clearly below", gapRAISE, sr)
	}
	t.Logf("K=20: AIS E[log w] %.4f below log Z/Z_0 (so AIS log-lik above); RAISE E[log w] %.4f below log p(v)", gapAIS, exact0-mr)
}

func toFloat(x []uint8) []float64 {
	out := make([]float64, len(x))
	for i, b := range x {
		out[i] = float64(b)
	}
	return out
}

func TestRAISEDeterministicAcrossWorkers(t *testing.T) {
	m := testRBM(8, 5, 1, 0.5, 2)
	xs := rowSet{{1, 0, 1, 0, 1, 0, 1, 0}, {0, 0, 0, 1, 1, 1, 0, 0}, {1, 1, 1, 1, 0, 0, 0, 0}}
	var ref []float64
	for _, w := range []int{1, 2, 3} {
		r, err := RAISE{Chains: 7, Betas: inference.LinearSchedule(50), Seed: 5, Workers: w}.LogProb(m, xs)
		if err != nil {
			t.Fatal(err)
		}
		if ref == nil {
			ref = r.LogP
			continue
		}
		for i := range ref {
			if ref[i] != r.LogP[i] {
				t.Fatalf("workers=%d: LogP[%d] %v != %v", w, i, r.LogP[i], ref[i])
			}
		}
	}
}

// TestReverseChainLimits: examples × chains beyond MaxReverseChains, and a
// DBN's kept top states beyond MaxReverseChainBytes, are errors naming the
// counts before the log weights are allocated (2,000 examples × 100,000
// chains once asked for 1.6 GB up front, a DBN whose top RBM has 500 lower
// units at 100 × 100,000 for 5 GB).
func TestReverseChainLimits(t *testing.T) {
	x := &data.Set{N: 2000, D: 2, X: make([]uint8, 4000)}
	m := models.NewRBM(2, 2)
	_, err := RAISE{Chains: 100_000, Betas: inference.LinearSchedule(2)}.LogProb(m, x)
	if err == nil || !strings.HasPrefix(err.Error(), "RAISE: 2000 examples × 100000 chains = 200000000 reverse chains is more than the limit of 134217728 (eval.MaxReverseChains") {
		t.Errorf("rbm: %v", err)
	}
	d, err := models.NewDBN(2, 500, 3)
	if err != nil {
		t.Fatal(err)
	}
	_, err = DBNRAISE{Samples: 100_000, Betas: inference.LinearSchedule(2)}.LogProb(d, x.Limit(100))
	if err == nil || !strings.HasPrefix(err.Error(), "DBN RAISE: 100 examples × 100000 chains × 500 units = 5000000000 bytes of chain states is more than the limit of 1073741824 (eval.MaxReverseChainBytes)") {
		t.Errorf("dbn: %v", err)
	}
	if err := CheckReverseChains(1342, 100_000, 8); err != nil {
		t.Errorf("within the limits: %v", err)
	}
}
