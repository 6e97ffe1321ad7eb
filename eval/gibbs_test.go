package eval

import (
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"github.com/logz-ml/logz/internal/nmath"
	"github.com/logz-ml/logz/models"
)

// exactMoments returns E_p[F], sd_p[F] and E_p[v] of a tiny RBM by
// enumeration of every visible state.
func exactMoments(m *models.RBM) (meanF, sdF float64, meanV []float64) {
	lp := exactLogP(m)
	vs := allStates(m.NVis)
	meanV = make([]float64, m.NVis)
	sq := 0.0
	for s, v := range vs {
		p := math.Exp(lp[s])
		f := m.FreeEnergy(toF64(v), nil)
		meanF += p * f
		sq += p * f * f
		for i, x := range v {
			meanV[i] += p * float64(x)
		}
	}
	return meanF, math.Sqrt(sq - meanF*meanF), meanV
}

// exactStart draws chain starts from p itself, by inverting the CDF of the
// enumerated distribution.
func exactStart(m *models.RBM) Start {
	lp := exactLogP(m)
	vs := allStates(m.NVis)
	cdf := make([]float64, len(lp))
	acc := 0.0
	for s, l := range lp {
		acc += math.Exp(l)
		cdf[s] = acc
	}
	return StartFunc(func(_ int, v []uint8, rng *rand.Rand) {
		s := min(sort.SearchFloat64s(cdf, rng.Float64()*acc), len(cdf)-1)
		copy(v, vs[s])
	})
}

// TestGibbsReachesStationaryMoments: after enough sweeps from uniform
// starts, the chains' mean free energy and mean p(v|h) equal E_p[F] and
// E_p[v] by enumeration, within 4 standard errors (from the exact sd of F
// and the sample sd of the means; chains are independent).
func TestGibbsReachesStationaryMoments(t *testing.T) {
	m := cslTestRBM(10, 4, 1, 0.5, 3)
	wantF, sdF, wantV := exactMoments(m)
	g := Gibbs{Chains: 4000, Steps: 30, Seed: 5, Workers: 2, Means: true}
	r, err := g.Run(m, UniformStart)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := r.MeanF(g.Steps)
	if tol := 4 * sdF / math.Sqrt(float64(g.Chains)); math.Abs(got-wantF) > tol {
		t.Errorf("mean F after %d sweeps = %.4f, exact E_p[F] = %.4f (tolerance %.4f)", g.Steps, got, wantF, tol)
	}
	col := make([]float64, g.Chains)
	for i := range m.NVis {
		for c := range g.Chains {
			col[c] = r.Means[c*m.NVis+i]
		}
		mu, se := meanSE(col)
		if math.Abs(mu-wantV[i]) > 4*se {
			t.Errorf("unit %d: mean p(v=1|h) = %.4f ± %.4f, exact E_p[v] = %.4f", i, mu, se, wantV[i])
		}
	}
	// The recorded free energy is the final state's.
	for c := range g.Chains {
		v := toF64(r.Final[c*m.NVis : (c+1)*m.NVis])
		if f := m.FreeEnergy(v, nil); math.Abs(f-r.F[g.Steps*g.Chains+c]) > 1e-9 {
			t.Fatalf("chain %d: recorded F %.12g, F(final state) %.12g", c, r.F[g.Steps*g.Chains+c], f)
		}
	}
}

// TestGibbsIndependentOfWorkers: chain c's streams are keyed by c, so the
// result is the same with any number of workers.
func TestGibbsIndependentOfWorkers(t *testing.T) {
	m := cslTestRBM(12, 5, 1, 0.5, 4)
	var runs []*GibbsResult
	for _, w := range []int{1, 3, 8} {
		r, err := Gibbs{Chains: 37, Steps: 9, Seed: 11, Workers: w, Means: true}.Run(m, UniformStart)
		if err != nil {
			t.Fatal(err)
		}
		runs = append(runs, r)
	}
	for _, r := range runs[1:] {
		if !slices.Equal(r.F, runs[0].F) || !slices.Equal(r.Final, runs[0].Final) || !slices.Equal(r.Means, runs[0].Means) {
			t.Fatal("the chains depend on the number of workers")
		}
	}
}

