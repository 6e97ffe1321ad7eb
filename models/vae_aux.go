package models

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/logz-ml/logz/internal/mlp"
	"github.com/logz-ml/logz/internal/npyx"
)

// VAEAux is the auxiliary-variable part of a VAE (an auxiliary deep
// generative model, Maaløe et al. 2016, as Kuleshov & Ermon 2017 §5.3 use
// it; docs/methods.md#vae-auxiliary): continuous a ∈ R^A in the
// approximate posterior and its generative counterpart,
//
//	q(a, z | x) = q(a|x) q(z|x,a),   p(x, z, a) = p(z) p(x|z) p(a|x,z),
//
// with q(a|x) = N(μ_q(x), diag σ_q(x)²) and p(a|x,z) = N(μ_p(x,z), diag
// σ_p(x,z)²), each (μ, log σ) the 2A linear outputs of a net with one
// hidden layer of Hidden tanh units (Q on x, P on the concatenation
// [x, z]); a enters q(z|x,a) through Enc, a net A → Hidden → n_1 whose
// output is added to the encoder's first pre-activation:
// z_1 = W_1ᵀx + b_1 + Enc(a). Since ∫ p(a|x,z) da = 1, p(x) is the plain
// VAE's, and the importance weight
// w = p(x|z) p(z) p(a|x,z) / (q(a|x) q(z|x,a)) has E_q[w] = p(x).
//
// Checkpoint arrays: aux_q_W1, aux_q_b1, aux_q_W2, aux_q_b2 (Q), aux_enc_…
// (Enc) and aux_p_… (P).
type VAEAux struct {
	Dim, Hidden int
	Q, Enc, P   *mlp.Net
}

// Prefixes of the auxiliary nets' checkpoint arrays.
var vaeAuxNets = []struct{ prefix, what string }{
	{"aux_q_", "q(a|x)"}, {"aux_enc_", "the a-input of q(z|x,a)"}, {"aux_p_", "p(a|x,z)"},
}

// auxSizes are the sizes of Q, Enc and P for a model with X data units, Z
// latents, encoder first layer of n1 units, A auxiliary variables and H
// hidden units.
func auxSizes(X, Z, n1, A, H int) [3][]int {
	return [3][]int{{X, H, 2 * A}, {A, H, n1}, {X + Z, H, 2 * A}}
}

// AddAux gives m auxiliary variables: dim (A) of them, nets with hidden
// tanh units each, every parameter zero. It refuses a model that has them.
func (m *VAE) AddAux(dim, hidden int) error {
	if m.Aux != nil {
		return fmt.Errorf("vae: the model already has %d auxiliary variables", m.Aux.Dim)
	}
	if dim < 1 || dim > MaxUnits {
		return fmt.Errorf("vae: auxiliary variables %d out of range: want an integer in [1, %d]", dim, MaxUnits)
	}
	if hidden < 1 || hidden > MaxUnits {
		return fmt.Errorf("vae: auxiliary hidden units %d out of range: want an integer in [1, %d]", hidden, MaxUnits)
	}
	sz := auxSizes(m.NumVisible(), m.NumLatent(), m.EncSizes[1], dim, hidden)
	n := m.Dec.NumParams() + m.Enc.NumParams()
	for _, s := range sz {
		n += mlp.NumParams(s)
	}
	if n > MaxParams {
		return fmt.Errorf("vae: %d parameters with the auxiliary nets exceed models.MaxParams (%d)", n, MaxParams)
	}
	a := &VAEAux{Dim: dim, Hidden: hidden}
	nets := []**mlp.Net{&a.Q, &a.Enc, &a.P}
	for i, s := range sz {
		net, err := mlp.New(s, make([]float64, mlp.NumParams(s)))
		if err != nil {
			return fmt.Errorf("vae: auxiliary net %s: %w", vaeAuxNets[i].what, err)
		}
		*nets[i] = net
	}
	m.Aux = a
	return nil
}

// Nets are Q, Enc and P, in the order of their checkpoint prefixes.
func (a *VAEAux) Nets() []*mlp.Net { return []*mlp.Net{a.Q, a.Enc, a.P} }

