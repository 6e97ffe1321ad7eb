package train

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/logz-ml/logz/models"
)

// vae32Pair returns two trainers of the same VAE X-hidden-Z (random
// parameters, an RBM(Z,H) prior or Bernoulli for H = 0, a baseline), one
// per precision, with the same state.
func vae32Pair(t *testing.T, X, Z, H int, hidden []int, opt VAEOptions) (f64, f32 *VAETrainer) {
	t.Helper()
	return vae32AuxPair(t, X, Z, H, hidden, opt, 0, 0)
}

// vae32AuxPair is vae32Pair with A auxiliary variables (nets of aH hidden
// units, random parameters; A = 0: none).
func vae32AuxPair(t *testing.T, X, Z, H int, hidden []int, opt VAEOptions, A, aH int) (f64, f32 *VAETrainer) {
	t.Helper()
	mk := func(prec string) *VAETrainer {
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
	return mk(PrecisionFloat64), mk(PrecisionFloat32)
}

// TestVAE32GradientMatchesFloat64 computes one minibatch's gradient by the
// batched float32 path and by the per-example float64 path from the same
// state and the same streams (so the same draws z, unless a uniform falls
// between the float32 and float64 σ(κ), which a test of this size does not
// meet) and requires every entry to agree within float32 rounding: each
// entry is a sum over the minibatch of products of chains of float32
// operations of relative error at most 2⁻²⁴ each, so the difference is
// bounded by K·2⁻²⁴ times the sum of the magnitudes of the terms. Here the
// rows are at most 80 and the widths at most 33, so the longest chain (a
// product of ≤ 33 terms, a sum over ≤ 80 rows, through two layers, σ,
// tanh and the signal) is shorter than K = 256, and the bound used is
// 256·2⁻²⁴·(max|g| + 1/rows) per array. Shapes with two hidden layers of
// widths that are not multiples of 16 exercise the padding and both
// product directions.
func TestVAE32GradientMatchesFloat64(t *testing.T) {
	data := vaePlanted(40, 9)
	for _, c := range []struct {
		X, Z, H int
		hidden  []int
		samples int
	}{{8, 4, 0, []int{10}, 1}, {8, 4, 3, []int{10}, 2}, {8, 6, 0, []int{21, 13}, 2}, {8, 5, 4, []int{17, 33}, 1}} {
		opt := vaeTestOptions(PriorTrainingChi2, 2)
		opt.Samples = c.samples
		opt.BatchSize = 40
		a, b := vae32Pair(t, c.X, c.Z, c.H, c.hidden, opt)
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
		name := fmt.Sprintf("X%d Z%d H%d hidden %v S%d", c.X, c.Z, c.H, c.hidden, c.samples)
		compare32(t, name, a, b, data, idx, float64(40*c.samples))
	}
}

// compare32 computes one minibatch's gradient with a (float64) and b
// (float32) and requires the sums and every gradient entry to agree within
// 256·2⁻²⁴·(max|g| + 1/rows) (TestVAE32GradientMatchesFloat64).
func compare32(t *testing.T, name string, a, b *VAETrainer, data rows, idx []int, rows float64) {
	t.Helper()
	fa, la, err := a.Gradient(data, idx, 3, 7)
	if err != nil {
		t.Fatal(err)
	}
	fb, lb, err := b.Gradient(data, idx, 3, 7)
	if err != nil {
		t.Fatal(err)
	}
	eps := 256 * math.Ldexp(1, -24)
	for _, s := range []struct {
		what string
		x, y float64
	}{{"Σ f", fa, fb}, {"Σ log p(x|z)", la, lb}, {"signal mean", a.SignalMean, b.SignalMean}, {"signal var", a.SignalVar, b.SignalVar}} {
		if math.Abs(s.x-s.y) > eps*math.Abs(s.x) {
			t.Errorf("%s: %s %v (float64) vs %v (float32)", name, s.what, s.x, s.y)
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
			t.Errorf("%s: %s gradient entry %d: %v (float64) vs %v (float32), |Δ| %.3g > %.3g", name, g.what, at, g.x[at], g.y[at], worst, tol)
		} else {
			t.Logf("%s: %s: max |Δ| %.3g (tolerance %.3g, max |g| %.3g)", name, g.what, worst, tol, big)
		}
	}
}

// TestVAE32AuxGradientMatchesFloat64 is TestVAE32GradientMatchesFloat64
// for models with auxiliary variables: the float32 path's draws (ε, then
// z's uniforms, from each example's stream) are the float64 path's, so
// every gradient, of q(a|x), the a-input net and p(a|x,z) too, agrees
// within float32 rounding. The longest chain (the score term through the
// encoder, ≤ 33 terms, Enc's two layers of ≤ 7, q's outputs, a sum over ≤ 80
// rows) stays below K = 256, so the bound is the plain test's. A = 3 and
// hidden widths not multiples of 16 exercise the padding of the dense
// input.
func TestVAE32AuxGradientMatchesFloat64(t *testing.T) {
	data := vaePlanted(40, 9)
	for _, c := range []struct {
		X, Z, H, A, aH int
		hidden         []int
		samples        int
	}{{8, 4, 0, 3, 5, []int{10}, 1}, {8, 4, 3, 2, 7, []int{10}, 2}, {8, 6, 0, 3, 4, []int{21, 13}, 2}, {8, 5, 4, 1, 3, []int{17, 33}, 1}} {
		opt := vaeTestOptions(PriorTrainingChi2, 2)
		opt.Samples = c.samples
		opt.BatchSize = 40
		a, b := vae32AuxPair(t, c.X, c.Z, c.H, c.hidden, opt, c.A, c.aH)
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
		name := fmt.Sprintf("X%d Z%d H%d A%d(%d) hidden %v S%d", c.X, c.Z, c.H, c.A, c.aH, c.hidden, c.samples)
		compare32(t, name, a, b, data, idx, float64(40*c.samples))
	}
}
