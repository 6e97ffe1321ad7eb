package train

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"slices"
	"testing"

	"github.com/logz-ml/logz/internal/kernel"
	"github.com/logz-ml/logz/internal/nmath"
	"github.com/logz-ml/logz/internal/optim"
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
		priorGradByHand(m, w, z, q)
	}
	m.EncoderLogits(w.s, x)
	m.Enc.BackwardBinary(w.gEnc, nil, w.s.EncScratch(), x, dyEnc)
	return gradVec(w, nil), ef
}

// priorGradByHand adds c·∇ log p̃(z) to w's prior buffers, written out
// from the formulas (independently of the trainer): for an RBM,
// ∇_W = z σ(c + Wᵀz)ᵀ, ∇_a = z, ∇_c = σ(c + Wᵀz); for Bernoulli logits λ,
// z − σ(λ).
func priorGradByHand(m *models.VAE, w *vaeTask, z []uint8, c float64) {
	r := m.Prior
	if r == nil {
		for j, l := range m.PriorLogits {
			w.gLog[j] += c * (float64(z[j]) - nmath.Sigmoid(l))
		}
		return
	}
	for j := range r.NHid {
		a := r.HBias[j]
		for i := range r.NVis {
			a += float64(z[i]) * r.W[i*r.NHid+j]
		}
		p := nmath.Sigmoid(a)
		w.prior.gB[j] += c * p
		for i := range r.NVis {
			w.prior.gW[i*r.NHid+j] += c * float64(z[i]) * p
		}
	}
	for i := range r.NVis {
		w.prior.gA[i] += c * float64(z[i])
	}
}

