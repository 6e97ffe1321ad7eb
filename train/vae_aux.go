package train

import (
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

// vaeAuxAdamNames are the checkpoint names of the auxiliary nets' Adam
// states (none without auxiliary variables).
func vaeAuxAdamNames(m *models.VAE) []string {
	if m.Aux == nil {
		return nil
	}
	return []string{"adam_aux_q", "adam_aux_enc", "adam_aux_p"}
}
