package models

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/logz-ml/logz/internal/npyx"
)

// Spins is the spin convention of an Ising model: how a data bit
// x ∈ {0,1} becomes the spin s that enters the energy.
type Spins uint8

const (
	// Spins01 takes s = x ∈ {0,1} (a Boltzmann machine without hidden
	// units; the couplings only act between units that are both on).
	Spins01 Spins = 0
	// SpinsPM1 takes s = 2x − 1 ∈ {−1,+1} (the physicists' Ising model).
	SpinsPM1 Spins = 1
)

// String returns "01" or "pm1", the names used in configs and the docs.
func (s Spins) String() string {
	if s == SpinsPM1 {
		return "pm1"
	}
	return "01"
}

// ParseSpins parses "01" or "pm1".
func ParseSpins(name string) (Spins, error) {
	switch name {
	case "01":
		return Spins01, nil
	case "pm1":
		return SpinsPM1, nil
	}
	return 0, fmt.Errorf("spins %q: expected 01 or pm1", name)
}

// Value returns the spin s of bit x: x, or 2x − 1.
func (s Spins) Value(x uint8) float64 {
	if s == SpinsPM1 {
		return float64(2*int(x) - 1)
	}
	return float64(x)
}

// Ising is a fully visible binary pairwise Markov random field on a
// Rows×Cols grid with 4-neighbour edges. Site i = r·Cols + c holds a bit
// x_i ∈ {0,1} and its spin s_i (s = x for Spins01, s = 2x − 1 for
// SpinsPM1); the unnormalised log-probability is
//
//	log p̃(x) = Σ_i h_i s_i + Σ_{<ij>} J_ij s_i s_j,   p(x) = p̃(x)/Z,
//
// with fields h (Fields, one per site) and couplings J on the horizontal
// edges (r,c)–(r,c+1), CouplingH[r·(Cols−1) + c], and the vertical edges
// (r,c)–(r+1,c), CouplingV[r·Cols + c]. The conditional of one site is
//
//	log p(x_i=1|x_−i) − log p(x_i=0|x_−i) = Δ_i = (s(1) − s(0))·(h_i + Σ_{j~i} J_ij s_j),
//
// i.e. Δ_i = a_i for Spins01 and 2a_i for SpinsPM1, a_i = h_i + Σ_{j~i} J_ij s_j.
// The sufficient statistics T(x) = (s_i; s_i s_j over the horizontal
// edges; s_i s_j over the vertical edges) are laid out like Params, so
// log p̃(x) = Params·T(x) and ∇ log Z = E_p[T(x)].
type Ising struct {
	Rows, Cols int
	Spins      Spins
	// Fields (Rows·Cols), CouplingH (Rows·(Cols−1)) and CouplingV
	// ((Rows−1)·Cols) are consecutive views of one parameter vector
	// (Params); do not reassign them.
	Fields, CouplingH, CouplingV []float64

	params []float64
}

// NewIsing returns a rows×cols Ising model with every parameter zero.
func NewIsing(rows, cols int, spins Spins) *Ising {
	m := &Ising{Rows: rows, Cols: cols, Spins: spins}
	D, nh, nv := rows*cols, rows*(cols-1), (rows-1)*cols
	m.params = make([]float64, D+nh+nv)
	m.Fields = m.params[:D:D]
	m.CouplingH = m.params[D : D+nh : D+nh]
	m.CouplingV = m.params[D+nh:]
	return m
}

// CheckIsingSize reports a grid that is not positive or has more than
// MaxUnits sites.
func CheckIsingSize(rows, cols int) error {
	if rows <= 0 || cols <= 0 {
		return fmt.Errorf("ising: the grid is %d×%d; rows and cols must be positive", rows, cols)
	}
	if rows > MaxUnits || cols > MaxUnits || rows*cols > MaxUnits {
		return fmt.Errorf("ising: the grid %d×%d has more than %d sites (models.MaxUnits)", rows, cols, MaxUnits)
	}
	return nil
}

// TypeName implements Model.
func (m *Ising) TypeName() string { return "ising" }

// Label names the model, e.g. "ising 5x5 pm1".
func (m *Ising) Label() string { return fmt.Sprintf("ising %dx%d %s", m.Rows, m.Cols, m.Spins) }

