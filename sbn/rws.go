package sbn

import "github.com/logz-ml/logz/internal/kernel"

// Reweighted wake-sleep (Bornschein & Bengio 2015) is the method "rws":
// the adaptive importance sampler of train_is.go with Adam on θ. Per step,
// K = Samples proposals h_k ~ Q(· | x) per example, self-normalised
// weights w̃_k ∝ p(x, h_k)/Q(h_k | x), and
//
//	θ: Adam along Σ_k w̃_k ∇_θ log p(x, h_k)   (→ ∇_θ log p(x) as K grows)
//	φ: Adam along Σ_k w̃_k ∇_φ log Q(h_k | x)   (the wake-phase update:
//	   −∇_φ KL(p(h|x) ‖ Q(h|x)), estimated with the same weights)
//
// averaged over the minibatch. With Sleep, φ's step is along the sum of
// the wake-phase gradient and the sleep phase's (1/L) Σ_s ∇_φ log Q(h_s |
// x_s) over L dreams (h_s, x_s) ~ p(h, x | θ) per example of the
// minibatch (ws.go's sleep phase, drawn at the step's θ before its
// update): one Adam step on the sum, the "wake + sleep" Q update of the
// paper.

// rwsSleep runs the adaptive importance sampler's steps with the sleep
// phase's gradient added to φ's.
type rwsSleep[F kernel.Float] struct {
	f     *isEngine[F]
	sleep *recEngine
	buf   []float64
}

// newRWSSleep wraps the adaptive importance sampler is.
func newRWSSleep(t *Trainer, is isSampler) isSampler {
	e := newRecEngine(t)
	e.sleepOnly = true
	switch f := is.(type) {
	case *isEngine[float32]:
		return &rwsSleep[float32]{f: f, sleep: e, buf: make([]float64, len(t.phi))}
	case *isEngine[float64]:
		return &rwsSleep[float64]{f: f, sleep: e, buf: make([]float64, len(t.phi))}
	}
	panic("sbn: rws sleep phase on an unknown sampler")
}

// minibatch is isEngine.minibatch with the sleep phase's gradient added
// to gradPhi before each update.
func (r *rwsSleep[F]) minibatch(idx []int, scale float64, workers, epoch, b int) float64 {
	f, t := r.f, r.f.t
	f.epoch, f.batch = epoch, b
	r.sleep.layout(idx, epoch, b)
	for step := range t.opt.Steps {
		t.cur.step = step
		f.gradients(idx, scale, workers)
		// The dreams are drawn from the net at the current θ and scored
		// by Q at the current φ: the flat vectors into the net first.
		scatter(t.theta, t.gen, t.genTri)
		scatter(t.phi, t.rec, t.recTri)
		r.sleep.sleepGradient(step, workers, r.buf)
		axpy(t.gradPhi, r.buf)
		f.update(step, workers)
	}
	scatter(t.theta, t.gen, t.genTri)
	scatter(t.phi, t.rec, t.recTri)
	return f.signalSum()
}
