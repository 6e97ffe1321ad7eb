package models

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/logz-ml/logz/internal/nmath"
	"github.com/logz-ml/logz/internal/npyx"
)

// known is the set of codecs these tests load and save with: the types of
// this package (a program passes its registered families', family.Codecs).
var known = Codecs{RBMType, DBNType, DBMType, IsingType, VAEType}

func randomRBM(d, h int, scale float64, seed uint64) *RBM {
	rng := rand.New(rand.NewPCG(seed, 0))
	m := NewRBM(d, h)
	for i := range m.W {
		m.W[i] = scale * rng.NormFloat64()
	}
	for i := range m.VBias {
		m.VBias[i] = scale * rng.NormFloat64()
	}
	for j := range m.HBias {
		m.HBias[j] = scale * rng.NormFloat64()
	}
	return m
}

// bits sets x to the binary digits of n.
func bits(x []float64, n int) {
	for i := range x {
		x[i] = float64(n >> i & 1)
	}
}

// TestAgainstEnumeration checks the free energy, the conditionals and
// LogUnnormGivenHidden against sums over every joint state of a 5×3 RBM.
func TestAgainstEnumeration(t *testing.T) {
	m := randomRBM(5, 3, 1.2, 1)
	v, h := make([]float64, 5), make([]float64, 3)
	scratch := make([]float64, 8)
	var logZ []float64
	for nv := 0; nv < 1<<5; nv++ {
		bits(v, nv)
		var joint []float64
		for nh := 0; nh < 1<<3; nh++ {
			bits(h, nh)
			joint = append(joint, -m.Energy(v, h))
		}
		lf := nmath.LogSumExp(joint)
		if got := -m.FreeEnergy(v, scratch); math.Abs(got-lf) > 1e-12 {
			t.Fatalf("v=%v: -F = %v, brute force %v", v, got, lf)
		}
		logZ = append(logZ, lf)
		// p(h_j = 1 | v) by brute force.
		pre := make([]float64, 3)
		m.HiddenPreact(pre, v)
		for j := range 3 {
			var on []float64
			for nh := 0; nh < 1<<3; nh++ {
				if nh>>j&1 == 1 {
					on = append(on, joint[nh])
				}
			}
			want := math.Exp(nmath.LogSumExp(on) - lf)
			if got := nmath.Sigmoid(pre[j]); math.Abs(got-want) > 1e-12 {
				t.Fatalf("p(h_%d|v=%v) = %v, brute force %v", j, v, got, want)
			}
		}
	}
	// The same Z from the hidden side, and p(v_i = 1 | h).
	var viaH []float64
	for nh := 0; nh < 1<<3; nh++ {
		bits(h, nh)
		viaH = append(viaH, m.LogUnnormGivenHidden(h, scratch))
		pre := make([]float64, 5)
		m.VisiblePreact(pre, h)
		for i := range 5 {
			var all, on []float64
			for nv := 0; nv < 1<<5; nv++ {
				bits(v, nv)
				e := -m.Energy(v, h)
				all = append(all, e)
				if nv>>i&1 == 1 {
					on = append(on, e)
				}
			}
			want := math.Exp(nmath.LogSumExp(on) - nmath.LogSumExp(all))
			if got := nmath.Sigmoid(pre[i]); math.Abs(got-want) > 1e-12 {
				t.Fatalf("p(v_%d|h) = %v, brute force %v", i, got, want)
			}
		}
	}
	if a, b := nmath.LogSumExp(logZ), nmath.LogSumExp(viaH); math.Abs(a-b) > 1e-12 {
		t.Fatalf("log Z via v %v, via h %v", a, b)
	}
}

func TestFreeEnergyExtremeInputsStayFinite(t *testing.T) {
	m := randomRBM(4, 3, 400, 2)
	v := []float64{1, 1, 0, 1}
	if f := m.FreeEnergy(v, nil); math.IsNaN(f) || math.IsInf(f, 0) {
		t.Fatalf("F = %v", f)
	}
}