// auxLabel is " aux(A,H)" for a model with auxiliary variables, else "".
func (m *VAE) auxLabel() string {
	if m.Aux == nil {
		return ""
	}
	return fmt.Sprintf(" aux(%d,%d)", m.Aux.Dim, m.Aux.Hidden)
}

// validateAux checks the auxiliary nets' parameters (none: nil).
func (m *VAE) validateAux() error {
	if m.Aux == nil {
		return nil
	}
	for i, net := range m.Aux.Nets() {
		for _, a := range net.Arrays(vaeAuxNets[i].prefix) {
			cols := 0
			if len(a.Shape) == 2 {
				cols = a.Shape[1]
			}
			if err := CheckValues("vae: "+a.Name, a.Data, cols); err != nil {
				return err
			}
		}
	}
	return nil
}

// auxArrays are the auxiliary nets' checkpoint arrays (none: nil).
func (m *VAE) auxArrays() []Array {
	if m.Aux == nil {
		return nil
	}
	var out []Array
	for i, net := range m.Aux.Nets() {
		for _, a := range net.Arrays(vaeAuxNets[i].prefix) {
			out = append(out, Array{Name: a.Name, Shape: a.Shape, Data: a.Data})
		}
	}
	return out
}

// ownsAux reports whether name is an auxiliary net's array.
func ownsAux(name string) bool {
	for _, n := range vaeAuxNets {
		if rest, ok := strings.CutPrefix(name, n.prefix); ok && len(rest) >= 2 && (rest[0] == 'W' || rest[0] == 'b') {
			for _, c := range rest[1:] {
				if c < '0' || c > '9' {
					return false
				}
			}
			return true
		}
	}
	return false
}

// auxFromArrays reads the auxiliary nets of a checkpoint into m (none
// stored: m keeps none). The three nets must all be there, each with one
// hidden layer of the same size, and fit m's sizes.
func (m *VAE) auxFromArrays(a map[string]*npyx.Array) error {
	present := 0
	for name := range a {
		if ownsAux(name) {
			present++
		}
	}
	if present == 0 {
		return nil
	}
	var sizes [3][]int
	var arrs [3][]*npyx.Array
	for i, n := range vaeAuxNets {
		if a[n.prefix+"W1"] == nil {
			return fmt.Errorf("vae: auxiliary arrays present but %sW1 (%s) missing; an auxiliary model needs aux_q_*, aux_enc_* and aux_p_*", n.prefix, n.what)
		}
		s, x, err := netSizes(a, n.prefix)
		if err != nil {
			return err
		}
		if len(s) != 3 {
			return fmt.Errorf("vae: %s* (%s) has %d layers; expected 2 (one hidden layer)", n.prefix, n.what, len(s)-1)
		}
		sizes[i], arrs[i] = s, x
	}
	A, H := sizes[0][2]/2, sizes[0][1]
	want := auxSizes(m.NumVisible(), m.NumLatent(), m.EncSizes[1], A, H)
	for i := range sizes {
		if fmt.Sprint(sizes[i]) != fmt.Sprint(want[i]) {
			return fmt.Errorf("vae: %s* (%s) has sizes %v; expected %v (A = %d auxiliary variables, %d hidden units, from aux_q_*)", vaeAuxNets[i].prefix, vaeAuxNets[i].what, sizes[i], want[i], A, H)
		}
	}
	if A < 1 {
		return fmt.Errorf("vae: aux_q_W2 has %d outputs; expected 2A ≥ 2 (the mean and log σ of q(a|x))", sizes[0][2])
	}
	if err := m.AddAux(A, H); err != nil {
		return err
	}
	for i, net := range m.Aux.Nets() {
		p := net.Params()
		off := 0
		for _, x := range arrs[i] {
			off += copy(p[off:], x.Data)
		}
	}
	return nil
}

// auxScratch is the per-goroutine scratch of the auxiliary computations.
type auxScratch struct {
	q, enc, p []float64 // the nets' scratches
	pre, sum  []float64 // the encoder's first pre-activation: x part, with Enc(a)
	xz        []uint8   // [x, z]
}

