package train

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/logz-ml/logz/internal/nmath"
	"github.com/logz-ml/logz/models"
)

// vaeTestOptions are small settings for the tiny VAEs of these tests.
func vaeTestOptions(prior string, workers int) VAEOptions {
	return VAEOptions{
		BatchSize: 20, LearningRate: 0.01, Samples: 2, Shuffle: true, Workers: workers,
		PriorTraining: prior, QSteps: 5, QSamples: 30, QComponents: 10, QLearningRate: 0.05,
		QDecay: 0.9, QInitStd: 0.1, Linearise: true, Chains: 30, GibbsSteps: 1,
		BaselineHidden: 6, SignalDecay: 0.8, SignalClip: 10,
	}
}

// tinyVAE returns a VAE X-5-Z with an RBM(Z,H) prior (H > 0) or a
// Bernoulli prior (H = 0) and random parameters, so that every gradient
// term is non-trivial.
func tinyVAE(t testing.TB, X, Z, H int, seed uint64) *models.VAE {
	t.Helper()
	m, err := models.NewVAE(X, Z, []int{5}, H)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(seed, 7))
	for _, p := range [][]float64{m.Dec.Params(), m.Enc.Params(), m.PriorLogits} {
		for i := range p {
			p[i] = 0.8 * rng.NormFloat64()
		}
	}
	if r := m.Prior; r != nil {
		for _, p := range [][]float64{r.W, r.VBias, r.HBias} {
			for i := range p {
				p[i] = 0.6 * rng.NormFloat64()
			}
		}
	}
	return m
}

// allStates returns every z ∈ {0,1}^Z.
func allStates(Z int) [][]uint8 {
	out := make([][]uint8, 1<<Z)
	for k := range out {
		z := make([]uint8, Z)
		for j := range z {
			z[j] = uint8(k >> j & 1)
		}
		out[k] = z
	}
	return out
}

// vaeExactLogZ is log Σ_z p̃(z) by enumeration (0 for a Bernoulli prior).
func vaeExactLogZ(m *models.VAE) float64 {
	if m.Prior == nil {
		return 0
	}
	s := m.NewScratch()
	var lp []float64
	for _, z := range allStates(m.NumLatent()) {
		lp = append(lp, m.LogPrior(s, z))
	}
	return nmath.LogSumExp(lp)
}

// exactLogPx is log p(x) = log Σ_z p̃(z) p(x|z) − log Z by enumeration, and
// exactELBO is Σ_z q(z|x) f(x,z) − log Z.
func exactLogPx(m *models.VAE, x []uint8, logZ float64) (logPx, elbo float64) {
	s := m.NewScratch()
	var terms []float64
	kappa := append([]float64(nil), m.EncoderLogits(s, x)...)
	for _, z := range allStates(m.NumLatent()) {
		lj := m.LogPrior(s, z) + m.LogLikelihood(s, x, z)
		terms = append(terms, lj)
		lq := models.BernoulliLogProb(z, kappa)
		elbo += math.Exp(lq) * (lj - lq)
	}
	return nmath.LogSumExp(terms) - logZ, elbo - logZ
}

// meanExact returns the mean exact log p(x) and ELBO over data.
func meanExact(m *models.VAE, data rows) (lp, elbo float64) {
	logZ := vaeExactLogZ(m)
	for _, x := range data {
		a, b := exactLogPx(m, x, logZ)
		lp += a
		elbo += b
	}
	return lp / float64(len(data)), elbo / float64(len(data))
}

// gradVec concatenates a task's data-term gradients: decoder, encoder,
// prior (W, a, c or logits).
func gradVec(w *vaeTask, dst []float64) []float64 {
	dst = dst[:0]
	for _, g := range [][]float64{w.gDec, w.gEnc, w.prior.gW, w.prior.gA, w.prior.gB, w.gLog} {
		dst = append(dst, g...)
	}
	return dst
}

// moments accumulates per-coordinate sums for means and standard errors.
type moments struct {
	n      int
	s, s2  []float64
	labels []string
}

func (m *moments) add(v []float64) {
	if m.s == nil {
		m.s, m.s2 = make([]float64, len(v)), make([]float64, len(v))
	}
	for i, x := range v {
		m.s[i] += x
		m.s2[i] += x * x
	}
	m.n++
}

func (m *moments) mean(i int) float64 { return m.s[i] / float64(m.n) }

func (m *moments) se(i int) float64 {
	n := float64(m.n)
	mu := m.s[i] / n
	return math.Sqrt(max(0, m.s2[i]/n-mu*mu) / (n - 1))
}

// totalVar is Σ_i Var of the coordinates in [lo, hi).
func (m *moments) totalVar(lo, hi int) float64 {
	v := 0.0
	for i := lo; i < hi; i++ {
		v += m.se(i) * m.se(i) * float64(m.n-1)
	}
	return v
}

