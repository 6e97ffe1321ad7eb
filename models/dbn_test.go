package models

import (
	"bytes"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/logz-ml/logz/internal/nmath"
	"github.com/logz-ml/logz/internal/npyx"
	"github.com/sbinet/npyio/npz"
	"gonum.org/v1/gonum/mat"
)

func randomDBN(scale float64, seed uint64, sizes ...int) *DBN {
	d := &DBN{}
	for l := 0; l+1 < len(sizes); l++ {
		d.Layers = append(d.Layers, randomRBM(sizes[l], sizes[l+1], scale, seed+uint64(l)))
	}
	return d
}

func TestNewDBNAndValidate(t *testing.T) {
	d, err := NewDBN(6, 4, 3)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Validate(); err != nil {
		t.Fatal(err)
	}
	if got := d.Sizes(); len(got) != 3 || got[0] != 6 || got[1] != 4 || got[2] != 3 || d.NumVisible() != 6 || d.NumLayers() != 2 {
		t.Fatalf("sizes %v, visible %d, layers %d", got, d.NumVisible(), d.NumLayers())
	}
	for _, c := range []struct {
		sizes []int
		want  string
	}{
		{[]int{6, 4}, "at least two hidden layer sizes"},
		{[]int{6, 0, 3}, "layer 1 has size 0"},
	} {
		if _, err := NewDBN(c.sizes...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("NewDBN(%v): err = %v, want %q", c.sizes, err, c.want)
		}
	}
	bad := &DBN{Layers: []*RBM{NewRBM(6, 4), NewRBM(5, 3)}}
	if err := bad.Validate(); err == nil || !strings.Contains(err.Error(), "layer 2 has 5 visible units but layer 1 has 4 hidden units") {
		t.Errorf("mismatched sizes: %v", err)
	}
	if err := (&DBN{Layers: []*RBM{NewRBM(3, 2)}}).Validate(); err == nil || !strings.Contains(err.Error(), "at least two hidden layers") {
		t.Errorf("one layer: %v", err)
	}
	d.Layers[1].W[2] = math.Inf(1)
	if err := d.Validate(); err == nil || !strings.Contains(err.Error(), "layer 2") || !strings.Contains(err.Error(), "finite") {
		t.Errorf("Inf weight: %v", err)
	}
	if m, err := DBNType.New(10, []int{5, 7, 2}); err != nil || m.(*DBN).NumLayers() != 3 {
		t.Fatalf("codec New: %v %v", m, err)
	}
}

// TestDBNAgainstEnumeration checks the conditionals and the unnormalised joint
// of a 4-3-2-2 DBN against brute-force sums: p(x_l|x_{l+1}) and Q(x_{l+1}|x_l)
// sum to one, LogUnnormJoint equals the directed log-probabilities plus
// log Σ_{h3} e^{−E_top(h2,h3)}, and Σ_{v,h1,h2} e^{LogUnnormJoint} = Z_top.
func TestDBNAgainstEnumeration(t *testing.T) {
	d := randomDBN(1.1, 21, 4, 3, 2, 2)
	if err := d.Validate(); err != nil {
		t.Fatal(err)
	}
	x := [][]float64{make([]float64, 4), make([]float64, 3), make([]float64, 2), make([]float64, 2)}
	scratch := make([]float64, 4)
	for l := range 2 {
		lower, upper := x[l], x[l+1]
		for nu := range 1 << len(upper) {
			bits(upper, nu)
			var gen []float64
			for nl := range 1 << len(lower) {
				bits(lower, nl)
				gen = append(gen, d.LogGenerative(l, lower, upper, scratch))
			}
			if s := nmath.LogSumExp(gen); math.Abs(s) > 1e-12 {
				t.Errorf("layer %d: Σ p(x_%d|x_%d) = e^%v", l, l, l+1, s)
			}
		}
		for nl := range 1 << len(lower) {
			bits(lower, nl)
			var rec []float64
			for nu := range 1 << len(upper) {
				bits(upper, nu)
				rec = append(rec, d.LogRecognition(l, upper, lower, nil))
			}
			if s := nmath.LogSumExp(rec); math.Abs(s) > 1e-12 {
				t.Errorf("layer %d: Σ Q(x_%d|x_%d) = e^%v", l, l+1, l, s)
			}
		}
	}
	top := d.Top()
	var all, topJoint []float64
	for nv := range 1 << 4 {
		bits(x[0], nv)
		for n1 := range 1 << 3 {
			bits(x[1], n1)
			for n2 := range 1 << 2 {
				bits(x[2], n2)
				// Brute force: product of the directed Bernoullis and the top sum.
				want := 0.0
				for l := range 2 {
					r := d.Layers[l]
					for i := range r.NVis {
						z := r.VBias[i]
						for j := range r.NHid {
							z += r.W[i*r.NHid+j] * x[l+1][j]
						}
						p := nmath.Sigmoid(z)
						if x[l][i] == 1 {
							want += math.Log(p)
						} else {
							want += math.Log(1 - p)
						}
					}
				}
				var e []float64
				for n3 := range 1 << 2 {
					bits(x[3], n3)
					e = append(e, -top.Energy(x[2], x[3]))
				}
				want += nmath.LogSumExp(e)
				got := d.LogUnnormJoint(x[0], [][]float64{x[1], x[2]}, scratch)
				if math.Abs(got-want) > 1e-10 {
					t.Fatalf("v=%v h1=%v h2=%v: LogUnnormJoint %v, brute force %v", x[0], x[1], x[2], got, want)
				}
				all = append(all, got)
			}
		}
	}
	for n2 := range 1 << 2 {
		bits(x[2], n2)
		for n3 := range 1 << 2 {
			bits(x[3], n3)
			topJoint = append(topJoint, -top.Energy(x[2], x[3]))
		}
	}
	if a, b := nmath.LogSumExp(all), nmath.LogSumExp(topJoint); math.Abs(a-b) > 1e-10 {
		t.Errorf("Σ p* = e^%v, Z_top = e^%v", a, b)
	}
}

