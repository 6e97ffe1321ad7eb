package models

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/logz-ml/logz/internal/mlp"
	"github.com/logz-ml/logz/internal/nmath"
	"github.com/logz-ml/logz/internal/npyx"
)

// VAE is a variational autoencoder with binary latents z ∈ {0,1}^Z
// (Kuleshov & Ermon 2017 §4.1, docs/methods.md#vae):
//
//	p(x, z) = p(z) p(x|z),  p(x|z) = Π_i Bernoulli(x_i; σ(ℓ_i(z))),
//	q(z|x) = Π_j Bernoulli(z_j; σ(κ_j(x))),
//
// with decoder logits ℓ = Dec(z) and encoder logits κ = Enc(x), each an MLP
// (internal/mlp: y = tanh(x W + b) between layers, linear last layer; the
// sigmoid is the Bernoulli head). The prior is either independent
// Bernoullis, log p(z) = Σ_j z_j λ_j − softplus(λ_j) (normalised), or an
// RBM over z with H hidden units, p̃(z) = exp(−F(z)), p(z) = p̃(z)/Z, whose
// log Z must be estimated (exact over 2^min(Z,H) terms, AIS, the χ² bound).
//
// Checkpoint arrays: dec_W1…dec_Wn (in×out), dec_b1…dec_bn; enc_W1…,
// enc_b1…; prior_W (Z×H), prior_vbias (Z), prior_hbias (H) for the RBM
// prior, or prior_logits (Z) for the Bernoulli prior; with auxiliary
// variables also aux_q_*, aux_enc_* and aux_p_* (VAEAux).
type VAE struct {
	// DecSizes are the decoder's sizes Z, h_1, …, X; EncSizes the
	// encoder's X, …, Z.
	DecSizes, EncSizes []int
	Dec, Enc           *mlp.Net
	// PriorLogits is the Bernoulli prior's λ (nil for an RBM prior).
	PriorLogits []float64
	// Prior is the RBM prior over z (nil for a Bernoulli prior).
	Prior *RBM
	// Aux holds the auxiliary variables a of q(a, z|x) = q(a|x) q(z|x,a)
	// and p(a|x,z) (nil: none, the plain VAE; see VAEAux).
	Aux *VAEAux
}

// VAE prior kinds.
const (
	PriorBernoulli = "bernoulli"
	PriorRBM       = "rbm"
)

// NewVAE returns a VAE with all parameters zero: X data units, Z latents,
// hidden the sizes of the decoder's hidden layers (the encoder mirrors
// them), and a Bernoulli prior (priorHidden 0) or an RBM prior with
// priorHidden hidden units.
func NewVAE(X, Z int, hidden []int, priorHidden int) (*VAE, error) {
	dec := append(append([]int{Z}, hidden...), X)
	enc := make([]int, len(dec))
	for i, s := range dec {
		enc[len(dec)-1-i] = s
	}
	return newVAE(dec, enc, priorHidden)
}

func newVAE(dec, enc []int, priorHidden int) (*VAE, error) {
	if err := CheckSizes("vae decoder", dec); err != nil {
		return nil, err
	}
	if err := CheckSizes("vae encoder", enc); err != nil {
		return nil, err
	}
	X, Z := dec[len(dec)-1], dec[0]
	if enc[0] != X || enc[len(enc)-1] != Z {
		return nil, fmt.Errorf("vae: the encoder maps %d → %d units, the decoder %d → %d", enc[0], enc[len(enc)-1], Z, X)
	}
	if priorHidden < 0 || priorHidden > MaxUnits || (priorHidden > 0 && Z*priorHidden > MaxParams) {
		return nil, fmt.Errorf("vae: prior hidden units %d out of range", priorHidden)
	}
	nd, ne := mlp.NumParams(dec), mlp.NumParams(enc)
	if nd+ne > MaxParams {
		return nil, fmt.Errorf("vae: %d parameters exceed models.MaxParams (%d)", nd+ne, MaxParams)
	}
	m := &VAE{DecSizes: append([]int(nil), dec...), EncSizes: append([]int(nil), enc...)}
	var err error
	if m.Dec, err = mlp.New(dec, make([]float64, nd)); err != nil {
		return nil, err
	}
	if m.Enc, err = mlp.New(enc, make([]float64, ne)); err != nil {
		return nil, err
	}
	if priorHidden > 0 {
		m.Prior = NewRBM(Z, priorHidden)
	} else {
		m.PriorLogits = make([]float64, Z)
	}
	return m, nil
}

