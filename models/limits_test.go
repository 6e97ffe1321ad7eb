package models

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/logz-ml/logz/internal/npyx"
)

func zeros(shape ...int) *npyx.Array {
	n := 1
	for _, d := range shape {
		n *= d
	}
	return &npyx.Array{Shape: shape, Data: make([]float64, n), DType: "<f8"}
}

// TestDetectWithoutMeta: files without meta name what a partial DBN or DBM
// lacks, and refuse arrays of two model types.
func TestDetectWithoutMeta(t *testing.T) {
	rbm := func() map[string]*npyx.Array {
		return map[string]*npyx.Array{"W": zeros(3, 2), "vbias": zeros(3), "hbias": zeros(2)}
	}
	with := func(a map[string]*npyx.Array, more map[string]*npyx.Array) map[string]*npyx.Array {
		for k, v := range more {
			a[k] = v
		}
		return a
	}
	dbm := map[string]*npyx.Array{"W1": zeros(3, 2), "W2": zeros(2, 2), "b0": zeros(3), "b1": zeros(2), "b2": zeros(2)}
	cases := []struct {
		name   string
		arrays map[string]*npyx.Array
		want   string
	}{
		{"W1 and W3 without W2", map[string]*npyx.Array{"W1": zeros(3, 2), "W3": zeros(2, 2)},
			"no meta array, and the arrays (W1, W3) make no complete model: as a dbm: missing array W2 (have [W1 W3]; weights must be numbered W1…W3 without gaps); " +
				"as a dbn: layer 1 of 3: missing array(s) vbias1, hbias1 (layers must be numbered 1…L without gaps)"},
		{"DBN without hbias2", map[string]*npyx.Array{"W1": zeros(3, 2), "vbias1": zeros(3), "hbias1": zeros(2), "W2": zeros(2, 2), "vbias2": zeros(2)},
			"as a dbn: layer 2 of 2: missing array(s) hbias2"},
		{"RBM and DBM arrays", with(rbm(), dbm),
			"no meta array, and the arrays are ambiguous: W1, W2, b0, b1, b2 make a dbm; W, hbias, vbias make an rbm (have W, W1, W2, b0, b1, b2, hbias, vbias); save one model per file, or add a meta array naming the type"},
		{"RBM and a stray W1", with(rbm(), map[string]*npyx.Array{"W1": zeros(3, 2)}),
			"no meta array, and the arrays are ambiguous: W, hbias, vbias make an rbm, but W1 belongs to another model type"},
		{"nothing known", map[string]*npyx.Array{"X": zeros(2)},
			"no meta array and no known set of parameter arrays (have X; a dbm needs W1, W2, b0, b1, b2; a dbn needs W1, vbias1, hbias1, W2, vbias2, hbias2; an ising needs fields, coupling_h, coupling_v; an rbm needs W, vbias, hbias; a vae needs dec_W1, dec_b1, enc_W1, enc_b1)"},
	}
	for _, c := range cases {
		_, err := fromArrays(c.arrays, known)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s:\n got %v\nwant …%s…", c.name, err, c.want)
		}
	}
	// Unrelated extra arrays and state arrays do not make a file ambiguous.
	c, err := fromArrays(with(rbm(), map[string]*npyx.Array{"notes": zeros(1), "state_mom_W": zeros(3, 2)}), known)
	if err != nil || c.Model.TypeName() != "rbm" {
		t.Errorf("rbm with extras: %v", err)
	}
	if c, err := fromArrays(dbm, known); err != nil || c.Model.TypeName() != "dbm" {
		t.Errorf("dbm: %v", err)
	}
}

// TestParameterValues: NaN, Inf and magnitudes above MaxAbsParam are
// refused with the multi-index of the first bad entry.
func TestParameterValues(t *testing.T) {
	type edit struct {
		array string
		k     int
		x     float64
	}
	rbmCases := []struct {
		e    edit
		want string
	}{
		{edit{"W", 3*4 + 2, math.NaN()}, "rbm: W[3,2] is NaN (not finite); parameters must be finite"},
		{edit{"W", 5, math.Inf(-1)}, "rbm: W[1,1] is -Inf (not finite); parameters must be finite"},
		{edit{"W", 0, 1e300}, "rbm: W[0,0] is 1e+300; parameters must lie in [-10000, 10000] (models.MaxAbsParam"},
		{edit{"vbias", 4, -2e4}, "rbm: vbias[4] is -20000; parameters must lie in [-10000, 10000]"},
		{edit{"hbias", 3, math.NaN()}, "rbm: hbias[3] is NaN"},
	}
	for _, c := range rbmCases {
		a := map[string]*npyx.Array{"W": zeros(5, 4), "vbias": zeros(5), "hbias": zeros(4)}
		a[c.e.array].Data[c.e.k] = c.e.x
		if _, err := fromArrays(a, known); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: got %v, want %q", c.e, err, c.want)
		}
	}
	// The bound itself is accepted.
	ok := NewRBM(2, 2)
	ok.W[0], ok.VBias[1] = MaxAbsParam, -MaxAbsParam
	if err := ok.Validate(); err != nil {
		t.Errorf("|θ| = MaxAbsParam: %v", err)
	}
	d, _ := NewDBN(4, 3, 2)
	d.Layers[1].W[2*2+1] = math.NaN()
	if err := d.Validate(); err == nil || !strings.Contains(err.Error(), "dbn: layer 2: W2[2,1] is NaN") {
		t.Errorf("dbn: %v", err)
	}
	d.Layers[1].W[2*2+1] = 0
	d.Layers[0].HBias[2] = 1e5
	if err := d.Validate(); err == nil || !strings.Contains(err.Error(), "dbn: layer 1: hbias1[2] is 100000; parameters must lie in") {
		t.Errorf("dbn: %v", err)
	}
	m, _ := NewDBM(4, 3, 2)
	m.W[0][3*3-1] = math.Inf(1)
	if err := m.Validate(); err == nil || !strings.Contains(err.Error(), "dbm: W1[2,2] is +Inf (not finite); parameters must be finite") {
		t.Errorf("dbm: %v", err)
	}
	m.W[0][3*3-1] = 0
	m.B[2][1] = -1e9
	if err := m.Validate(); err == nil || !strings.Contains(err.Error(), "dbm: b2[1] is -1e+09; parameters must lie in") {
		t.Errorf("dbm: %v", err)
	}
}

