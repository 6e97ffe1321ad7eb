package train

import (
	"math"

	"github.com/logz-ml/logz/internal/nmath"
	"github.com/logz-ml/logz/internal/optim"
	"github.com/logz-ml/logz/models"
)

// The auxiliary-variable VAE (models.VAEAux, docs/methods.md#vae-auxiliary)
// maximises, per example, E_q(a,z|x)[f] − log Z with
//
//	f(x,a,z) = log p(x|z) + log p̃(z) + log p(a|x,z) − log q(a|x) − log q(z|x,a).
//
// Each draw takes ε ~ N(0, I), a = μ_q(x) + σ_q(x) ⊙ ε (reparameterised)
// and z ~ q(z|x,a), and ascends (c the step's 1/(examples·draws)):
//
//	decoder, prior: as the plain VAE (∇ log p(x|z), ∇ log p̃(z));
//	p(a|x,z):       c ∇ log p(a|x,z) at the drawn a, z;
//	q(z|x,a):       NVIL, c s ∇ log q(z|x,a) with the signal
//	                s = clip((f − b(x) − μ)/max(1, √v)) as the plain VAE,
//	                into the encoder and, through its first layer, the
//	                a-input net Enc;
//	q(a|x):         the pathwise gradient through a with z held fixed,
//	                c ∂ log p(a|x,z)/∂a, plus the analytic ∂/∂log σ_q of
//	                −log q(a|x) = Σ ½ε² + log σ_q + const (1 per unit, 0
//	                for μ_q), plus the score term's flow through a,
//	                c (s·n) ∂ log q(z|x,a)/∂a, with n = max(1, √v): the
//	                signal in its own units (r − μ, clipped at ±clip·n),
//	                so that the two terms add up to the gradient of E[f]
//	                whatever the normalisation; ∂a/∂μ_q = 1, ∂a/∂log σ_q
//	                = σ_q ε.
//
// The terms dropped, c ∇(−log q(z|x,a)) at fixed z through the encoder's
// parameters and through a, have expectation zero over z given a (as the
// plain VAE drops it), so with s unclipped and n = 1 every estimate is
// unbiased for the gradient of E_ε E_z[f]; train's TestVAEAuxGradient
// checks this against finite differences of the enumerated expectation.

// vaeAuxTask is a task's buffers for the auxiliary nets.
type vaeAuxTask struct {
	g          [3][]float64 // gradients of Q, Enc, P (models.VAEAux.Nets order)
	eps, a, da []float64    // ε, a and ∂/∂a of the score term (A)
	dyQ, dyP   []float64    // ∂/∂ outputs of Q (summed over draws) and P (2A)
	d1         []float64    // Σ over draws of the encoder's δ_1 (n_1)
	mu, logSig []float64    // q(a|x) of the current example (views into the scratch)
	pre        []float64    // the encoder's x part W_1ᵀx + b_1 (view)
	base, norm float64      // b(x) and the signal's normaliser of the example
}

func newVAEAuxTask(m *models.VAE) *vaeAuxTask {
	a := m.Aux
	ax := &vaeAuxTask{eps: make([]float64, a.Dim), a: make([]float64, a.Dim), da: make([]float64, a.Dim),
		dyQ: make([]float64, 2*a.Dim), dyP: make([]float64, 2*a.Dim), d1: make([]float64, m.EncSizes[1])}
	for i, n := range a.Nets() {
		ax.g[i] = make([]float64, n.NumParams())
	}
	return ax
}

// newAuxAdams makes the Adam states of the auxiliary nets.
func (t *VAETrainer) newAuxAdams() {
	t.adamAux = nil
	for _, n := range t.M.Aux.Nets() {
		t.adamAux = append(t.adamAux, optim.NewAdam(t.Opt.LearningRate, n.NumParams()))
	}
}

// exampleGradAux is exampleGrad for a model with auxiliary variables:
// Samples draws (ε then z, from w.rng), each one auxDraw.
func (t *VAETrainer) exampleGradAux(w *vaeTask, x []uint8, c float64) {
	t.auxBegin(w, x)
	dBase := 0.0
	for range t.Opt.Samples {
		for i := range w.ax.eps {
			w.ax.eps[i] = w.rng.NormFloat64()
		}
		dBase += t.auxDraw(w, x, c)
	}
	t.auxEnd(w, x, dBase)
}

// auxBegin runs the per-example parts: q(a|x), the encoder's x part, the
// baseline b(x) and the signal's normaliser; it clears the sums over the
// draws.
func (t *VAETrainer) auxBegin(w *vaeTask, x []uint8) {
	m, ax := t.M, w.ax
	ax.mu, ax.logSig = m.AuxQ(w.s, x)
	ax.pre = m.AuxEncoderPre(w.s, x)
	ax.base = 0
	if t.Base != nil {
		ax.base = t.Base.ForwardBinary(w.sb, x)[0]
	}
	ax.norm = 1
	if t.SignalSteps > 0 {
		ax.norm = max(1, math.Sqrt(t.SignalVar))
	}
	clear(ax.dyQ)
	clear(ax.d1)
}