// TypeName is "vae".
func (m *VAE) TypeName() string { return "vae" }

// NumVisible is X, the data units.
func (m *VAE) NumVisible() int { return m.DecSizes[len(m.DecSizes)-1] }

// NumLatent is Z.
func (m *VAE) NumLatent() int { return m.DecSizes[0] }

// PriorKind is "bernoulli" or "rbm".
func (m *VAE) PriorKind() string {
	if m.Prior != nil {
		return PriorRBM
	}
	return PriorBernoulli
}

// Label names the model with its sizes and prior: "vae 784-500-200 rbm(200,8)".
func (m *VAE) Label() string {
	s := make([]string, 0, len(m.EncSizes))
	for _, v := range m.EncSizes {
		s = append(s, strconv.Itoa(v))
	}
	prior := fmt.Sprintf("ber(%d)", m.NumLatent())
	if m.Prior != nil {
		prior = fmt.Sprintf("rbm(%d,%d)", m.Prior.NVis, m.Prior.NHid)
	}
	return "vae " + strings.Join(s, "-") + " " + prior + m.auxLabel()
}

// Validate checks that every parameter is finite and within MaxAbsParam.
func (m *VAE) Validate() error {
	for _, n := range []struct {
		prefix string
		net    *mlp.Net
	}{{"dec_", m.Dec}, {"enc_", m.Enc}} {
		for _, a := range n.net.Arrays(n.prefix) {
			cols := 0
			if len(a.Shape) == 2 {
				cols = a.Shape[1]
			}
			if err := CheckValues("vae: "+a.Name, a.Data, cols); err != nil {
				return err
			}
		}
	}
	if err := m.validateAux(); err != nil {
		return err
	}
	if m.Prior != nil {
		return m.Prior.validate("vae: ", "prior_W", "prior_vbias", "prior_hbias")
	}
	return CheckValues("vae: prior_logits", m.PriorLogits, 0)
}

// VAEScratch is the per-goroutine scratch of a VAE's computations.
type VAEScratch struct {
	dec, enc []float64
	pre      []float64
	idx      []int32
	aux      *auxScratch // auxiliary variables (nil without)
}

// NewScratch allocates a scratch for m.
func (m *VAE) NewScratch() *VAEScratch {
	s := &VAEScratch{dec: make([]float64, m.Dec.ScratchLen()), enc: make([]float64, m.Enc.ScratchLen())}
	if m.Prior != nil {
		s.pre = make([]float64, m.Prior.NHid)
		s.idx = make([]int32, 0, m.Prior.NVis)
	}
	if m.Aux != nil {
		s.aux = m.newAuxScratch()
	}
	return s
}

// DecScratch and EncScratch are the scratches of the decoder and encoder
// forward passes (for backpropagation by a trainer).
func (s *VAEScratch) DecScratch() []float64 { return s.dec }
func (s *VAEScratch) EncScratch() []float64 { return s.enc }

// DecoderLogits returns ℓ = Dec(z) (a view into s).
func (m *VAE) DecoderLogits(s *VAEScratch, z []uint8) []float64 {
	return m.Dec.ForwardBinary(s.dec, z)
}

// EncoderLogits returns κ = Enc(x) (a view into s).
func (m *VAE) EncoderLogits(s *VAEScratch, x []uint8) []float64 {
	return m.Enc.ForwardBinary(s.enc, x)
}

// LogLikelihood returns log p(x|z) = Σ_i x_i ℓ_i − softplus(ℓ_i).
func (m *VAE) LogLikelihood(s *VAEScratch, x, z []uint8) float64 {
	return BernoulliLogProb(x, m.DecoderLogits(s, z))
}

