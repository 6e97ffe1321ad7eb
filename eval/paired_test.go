package eval

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/logz-ml/logz/inference"
	"github.com/logz-ml/logz/internal/nmath"
	"github.com/logz-ml/logz/models"
)

// pairedModels returns A (20 visible, 10 hidden), B (A with every weight
// moved by N(0, 0.1²): a model that differs a little) and the data
// distribution C (a planted 20×8 RBM).
func pairedModels() (a, b, c *models.RBM) {
	a = cslTestRBM(20, 10, 0.4, 0.3, 1)
	b = a.Clone()
	rng := rand.New(rand.NewPCG(2, 7))
	for i := range b.W {
		b.W[i] += 0.1 * rng.NormFloat64()
	}
	return a, b, cslTestRBM(20, 8, 0.5, 0.3, 3)
}

// populationDelta is E_{v~p_C}[log p_B(v) − log p_A(v)], by enumerating
// all 2^D visible states: what the paired verdict's interval is about
// (the examples are a sample of p_C).
func populationDelta(a, b, c *models.RBM) float64 {
	n := 1 << a.NVis
	la, lb, lc := make([]float64, n), make([]float64, n), make([]float64, n)
	v := make([]float64, a.NVis)
	sa, sb, sc := make([]float64, a.NHid), make([]float64, b.NHid), make([]float64, c.NHid)
	for s := range n {
		for i := range v {
			v[i] = float64(s >> i & 1)
		}
		la[s], lb[s], lc[s] = a.LogUnnorm(v, sa), b.LogUnnorm(v, sb), c.LogUnnorm(v, sc)
	}
	za, zb, zc := nmath.LogSumExp(la), nmath.LogSumExp(lb), nmath.LogSumExp(lc)
	var d float64
	for s := range n {
		d += math.Exp(lc[s]-zc) * ((lb[s] - zb) - (la[s] - za))
	}
	return d
}

// TestPairedCoverage: over 200 seeds, each with its own N = 400 examples
// drawn exactly from C and its own AIS ratio (10 runs × 100 β from exact
// draws of A), the interval Δ ± 1.96σ covers the exact population Δ in
// about 95% of the seeds. The count of covering seeds is binomial(200,
// 0.95) for an honest σ: its standard deviation is √(0.95·0.05/200) =
// 0.0154, so the coverage must lie in 0.95 ± 3·0.0154 = [0.904, 0.996]
// (a 3σ band: a correct σ fails it about 3 times in 1000). Both parts of
// σ must matter (neither below a fifth of the other on average), or the
// test would check only one of them.
func TestPairedCoverage(t *testing.T) {
	if testing.Short() {
		t.Skip("200 AIS ratios")
	}
	a, b, c := pairedModels()
	truth := populationDelta(a, b, c)
	samp, _, err := newEnumSampler(c, 1)
	if err != nil {
		t.Fatal(err)
	}
	const seeds, n = 200, 400
	covered := 0
	var seP, seR float64
	for seed := range uint64(seeds) {
		rng := rand.New(rand.NewPCG(seed, 99))
		x := make(cslRows, n)
		for i := range x {
			x[i] = make([]uint8, a.NVis)
			samp.SampleVisible(x[i], rng)
		}
		p := PairedRBM{AIS: AIS{Runs: 10, Betas: inference.LinearSchedule(100), Seed: seed + 1, Workers: 1}, Start: RatioExact}
		res, err := p.Compare(a, b, x)
		if err != nil {
			t.Fatal(err)
		}
		if res.Exact || res.Ratio == nil {
			t.Fatal("MaxExactUnits is 0: the ratio must come from AIS")
		}
		if math.Abs(res.Delta-truth) <= VerdictZ*res.Sigma {
			covered++
		}
		seP += res.SEPaired / seeds
		seR += res.SigmaRatio / seeds
	}
	cov := float64(covered) / seeds
	band := 3 * math.Sqrt(0.95*0.05/seeds)
	t.Logf("truth Δ = %.4f; coverage %.3f (band 0.95 ± %.3f); mean SE_paired %.4f, mean σ_ratio %.4f", truth, cov, band, seP, seR)
	if math.Abs(cov-0.95) > band {
		t.Errorf("coverage of Δ ± 1.96σ is %.3f, outside 0.95 ± %.3f", cov, band)
	}
	if seP < seR/5 || seR < seP/5 {
		t.Errorf("mean SE_paired %.4f and σ_ratio %.4f: one part of σ is negligible, so the test checks only the other", seP, seR)
	}
}

