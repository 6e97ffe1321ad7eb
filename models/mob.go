package models

import (
	"fmt"

	"github.com/logz-ml/logz/internal/kernel"
	"github.com/logz-ml/logz/internal/nmath"
	"github.com/logz-ml/logz/internal/npyx"
)

// MaxMoBComponents bounds the components of a mixture of Bernoullis: a
// mixture of more than 2^16 = 65,536 components is a typo (MNIST has
// 60,000 images, and the largest mixture of the papers has 500).
const MaxMoBComponents = 1 << 16

// MoB is a mixture of K products of D Bernoullis (a mixture of
// Bernoullis) over x ∈ {0,1}^D:
//
//	p(x) = Σ_k π_k Π_d μ_kd^x_d (1 − μ_kd)^(1−x_d),
//
// stored as the mixing log-weights LogWeights_k = log π_k (normalised
// where used: log π_k = LogWeights_k − logsumexp(LogWeights), so a file
// with unnormalised weights means the same mixture) and the logits
// Logits[k·D + d] = η_kd = log μ_kd − log(1 − μ_kd), so that log μ =
// log σ(η) and log(1 − μ) = log σ(−η) are finite for every finite η. The
// model is normalised: log Z = 0, and log p(x) is exact, a logsumexp over
// the components of
//
//	log π_k + Σ_d x_d η_kd − Σ_d softplus(η_kd).
type MoB struct {
	K, D       int
	LogWeights []float64 // K
	Logits     []float64 // K×D, row-major: component k is Logits[k·D:(k+1)·D]
}

// CheckMoBSize reports a mixture of K components over D units that is not
// positive, has more than MaxMoBComponents components or MaxUnits units,
// or more than MaxParams parameters.
func CheckMoBSize(K, D int) error {
	switch {
	case K < 1 || K > MaxMoBComponents:
		return fmt.Errorf("mob: %d components; expected an integer in [1, %d] (models.MaxMoBComponents)", K, MaxMoBComponents)
	case D < 1 || D > MaxUnits:
		return fmt.Errorf("mob: %d units; expected an integer in [1, %d] (models.MaxUnits)", D, MaxUnits)
	case K*D+K > MaxParams: // K ≤ 2^16 and D ≤ 2^20: no overflow
		return fmt.Errorf("mob: %d components × %d units make %d parameters; the limit is %d (models.MaxParams)", K, D, K*D+K, MaxParams)
	}
	return nil
}

// NewMoB returns a mixture of K components over D units with uniform
// weights and every μ_kd = ½ (all parameters zero).
func NewMoB(K, D int) (*MoB, error) {
	if err := CheckMoBSize(K, D); err != nil {
		return nil, err
	}
	m := &MoB{K: K, D: D, LogWeights: make([]float64, K), Logits: make([]float64, K*D)}
	return m, nil
}

// TypeName implements Model.
func (m *MoB) TypeName() string { return "mob" }

// Label names the model with its sizes, "mob 784-500" (units, components).
func (m *MoB) Label() string { return fmt.Sprintf("mob %d-%d", m.D, m.K) }

// NumVisible implements Model.
func (m *MoB) NumVisible() int { return m.D }

// Clone returns a deep copy.
func (m *MoB) Clone() *MoB {
	return &MoB{K: m.K, D: m.D, LogWeights: append([]float64(nil), m.LogWeights...), Logits: append([]float64(nil), m.Logits...)}
}

// Validate checks the shapes and that every parameter is finite and at
// most MaxAbsParam in magnitude.
func (m *MoB) Validate() error {
	if err := CheckMoBSize(m.K, m.D); err != nil {
		return err
	}
	if len(m.LogWeights) != m.K || len(m.Logits) != m.K*m.D {
		return fmt.Errorf("mob %d-%d: log_weights has %d values, logits %d; want %d and %d", m.D, m.K, len(m.LogWeights), len(m.Logits), m.K, m.K*m.D)
	}
	if err := checkValues("log_weights", m.LogWeights, 0); err != nil {
		return fmt.Errorf("mob: %w", err)
	}
	if err := checkValues("logits", m.Logits, m.D); err != nil {
		return fmt.Errorf("mob: %w", err)
	}
	return nil
}

// LogMix returns the normalised mixing log-weights log π_k.
func (m *MoB) LogMix() []float64 {
	out := make([]float64, m.K)
	z := nmath.LogSumExp(m.LogWeights)
	for k, w := range m.LogWeights {
		out[k] = w - z
	}
	return out
}

// MoBTables are a mixture's parameters laid out for evaluating many x:
// the logits transposed, Lt[d·K + k] = η_kd (so that Σ_{d: x_d=1} η_kd
// over k is a sum of the rows of Lt that x selects, kernel.AddRows), and
// Base_k = log π_k − Σ_d softplus(η_kd), the log-joint of x = 0.
type MoBTables struct {
	K, D int
	Lt   []float64 // D×K
	Base []float64 // K
}