func (m *VAE) newAuxScratch() *auxScratch {
	a := m.Aux
	return &auxScratch{q: make([]float64, a.Q.ScratchLen()), enc: make([]float64, a.Enc.ScratchLen()), p: make([]float64, a.P.ScratchLen()),
		pre: make([]float64, m.EncSizes[1]), sum: make([]float64, m.EncSizes[1]), xz: make([]uint8, m.NumVisible()+m.NumLatent())}
}

// AuxScratches are the scratches of the forward passes of Q, Enc and P
// (for backpropagation by a trainer), and [x, z] as P's input.
func (s *VAEScratch) AuxScratches() (q, enc, p []float64, xz []uint8) {
	return s.aux.q, s.aux.enc, s.aux.p, s.aux.xz
}

// AuxQ returns the mean and log σ of q(a|x) (views into s).
func (m *VAE) AuxQ(s *VAEScratch, x []uint8) (mu, logSigma []float64) {
	y := m.Aux.Q.ForwardBinary(s.aux.q, x)
	return y[:m.Aux.Dim], y[m.Aux.Dim:]
}

// AuxP returns the mean and log σ of p(a|x,z) (views into s).
func (m *VAE) AuxP(s *VAEScratch, x, z []uint8) (mu, logSigma []float64) {
	copy(s.aux.xz, x)
	copy(s.aux.xz[len(x):], z)
	y := m.Aux.P.ForwardBinary(s.aux.p, s.aux.xz)
	return y[:m.Aux.Dim], y[m.Aux.Dim:]
}

// AuxEncoderPre sets and returns the x part of the encoder's first
// pre-activation, W_1ᵀx + b_1 (a view into s, kept until the next call).
func (m *VAE) AuxEncoderPre(s *VAEScratch, x []uint8) []float64 {
	m.Enc.FirstBinary(s.aux.pre, x)
	return s.aux.pre
}

// AuxEncoderLogits returns the logits κ of q(z|x,a) given pre =
// AuxEncoderPre(s, x): the encoder run from z_1 = pre + Enc(a) (a view
// into s).
func (m *VAE) AuxEncoderLogits(s *VAEScratch, pre, a []float64) []float64 {
	g := m.Aux.Enc.Forward(s.aux.enc, a)
	for i, v := range pre {
		s.aux.sum[i] = v + g[i]
	}
	return m.Enc.ForwardPre(s.enc, s.aux.sum)
}

// halfLog2Pi is ½ log 2π.
var halfLog2Pi = 0.5 * math.Log(2*math.Pi)

// GaussLogProb returns log N(a; μ, diag σ²) = Σ_i −½((a_i − μ_i)/σ_i)² −
// log σ_i − ½ log 2π, σ_i = exp(logSigma_i).
func GaussLogProb(a, mu, logSigma []float64) float64 {
	t := 0.0
	for i, v := range a {
		u := (v - mu[i]) * math.Exp(-logSigma[i])
		t -= 0.5*u*u + logSigma[i] + halfLog2Pi
	}
	return t
}

// SampleAux draws a = μ + σ ⊙ ε, ε ~ N(0, I) (ε into eps, one
// rng.NormFloat64() per dimension in order), into a and returns
// log q(a|x) = Σ_i −½ε_i² − log σ_i − ½ log 2π.
func SampleAux(a, eps, mu, logSigma []float64, rng *rand.Rand) float64 {
	for i := range eps {
		eps[i] = rng.NormFloat64()
	}
	return AuxFromNoise(a, eps, mu, logSigma)
}

// AuxFromNoise sets a = μ + σ ⊙ ε and returns log q(a|x) (SampleAux for a
// given ε).
func AuxFromNoise(a, eps, mu, logSigma []float64) float64 {
	t := 0.0
	for i, e := range eps {
		a[i] = mu[i] + math.Exp(logSigma[i])*e
		t -= 0.5*e*e + logSigma[i] + halfLog2Pi
	}
	return t
}