// NumVisible implements Model: Rows·Cols.
func (m *Ising) NumVisible() int { return m.Rows * m.Cols }

// ImageShape is the grid, the shape its states are drawn in.
func (m *Ising) ImageShape() (rows, cols int) { return m.Rows, m.Cols }

// Dim is the number of sites D (the chi2.Target contract).
func (m *Ising) Dim() int { return m.Rows * m.Cols }

// NewLogP returns log p̃ as a function (the chi2.Target contract); it has
// no scratch, so any number of goroutines may share it.
func (m *Ising) NewLogP() func(x []uint8) float64 { return m.LogUnnorm }

// Params returns the parameter vector (Fields, then CouplingH, then
// CouplingV); writing to it changes the model.
func (m *Ising) Params() []float64 { return m.params }

// Clone returns a deep copy.
func (m *Ising) Clone() *Ising {
	c := NewIsing(m.Rows, m.Cols, m.Spins)
	copy(c.params, m.params)
	return c
}

// Validate checks the shapes and that every parameter is finite and at
// most MaxAbsParam in magnitude.
func (m *Ising) Validate() error {
	if err := CheckIsingSize(m.Rows, m.Cols); err != nil {
		return err
	}
	if m.Spins != Spins01 && m.Spins != SpinsPM1 {
		return fmt.Errorf("ising: spins is %d; expected 0 (01) or 1 (pm1)", m.Spins)
	}
	R, C := m.Rows, m.Cols
	if len(m.Fields) != R*C || len(m.CouplingH) != R*(C-1) || len(m.CouplingV) != (R-1)*C {
		return fmt.Errorf("ising %dx%d: fields has %d values, coupling_h %d, coupling_v %d; want %d, %d, %d",
			R, C, len(m.Fields), len(m.CouplingH), len(m.CouplingV), R*C, R*(C-1), (R-1)*C)
	}
	for _, a := range []struct {
		name string
		xs   []float64
		cols int
	}{{"fields", m.Fields, C}, {"coupling_h", m.CouplingH, C - 1}, {"coupling_v", m.CouplingV, C}} {
		if err := checkValues(a.name, a.xs, a.cols); err != nil {
			return fmt.Errorf("ising: %w", err)
		}
	}
	return nil
}

// LogUnnorm returns log p̃(x) = Σ_i h_i s_i + Σ_{<ij>} J_ij s_i s_j for
// x ∈ {0,1}^D (len(x) = Rows·Cols). It does not allocate.
func (m *Ising) LogUnnorm(x []uint8) float64 {
	R, C, sp := m.Rows, m.Cols, m.Spins
	x = x[:R*C]
	lp := 0.0
	for r := range R {
		row := x[r*C : (r+1)*C]
		h := m.Fields[r*C : (r+1)*C]
		jh := m.CouplingH[r*(C-1) : (r+1)*(C-1)]
		for c, xi := range row {
			s := sp.Value(xi)
			a := h[c]
			if c+1 < C {
				a += jh[c] * sp.Value(row[c+1])
			}
			if r+1 < R {
				a += m.CouplingV[r*C+c] * sp.Value(x[(r+1)*C+c])
			}
			lp += s * a
		}
	}
	return lp
}

// LocalField returns a_i = h_i + Σ_{j~i} J_ij s_j, the field on site i
// from its neighbours in x.
func (m *Ising) LocalField(x []uint8, i int) float64 {
	C, sp := m.Cols, m.Spins
	r, c := i/C, i%C
	a := m.Fields[i]
	if c > 0 {
		a += m.CouplingH[r*(C-1)+c-1] * sp.Value(x[i-1])
	}
	if c+1 < C {
		a += m.CouplingH[r*(C-1)+c] * sp.Value(x[i+1])
	}
	if r > 0 {
		a += m.CouplingV[(r-1)*C+c] * sp.Value(x[i-C])
	}
	if r+1 < m.Rows {
		a += m.CouplingV[i] * sp.Value(x[i+C])
	}
	return a
}