// gradientTrainer is a one-worker trainer of m with one draw per example,
// no clipping and a random baseline (every parameter non-zero).
func gradientTrainer(t *testing.T, m *models.VAE) *VAETrainer {
	t.Helper()
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
	return tr
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
		tr := gradientTrainer(t, m)
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

// TestVAELogZGradient checks the χ² negative phase: with q fitted to the
// prior, the linearised weights at γ = E_q[w²] make Σ_i ω_i ∇ log p̃(z̃_i)
// an unbiased estimate of the bound's gradient E_q[w² ∇ log p̃]/E_q[w²]
// (within 4.5 standard errors, both by enumeration), and that gradient is
// the exact ∇ log Z = E_p[∇ log p̃] up to q's χ² gap, which the test
// measures by enumeration and adds to the tolerance.
func TestVAELogZGradient(t *testing.T) {
	m := tinyVAE(t, 7, 4, 3, 21)
	opt := vaeTestOptions(PriorTrainingChi2, 1)
	opt.QComponents, opt.QSamples, opt.QLearningRate = 16, 50, 0.05
	tr, err := NewVAETrainer(m, opt, 9)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for range 3000 {
		if _, err := tr.Fit.Step(tr.logp, rng); err != nil {
			t.Fatal(err)
		}
	}
	logZ := vaeExactLogZ(m)
	Z := m.NumLatent()
	s := m.NewScratch()
	// Exact moments by enumeration: E_q[w²] and the two gradients.
	tr.growTasks(1)
	w := tr.tasks[0]
	var lw2 []float64
	states := allStates(Z)
	for _, z := range states {
		lq := tr.Fit.Q.(interface{ LogProb([]uint8) float64 }).LogProb(z)
		lw2 = append(lw2, 2*m.LogPrior(s, z)-lq)
	}
	logEW2 := nmath.LogSumExp(lw2)
	t.Logf("log Z = %.4f, exact bound ½ log E_q[w²] = %.4f", logZ, logEW2/2)
	clearTask(w)
	for k, z := range states {
		priorGradByHand(m, w, z, math.Exp(lw2[k]-logEW2))
	}
	bound := gradVec(w, nil)
	clearTask(w)
	for _, z := range states {
		priorGradByHand(m, w, z, math.Exp(m.LogPrior(s, z)-logZ))
	}
	exact := gradVec(w, nil)
	var mo moments
	var v []float64
	for range 4000 {
		if _, err := tr.Fit.Draw(tr.logp, rng); err != nil {
			t.Fatal(err)
		}
		tr.Fit.LogGamma = logEW2
		tr.omega = tr.Fit.Linearised(tr.omega)
		w.lo, w.hi = 0, len(tr.omega)
		tr.runDraws(w)
		v = gradVec(w, v)
		for i := range v {
			v[i] = -v[i]
		}
		mo.add(v)
	}
	checkMatches(t, "bound gradient", &mo, bound, 0, len(bound), 4.5)
	for i := range exact {
		gap := math.Abs(bound[i] - exact[i])
		if d := math.Abs(mo.mean(i) - exact[i]); d > 4.5*mo.se(i)+gap {
			t.Errorf("∇ log Z coordinate %d: estimate %.5g, exact %.5g (se %.3g, χ² gap %.3g)", i, mo.mean(i), exact[i], mo.se(i), gap)
		}
	}
	if gap := logEW2/2 - logZ; !(gap >= 0 && gap < 0.05) {
		t.Errorf("q is not fitted: exact bound − log Z = %.4f, want in [0, 0.05)", gap)
	}
}

// vaePlanted returns n examples of X = 8 units: one of three prototypes with
// each unit flipped with probability 0.05.
func vaePlanted(n int, seed uint64) rows {
	protos := [][]uint8{{1, 1, 1, 1, 0, 0, 0, 0}, {0, 0, 1, 1, 1, 1, 0, 0}, {1, 0, 1, 0, 1, 0, 1, 1}}
	rng := rand.New(rand.NewPCG(seed, 1))
	out := make(rows, n)
	for k := range out {
		x := append([]uint8(nil), protos[rng.IntN(3)]...)
		for i := range x {
			if rng.Float64() < 0.05 {
				x[i] ^= 1
			}
		}
		out[k] = x
	}
	return out
}

// baseRateOf is the smoothed log-odds of each unit of data.
func baseRateOf(data rows) []float64 {
	lo := make([]float64, len(data[0]))
	for i := range lo {
		on := 0.0
		for _, x := range data {
			on += float64(x[i])
		}
		lo[i] = nmath.Logit((on + 1) / (float64(len(data)) + 2))
	}
	return lo
}

func newTinyTrainer(t testing.TB, H int, opt VAEOptions, seed uint64, base []float64) *VAETrainer {
	t.Helper()
	m, err := models.NewVAE(8, 4, []int{10}, H)
	if err != nil {
		t.Fatal(err)
	}
	return initTrainer(t, m, opt, seed, base)
}

// initTrainer is a trainer of m with its initial parameters.
func initTrainer(t testing.TB, m *models.VAE, opt VAEOptions, seed uint64, base []float64) *VAETrainer {
	t.Helper()
	tr, err := NewVAETrainer(m, opt, seed)
	if err != nil {
		t.Fatal(err)
	}
	if err := tr.InitParams(base, 0.01); err != nil {
		t.Fatal(err)
	}
	return tr
}

// TestVAETrainingRaisesLikelihood trains a tiny VAE on planted data and
// requires the exact mean log p(x) and ELBO (enumeration over z and, for
// the RBM prior, of log Z) to rise by at least a nat in 10 epochs (the
// data's entropy is about 2.7 nats below the base-rate start), and the
// tracked log Z (the χ² estimate, biased low as an estimate of its upper
// bound, and averaged over the epoch's steps while the exact value is the
// final model's) to lie within 0.2 nats of the exact one either way (it is
// 0.003 and 0.06 nats off here).
func TestVAETrainingRaisesLikelihood(t *testing.T) {
	data := vaePlanted(300, 1)
	base := baseRateOf(data)
	for _, c := range []struct {
		name  string
		H     int
		prior string
	}{{"rbm-chi2", 3, PriorTrainingChi2}, {"rbm-pcd", 3, PriorTrainingPCD}, {"bernoulli", 0, PriorTrainingChi2}} {
		tr := newTinyTrainer(t, c.H, vaeTestOptions(c.prior, 2), 3, base)
		lp0, elbo0 := meanExact(tr.M, data)
		var st EpochSummary
		for range 10 {
			var err error
			if st, err = tr.TrainEpoch(data); err != nil {
				t.Fatal(err)
			}
		}
		lp1, elbo1 := meanExact(tr.M, data)
		logZ := vaeExactLogZ(tr.M)
		t.Logf("%s: log p(x) %.3f → %.3f, ELBO %.3f → %.3f (training signal %.3f); log Z exact %.3f, tracked %.3f",
			c.name, lp0, lp1, elbo0, elbo1, st.ReconError, logZ, tr.LogZ)
		if lp1-lp0 < 1 || elbo1-elbo0 < 1 {
			t.Errorf("%s: exact log p(x) rose by %.3f and the ELBO by %.3f nats, want ≥ 1", c.name, lp1-lp0, elbo1-elbo0)
		}
		if c.H > 0 && math.Abs(tr.LogZ-logZ) > 0.2 {
			t.Errorf("%s: tracked log Z %.3f is more than 0.2 nats from the exact %.3f", c.name, tr.LogZ, logZ)
		}
	}
}

// vaeParams returns every trained number of a trainer: the model's
// parameters, the baseline's, q's and the chains.
func vaeParams(tr *VAETrainer) []float64 {
	m := tr.M
	out := append(append([]float64(nil), m.Dec.Params()...), m.Enc.Params()...)
	out = append(out, m.PriorLogits...)
	if r := m.Prior; r != nil {
		out = append(append(append(append(out, r.W...), r.VBias...), r.HBias...), tr.Fit.Q.Params()...)
	}
	out = append(append(out, tr.Base.Params()...), tr.chains...)
	return append(out, tr.SignalMean, tr.SignalVar, tr.LogZ)
}

func sameBits(t *testing.T, what string, a, b []float64) {
	t.Helper()
	if len(a) != len(b) {
		t.Fatalf("%s: %d vs %d values", what, len(a), len(b))
	}
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			t.Fatalf("%s: value %d differs: %v vs %v", what, i, a[i], b[i])
		}
	}
}

