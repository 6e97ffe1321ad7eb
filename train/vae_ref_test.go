package train

import (
	"math"

	"github.com/logz-ml/logz/data"
	"github.com/logz-ml/logz/internal/nmath"
	"github.com/logz-ml/logz/internal/seeds"
	"github.com/logz-ml/logz/models"
)

// The per-example float64 gradient, the trainer's gradient before the
// batched engine (vaeEngine), kept as the tests' reference: it follows the
// formulas of VAETrainer's and the auxiliary model's docs one example and
// one draw at a time through the models' own nets (models.VAE, mlp.Net),
// TestVAEGradientUnbiased and TestVAEAuxGradient check it against the
// exact gradients (enumeration, finite differences), and the engine in
// either precision must agree with it on the same draws
// (TestVAEEngineMatchesReference).

// refGradient is Gradient by the reference: the same tasks and streams,
// run one after another, the chunks' sums combined in task order, and the
// signal's statistics updated.
func (t *VAETrainer) refGradient(data data.Examples, idx []int, epoch, batch int) (sumF, sumLog float64) {
	t.layout(idx)
	t.data, t.epoch, t.batch = data, epoch, batch
	for _, w := range t.active {
		switch w.kind {
		case vaeData:
			t.runData(w)
		case vaeDraws:
			t.runDraws(w)
		default:
			t.runChains(w)
		}
	}
	t.data = nil
	a0 := t.active[0]
	sumF, sumLog = a0.sumF, a0.sumLog
	sumD, sumD2 := a0.sumD, a0.sumD2
	for _, w := range t.active[1:] {
		addPriorGrad(a0, w)
		if w.kind != vaeData {
			continue
		}
		axpy(a0.gDec, 1, w.gDec)
		axpy(a0.gEnc, 1, w.gEnc)
		axpy(a0.gBase, 1, w.gBase)
		axpy(a0.gLog, 1, w.gLog)
		if a0.ax != nil {
			for i := range a0.ax.g {
				axpy(a0.ax.g[i], 1, w.ax.g[i])
			}
		}
		sumF += w.sumF
		sumLog += w.sumLog
		sumD += w.sumD
		sumD2 += w.sumD2
	}
	t.updateSignal(sumD, sumD2, float64(len(idx)*t.Opt.Samples))
	return sumF, sumLog
}

// runData adds the scaled gradients of a chunk of examples: for each
// example at minibatch position p, its generator is keyed by (epoch,
// batch, p).
func (t *VAETrainer) runData(w *vaeTask) {
	clearTask(w)
	for k, n := range w.rows {
		w.src.Seed(seeds.Derive(t.Seed, vaeSeedLatent, uint64(t.epoch), uint64(t.batch), uint64(w.pos+k)), 0)
		t.exampleGrad(w, t.data.Row(n), t.scale)
	}
}

// exampleGrad adds to w's buffers c times the per-example estimates of the
// gradients (summed over Samples draws from w.rng) and to w's sums the
// draws' f, r − μ, (r − μ)² and log p(x|z).
func (t *VAETrainer) exampleGrad(w *vaeTask, x []uint8, c float64) {
	m, o := t.M, t.Opt
	if m.Aux != nil {
		t.exampleGradAux(w, x, c)
		return
	}
	Z := m.NumLatent()
	kappa := m.EncoderLogits(w.s, x)
	b := 0.0
	if t.Base != nil {
		b = t.Base.ForwardBinary(w.sb, x)[0]
	}
	norm := 1.0
	if t.SignalSteps > 0 {
		norm = max(1, math.Sqrt(t.SignalVar))
	}
	clear(w.dyEnc)
	dBase := 0.0
	for s := range o.Samples {
		z := w.zs[s*Z : (s+1)*Z]
		lq := models.SampleBernoulliLogits(z, kappa, w.rng)
		ll := t.decoderGrad(w, x, z, c)
		f := ll + m.LogPrior(w.s, z) - lq
		d := f - b - t.SignalMean
		sig := d / norm
		if cl := o.SignalClip; cl > 0 {
			sig = max(-cl, min(cl, sig))
		}
		for j, k := range kappa {
			w.dyEnc[j] += c * sig * (float64(z[j]) - nmath.Sigmoid(k))
		}
		dBase += c * d
		t.priorGrad(w, z, c)
		w.sumF += f
		w.sumLog += ll
		w.sumD += d
		w.sumD2 += d * d
	}
	m.Enc.BackwardBinary(w.gEnc, nil, w.s.EncScratch(), x, w.dyEnc)
	if t.Base != nil {
		w.dyBase[0] = dBase
		t.Base.BackwardBinary(w.gBase, nil, w.sb, x, w.dyBase[:])
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
