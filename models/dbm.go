package models

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"

	"github.com/logz-ml/logz/internal/nmath"
	"github.com/logz-ml/logz/internal/npyx"
)

// DBM is a binary deep Boltzmann machine (Salakhutdinov & Hinton 2009) with
// L ≥ 2 hidden layers. Write x_0 = v, x_1 = h1, …, x_L = hL for the layers and
// n_l = Sizes[l] for their sizes. The energy is
//
//	E(x_0, …, x_L) = −Σ_{l=0}^{L−1} x_lᵀ W_l x_{l+1} − Σ_{l=0}^{L} b_lᵀ x_l,
//
// with W_l = W[l] (n_l × n_{l+1}, row-major: W[l][i*n_{l+1}+j] couples unit i
// of layer l with unit j of layer l+1) and b_l = B[l], and
// p(x) = e^{−E(x)}/Z. Only adjacent layers interact, so each layer is
// conditionally independent of the others given its neighbours:
//
//	p(x_{l,j} = 1 | x_{l−1}, x_{l+1}) = σ(z_{l,j}),  z_l = b_l + W_{l−1}ᵀ x_{l−1} + W_l x_{l+1}
//
// (the missing neighbour term dropped for l = 0 and l = L). In particular the
// odd layers are conditionally independent given the even ones (layer 0, the
// visible layer, is even) and vice versa, and summing out the odd layers gives
//
//	log Σ_{x_odd} e^{−E(x)} = Σ_{l even} b_lᵀ x_l + Σ_{l odd} Σ_j softplus(z_{l,j}),
//
// which LogUnnormEven computes.
//
// model.npz arrays (type "dbm"), all float64, plus "meta" as for RBMs
// ({"type":"dbm","format":1,...}):
//
//	W<l>  n_{l−1} × n_l  for l = 1…L  (W1 is D × H1, W2 is H1 × H2, …); W<l> = W[l−1]
//	b<l>  n_l            for l = 0…L  (b0 = the visible biases, b<l> those of h_l); b<l> = B[l]
//
// numbered without gaps; L ≥ 2.
type DBM struct {
	// Sizes are [n_0 = D, n_1, …, n_L].
	Sizes []int
	// W[l] is n_l × n_{l+1} row-major, l = 0…L−1.
	W [][]float64
	// B[l] are the biases of layer l, l = 0…L (B[0] the visible biases).
	B [][]float64
}

// NewDBM returns a DBM with all parameters zero; sizes = [D, n_1, …, n_L],
// L ≥ 2.
func NewDBM(sizes ...int) (*DBM, error) {
	if len(sizes) < 3 {
		return nil, fmt.Errorf("dbm: want the visible size and at least two hidden layer sizes, got %v", sizes)
	}
	for i, n := range sizes {
		if n <= 0 {
			return nil, fmt.Errorf("dbm: layer %d has size %d; sizes must be positive (got %v)", i, n, sizes)
		}
	}
	if err := CheckSizes("dbm", sizes); err != nil {
		return nil, err
	}
	d := &DBM{Sizes: append([]int(nil), sizes...)}
	for l, n := range sizes {
		d.B = append(d.B, make([]float64, n))
		if l+1 < len(sizes) {
			d.W = append(d.W, make([]float64, n*sizes[l+1]))
		}
	}
	return d, nil
}

// TypeName implements Model.
func (d *DBM) TypeName() string { return "dbm" }

// Label names the model with its sizes, e.g. "dbm 784-500-1000".
func (d *DBM) Label() string { return "dbm " + joinSizes(d.Sizes) }

// NumVisible implements Model.
func (d *DBM) NumVisible() int {
	if len(d.Sizes) == 0 {
		return 0
	}
	return d.Sizes[0]
}

// NumLayers returns L, the number of hidden layers.
func (d *DBM) NumLayers() int { return len(d.Sizes) - 1 }

// Clone returns a deep copy.
func (d *DBM) Clone() *DBM {
	c := &DBM{Sizes: append([]int(nil), d.Sizes...)}
	for _, w := range d.W {
		c.W = append(c.W, append([]float64(nil), w...))
	}
	for _, b := range d.B {
		c.B = append(c.B, append([]float64(nil), b...))
	}
	return c
}