// LogPrior returns log p̃(z): the normalised log p(z) of a Bernoulli prior,
// or −F(z) of an RBM prior (log p(z) = −F(z) − log Z).
func (m *VAE) LogPrior(s *VAEScratch, z []uint8) float64 {
	if m.Prior == nil {
		return BernoulliLogProb(z, m.PriorLogits)
	}
	r := m.Prior
	t := 0.0
	copy(s.pre, r.HBias)
	for i, zi := range z {
		if zi != 0 {
			t += r.VBias[i]
			row := r.W[i*r.NHid : (i+1)*r.NHid]
			for j, w := range row {
				s.pre[j] += w
			}
		}
	}
	for _, p := range s.pre {
		t += nmath.Softplus(p)
	}
	return t
}

// BernoulliLogProb returns Σ_i x_i a_i − softplus(a_i), the log-probability
// of x under independent Bernoullis with logits a (docs/methods.md#bernoulli-log-probabilities).
func BernoulliLogProb(x []uint8, a []float64) float64 {
	t := 0.0
	for i, ai := range a {
		if x[i] != 0 {
			t -= nmath.Softplus(-ai)
		} else {
			t -= nmath.Softplus(ai)
		}
	}
	return t
}

// SampleBernoulliLogits draws x_i ~ Bernoulli(σ(a_i)) into x and returns
// log q(x) = Σ_i x_i a_i − softplus(a_i).
func SampleBernoulliLogits(x []uint8, a []float64, rng *rand.Rand) float64 {
	t := 0.0
	for i, ai := range a {
		if rng.Float64() < nmath.Sigmoid(ai) {
			x[i] = 1
			t -= nmath.Softplus(-ai)
		} else {
			x[i] = 0
			t -= nmath.Softplus(ai)
		}
	}
	return t
}

// VAEType is the codec of the VAE with binary latents.
var VAEType = Type{
	Name:      "vae",
	Doc:       "VAE with binary latents: decoder dec_W1…/dec_b1… (Z→…→X), encoder enc_W1…/enc_b1… (X→…→Z), tanh between layers, Bernoulli heads; prior prior_logits (Z) or an RBM prior_W (Z×H), prior_vbias, prior_hbias; optional auxiliary variables aux_q_* (q(a|x)), aux_enc_* (a into the encoder), aux_p_* (p(a|x,z))",
	Signature: []string{"dec_W1", "dec_b1", "enc_W1", "enc_b1"},
	Owns: func(name string) bool {
		for _, p := range []string{"dec_W", "dec_b", "enc_W", "enc_b"} {
			if rest, ok := strings.CutPrefix(name, p); ok {
				_, err := strconv.Atoi(rest)
				return err == nil
			}
		}
		switch name {
		case "prior_W", "prior_vbias", "prior_hbias", "prior_logits":
			return true
		}
		return ownsAux(name)
	},
	New: func(visible int, hidden []int) (Model, error) {
		if len(hidden) < 1 {
			return nil, fmt.Errorf("vae: needs the latent size (and hidden sizes), got %v", hidden)
		}
		return NewVAE(visible, hidden[len(hidden)-1], hidden[:len(hidden)-1], 0)
	},
	Arrays: func(mm Model) []Array {
		m := mm.(*VAE)
		var out []Array
		for _, n := range []struct {
			prefix string
			net    *mlp.Net
		}{{"dec_", m.Dec}, {"enc_", m.Enc}} {
			for _, a := range n.net.Arrays(n.prefix) {
				out = append(out, Array{Name: a.Name, Shape: a.Shape, Data: a.Data})
			}
		}
		if m.Prior != nil {
			r := m.Prior
			out = append(out, Array{"prior_W", []int{r.NVis, r.NHid}, r.W},
				Array{"prior_vbias", []int{r.NVis}, r.VBias}, Array{"prior_hbias", []int{r.NHid}, r.HBias})
		} else {
			out = append(out, Array{"prior_logits", []int{len(m.PriorLogits)}, m.PriorLogits})
		}
		return append(out, m.auxArrays()...)
	},
	FromArrays: vaeFromArrays,
}

