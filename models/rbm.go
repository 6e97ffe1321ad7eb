package models

import (
	"fmt"
	"math/rand/v2"

	"github.com/logz-ml/logz/internal/nmath"
	"github.com/logz-ml/logz/internal/npyx"
)

// RBM is a binary restricted Boltzmann machine over v ∈ {0,1}^D, h ∈ {0,1}^H
// with energy
//
//	E(v,h) = −vᵀWh − aᵀv − bᵀh,
//
// free energy F(v) = −aᵀv − Σ_j softplus(b_j + vᵀW_{:,j}) and
// p(v) = e^{−F(v)}/Z. The conditionals factorise:
// p(h_j=1|v) = σ(b_j + vᵀW_{:,j}) and p(v_i=1|h) = σ(a_i + W_{i,:}h).
type RBM struct {
	NVis, NHid int
	// W is the D×H weight matrix, row-major: W[i*NHid+j] couples v_i and h_j.
	W     []float64
	VBias []float64 // a, length D
	HBias []float64 // b, length H
}

// NewRBM returns an RBM with all parameters zero.
func NewRBM(nvis, nhid int) *RBM {
	return &RBM{
		NVis: nvis, NHid: nhid,
		W:     make([]float64, nvis*nhid),
		VBias: make([]float64, nvis),
		HBias: make([]float64, nhid),
	}
}

// TypeName implements Model.
func (m *RBM) TypeName() string { return "rbm" }

// Label names the model with its sizes, e.g. "rbm 784-25".
func (m *RBM) Label() string { return fmt.Sprintf("rbm %d-%d", m.NVis, m.NHid) }

// NumVisible implements Model.
func (m *RBM) NumVisible() int { return m.NVis }

// Clone returns a deep copy.
func (m *RBM) Clone() *RBM {
	c := NewRBM(m.NVis, m.NHid)
	copy(c.W, m.W)
	copy(c.VBias, m.VBias)
	copy(c.HBias, m.HBias)
	return c
}

// Validate checks shapes and that every parameter is finite and at most
// MaxAbsParam in magnitude.
func (m *RBM) Validate() error { return m.validate("rbm: ", "W", "vbias", "hbias") }

// validate is Validate with the given message prefix and array names (a
// DBN layer's are W<l>, vbias<l>, hbias<l>).
func (m *RBM) validate(prefix, w, vb, hb string) error {
	if m.NVis <= 0 || m.NHid <= 0 {
		return fmt.Errorf("%ssizes must be positive, got %d visible × %d hidden", prefix, m.NVis, m.NHid)
	}
	if len(m.W) != m.NVis*m.NHid || len(m.VBias) != m.NVis || len(m.HBias) != m.NHid {
		return fmt.Errorf("%s%s has %d entries, %s %d, %s %d; want %d×%d=%d, %d, %d",
			prefix, w, len(m.W), vb, len(m.VBias), hb, len(m.HBias), m.NVis, m.NHid, m.NVis*m.NHid, m.NVis, m.NHid)
	}
	for _, a := range []struct {
		name string
		xs   []float64
		cols int
	}{{w, m.W, m.NHid}, {vb, m.VBias, 0}, {hb, m.HBias, 0}} {
		if err := checkValues(a.name, a.xs, a.cols); err != nil {
			return fmt.Errorf("%s%w", prefix, err)
		}
	}
	return nil
}

// HiddenPreact sets dst_j = b_j + Σ_i v_i W_ij.
func (m *RBM) HiddenPreact(dst, v []float64) {
	H := m.NHid
	copy(dst[:H], m.HBias)
	for i, vi := range v[:m.NVis] {
		if vi == 0 {
			continue
		}
		row := m.W[i*H : (i+1)*H]
		for j, w := range row {
			dst[j] += vi * w
		}
	}
}

// VisiblePreact sets dst_i = a_i + Σ_j W_ij h_j.
func (m *RBM) VisiblePreact(dst, h []float64) {
	H := m.NHid
	h = h[:H]
	for i := range m.NVis {
		row := m.W[i*H : (i+1)*H]
		s := m.VBias[i]
		for j, w := range row {
			s += w * h[j]
		}
		dst[i] = s
	}
}

// FreeEnergy returns F(v) = −aᵀv − Σ_j softplus(b_j + vᵀW_{:,j}); scratch, if
// non-nil, must have length ≥ H and avoids an allocation.
func (m *RBM) FreeEnergy(v, scratch []float64) float64 {
	if len(scratch) < m.NHid {
		scratch = make([]float64, m.NHid)
	}
	m.HiddenPreact(scratch, v)
	f := 0.0
	for i, vi := range v[:m.NVis] {
		f -= m.VBias[i] * vi
	}
	for _, x := range scratch[:m.NHid] {
		f -= nmath.Softplus(x)
	}
	return f
}