// TestPairedExact: with both log Z enumerable the ratio is exact (σ_ratio
// 0, no AIS) and Δ equals the brute-force mean of log p_B − log p_A over the
// examples to rounding.
func TestPairedExact(t *testing.T) {
	a, b, c := pairedModels()
	samp, _, err := newEnumSampler(c, 1)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(5, 5))
	x := make(cslRows, 50)
	for i := range x {
		x[i] = make([]uint8, a.NVis)
		samp.SampleVisible(x[i], rng)
	}
	res, err := PairedRBM{MaxExactUnits: 20}.Compare(a, b, x)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Exact || res.SigmaRatio != 0 || res.Ratio != nil {
		t.Fatalf("want an exact ratio, got %+v", res)
	}
	za, zb := exactLogZ(t, a), exactLogZ(t, b)
	var want float64
	sa, sb := make([]float64, a.NHid), make([]float64, b.NHid)
	for _, r := range x {
		v := toF64(r)
		want += ((b.LogUnnorm(v, sb) - zb) - (a.LogUnnorm(v, sa) - za)) / float64(len(x))
	}
	if d := math.Abs(res.Delta - want); d > 1e-9 {
		t.Errorf("Δ = %.12f, brute force %.12f", res.Delta, want)
	}
	if !strings.Contains(res.Verdict("A", "B"), "both log Z exact") {
		t.Errorf("verdict does not say the ratio is exact: %s", res.Verdict("A", "B"))
	}
}

// TestVerdictWords: beyond 1.96σ the better model is named, within it no
// difference is established.
func TestVerdictWords(t *testing.T) {
	for _, c := range []struct {
		d, s float64
		want string
	}{
		{1.3, 0.4, "B is better by 1.30 ± 0.40 nats (3.2σ)"},
		{-1.3, 0.4, "A is better by 1.30 ± 0.40 nats (3.2σ)"},
		{0.2, 0.4, "no difference established: 0.20 ± 0.40 nats (0.5σ)"},
		{0.78, 0.4, "no difference established: 0.78 ± 0.40 nats (1.9σ)"},
		{0.79, 0.4, "B is better by 0.79 ± 0.40 nats (2.0σ)"},
		{0.5, 0, "B is better by 0.50 ± 0.00 nats (σ = 0)"},
		{-0.018, 0.0136, "no difference established: -0.018 ± 0.014 nats (1.3σ)"},
	} {
		if got := Verdict("A", "B", c.d, c.s); got != c.want {
			t.Errorf("Verdict(%v, %v) = %q, want %q", c.d, c.s, got, c.want)
		}
	}
}

// TestPairedNotes: a ratio with an ESS below 10% of its runs (the
// fraction given) or Gibbs starts says so; an exact one has nothing to say.
func TestPairedNotes(t *testing.T) {
	low := Paired{MinESSFraction: 0.1, Ratio: &Ratio{Start: RatioExact, AIS: AISResult{ESS: 9.9, Runs: 100}}}
	if n := low.Notes(); len(n) != 1 || !strings.Contains(n[0], "ESS 9.9 is below 10% of its 100 runs") {
		t.Errorf("ESS 9.9 of 100: %q", n)
	}
	ok := Paired{MinESSFraction: 0.1, Ratio: &Ratio{Start: RatioExact, AIS: AISResult{ESS: 10, Runs: 100}}}
	if n := ok.Notes(); len(n) != 0 {
		t.Errorf("ESS 10 of 100: %q", n)
	}
	gibbs := Paired{Ratio: &Ratio{Start: RatioGibbs, AIS: AISResult{ESS: 50, Runs: 100, GibbsSweeps: 10000}}}
	if n := gibbs.Notes(); len(n) != 1 || !strings.Contains(n[0], "Gibbs chains of A were after 10000 sweeps") {
		t.Errorf("gibbs start: %q", n)
	}
	if n := (Paired{Exact: true}).Notes(); n != nil {
		t.Errorf("exact: %q", n)
	}
}