// TestMixingExactVersusRandom: on a sharply peaked 10-unit RBM, chains
// started from exact samples of p are at the long-run level from sweep 0,
// chains started from uniform states are not (they need ≥ 1 sweep), and
// the level is E_p[F] by enumeration within 4 of its standard errors.
func TestMixingExactVersusRandom(t *testing.T) {
	m := cslTestRBM(10, 4, 2, 2, 8)
	wantF, sdF, _ := exactMoments(m)
	g := Gibbs{Chains: 500, Steps: 100, Seed: 21, Workers: 2}
	res, err := g.Mixing(m, []string{"exact", "random"}, []Start{exactStart(m), UniformStart})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("E_p[F] = %.4f (sd %.4f); level %.4f ± %.4f from sweep %d", wantF, sdF, res.Level, res.LevelSE, res.TailFrom)
	for _, r := range res.Rows {
		t.Logf("%-6s steps %d, F(0) = %.3f ± %.3f, final %.4f ± %.4f", r.Start, r.Steps, r.MeanF[0], r.SE[0], r.FinalF, r.FinalSE)
	}
	if math.Abs(res.Level-wantF) > 4*res.LevelSE {
		t.Errorf("level %.4f ± %.4f, exact E_p[F] %.4f", res.Level, res.LevelSE, wantF)
	}
	if s := res.Rows[0].Steps; s != 0 {
		t.Errorf("chains started from p reach the level after %d sweeps, want 0", s)
	}
	if s := res.Rows[1].Steps; s < 1 {
		t.Errorf("chains started from uniform states reach the level after %d sweeps, want ≥ 1", s)
	}
	for _, r := range res.Rows {
		if !r.Agrees {
			t.Errorf("%s: tail level %.4f ± %.4f disagrees with the pooled %.4f ± %.4f", r.Start, r.TailF, r.TailSE, res.Level, res.LevelSE)
		}
	}
}

// TestMixingFlagsUnmixedStarts: with no sweeps that mix (Steps = 1 on the
// peaked RBM, tail = the last sweep), a uniform start and an exact start
// do not share a level, and Agrees says so: the exact start's level is
// E_p[F], the uniform start's is the mean F after one sweep from uniform,
// several standard errors apart.
func TestMixingFlagsUnmixedStarts(t *testing.T) {
	m := cslTestRBM(10, 4, 2, 2, 8)
	g := Gibbs{Chains: 500, Steps: 1, Seed: 21, Workers: 2}
	res, err := g.Mixing(m, []string{"exact", "random"}, []Start{exactStart(m), UniformStart})
	if err != nil {
		t.Fatal(err)
	}
	if res.Rows[0].Agrees && res.Rows[1].Agrees {
		t.Errorf("after one sweep both starts agree with the pooled level %.4f: exact %.4f ± %.4f, random %.4f ± %.4f",
			res.Level, res.Rows[0].TailF, res.Rows[0].TailSE, res.Rows[1].TailF, res.Rows[1].TailSE)
	}
}

func TestGibbsRejectsBadSizes(t *testing.T) {
	m := cslTestRBM(4, 2, 1, 1, 1)
	for _, g := range []Gibbs{{Chains: 0, Steps: 1}, {Chains: 1, Steps: -1}, {Chains: MaxGibbsChains, Steps: MaxGibbsSteps}} {
		if _, err := g.Run(m, UniformStart); err == nil {
			t.Errorf("%+v accepted", g)
		}
	}
	if _, err := (Gibbs{Chains: 2, Steps: 0}).Mixing(m, []string{"a"}, []Start{UniformStart}); err == nil {
		t.Error("mixing with 0 sweeps accepted")
	}
}

// TestGibbsWeightlessModel: an RBM whose weights are all zero (v and h
// independent) used to panic in the chain's hidden-to-visible sums; its
// p(v_i = 1 | h) is σ(a_i) whatever h is.
func TestGibbsWeightlessModel(t *testing.T) {
	m := models.NewRBM(4, 3)
	m.VBias[0], m.VBias[2], m.HBias[1] = 0.5, -1.25, 0.3
	r, err := Gibbs{Chains: 3, Steps: 5, Seed: 1, Workers: 2, Means: true}.Run(m, UniformStart)
	if err != nil {
		t.Fatal(err)
	}
	for c := range 3 {
		for i, a := range m.VBias {
			if got, want := r.Means[c*4+i], nmath.Sigmoid(a); math.Abs(got-want) > 1e-15 {
				t.Errorf("chain %d: p(v_%d=1|h) = %v, want σ(%v) = %v", c, i, got, a, want)
			}
		}
	}
}