// TestVAEResumeBitIdentical trains 3 epochs straight and 2 + (save, load,
// resume in a new trainer) + 1, for each prior training; every parameter,
// q, the chains and the running statistics must agree bit for bit.
func TestVAEResumeBitIdentical(t *testing.T) {
	data := vaePlanted(90, 2)
	base := baseRateOf(data)
	for _, c := range []struct {
		H     int
		prior string
		prec  kernel.Precision
	}{{3, PriorTrainingChi2, ""}, {3, PriorTrainingPCD, ""}, {0, PriorTrainingChi2, ""},
		{3, PriorTrainingChi2, kernel.Float32}, {0, PriorTrainingChi2, kernel.Float32}} {
		opt := vaeTestOptions(c.prior, 2)
		opt.Precision = c.prec
		// r: a fresh trainer with other initial values: everything must
		// come from the checkpoint.
		checkResume(t, c.prior, newTinyTrainer(t, c.H, opt, 8, base), newTinyTrainer(t, c.H, opt, 8, base),
			newTinyTrainer(t, c.H, opt, 8, nil), data, vaeParams)
	}
}

// checkResume trains a 3 epochs straight and b 2 + (save, load, resume
// in r) + 1; params of b and r must agree bit for bit after the resume,
// and of a and r after the last epoch.
func checkResume(t *testing.T, what string, a, b, r *VAETrainer, data rows, params func(*VAETrainer) []float64) {
	t.Helper()
	for range 3 {
		if _, err := a.TrainEpoch(data); err != nil {
			t.Fatal(err)
		}
	}
	for range 2 {
		if _, err := b.TrainEpoch(data); err != nil {
			t.Fatal(err)
		}
	}
	ck, err := b.Checkpoint("test")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "model.npz")
	if err := models.Save(path, ck, codecs); err != nil {
		t.Fatal(err)
	}
	loaded, err := models.Load(path, codecs)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Resume(loaded); err != nil {
		t.Fatal(err)
	}
	if r.Completed() != 2 {
		t.Fatalf("resumed at epoch %d, want 2", r.Completed())
	}
	// The state itself first (a chain's state can be forgotten within
	// a step by coupled draws on so small a prior).
	sameBits(t, what+" restored", params(b), params(r))
	if _, err := r.TrainEpoch(data); err != nil {
		t.Fatal(err)
	}
	sameBits(t, what+" resumed", params(a), params(r))
}