// Validate checks the number of layers, the array lengths and that every
// parameter is finite.
func (d *DBM) Validate() error {
	L := len(d.Sizes) - 1
	if L < 2 {
		return fmt.Errorf("dbm: %d hidden layer(s) (sizes %v); a DBM needs at least two (one is an RBM)", max(L, 0), d.Sizes)
	}
	for l, n := range d.Sizes {
		if n <= 0 {
			return fmt.Errorf("dbm: layer %d has size %d; sizes must be positive", l, n)
		}
	}
	if len(d.W) != L {
		return fmt.Errorf("dbm: %d weight matrices for %d hidden layers; want %d", len(d.W), L, L)
	}
	if len(d.B) != L+1 {
		return fmt.Errorf("dbm: %d bias vectors for %d layers; want %d (b0…b%d)", len(d.B), L+1, L+1, L)
	}
	for l := 0; l <= L; l++ {
		if len(d.B[l]) != d.Sizes[l] {
			return fmt.Errorf("dbm: b%d has length %d, want %d (size of layer %d)", l, len(d.B[l]), d.Sizes[l], l)
		}
		if err := checkValues("b"+strconv.Itoa(l), d.B[l], 0); err != nil {
			return fmt.Errorf("dbm: %w", err)
		}
		if l == L {
			break
		}
		if want := d.Sizes[l] * d.Sizes[l+1]; len(d.W[l]) != want {
			return fmt.Errorf("dbm: W%d has %d entries, want %d×%d = %d", l+1, len(d.W[l]), d.Sizes[l], d.Sizes[l+1], want)
		}
		if err := checkValues("W"+strconv.Itoa(l+1), d.W[l], d.Sizes[l+1]); err != nil {
			return fmt.Errorf("dbm: %w", err)
		}
	}
	return nil
}

// Energy returns E(x_0, …, x_L) (xs[l] = x_l, values in {0,1}, or any reals).
func (d *DBM) Energy(xs [][]float64) float64 {
	L := len(d.Sizes) - 1
	e := 0.0
	for l := 0; l <= L; l++ {
		for i, b := range d.B[l] {
			e -= b * xs[l][i]
		}
		if l < L {
			e -= bilinear(xs[l], d.W[l], xs[l+1])
		}
	}
	return e
}

// bilinear returns xᵀWy for W len(x)×len(y) row-major, skipping zero x_i.
func bilinear(x, w, y []float64) float64 {
	m := len(y)
	s := 0.0
	for i, xi := range x {
		if xi == 0 {
			continue
		}
		row := w[i*m : (i+1)*m]
		t := 0.0
		for j, yj := range y {
			t += row[j] * yj
		}
		s += xi * t
	}
	return s
}

// LayerInput sets dst (length n_l) to the top-down and bottom-up input of
// layer l without its bias, u_l = W_{l−1}ᵀ below + W_l above; below (x_{l−1})
// is ignored for l = 0 and above (x_{l+1}) for l = L. Either may be nil to
// leave it out. The conditional is then p(x_l = 1 | ·) = σ(b_l + u_l); see
// Preact.
func (d *DBM) LayerInput(dst []float64, l int, below, above []float64) {
	L := len(d.Sizes) - 1
	n := d.Sizes[l]
	dst = dst[:n]
	for j := range dst {
		dst[j] = 0
	}
	if l > 0 && below != nil {
		w := d.W[l-1]
		for i, xi := range below[:d.Sizes[l-1]] {
			if xi == 0 {
				continue
			}
			row := w[i*n : (i+1)*n]
			for j, wij := range row {
				dst[j] += xi * wij
			}
		}
	}
	if l < L && above != nil {
		m := d.Sizes[l+1]
		w := d.W[l]
		for j := range dst {
			dst[j] += dot(w[j*m:(j+1)*m], above[:m])
		}
	}
}

// Preact sets dst (length n_l) to z_l = b_l + W_{l−1}ᵀ below + W_l above, so
// that p(x_{l,j} = 1 | x_{l−1} = below, x_{l+1} = above) = σ(z_{l,j}).
// below is ignored for l = 0, above for l = L; nil leaves a neighbour out.
func (d *DBM) Preact(dst []float64, l int, below, above []float64) {
	d.LayerInput(dst, l, below, above)
	for j, b := range d.B[l] {
		dst[j] += b
	}
}

// SampleLayer draws x_l ~ p(x_l | x_{l−1} = below, x_{l+1} = above) into dst,
// using scratch (length ≥ n_l) for the pre-activations.
func (d *DBM) SampleLayer(dst []float64, l int, below, above, scratch []float64, rng *rand.Rand) {
	z := scratch[:d.Sizes[l]]
	d.Preact(z, l, below, above)
	SampleBernoulli(dst[:d.Sizes[l]], z, rng)
}

// neighbours returns x_{l−1} and x_{l+1} from xs (nil where absent).
func (d *DBM) neighbours(xs [][]float64, l int) (below, above []float64) {
	if l > 0 {
		below = xs[l-1]
	}
	if l < len(d.Sizes)-1 {
		above = xs[l+1]
	}
	return below, above
}