func TestCheckpointRoundTrip(t *testing.T) {
	m := randomRBM(7, 4, 1, 3)
	p := filepath.Join(t.TempDir(), "model.npz")
	c := &Checkpoint{
		Model: m,
		Meta:  Meta{Experiment: "x", Epoch: 3, Train: json.RawMessage(`{"k":2}`)},
		State: map[string]Array{"vel_W": {Shape: []int{7, 4}, Data: make([]float64, 28)}},
		Bytes: map[string][]byte{"rng": {1, 2, 3, 250}},
	}
	c.State["vel_W"].Data[5] = 0.25
	if err := Save(p, c, known); err != nil {
		t.Fatal(err)
	}
	got, err := Load(p, known)
	if err != nil {
		t.Fatal(err)
	}
	r := got.Model.(*RBM)
	for i := range m.W {
		if r.W[i] != m.W[i] {
			t.Fatalf("W[%d] %v != %v", i, r.W[i], m.W[i])
		}
	}
	if got.Meta.Type != "rbm" || got.Meta.Epoch != 3 || string(got.Meta.Train) != `{"k":2}` {
		t.Errorf("meta = %+v", got.Meta)
	}
	if got.State["vel_W"].Data[5] != 0.25 || string(got.Bytes["rng"]) != "\x01\x02\x03\xfa" {
		t.Errorf("state = %+v %v", got.State, got.Bytes)
	}
	// The file is a valid .npz that keeps W two-dimensional.
	arrs, err := npyx.ReadNPZ(p)
	if err != nil || len(arrs["W"].Shape) != 2 {
		t.Fatalf("W shape: %v %v", err, arrs["W"])
	}
}

// TestLoadNumPyWritten loads an RBM written by NumPy's np.savez (no meta; W in
// Fortran order) and checks log p of the first example against NumPy's value.
func TestLoadNumPyWritten(t *testing.T) {
	c, err := Load("testdata/numpy_rbm.npz", known)
	if err != nil {
		t.Fatal(err)
	}
	m := c.Model.(*RBM)
	if m.NVis != 24 || m.NHid != 10 {
		t.Fatalf("shape %d×%d", m.NVis, m.NHid)
	}
	var want struct {
		LogZ  float64 `json:"log_z"`
		First float64 `json:"first_loglik"`
	}
	b, _ := os.ReadFile("testdata/numpy_expected.json")
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	x, err := npyx.ReadFile("testdata/numpy_data.npy")
	if err != nil {
		t.Fatal(err)
	}
	logf := m.LogUnnorm(x.Data[:24], nil)
	if got := logf - want.LogZ; math.Abs(got-want.First) > 1e-9 {
		t.Errorf("log p(x0) = %v, NumPy %v", got, want.First)
	}
}

func TestLoadBadFiles(t *testing.T) {
	dir := t.TempDir()
	m := randomRBM(3, 2, 1, 4)
	write := func(name string, arrays map[string]Array) string {
		p := filepath.Join(dir, name)
		c := &Checkpoint{Model: m}
		if err := Save(p, c, known); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("good.npz", nil)
	raw, _ := os.ReadFile(good)
	cases := map[string]struct {
		data []byte
		want string
	}{
		"trunc.npz":   {raw[:len(raw)-40], "trunc.npz"},
		"garbage.npz": {[]byte("hello"), "not a valid .npz"},
	}
	for name, c := range cases {
		p := filepath.Join(dir, name)
		os.WriteFile(p, c.data, 0o644)
		_, err := Load(p, known)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want it to mention %q", name, err, c.want)
		}
	}
	if _, err := Load(filepath.Join(dir, "missing.npz"), known); err == nil {
		t.Error("missing file: no error")
	}
}

func TestFromArraysShapeErrors(t *testing.T) {
	arr := func(shape []int) *npyx.Array {
		n := 1
		for _, d := range shape {
			n *= d
		}
		return &npyx.Array{Shape: shape, Data: make([]float64, n)}
	}
	cases := []struct {
		a    map[string]*npyx.Array
		want string
	}{
		{map[string]*npyx.Array{"W": arr([]int{3, 2}), "vbias": arr([]int{4}), "hbias": arr([]int{2})}, "vbias has shape [4], want (3,)"},
		{map[string]*npyx.Array{"W": arr([]int{6}), "vbias": arr([]int{3}), "hbias": arr([]int{2})}, "want 2-D"},
		{map[string]*npyx.Array{"W": arr([]int{3, 2}), "vbias": arr([]int{3}), "hbias": arr([]int{5})}, "hbias has shape [5]"},
		{map[string]*npyx.Array{"X": arr([]int{3, 2})}, "no meta array and no known set of parameter arrays (have X; a dbm needs W1, W2, b0, b1, b2; a dbn needs W1, vbias1, hbias1, W2, vbias2, hbias2; an ising needs fields, coupling_h, coupling_v; an rbm needs W, vbias, hbias; a vae needs dec_W1, dec_b1, enc_W1, enc_b1)"},
	}
	for _, c := range cases {
		_, err := fromArrays(c.a, known)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("err = %v, want %q", err, c.want)
		}
	}
	nan := map[string]*npyx.Array{"W": arr([]int{1, 1}), "vbias": arr([]int{1}), "hbias": arr([]int{1})}
	nan["W"].Data[0] = math.NaN()
	if _, err := fromArrays(nan, known); err == nil || !strings.Contains(err.Error(), "finite") {
		t.Errorf("NaN weight: %v", err)
	}
}