// TestVAEWorkersIndependent trains with 1 and 3 workers (minibatches of
// 60 = 3 chunks, 30 chains = 2 chunks) and requires identical results, in
// either precision, also with 3 workers under GOMAXPROCS 1.
func TestVAEWorkersIndependent(t *testing.T) {
	data := vaePlanted(120, 3)
	procs := runtime.GOMAXPROCS(0)
	defer runtime.GOMAXPROCS(procs)
	for _, c := range []struct {
		prior string
		prec  kernel.Precision
	}{
		{PriorTrainingChi2, ""}, {PriorTrainingPCD, ""}, {PriorTrainingChi2, kernel.Float32}, {PriorTrainingPCD, kernel.Float32}} {
		var got [][]float64
		for _, run := range []struct{ workers, procs int }{{1, procs}, {3, procs}, {3, 1}} {
			runtime.GOMAXPROCS(run.procs)
			opt := vaeTestOptions(c.prior, run.workers)
			opt.Precision = c.prec
			opt.BatchSize = 60
			tr := newTinyTrainer(t, 3, opt, 4, nil)
			for range 2 {
				if _, err := tr.TrainEpoch(data); err != nil {
					t.Fatal(err)
				}
			}
			got = append(got, vaeParams(tr))
			runtime.GOMAXPROCS(procs)
		}
		for i := 1; i < len(got); i++ {
			sameBits(t, fmt.Sprintf("%s %s: run 0 vs %d", c.prior, c.prec, i), got[0], got[i])
		}
	}
}

// TestVAEResumePrecision: a checkpoint records the engine's precision and
// a trainer of the other precision refuses it with kernel.Check's message;
// a checkpoint without the field (older files) reads as the precision in
// the train: section of the run's recorded config (a decoy precision key
// in another section, before or after it, is not it), float64 when that
// config has none or the file records no run. Mutations checked: the
// field not written, the train: section not recognised, its end not
// recognised (the decoy after it wins), no run read as float32: each fails.
func TestVAEResumePrecision(t *testing.T) {
	data := vaePlanted(30, 2)
	mk := func(p kernel.Precision) *VAETrainer {
		opt := vaeTestOptions(PriorTrainingChi2, 1)
		opt.Precision = p
		return newTinyTrainer(t, 3, opt, 8, nil)
	}
	src := mk(kernel.Float32)
	if _, err := src.TrainEpoch(data); err != nil {
		t.Fatal(err)
	}
	ck, err := src.Checkpoint("test")
	if err != nil {
		t.Fatal(err)
	}
	check := func(what string, ck *models.Checkpoint, trained kernel.Precision) {
		t.Helper()
		for _, p := range []kernel.Precision{kernel.Float32, kernel.Float64} {
			err := mk(p).Resume(ck)
			want := kernel.Check("vae trainer state", trained, p)
			if (err == nil) != (want == nil) || (err != nil && err.Error() != want.Error()) {
				t.Errorf("%s, resumed in %s: error %v, want %v", what, p, err, want)
			}
		}
	}
	check("recorded float32", ck, kernel.Float32)
	var st vaeTrainState
	if err := json.Unmarshal(ck.Meta.Train, &st); err != nil {
		t.Fatal(err)
	}
	st.Precision = ""
	if ck.Meta.Train, err = json.Marshal(st); err != nil {
		t.Fatal(err)
	}
	check("no field, no run", ck, kernel.Float64)
	ck.Meta.Run = &models.RunRecord{Config: "experiments:\n  - name: x\n    model:\n      type: vae\n      precision: float64\n    train:\n      method: nvil\n      precision: float32\n    evaluate:\n      splits: [test]\n"}
	check("no field, run config float32", ck, kernel.Float32)
	ck.Meta.Run.Config = "experiments:\n  - name: x\n    train:\n      method: nvil\n    evaluate:\n      precision: float32\n"
	check("no field, run config without precision", ck, kernel.Float64)
}

// TestVAEDivergenceDetected: a parameter that an Adam step sends past
// models.MaxAbsParam (its first moment set to 1e30) stops the epoch with
// ErrDiverged, in each precision, for a parameter of the decoder, the
// baseline and an auxiliary net (the engine checks them as it updates
// them). Mutation checked: the engine's check reporting every parameter
// fine (no error).
func TestVAEDivergenceDetected(t *testing.T) {
	data := vaePlanted(40, 2)
	for _, prec := range []kernel.Precision{kernel.Float32, kernel.Float64} {
		for _, which := range []string{"decoder", "baseline", "auxiliary"} {
			opt := vaeTestOptions(PriorTrainingChi2, 2)
			opt.Precision = prec
			var tr *VAETrainer
			if which == "auxiliary" {
				tr = newTinyAuxTrainer(t, 3, opt, 2, nil)
			} else {
				tr = newTinyTrainer(t, 3, opt, 2, nil)
			}
			if _, err := tr.TrainEpoch(data); err != nil {
				t.Fatal(err)
			}
			a := map[string]*optim.Adam{"decoder": &tr.adamDec, "baseline": &tr.adamBase}[which]
			if a == nil {
				a = &tr.adamAux[1]
			}
			a.M[len(a.M)/2], a.S[len(a.S)/2] = 1e30, 0
			if mm := tr.mom32[a]; mm != nil { // float32: the weights' moments are these
				mm.m[len(a.M)/2], mm.s[len(a.S)/2] = 1e30, 0
			}
			if _, err := tr.TrainEpoch(data); !errors.Is(err, ErrDiverged) {
				t.Errorf("%s %s: a parameter past MaxAbsParam gave %v, want ErrDiverged", prec, which, err)
			}
		}
	}
}