// Delta returns Δ_i = log p̃(x with x_i=1) − log p̃(x with x_i=0).
func (m *Ising) Delta(x []uint8, i int) float64 {
	a := m.LocalField(x, i)
	if m.Spins == SpinsPM1 {
		return 2 * a
	}
	return a
}

// AddStats adds w·T(x), the sufficient statistics of x, to out (laid out
// like Params): s_i, then s_i s_{right of i}, then s_i s_{below i}.
func (m *Ising) AddStats(out []float64, x []uint8, w float64) {
	R, C, sp := m.Rows, m.Cols, m.Spins
	D, nh := R*C, R*(C-1)
	out = out[:len(m.params)]
	for r := range R {
		for c := range C {
			i := r*C + c
			s := w * sp.Value(x[i])
			out[i] += s
			if c+1 < C {
				out[D+r*(C-1)+c] += s * sp.Value(x[i+1])
			}
			if r+1 < R {
				out[D+nh+i] += s * sp.Value(x[i+C])
			}
		}
	}
}

// GibbsSweep updates every site once in raster order from its
// conditional at inverse temperature β with base logits b (nil = 0):
// x_i = 1 with probability σ(β·Δ_i + (1−β)·b_i), the Gibbs kernel of
// f_β(x) = exp((1−β)·bᵀx + β·log p̃(x)). It draws exactly one uniform
// per site from rng and does not allocate.
func (m *Ising) GibbsSweep(x []uint8, beta float64, base []float64, rng *rand.Rand) {
	D := m.Rows * m.Cols
	x = x[:D]
	for i := range x {
		l := beta * m.Delta(x, i)
		if base != nil {
			l += (1 - beta) * base[i]
		}
		x[i] = 0
		if rng.Float64() < sigmoid(l) {
			x[i] = 1
		}
	}
}

// sigmoid is σ(l) = 1/(1+e^{−l}) without overflow.
func sigmoid(l float64) float64 {
	if l >= 0 {
		return 1 / (1 + math.Exp(-l))
	}
	e := math.Exp(l)
	return e / (1 + e)
}

// transposed returns the model on the transposed grid (Cols×Rows): site
// (r,c) of the result is site (c,r) of m, horizontal edges become
// vertical ones and vice versa; log p̃ is unchanged for transposed data.
func (m *Ising) transposed() *Ising {
	R, C := m.Rows, m.Cols
	t := NewIsing(C, R, m.Spins)
	for r := range R {
		for c := range C {
			t.Fields[c*R+r] = m.Fields[r*C+c]
			if c+1 < C { // (r,c)–(r,c+1) becomes (c,r)–(c+1,r), vertical
				t.CouplingV[c*R+r] = m.CouplingH[r*(C-1)+c]
			}
			if r+1 < R { // (r,c)–(r+1,c) becomes (c,r)–(c,r+1), horizontal
				t.CouplingH[c*(R-1)+r] = m.CouplingV[r*C+c]
			}
		}
	}
	return t
}

// The checkpoint arrays of an Ising model (float64, row-major):
//
//	fields      rows×cols
//	coupling_h  rows×(cols−1)   (absent or empty when cols = 1)
//	coupling_v  (rows−1)×cols   (absent or empty when rows = 1)
//	spins       one integer: 0 = spins 01 (s = x), 1 = spins pm1 (s = 2x−1);
//	            optional in a file written by NumPy, default 1 (pm1)
//
// IsingType is the codec of the Ising model (a fully visible pairwise MRF on a grid).
var IsingType = Type{
	Name:      "ising",
	Doc:       "fully visible pairwise MRF on a grid (Ising model): arrays fields (R×C), coupling_h (R×(C−1)), coupling_v ((R−1)×C), spins (0 = 01, 1 = pm1)",
	Signature: []string{"fields", "coupling_h", "coupling_v"},
	Needs:     isingNeeds,
	Owns: func(name string) bool {
		return name == "fields" || name == "coupling_h" || name == "coupling_v" || name == "spins"
	},
	New: func(visible int, hidden []int) (Model, error) {
		if len(hidden) != 0 {
			return nil, fmt.Errorf("ising: a fully visible model has no hidden layers, got %v", hidden)
		}
		if err := CheckIsingSize(1, visible); err != nil {
			return nil, err
		}
		return NewIsing(1, visible, SpinsPM1), nil
	},
	Arrays: func(mm Model) []Array {
		m := mm.(*Ising)
		R, C := m.Rows, m.Cols
		out := []Array{{"fields", []int{R, C}, m.Fields}}
		if C > 1 {
			out = append(out, Array{"coupling_h", []int{R, C - 1}, m.CouplingH})
		}
		if R > 1 {
			out = append(out, Array{"coupling_v", []int{R - 1, C}, m.CouplingV})
		}
		return append(out, Array{"spins", []int{1}, []float64{float64(m.Spins)}})
	},
	FromArrays: isingFromArrays,
}