func TestDBNCheckpointRoundTrip(t *testing.T) {
	d := randomDBN(0.5, 3, 7, 4, 5, 2)
	p := filepath.Join(t.TempDir(), "model.npz")
	if err := Save(p, &Checkpoint{Model: d, Meta: Meta{Epoch: 4}}, known); err != nil {
		t.Fatal(err)
	}
	c, err := Load(p, known)
	if err != nil {
		t.Fatal(err)
	}
	got, ok := c.Model.(*DBN)
	if !ok || c.Meta.Type != "dbn" || c.Meta.Epoch != 4 {
		t.Fatalf("loaded %T, meta %+v", c.Model, c.Meta)
	}
	assertSameDBN(t, got, d)
	arrs, err := npyx.ReadNPZ(p)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"W1", "vbias1", "hbias1", "W2", "vbias2", "hbias2", "W3", "vbias3", "hbias3", "meta"} {
		if _, ok := arrs[name]; !ok {
			t.Errorf("array %s missing from model.npz", name)
		}
	}
	if s := arrs["W2"].Shape; len(s) != 2 || s[0] != 4 || s[1] != 5 {
		t.Errorf("W2 shape %v, want [4 5]", s)
	}
}

// TestDBNLoadWithoutMeta: an .npz holding only W1…hbias2 (as np.savez would
// write it) is recognised as a DBN by its array names.
func TestDBNLoadWithoutMeta(t *testing.T) {
	d := randomDBN(0.5, 8, 5, 3, 2)
	var buf bytes.Buffer
	w := npz.NewWriter(&buf)
	for l, r := range d.Layers {
		s := string(rune('1' + l))
		if err := w.Write("W"+s, mat.NewDense(r.NVis, r.NHid, r.W)); err != nil {
			t.Fatal(err)
		}
		if err := w.Write("vbias"+s, r.VBias); err != nil {
			t.Fatal(err)
		}
		if err := w.Write("hbias"+s, r.HBias); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	arrs, err := npyx.DecodeNPZ(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	c, err := fromArrays(arrs, known)
	if err != nil {
		t.Fatal(err)
	}
	got, ok := c.Model.(*DBN)
	if !ok {
		t.Fatalf("detected %T", c.Model)
	}
	assertSameDBN(t, got, d)
}

func assertSameDBN(t *testing.T, got, want *DBN) {
	t.Helper()
	if got.NumLayers() != want.NumLayers() {
		t.Fatalf("%d layers, want %d", got.NumLayers(), want.NumLayers())
	}
	for l, r := range want.Layers {
		g := got.Layers[l]
		if g.NVis != r.NVis || g.NHid != r.NHid {
			t.Fatalf("layer %d: %d×%d, want %d×%d", l+1, g.NVis, g.NHid, r.NVis, r.NHid)
		}
		for _, p := range []struct {
			name string
			a, b []float64
		}{{"W", g.W, r.W}, {"vbias", g.VBias, r.VBias}, {"hbias", g.HBias, r.HBias}} {
			for i := range p.b {
				if p.a[i] != p.b[i] {
					t.Fatalf("layer %d %s[%d] = %v, want %v", l+1, p.name, i, p.a[i], p.b[i])
				}
			}
		}
	}
}

func TestDBNFromArraysErrors(t *testing.T) {
	arr := func(shape ...int) *npyx.Array {
		n := 1
		for _, d := range shape {
			n *= d
		}
		return &npyx.Array{Shape: shape, Data: make([]float64, n)}
	}
	good := func() map[string]*npyx.Array {
		return map[string]*npyx.Array{
			"W1": arr(5, 3), "vbias1": arr(5), "hbias1": arr(3),
			"W2": arr(3, 2), "vbias2": arr(3), "hbias2": arr(2),
		}
	}
	if _, err := dbnFromArrays(good()); err != nil {
		t.Fatalf("good arrays: %v", err)
	}
	cases := []struct {
		name string
		edit func(a map[string]*npyx.Array)
		want string
	}{
		{"gap", func(a map[string]*npyx.Array) {
			a["W4"], a["vbias4"], a["hbias4"] = arr(2, 2), arr(2), arr(2)
		}, "layer 3 of 4: missing array(s) W3, vbias3, hbias3"},
		{"missing vbias2", func(a map[string]*npyx.Array) { delete(a, "vbias2") }, "missing array(s) vbias2"},
		{"shape", func(a map[string]*npyx.Array) { a["hbias2"] = arr(4) }, "layer 2 (arrays W2, vbias2, hbias2): rbm: hbias has shape [4]"},
		{"chain", func(a map[string]*npyx.Array) { a["W2"], a["vbias2"] = arr(4, 2), arr(4) }, "layer 2 has 4 visible units but layer 1 has 3 hidden units"},
		{"one layer", func(a map[string]*npyx.Array) { delete(a, "W2"); delete(a, "vbias2"); delete(a, "hbias2") }, "at least two layers"},
	}
	for _, c := range cases {
		a := good()
		c.edit(a)
		_, err := dbnFromArrays(a)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %q", c.name, err, c.want)
		}
	}
	// Names that only look like layer arrays are not layer arrays.
	for _, name := range []string{"W0", "W01", "Wx", "W", "vbias-1"} {
		if _, _, ok := dbnArrayName(name); ok {
			t.Errorf("%q parsed as a layer array", name)
		}
	}
}