// LogUnnormEven returns log Σ_{x_1, x_3, …} e^{−E(x)}, the log unnormalised
// probability of the even layers xs[0], xs[2], … with the odd layers summed
// out: Σ_{l even} b_lᵀx_l + Σ_{l odd} Σ_j softplus(z_{l,j}). The odd entries
// of xs are not read. scratch (length ≥ max_l n_l) avoids an allocation.
func (d *DBM) LogUnnormEven(xs [][]float64, scratch []float64) float64 {
	L := len(d.Sizes) - 1
	s := 0.0
	for l := 0; l <= L; l += 2 {
		s += dot(d.B[l], xs[l])
	}
	for l := 1; l <= L; l += 2 {
		n := d.Sizes[l]
		if len(scratch) < n {
			scratch = make([]float64, n)
		}
		below, above := d.neighbours(xs, l)
		d.Preact(scratch[:n], l, below, above)
		for _, z := range scratch[:n] {
			s += nmath.Softplus(z)
		}
	}
	return s
}

func dot(a, b []float64) float64 {
	s := 0.0
	for i, x := range a {
		s += x * b[i]
	}
	return s
}

// dbmArrayName matches W<l> (l ≥ 1) and b<l> (l ≥ 0).
func dbmArrayName(name string) (kind string, layer int, ok bool) {
	for _, k := range []string{"W", "b"} {
		rest, found := strings.CutPrefix(name, k)
		if !found || rest == "" {
			continue
		}
		n, err := strconv.Atoi(rest)
		if err == nil && n >= 0 && strconv.Itoa(n) == rest && (k == "b" || n > 0) {
			return k, n, true
		}
	}
	return "", 0, false
}

func dbmFromArrays(a map[string]*npyx.Array) (Model, error) {
	L := 0
	var seen []string
	for name := range a {
		if _, l, ok := dbmArrayName(name); ok {
			if err := CheckLayerIndex("dbm", name, l); err != nil {
				return nil, err
			}
			seen = append(seen, name)
			L = max(L, l)
		}
	}
	sort.Strings(seen)
	if L < 2 {
		return nil, fmt.Errorf("dbm: needs arrays W1, W2, …, WL and b0, b1, …, bL with L ≥ 2; found %v", seen)
	}
	d := &DBM{Sizes: make([]int, L+1)}
	for l := 1; l <= L; l++ {
		name := "W" + strconv.Itoa(l)
		w, ok := a[name]
		if !ok {
			return nil, fmt.Errorf("dbm: missing array %s (have %v; weights must be numbered W1…W%d without gaps)", name, seen, L)
		}
		if len(w.Shape) != 2 {
			return nil, fmt.Errorf("dbm: %s has shape %v, want 2-D (n_%d × n_%d)", name, w.Shape, l-1, l)
		}
		if l > 1 && w.Shape[0] != d.Sizes[l-1] {
			return nil, fmt.Errorf("dbm: %s has shape %v but W%d has %d columns; rows of %s must match", name, w.Shape, l-1, d.Sizes[l-1], name)
		}
		d.Sizes[l-1], d.Sizes[l] = w.Shape[0], w.Shape[1]
		d.W = append(d.W, w.Data)
	}
	for l := 0; l <= L; l++ {
		name := "b" + strconv.Itoa(l)
		b, ok := a[name]
		if !ok {
			return nil, fmt.Errorf("dbm: missing array %s (have %v; biases must be numbered b0…b%d)", name, seen, L)
		}
		if len(b.Shape) != 1 || b.Shape[0] != d.Sizes[l] {
			return nil, fmt.Errorf("dbm: %s has shape %v, want (%d,) to match the weights", name, b.Shape, d.Sizes[l])
		}
		d.B = append(d.B, b.Data)
	}
	if err := d.Validate(); err != nil {
		return nil, err
	}
	return d, nil
}

// DBMType is the codec of the binary deep Boltzmann machine.
var DBMType = Type{
	Name:      "dbm",
	Doc:       "binary deep Boltzmann machine with L ≥ 2 hidden layers: arrays W<l> (n_{l−1}×n_l, l = 1…L), b<l> (n_l, l = 0…L; b0 = visible biases)",
	Signature: []string{"W1", "W2", "b0", "b1", "b2"},
	Owns:      func(name string) bool { _, _, ok := dbmArrayName(name); return ok },
	New: func(visible int, hidden []int) (Model, error) {
		return NewDBM(append([]int{visible}, hidden...)...)
	},
	Arrays: func(m Model) []Array {
		d := m.(*DBM)
		var out []Array
		for l, w := range d.W {
			out = append(out, Array{"W" + strconv.Itoa(l+1), []int{d.Sizes[l], d.Sizes[l+1]}, w})
		}
		for l, b := range d.B {
			out = append(out, Array{"b" + strconv.Itoa(l), []int{d.Sizes[l]}, b})
		}
		return out
	},
	FromArrays: dbmFromArrays,
}