// isingNeeds lists the arrays of an Ising file: fields, coupling_h unless
// the grid has one column, coupling_v unless it has one row (the shape of
// fields says; without a 2-D fields, all three).
func isingNeeds(a map[string]*npyx.Array) []string {
	f := a["fields"]
	if f == nil || len(f.Shape) != 2 {
		return []string{"fields", "coupling_h", "coupling_v"}
	}
	needs := []string{"fields"}
	if f.Shape[1] > 1 {
		needs = append(needs, "coupling_h")
	}
	if f.Shape[0] > 1 {
		needs = append(needs, "coupling_v")
	}
	return needs
}

// DefaultIsingSpins is the spin convention of a checkpoint without a
// spins array (one written by NumPy with fields and couplings only).
const DefaultIsingSpins = SpinsPM1

func isingFromArrays(a map[string]*npyx.Array) (Model, error) {
	f := a["fields"]
	if f == nil {
		return nil, fmt.Errorf("ising: needs array fields (rows×cols), with coupling_h (rows×(cols−1)) and coupling_v ((rows−1)×cols)")
	}
	if len(f.Shape) != 2 {
		return nil, fmt.Errorf("ising: fields has shape %v; expected a rows×cols matrix", f.Shape)
	}
	R, C := f.Shape[0], f.Shape[1]
	if err := CheckIsingSize(R, C); err != nil {
		return nil, fmt.Errorf("ising: fields has shape %v: %w", f.Shape, err)
	}
	spins := DefaultIsingSpins
	if s := a["spins"]; s != nil {
		if len(s.Data) != 1 || (s.Data[0] != 0 && s.Data[0] != 1) {
			return nil, fmt.Errorf("ising: spins must be one integer, 0 (spins 01: s = x) or 1 (spins pm1: s = 2x−1); got shape %v values %v", s.Shape, clipValues(s.Data))
		}
		spins = Spins(s.Data[0])
	}
	m := NewIsing(R, C, spins)
	var missing []string
	for _, e := range []struct {
		name       string
		dst        []float64
		rows, cols int
	}{{"coupling_h", m.CouplingH, R, C - 1}, {"coupling_v", m.CouplingV, R - 1, C}} {
		x := a[e.name]
		if x == nil {
			if len(e.dst) > 0 {
				missing = append(missing, fmt.Sprintf("%s (%d×%d)", e.name, e.rows, e.cols))
			}
			continue
		}
		if len(x.Shape) != 2 || x.Shape[0] != e.rows || x.Shape[1] != e.cols {
			if len(e.dst) == 0 && len(x.Data) == 0 {
				continue
			}
			return nil, fmt.Errorf("ising: %s has shape %v; expected (%d, %d) for fields %d×%d", e.name, x.Shape, e.rows, e.cols, R, C)
		}
		copy(e.dst, x.Data)
	}
	switch len(missing) {
	case 1:
		return nil, fmt.Errorf("ising: missing array %s for fields %d×%d", missing[0], R, C)
	case 2:
		return nil, fmt.Errorf("ising: missing arrays %s and %s for fields %d×%d", missing[0], missing[1], R, C)
	}
	copy(m.Fields, f.Data)
	if err := m.Validate(); err != nil {
		return nil, err
	}
	return m, nil
}

// clipValues shows at most the first 4 values of xs.
func clipValues(xs []float64) string {
	if len(xs) > 4 {
		return fmt.Sprintf("%v…", xs[:4])
	}
	return fmt.Sprint(xs)
}
