package train

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/logz-ml/logz/internal/kernel"
	"github.com/logz-ml/logz/models"
)

// vaeEnginePair returns two trainers in precision prec of the same VAE
// X-hidden-Z (random parameters, an RBM(Z,H) prior or Bernoulli for H = 0,
// a baseline, A auxiliary variables with nets of aH hidden units; A = 0:
// none) with the same state: one for the reference, one for the engine.
func vaeEnginePair(t *testing.T, X, Z, H int, hidden []int, opt VAEOptions, A, aH int, prec kernel.Precision) (ref, eng *VAETrainer) {
	t.Helper()
	mk := func(prec kernel.Precision) *VAETrainer {
		m, err := models.NewVAE(X, Z, hidden, H)
		if err != nil {
			t.Fatal(err)
		}
		if A > 0 {
			if err := m.AddAux(A, aH); err != nil {
				t.Fatal(err)
			}
		}
		o := opt
		o.Precision = prec
		tr, err := NewVAETrainer(m, o, 5)
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(11, 12))
		ps := [][]float64{m.Dec.Params(), m.Enc.Params(), m.PriorLogits, tr.Base.Params()}
		if r := m.Prior; r != nil {
			ps = append(ps, r.W, r.VBias, r.HBias)
		}
		if m.Aux != nil {
			for _, n := range m.Aux.Nets() {
				ps = append(ps, n.Params())
			}
		}
		for _, p := range ps {
			for i := range p {
				p[i] = 0.5 * rng.NormFloat64()
			}
		}
		// A running signal as after some steps, so that the normalisation
		// and the centring are exercised.
		tr.SignalMean, tr.SignalVar, tr.SignalSteps = -3, 4, 5
		return tr
	}
	return mk(prec), mk(prec)
}

// TestVAEEngineMatchesReference computes one minibatch's gradient by the
// batched engine and by the per-example float64 reference (vae_ref_test.go)
// from the same state and the same streams (so the same draws z and ε,
// unless a uniform falls between the engine's and the reference's σ(κ),
// which a test of this size does not meet), in each precision, and
// requires every entry to agree within the precision's rounding: each
// entry is a sum over the minibatch of products of chains of operations of
// relative error at most u each (u = 2⁻²⁴ in float32, 2⁻⁵³ in float64), so
// the difference is bounded by K·u times the sum of the magnitudes of the
// terms. Here the rows are at most 80 and the widths at most 33, so the
// longest chain (a product of ≤ 33 terms, a sum over ≤ 80 rows, through
// two layers, σ, tanh and the signal; with auxiliary variables the score
// term through the encoder, Enc's two layers of ≤ 7 and q's outputs) is
// shorter than K = 256, and the bound used is 256·u·(max|g| + 1/rows) per
// array. Shapes with two hidden layers of widths that are not multiples of
// 16 exercise the padding and both product directions; A = 3 and auxiliary
// widths not multiples of 16 the padding of the dense input; 40 inputs and
// 37 hidden units split the gradient's rows into several jobs (run by two
// workers; the longest chain here, a sum over ≤ 40 rows of products of
// ≤ 37 terms, is within K too).
// Mutations checked: the float64 engine's tanh rounded to float32 (fails at
// float64's bound), its log-likelihood without the −softplus of the off
// pixels (fails), the encoder's signal not normalised (fails in both).
func TestVAEEngineMatchesReference(t *testing.T) {
	planted := vaePlanted(40, 9)
	wide := bernoulliRows(40, 40, 0.3, rand.New(rand.NewPCG(3, 9)))
	for _, prec := range []kernel.Precision{kernel.Float64, kernel.Float32} {
		for _, c := range []struct {
			X, Z, H, A, aH int
			hidden         []int
			samples        int
		}{{8, 4, 0, 0, 0, []int{10}, 1}, {8, 4, 3, 0, 0, []int{10}, 2}, {8, 6, 0, 0, 0, []int{21, 13}, 2}, {8, 5, 4, 0, 0, []int{17, 33}, 1},
			{8, 4, 0, 3, 5, []int{10}, 1}, {8, 4, 3, 2, 7, []int{10}, 2}, {8, 6, 0, 3, 4, []int{21, 13}, 2}, {8, 5, 4, 1, 3, []int{17, 33}, 1},
			{40, 5, 0, 0, 0, []int{37}, 1}, {40, 5, 3, 2, 5, []int{37}, 1}} {
			data := planted
			if c.X != 8 {
				data = wide
			}
			opt := vaeTestOptions(PriorTrainingChi2, 2)
			opt.Samples = c.samples
			opt.BatchSize = 40
			a, b := vaeEnginePair(t, c.X, c.Z, c.H, c.hidden, opt, c.A, c.aH, prec)
			idx := make([]int, 40)
			for i := range idx {
				idx[i] = (7 * i) % 40
			}
			if a.M.Prior != nil { // the same negative phase: the fitter's draws
				for _, tr := range []*VAETrainer{a, b} {
					tr.qsrc.Seed(1, 2)
					if _, err := tr.Fit.Draw(tr.logp, tr.qrng); err != nil {
						t.Fatal(err)
					}
				}
			}
			name := fmt.Sprintf("%s X%d Z%d H%d A%d(%d) hidden %v S%d", prec, c.X, c.Z, c.H, c.A, c.aH, c.hidden, c.samples)
			compareEngine(t, name, prec, a, b, data, idx, float64(40*c.samples))
		}
	}
}