// NewMoBTables returns tables of m's sizes, filled from m.
func (m *MoB) NewMoBTables() *MoBTables {
	t := &MoBTables{K: m.K, D: m.D, Lt: make([]float64, m.D*m.K), Base: make([]float64, m.K)}
	m.FillTables(t)
	return t
}

// FillTables refills t (of m's sizes) from m's parameters; it does not
// allocate.
func (m *MoB) FillTables(t *MoBTables) {
	K, D := m.K, m.D
	z := nmath.LogSumExp(m.LogWeights)
	for k := range K {
		row := m.Logits[k*D : (k+1)*D]
		s := 0.0
		for d, e := range row {
			s += nmath.Softplus(e)
			t.Lt[d*K+k] = e
		}
		t.Base[k] = m.LogWeights[k] - z - s
	}
}

// OnUnits returns the indices d with x_d ≠ 0, in order, in buf's storage
// (reallocated only if too small).
func OnUnits(x []uint8, buf []int32) []int32 {
	buf = buf[:0]
	for d, v := range x {
		if v != 0 {
			buf = append(buf, int32(d))
		}
	}
	return buf
}

// Joint sets a_k = log π_k + log p(x|k) for the x whose on units are on
// (OnUnits): Base_k plus the rows of Lt that x selects. It does not
// allocate.
func (t *MoBTables) Joint(a []float64, on []int32) {
	a = a[:t.K]
	copy(a, t.Base)
	kernel.AddRows(a, t.Lt, on)
}

// LogProb returns log p(x) = logsumexp_k a_k and leaves a_k = log π_k +
// log p(x|k) in a (length K); on is scratch for the on units (its storage
// is returned for reuse). It does not allocate once on has D entries of
// capacity.
func (t *MoBTables) LogProb(x []uint8, a []float64, on []int32) (float64, []int32) {
	on = OnUnits(x[:t.D], on)
	t.Joint(a, on)
	return nmath.LogSumExp(a[:t.K]), on
}

// LogProb returns log p(x) (allocating tables; for many x use
// NewMoBTables and MoBTables.LogProb).
func (m *MoB) LogProb(x []uint8) float64 {
	lp, _ := m.NewMoBTables().LogProb(x, make([]float64, m.K), nil)
	return lp
}

// The checkpoint arrays of a mixture of Bernoullis (float64):
//
//	log_weights  K     mixing log-weights log π_k (normalised where used)
//	logits       K×D   η_kd = log μ_kd − log(1 − μ_kd); μ_k = 1/(1+exp(−logits[k]))
//
// MoBType is the codec of the mixture of Bernoullis.
var MoBType = Type{
	Name:      "mob",
	Doc:       "mixture of Bernoullis p(x) = Σ_k π_k Π_d μ_kd^x_d (1−μ_kd)^(1−x_d): arrays log_weights (K, log π_k, normalised where used), logits (K×D, log μ_kd − log(1−μ_kd))",
	Signature: []string{"log_weights", "logits"},
	Owns:      func(name string) bool { return name == "log_weights" || name == "logits" },
	New: func(visible int, hidden []int) (Model, error) {
		if len(hidden) != 1 {
			return nil, fmt.Errorf("mob: needs one size, the number of components, got %v", hidden)
		}
		return NewMoB(hidden[0], visible)
	},
	Arrays: func(mm Model) []Array {
		m := mm.(*MoB)
		return []Array{{"log_weights", []int{m.K}, m.LogWeights}, {"logits", []int{m.K, m.D}, m.Logits}}
	},
	FromArrays: mobFromArrays,
}

func mobFromArrays(a map[string]*npyx.Array) (Model, error) {
	w, l := a["log_weights"], a["logits"]
	if w == nil || l == nil {
		return nil, fmt.Errorf("mob: needs arrays log_weights (K) and logits (K×D)")
	}
	if len(l.Shape) != 2 {
		return nil, fmt.Errorf("mob: logits has shape %v; expected a K×D matrix (components × units)", l.Shape)
	}
	K, D := l.Shape[0], l.Shape[1]
	if len(w.Shape) != 1 || w.Shape[0] != K {
		return nil, fmt.Errorf("mob: log_weights has shape %v; expected (%d,), one per row of logits %v", w.Shape, K, l.Shape)
	}
	m, err := NewMoB(K, D)
	if err != nil {
		return nil, err
	}
	copy(m.LogWeights, w.Data)
	copy(m.Logits, l.Data)
	if err := m.Validate(); err != nil {
		return nil, err
	}
	return m, nil
}