// TestModelSizeLimits: sizes whose parameters would exceed MaxParams, or a
// layer above MaxUnits, are refused before anything is allocated.
func TestModelSizeLimits(t *testing.T) {
	cases := []struct {
		name string
		new  func() error
		want string
	}{
		{"rbm hidden 2e9", func() error { _, err := RBMType.New(784, []int{2000000000}); return err },
			"rbm 784-2000000000: layer 1 has 2000000000 units; the limit is 1048576 (models.MaxUnits)"},
		{"rbm too many parameters", func() error { _, err := RBMType.New(784, []int{500000}); return err },
			"rbm 784-500000 has 392500784 parameters; the limit is 134217728 (models.MaxParams, 1 GiB of float64)"},
		{"dbn", func() error { _, err := NewDBN(784, 500, 1000000); return err },
			"dbn 784-500-1000000 has 501393284 parameters; the limit is 134217728"},
		{"dbm", func() error { _, err := NewDBM(784, 1<<21, 10); return err },
			"dbm 784-2097152-10: layer 1 has 2097152 units; the limit is 1048576"},
	}
	for _, c := range cases {
		if err := c.new(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", c.name, err, c.want)
		}
	}
	if err := CheckSizes("rbm", []int{784, 2000}); err != nil {
		t.Errorf("784-2000: %v", err)
	}
}

// TestLoadOnlyRegularFiles: model paths naming a directory, a pipe or a
// device are refused before they are opened.
func TestLoadOnlyRegularFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "model.npz")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("mkfifo:", err)
	}
	paths := map[string]string{dir: "a directory", fifo: "a named pipe"}
	if _, err := os.Stat("/dev/zero"); err == nil {
		paths["/dev/zero"] = "a character device"
	}
	for p, kind := range paths {
		want := p + ": not a regular file (it is " + kind + ")"
		if _, err := Load(p, known); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Load(%s): got %v, want %q", p, err, want)
		}
	}
}

// TestLayerIndexLimit: an array naming a layer beyond MaxLayers is refused
// by name before anything is allocated for the layers (W9223372036854775807
// once made L+1 overflow into a panic, W100000000000 an 800 GB slice).
func TestLayerIndexLimit(t *testing.T) {
	dbm := map[string]*npyx.Array{"W1": zeros(3, 2), "W2": zeros(2, 2), "b0": zeros(3), "b1": zeros(2), "b2": zeros(2)}
	dbn := map[string]*npyx.Array{"W1": zeros(3, 2), "vbias1": zeros(3), "hbias1": zeros(2), "W2": zeros(2, 2), "vbias2": zeros(2), "hbias2": zeros(2)}
	for _, c := range []struct {
		typ    Type
		arrays map[string]*npyx.Array
		name   string
	}{
		{DBMType, dbm, "W9223372036854775807"},
		{DBMType, dbm, "b100000000000"},
		{DBMType, dbm, "W101"},
		{DBNType, dbn, "hbias9223372036854775807"},
	} {
		a := map[string]*npyx.Array{c.name: zeros(2, 2)}
		for k, v := range c.arrays {
			a[k] = v
		}
		_, err := c.typ.FromArrays(a)
		if err == nil || !strings.Contains(err.Error(), "array "+c.name+" names layer") || !strings.Contains(err.Error(), "models.MaxLayers") {
			t.Errorf("%s with %s: got %v", c.typ.Name, c.name, err)
		}
		// Without a meta array, detection tries the partial matches too.
		if _, err := fromArrays(a, known); err == nil || !strings.Contains(err.Error(), c.name) {
			t.Errorf("detect %s with %s: got %v", c.typ.Name, c.name, err)
		}
	}
	// MaxLayers itself is a layer index like any other.
	a := map[string]*npyx.Array{"W100": zeros(2, 2)}
	for k, v := range dbm {
		a[k] = v
	}
	if _, err := DBMType.FromArrays(a); err == nil || strings.Contains(err.Error(), "MaxLayers") {
		t.Errorf("dbm with W100: want the missing-W3 error, got %v", err)
	}
}