// TestVAEMoments32Resume: a float32 checkpoint says its weights' Adam
// moments were float32 and holds them exactly; a checkpoint whose float64
// moments are not float32 values (an earlier file) resumes with them
// rounded to float32: training on from it gives the same bits as from the
// same file with the moments rounded beforehand, and the float32 moments
// made at the first step are the file's. Mutations checked: the float32
// moments made as zeros at a resume (fails), Checkpoint not widening them
// (fails TestVAEResumeBitIdentical).
func TestVAEMoments32Resume(t *testing.T) {
	data := vaePlanted(90, 2)
	opt := vaeTestOptions(PriorTrainingChi2, 2)
	opt.Precision = kernel.Float32
	tr := newTinyTrainer(t, 0, opt, 8, baseRateOf(data))
	if _, err := tr.TrainEpoch(data); err != nil {
		t.Fatal(err)
	}
	ck, err := tr.Checkpoint("test")
	if err != nil {
		t.Fatal(err)
	}
	var st vaeTrainState
	if err := decodeTrainState(ck, &st); err != nil || st.AdamMoments != "float32" {
		t.Fatalf("train state %+v (%v): want adam_moments float32", st, err)
	}
	m := ck.State["adam_dec_m"].Data
	isW := map[string][]bool{"dec": weightEntries(tr.M.Dec.Sizes()), "enc": weightEntries(tr.M.Enc.Sizes())}
	for i, x := range m {
		if isW["dec"][i] && float64(float32(x)) != x {
			t.Fatalf("adam_dec_m[%d] = %v is not a float32 value", i, x)
		}
	}
	// An earlier file's moments: the same, off float32 values.
	run := func(how func(x float64) float64) []float64 {
		c := *ck
		c.State = maps.Clone(ck.State)
		for _, name := range []string{"adam_dec_m", "adam_dec_s", "adam_enc_m", "adam_enc_s"} {
			a := c.State[name]
			d := slices.Clone(a.Data)
			for i, x := range a.Data {
				if isW[name[5:8]][i] { // the weights' (the biases' stay float64)
					d[i] = how(x * (1 + 0x1p-30))
				}
			}
			a.Data = d
			c.State[name] = a
		}
		r := newTinyTrainer(t, 0, opt, 3, nil)
		if err := r.Resume(&c); err != nil {
			t.Fatal(err)
		}
		if _, err := r.TrainEpoch(data); err != nil {
			t.Fatal(err)
		}
		return vaeParams(r)
	}
	sameBits(t, "moments rounded at resume", run(func(x float64) float64 { return float64(float32(x)) }), run(func(x float64) float64 { return x }))
	// The float32 moments a step makes from the resumed ones.
	r := newTinyTrainer(t, 0, opt, 3, nil)
	if err := r.Resume(ck); err != nil {
		t.Fatal(err)
	}
	r.ensureMoments32([]*optim.Adam{&r.adamDec})
	mm := r.moments32Of(&r.adamDec)
	for i, x := range m {
		if mm.m[i] != float32(x) {
			t.Fatalf("resumed float32 moment %d: %v, checkpoint %v", i, mm.m[i], x)
		}
	}
}

// weightEntries marks the weights among an mlp.Net's parameters of layer
// sizes s (each layer's weights, then its biases).
func weightEntries(s []int) []bool {
	var w []bool
	for l := range len(s) - 1 {
		for i := range (s[l] + 1) * s[l+1] {
			w = append(w, i < s[l]*s[l+1])
		}
	}
	return w
}