// checkMatches requires every coordinate's mean within z standard errors
// of want (plus rounding), reporting the worst ones.
func checkMatches(t *testing.T, what string, m *moments, want []float64, lo, hi int, z float64) {
	t.Helper()
	bad := 0
	worst := 0.0
	for i := lo; i < hi; i++ {
		d := math.Abs(m.mean(i) - want[i])
		tol := z*m.se(i) + 1e-9*(1+math.Abs(want[i]))
		if m.se(i) > 0 {
			worst = max(worst, d/m.se(i))
		}
		if d > tol {
			bad++
			if bad <= 5 {
				t.Errorf("%s: coordinate %d: mean %.6g, exact %.6g (se %.3g)", what, i-lo, m.mean(i), want[i], m.se(i))
			}
		}
	}
	t.Logf("%s: %d coordinates, worst |mean − exact|/se = %.2f", what, hi-lo, worst)
}

// exactDataGrad is the exact gradient of E_q(z|x)[f(x,z)] for one x by
// enumeration over z, laid out as gradVec: the decoder's Σ q ∇ log p(x|z),
// the encoder's Σ q f ∇ log q (E_q[∇ log q] = 0 removes the −∇ log q term),
// the prior's Σ q ∇ log p̃(z). It also returns E_q[f].
func exactDataGrad(tr *VAETrainer, x []uint8) ([]float64, float64) {
	m := tr.M
	tr.growTasks(1)
	w := tr.tasks[0]
	clearTask(w)
	X, Z := m.NumVisible(), m.NumLatent()
	kappa := append([]float64(nil), m.EncoderLogits(w.s, x)...)
	dyEnc := make([]float64, Z)
	dy := make([]float64, X)
	ef := 0.0
	for _, z := range allStates(Z) {
		q := math.Exp(models.BernoulliLogProb(z, kappa))
		ell := m.DecoderLogits(w.s, z)
		for i, a := range ell {
			dy[i] = q * (float64(x[i]) - nmath.Sigmoid(a))
		}
		m.Dec.BackwardBinary(w.gDec, nil, w.s.DecScratch(), z, dy)
		f := m.LogLikelihood(w.s, x, z) + m.LogPrior(w.s, z) - models.BernoulliLogProb(z, kappa)
		ef += q * f
		for j, k := range kappa {
			dyEnc[j] += q * f * (float64(z[j]) - nmath.Sigmoid(k))
		}
		tr.priorGrad(w, z, q)
	}
	m.EncoderLogits(w.s, x)
	m.Enc.BackwardBinary(w.gEnc, nil, w.s.EncScratch(), x, dyEnc)
	return gradVec(w, nil), ef
}

// TestVAEGradientUnbiased checks the per-example estimates (decoder,
// encoder by NVIL with a baseline, centring and normalisation, prior's
// positive term) against the exact gradient of E_q[f] by enumeration over
// z: the mean of n estimates must lie within 4.5 standard errors, for an
// RBM and a Bernoulli prior. The encoder's estimates are multiplied back
// by the normaliser max(1, √v).
func TestVAEGradientUnbiased(t *testing.T) {
	for _, H := range []int{3, 0} {
		m := tinyVAE(t, 7, 4, H, 11)
		opt := vaeTestOptions(PriorTrainingChi2, 1)
		opt.Samples, opt.SignalClip = 1, 0
		tr, err := NewVAETrainer(m, opt, 5)
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(3, 4))
		tr.Base.Init(rng)
		for i := range tr.Base.Params() {
			tr.Base.Params()[i] += 0.3 * rng.NormFloat64()
		}
		x := []uint8{1, 0, 1, 1, 0, 0, 1}
		want, ef := exactDataGrad(tr, x)
		nd, ne := m.Dec.NumParams(), m.Enc.NumParams()
		const n = 40000
		run := func(mean, vr float64) *moments {
			tr.SignalMean, tr.SignalVar, tr.SignalSteps = mean, vr, 1
			norm := max(1, math.Sqrt(vr))
			w := tr.tasks[0]
			w.src.Seed(1, 2)
			var mo moments
			var v []float64
			for range n {
				clearTask(w)
				tr.exampleGrad(w, x, 1)
				v = gradVec(w, v)
				for i := nd; i < nd+ne; i++ {
					v[i] *= norm
				}
				mo.add(v)
			}
			return &mo
		}
		name := map[int]string{0: "bernoulli", 3: "rbm"}[H]
		mo := run(0.7, 4) // μ off the mean, v > 1: the normaliser is 2
		checkMatches(t, name+" decoder", mo, want, 0, nd, 4.5)
		checkMatches(t, name+" encoder", mo, want, nd, nd+ne, 4.5)
		checkMatches(t, name+" prior", mo, want, nd+ne, len(want), 4.5)
		// Centring at E_q[f] − b(x) lowers the encoder's variance against
		// no centring at all (μ = 0, |E_q f| of several nats).
		b := tr.Base.ForwardBinary(make([]float64, tr.Base.ScratchLen()), x)[0]
		centred := run(ef-b, 0).totalVar(nd, nd+ne)
		raw := run(-b, 0).totalVar(nd, nd+ne)
		t.Logf("%s encoder: E_q f = %.3f; total variance centred %.4g, uncentred %.4g", name, ef, centred, raw)
		if !(centred < raw) {
			t.Errorf("%s: centring did not lower the encoder's variance: %.4g ≥ %.4g", name, centred, raw)
		}
	}
}