// LogUnnorm returns log f(v) = −F(v), the log of the unnormalised marginal.
func (m *RBM) LogUnnorm(v, scratch []float64) float64 { return -m.FreeEnergy(v, scratch) }

// Energy returns E(v,h).
func (m *RBM) Energy(v, h []float64) float64 {
	H := m.NHid
	e := 0.0
	for i, vi := range v[:m.NVis] {
		if vi == 0 {
			continue
		}
		e -= m.VBias[i] * vi
		row := m.W[i*H : (i+1)*H]
		for j, w := range row {
			e -= vi * w * h[j]
		}
	}
	for j, hj := range h[:H] {
		e -= m.HBias[j] * hj
	}
	return e
}

// LogUnnormGivenHidden returns log Σ_v e^{−E(v,h)} = bᵀh + Σ_i softplus(a_i + W_{i,:}h),
// the unnormalised log marginal of h; scratch needs length ≥ D.
func (m *RBM) LogUnnormGivenHidden(h, scratch []float64) float64 {
	if len(scratch) < m.NVis {
		scratch = make([]float64, m.NVis)
	}
	m.VisiblePreact(scratch, h)
	f := 0.0
	for j, hj := range h[:m.NHid] {
		f += m.HBias[j] * hj
	}
	for _, x := range scratch[:m.NVis] {
		f += nmath.Softplus(x)
	}
	return f
}

// SampleBernoulli sets dst_i ∈ {0,1} with P(dst_i = 1) = σ(preact_i).
func SampleBernoulli(dst, preact []float64, rng *rand.Rand) {
	for i, x := range preact {
		if rng.Float64() < nmath.Sigmoid(x) {
			dst[i] = 1
		} else {
			dst[i] = 0
		}
	}
}

// SigmoidInPlace replaces each x by σ(x).
func SigmoidInPlace(x []float64) {
	for i, v := range x {
		x[i] = nmath.Sigmoid(v)
	}
}

// RBMType is the codec of the binary RBM.
var RBMType = Type{
	Name:      "rbm",
	Doc:       "binary restricted Boltzmann machine: arrays W (D×H), vbias (D), hbias (H)",
	Signature: []string{"W", "vbias", "hbias"},
	Owns:      func(name string) bool { return name == "W" || name == "vbias" || name == "hbias" },
	New: func(visible int, hidden []int) (Model, error) {
		if len(hidden) != 1 {
			return nil, fmt.Errorf("rbm: want exactly one hidden layer size, got %v", hidden)
		}
		if visible <= 0 || hidden[0] <= 0 {
			return nil, fmt.Errorf("rbm: sizes must be positive, got %d visible, %d hidden", visible, hidden[0])
		}
		if err := CheckSizes("rbm", []int{visible, hidden[0]}); err != nil {
			return nil, err
		}
		return NewRBM(visible, hidden[0]), nil
	},
	Arrays: func(m Model) []Array {
		r := m.(*RBM)
		return []Array{
			{"W", []int{r.NVis, r.NHid}, r.W},
			{"vbias", []int{r.NVis}, r.VBias},
			{"hbias", []int{r.NHid}, r.HBias},
		}
	},
	FromArrays: rbmFromArrays,
}

func rbmFromArrays(a map[string]*npyx.Array) (Model, error) {
	w, vb, hb := a["W"], a["vbias"], a["hbias"]
	if w == nil || vb == nil || hb == nil {
		return nil, fmt.Errorf("rbm: needs arrays W, vbias and hbias")
	}
	if len(w.Shape) != 2 {
		return nil, fmt.Errorf("rbm: W has shape %v, want 2-D (visible × hidden)", w.Shape)
	}
	d, h := w.Shape[0], w.Shape[1]
	if len(vb.Shape) != 1 || vb.Shape[0] != d {
		return nil, fmt.Errorf("rbm: vbias has shape %v, want (%d,) to match W %v", vb.Shape, d, w.Shape)
	}
	if len(hb.Shape) != 1 || hb.Shape[0] != h {
		return nil, fmt.Errorf("rbm: hbias has shape %v, want (%d,) to match W %v", hb.Shape, h, w.Shape)
	}
	r := &RBM{NVis: d, NHid: h, W: w.Data, VBias: vb.Data, HBias: hb.Data}
	if err := r.Validate(); err != nil {
		return nil, err
	}
	return r, nil
}