// compareEngine computes one minibatch's gradient with a (the reference)
// and b (the engine in precision prec) and requires the sums and every
// gradient entry to agree within 256·u·(max|g| + 1/rows)
// (TestVAEEngineMatchesReference).
func compareEngine(t *testing.T, name string, prec kernel.Precision, a, b *VAETrainer, data rows, idx []int, rows float64) {
	t.Helper()
	fa, la := a.refGradient(data, idx, 3, 7)
	fb, lb, err := b.Gradient(data, idx, 3, 7)
	if err != nil {
		t.Fatal(err)
	}
	u := math.Ldexp(1, -53)
	if prec == kernel.Float32 {
		u = math.Ldexp(1, -24)
	}
	eps := 256 * u
	for _, s := range []struct {
		what string
		x, y float64
	}{{"Σ f", fa, fb}, {"Σ log p(x|z)", la, lb}, {"signal mean", a.SignalMean, b.SignalMean}, {"signal var", a.SignalVar, b.SignalVar}} {
		if math.Abs(s.x-s.y) > eps*math.Abs(s.x) {
			t.Errorf("%s: %s %v (reference) vs %v (engine)", name, s.what, s.x, s.y)
		}
	}
	ga, gb := a.active[0], b.active[0]
	arrays := []struct {
		what string
		x, y []float64
	}{{"decoder", ga.gDec, gb.gDec}, {"encoder", ga.gEnc, gb.gEnc}, {"baseline", ga.gBase, gb.gBase},
		{"prior W", ga.prior.gW, gb.prior.gW}, {"prior a", ga.prior.gA, gb.prior.gA}, {"prior c", ga.prior.gB, gb.prior.gB}, {"prior logits", ga.gLog, gb.gLog}}
	if ga.ax != nil {
		for i, what := range []string{"q(a|x)", "Enc (a-input)", "p(a|x,z)"} {
			arrays = append(arrays, struct {
				what string
				x, y []float64
			}{what, ga.ax.g[i], gb.ax.g[i]})
		}
	}
	for _, g := range arrays {
		big := 0.0
		for _, v := range g.x {
			big = max(big, math.Abs(v))
		}
		tol := eps * (big + 1/rows)
		worst, at := 0.0, -1
		for i := range g.x {
			if d := math.Abs(g.x[i] - g.y[i]); d > worst {
				worst, at = d, i
			}
		}
		if worst > tol {
			t.Errorf("%s: %s gradient entry %d: %v (reference) vs %v (engine), |Δ| %.3g > %.3g", name, g.what, at, g.x[at], g.y[at], worst, tol)
		} else {
			t.Logf("%s: %s: max |Δ| %.3g (tolerance %.3g, max |g| %.3g)", name, g.what, worst, tol, big)
		}
	}
}

// TestVAEEngineZPaths checks both ways of the float32 decoder's first
// layer and its ∂W_0 on the draws z against the reference: dense products
// (zDenseMin 0) and row sums (zDenseMin above 1), on a shape whose
// gradient rows split into several jobs and one with two hidden layers,
// and that each setting took its path. Mutations checked: the transpose of
// z for ∂W_0 left out (fails with products), the row-sum jobs of the
// deferred first layer left out (fails with row sums).
func TestVAEEngineZPaths(t *testing.T) {
	defer func(m float64) { zDenseMin = m }(zDenseMin)
	wide := bernoulliRows(40, 40, 0.3, rand.New(rand.NewPCG(3, 9)))
	for _, dense := range []bool{true, false} {
		zDenseMin = 2
		if dense {
			zDenseMin = 0
		}
		for _, c := range []struct {
			Z, H   int
			hidden []int
		}{{30, 0, []int{37}}, {7, 3, []int{21, 13}}} {
			opt := vaeTestOptions(PriorTrainingChi2, 2)
			opt.BatchSize = 40
			a, b := vaeEnginePair(t, 40, c.Z, c.H, c.hidden, opt, 0, 0, kernel.Float32)
			idx := make([]int, 40)
			for i := range idx {
				idx[i] = (7 * i) % 40
			}
			if a.M.Prior != nil {
				for _, tr := range []*VAETrainer{a, b} {
					tr.qsrc.Seed(1, 2)
					if _, err := tr.Fit.Draw(tr.logp, tr.qrng); err != nil {
						t.Fatal(err)
					}
				}
			}
			name := fmt.Sprintf("dense %v Z%d H%d hidden %v", dense, c.Z, c.H, c.hidden)
			compareEngine(t, name, kernel.Float32, a, b, wide, idx, 40)
			if got := b.eng.(*vaeEngine[float32]).zDense; got != dense {
				t.Errorf("%s: the step took zDense = %v", name, got)
			}
		}
	}
}