// netSizes reads the sizes of the MLP stored as <prefix>W1…, <prefix>b1…
// and returns them with the arrays in order.
func netSizes(a map[string]*npyx.Array, prefix string) ([]int, []*npyx.Array, error) {
	var sizes []int
	var arrs []*npyx.Array
	for l := 1; ; l++ {
		w, b := a[fmt.Sprintf("%sW%d", prefix, l)], a[fmt.Sprintf("%sb%d", prefix, l)]
		if w == nil && b == nil {
			break
		}
		if w == nil || b == nil {
			return nil, nil, fmt.Errorf("vae: %sW%d and %sb%d must both be present", prefix, l, prefix, l)
		}
		if len(w.Shape) != 2 || len(b.Shape) != 1 || b.Shape[0] != w.Shape[1] {
			return nil, nil, fmt.Errorf("vae: %sW%d has shape %v and %sb%d %v; expected in×out and out", prefix, l, w.Shape, prefix, l, b.Shape)
		}
		if l == 1 {
			sizes = append(sizes, w.Shape[0])
		} else if w.Shape[0] != sizes[len(sizes)-1] {
			return nil, nil, fmt.Errorf("vae: %sW%d has %d rows, but layer %d has %d outputs", prefix, l, w.Shape[0], l-1, sizes[len(sizes)-1])
		}
		sizes = append(sizes, w.Shape[1])
		arrs = append(arrs, w, b)
	}
	if len(sizes) == 0 {
		return nil, nil, fmt.Errorf("vae: needs %sW1 and %sb1 (the first layer of the %s)", prefix, prefix, map[string]string{"dec_": "decoder", "enc_": "encoder"}[prefix])
	}
	return sizes, arrs, nil
}

func vaeFromArrays(a map[string]*npyx.Array) (Model, error) {
	dec, darr, err := netSizes(a, "dec_")
	if err != nil {
		return nil, err
	}
	enc, earr, err := netSizes(a, "enc_")
	if err != nil {
		return nil, err
	}
	Z := dec[0]
	H := 0
	pw, pl := a["prior_W"], a["prior_logits"]
	switch {
	case pw != nil && pl != nil:
		return nil, fmt.Errorf("vae: both prior_W (RBM prior) and prior_logits (Bernoulli prior); keep one")
	case pw != nil:
		if len(pw.Shape) != 2 || pw.Shape[0] != Z {
			return nil, fmt.Errorf("vae: prior_W has shape %v; expected %d×H (the decoder's input is %d latents)", pw.Shape, Z, Z)
		}
		H = pw.Shape[1]
		if H < 1 {
			return nil, fmt.Errorf("vae: prior_W has shape %v; expected at least one hidden unit", pw.Shape)
		}
	case pl == nil:
		return nil, fmt.Errorf("vae: needs a prior: prior_logits (Z) or prior_W (Z×H) with prior_vbias and prior_hbias")
	}
	m, err := newVAE(dec, enc, H)
	if err != nil {
		return nil, err
	}
	copyNet := func(net *mlp.Net, arrs []*npyx.Array) {
		p := net.Params()
		off := 0
		for _, x := range arrs {
			off += copy(p[off:], x.Data)
		}
	}
	copyNet(m.Dec, darr)
	copyNet(m.Enc, earr)
	if m.Prior != nil {
		r := m.Prior
		for _, e := range []struct {
			name string
			dst  []float64
		}{{"prior_W", r.W}, {"prior_vbias", r.VBias}, {"prior_hbias", r.HBias}} {
			x := a[e.name]
			if x == nil || len(x.Data) != len(e.dst) || len(x.Shape) < 1 {
				return nil, fmt.Errorf("vae: %s missing or of the wrong size (want %d values)", e.name, len(e.dst))
			}
			copy(e.dst, x.Data)
		}
	} else {
		if len(pl.Shape) != 1 || pl.Shape[0] != Z {
			return nil, fmt.Errorf("vae: prior_logits has shape %v; expected (%d)", pl.Shape, Z)
		}
		copy(m.PriorLogits, pl.Data)
	}
	if err := m.auxFromArrays(a); err != nil {
		return nil, err
	}
	return m, m.Validate()
}