// auxDraw adds c times one draw's gradient estimates (a from w.ax.eps,
// z ~ q(z|x,a) from w.rng) to w's buffers and its f, r − μ, (r − μ)² and
// log p(x|z) to w's sums; it returns c(r − μ) for the baseline.
func (t *VAETrainer) auxDraw(w *vaeTask, x []uint8, c float64) float64 {
	m, ax := t.M, w.ax
	aux := m.Aux
	A := aux.Dim
	lqa := models.AuxFromNoise(ax.a, ax.eps, ax.mu, ax.logSig)
	kappa := m.AuxEncoderLogits(w.s, ax.pre, ax.a)
	z := w.z
	lqz := models.SampleBernoulliLogits(z, kappa, w.rng)
	ll := t.decoderGrad(w, x, z, c)
	pm, pls := m.AuxP(w.s, x, z)
	lpa := models.GaussLogProb(ax.a, pm, pls)
	f := ll + m.LogPrior(w.s, z) + lpa - lqa - lqz
	d := f - ax.base - t.SignalMean
	sig := d / ax.norm
	if cl := t.Opt.SignalClip; cl > 0 {
		sig = max(-cl, min(cl, sig))
	}
	// q(z|x,a): c·s·∇ log q(z|x,a) into the encoder's upper layers, its
	// first layer (δ_1 summed, added once per example by auxEnd) and Enc,
	// whose input gradient is the score term's ∂/∂a.
	for j, k := range kappa {
		w.dyEnc[j] = c * sig * (float64(z[j]) - nmath.Sigmoid(k))
	}
	d1 := m.Enc.BackwardPre(w.gEnc, w.s.EncScratch(), w.dyEnc)
	axpy(ax.d1, 1, d1)
	_, es, ps, xz := w.s.AuxScratches()
	aux.Enc.Backward(ax.g[1], ax.da, es, ax.a, d1)
	for i := range A {
		inv := math.Exp(-pls[i])
		u := (ax.a[i] - pm[i]) * inv
		ax.dyP[i] = c * u * inv     // ∂ log p(a|x,z)/∂μ_p
		ax.dyP[A+i] = c * (u*u - 1) // ∂ log p(a|x,z)/∂log σ_p
		// ∂/∂a: the score term in the signal's units, and log p(a|x,z).
		g := ax.norm*ax.da[i] - c*u*inv
		ax.dyQ[i] += g
		ax.dyQ[A+i] += g*math.Exp(ax.logSig[i])*ax.eps[i] + c
	}
	aux.P.BackwardBinary(ax.g[2], nil, ps, xz, ax.dyP)
	t.priorGrad(w, z, c)
	w.sumF += f
	w.sumLog += ll
	w.sumD += d
	w.sumD2 += d * d
	return c * d
}

// auxEnd adds the per-example gradients: the encoder's first layer (the
// draws' δ_1 summed), q(a|x) and the baseline.
func (t *VAETrainer) auxEnd(w *vaeTask, x []uint8, dBase float64) {
	m, ax := t.M, w.ax
	m.Enc.FirstBackwardBinary(w.gEnc, x, ax.d1)
	qs, _, _, _ := w.s.AuxScratches()
	m.Aux.Q.BackwardBinary(ax.g[0], nil, qs, x, ax.dyQ)
	if t.Base != nil {
		w.dyBase[0] = dBase
		t.Base.BackwardBinary(w.gBase, nil, w.sb, x, w.dyBase[:])
	}
}

// decoderGrad returns log p(x|z) and adds c ∇ log p(x|z) to the
// decoder's gradient (backprop of x − σ(ℓ), in log space).
func (t *VAETrainer) decoderGrad(w *vaeTask, x, z []uint8, c float64) float64 {
	m := t.M
	ell := m.DecoderLogits(w.s, z)
	ll := 0.0
	for i, a := range ell {
		if x[i] != 0 {
			ll -= nmath.Softplus(-a)
			w.dyDec[i] = c * nmath.Sigmoid(-a)
		} else {
			ll -= nmath.Softplus(a)
			w.dyDec[i] = -c * nmath.Sigmoid(a)
		}
	}
	m.Dec.BackwardBinary(w.gDec, nil, w.s.DecScratch(), z, w.dyDec)
	return ll
}

// vaeAuxAdamNames are the checkpoint names of the auxiliary nets' Adam
// states (none without auxiliary variables).
func vaeAuxAdamNames(m *models.VAE) []string {
	if m.Aux == nil {
		return nil
	}
	return []string{"adam_aux_q", "adam_aux_enc", "adam_aux_p"}
}
