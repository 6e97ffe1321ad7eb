package models

import (
	"math"
	"math/rand/v2"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/logz-ml/logz/internal/nmath"
	"github.com/logz-ml/logz/internal/npyx"
)

// randomIsing returns an R×C model with fields uniform in [−1,1] and
// couplings uniform in [−c,c].
func randomIsing(R, C int, sp Spins, c float64, seed uint64) *Ising {
	rng := rand.New(rand.NewPCG(seed, 11))
	m := NewIsing(R, C, sp)
	for i := range m.Fields {
		m.Fields[i] = 2*rng.Float64() - 1
	}
	for i := range m.CouplingH {
		m.CouplingH[i] = c * (2*rng.Float64() - 1)
	}
	for i := range m.CouplingV {
		m.CouplingV[i] = c * (2*rng.Float64() - 1)
	}
	return m
}

// bruteForce returns log Z and E[T] by summing over all 2^D states with
// LogUnnorm (no Gray code, no messages).
func bruteForce(m *Ising) (float64, []float64) {
	D := m.Rows * m.Cols
	lps := make([]float64, 1<<D)
	x := make([]uint8, D)
	for k := range lps {
		for i := range x {
			x[i] = uint8(k >> i & 1)
		}
		lps[k] = m.LogUnnorm(x)
	}
	logZ := nmath.LogSumExp(lps)
	st := make([]float64, len(m.Params()))
	for k, lp := range lps {
		for i := range x {
			x[i] = uint8(k >> i & 1)
		}
		m.AddStats(st, x, math.Exp(lp-logZ))
	}
	return logZ, st
}

var isingGrids = [][2]int{{1, 1}, {1, 6}, {6, 1}, {2, 2}, {3, 4}, {4, 3}, {2, 7}, {4, 5}, {5, 4}}

// TestIsingLogZAgree: enumeration (Gray code, blocks over workers) and
// the transfer matrix (transposed when Cols > Rows) give one log Z on
// random grids of both spin conventions; brute force checks the small ones.
func TestIsingLogZAgree(t *testing.T) {
	for gi, g := range isingGrids {
		for _, sp := range []Spins{Spins01, SpinsPM1} {
			m := randomIsing(g[0], g[1], sp, 1, uint64(100+gi))
			en, err := m.LogZEnum(25, 3)
			if err != nil {
				t.Fatal(err)
			}
			tm, err := m.LogZTransfer(MaxIsingWidth)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(en-tm) > 1e-9*math.Max(1, math.Abs(en)) {
				t.Errorf("%s: enumeration %.12f, transfer matrix %.12f", m.Label(), en, tm)
			}
			if g[0]*g[1] <= 12 {
				bf, _ := bruteForce(m)
				if math.Abs(bf-en) > 1e-9 {
					t.Errorf("%s: brute force %.12f, enumeration %.12f", m.Label(), bf, en)
				}
			}
			if en1, _ := m.LogZEnum(25, 1); en1 != en {
				t.Errorf("%s: enumeration depends on the workers: %v vs %v", m.Label(), en1, en)
			}
		}
	}
}

// TestIsingExpectedStats: the forward-backward marginals equal brute force.
func TestIsingExpectedStats(t *testing.T) {
	for gi, g := range [][2]int{{3, 4}, {4, 3}, {1, 5}, {5, 1}, {3, 3}} {
		for _, sp := range []Spins{Spins01, SpinsPM1} {
			m := randomIsing(g[0], g[1], sp, 1.5, uint64(200+gi))
			lz, st, err := m.ExpectedStats()
			if err != nil {
				t.Fatal(err)
			}
			bz, bst := bruteForce(m)
			if math.Abs(lz-bz) > 1e-9 {
				t.Errorf("%s: log Z %.12f, brute force %.12f", m.Label(), lz, bz)
			}
			for k := range st {
				if math.Abs(st[k]-bst[k]) > 1e-9 {
					t.Errorf("%s: E[T_%d] = %.9f, brute force %.9f", m.Label(), k, st[k], bst[k])
				}
			}
		}
	}
}

// TestIsingExactSampler: on a 2×3 grid (64 states, and its transpose) the
// frequency of every state over N exact draws is within 4.5 binomial
// standard errors of p(x); the draws are reproducible from the seed.
func TestIsingExactSampler(t *testing.T) {
	for _, g := range [][2]int{{2, 3}, {3, 2}} {
		m := randomIsing(g[0], g[1], SpinsPM1, 1, 301)
		s, err := NewIsingSampler(m)
		if err != nil {
			t.Fatal(err)
		}
		D := m.Rows * m.Cols
		const N = 40000
		count := make([]int, 1<<D)
		x := make([]uint8, D)
		rng := rand.New(rand.NewPCG(5, 6))
		for range N {
			s.Sample(x, rng)
			k := 0
			for i, b := range x {
				k |= int(b) << i
			}
			count[k]++
		}
		for k, n := range count {
			for i := range x {
				x[i] = uint8(k >> i & 1)
			}
			p := math.Exp(m.LogUnnorm(x) - s.LogZ)
			se := math.Sqrt(p * (1 - p) / N)
			if d := float64(n)/N - p; math.Abs(d) > 4.5*se {
				t.Errorf("%s state %b: frequency %.4f, p %.4f (%.1f SE)", m.Label(), k, float64(n)/N, p, d/se)
			}
		}
	}
}

// TestIsingGibbsMarginals: final states of independent Gibbs chains on a
// 3×3 grid (both conventions) have the exact expected statistics within
// 4 standard errors estimated from the chains.
func TestIsingGibbsMarginals(t *testing.T) {
	for _, sp := range []Spins{Spins01, SpinsPM1} {
		m := randomIsing(3, 3, sp, 0.8, 401)
		_, want, err := m.ExpectedStats()
		if err != nil {
			t.Fatal(err)
		}
		const M, sweeps = 4000, 30
		sum, sum2 := make([]float64, len(want)), make([]float64, len(want))
		one := make([]float64, len(want))
		x := make([]uint8, 9)
		for c := range M {
			rng := rand.New(rand.NewPCG(77, uint64(c)))
			for i := range x {
				x[i] = uint8(rng.IntN(2))
			}
			for range sweeps {
				m.GibbsSweep(x, 1, nil, rng)
			}
			clear(one)
			m.AddStats(one, x, 1)
			for k, v := range one {
				sum[k] += v
				sum2[k] += v * v
			}
		}
		for k := range want {
			mean := sum[k] / M
			se := math.Sqrt((sum2[k]/M - mean*mean) / (M - 1))
			if d := mean - want[k]; math.Abs(d) > 4*se+1e-12 {
				t.Errorf("%s: Gibbs E[T_%d] = %.4f, exact %.4f (%.1f SE)", m.Label(), k, mean, want[k], d/se)
			}
		}
	}
}

// TestIsingTransposeKeepsLogUnnorm: the transposed model gives the
// transposed data the same log p̃.
func TestIsingTransposeKeepsLogUnnorm(t *testing.T) {
	m := randomIsing(3, 5, Spins01, 1, 9)
	tr := m.transposed()
	rng := rand.New(rand.NewPCG(1, 2))
	x, y := make([]uint8, 15), make([]uint8, 15)
	for range 20 {
		for r := range 3 {
			for c := range 5 {
				x[r*5+c] = uint8(rng.IntN(2))
				y[c*3+r] = x[r*5+c]
			}
		}
		if a, b := m.LogUnnorm(x), tr.LogUnnorm(y); math.Abs(a-b) > 1e-12 {
			t.Fatalf("log p̃ %v, transposed %v", a, b)
		}
	}
}

// TestIsingDelta: Δ_i is the difference of log p̃ between x_i = 1 and 0.
func TestIsingDelta(t *testing.T) {
	for _, sp := range []Spins{Spins01, SpinsPM1} {
		m := randomIsing(3, 4, sp, 1, 12)
		rng := rand.New(rand.NewPCG(3, 4))
		x := make([]uint8, 12)
		for i := range x {
			x[i] = uint8(rng.IntN(2))
		}
		for i := range x {
			x[i] = 1
			l1 := m.LogUnnorm(x)
			x[i] = 0
			l0 := m.LogUnnorm(x)
			if d := m.Delta(x, i); math.Abs(d-(l1-l0)) > 1e-12 {
				t.Errorf("%s site %d: Δ %v, want %v", m.Label(), i, d, l1-l0)
			}
		}
	}
}

func TestIsingCheckpointRoundTrip(t *testing.T) {
	for _, g := range [][2]int{{3, 4}, {1, 5}, {4, 1}} {
		m := randomIsing(g[0], g[1], Spins01, 1, 5)
		p := filepath.Join(t.TempDir(), "m.npz")
		if err := Save(p, &Checkpoint{Model: m}, known); err != nil {
			t.Fatal(err)
		}
		c, err := Load(p, known)
		if err != nil {
			t.Fatal(err)
		}
		got := c.Model.(*Ising)
		if got.Rows != m.Rows || got.Cols != m.Cols || got.Spins != m.Spins {
			t.Fatalf("loaded %s, saved %s", got.Label(), m.Label())
		}
		for k, v := range m.Params() {
			if got.Params()[k] != v {
				t.Fatalf("%s param %d: %v, saved %v", m.Label(), k, got.Params()[k], v)
			}
		}
	}
}

// TestIsingNumPyWritten: a file written by np.savez with fields and
// couplings only (no meta) loads as an ising with spins pm1 and the same
// log p̃; with spins=np.array(0) it is 01; bad shapes and values are
// errors naming the array.
func TestIsingNumPyWritten(t *testing.T) {
	py := ""
	for _, p := range []string{"/usr/bin/python3", "python3"} {
		if exec.Command(p, "-c", "import numpy").Run() == nil {
			py = p
			break
		}
	}
	if py == "" {
		t.Skip("no python3 with numpy")
	}
	dir := t.TempDir()
	script := `import sys, numpy as np
d = sys.argv[1]
f = np.arange(12, dtype=float).reshape(3, 4) / 10 - 0.5
h = np.linspace(-1, 1, 9).reshape(3, 3)
v = np.linspace(1, -1, 8).reshape(2, 4)
np.savez(d + "/pm1.npz", fields=f, coupling_h=h, coupling_v=v)
np.savez(d + "/01.npz", fields=f, coupling_h=h, coupling_v=v, spins=np.array(0))
np.savez(d + "/badshape.npz", fields=f, coupling_h=np.zeros((4, 3)), coupling_v=v)
np.savez(d + "/nan.npz", fields=f, coupling_h=np.full((3, 3), np.nan), coupling_v=v)
np.savez(d + "/badspins.npz", fields=f, coupling_h=h, coupling_v=v, spins=np.array([3]))
`
	if out, err := exec.Command(py, "-c", script, dir).CombinedOutput(); err != nil {
		t.Fatalf("numpy: %v\n%s", err, out)
	}
	want := NewIsing(3, 4, SpinsPM1)
	for i := range want.Fields {
		want.Fields[i] = float64(i)/10 - 0.5
	}
	for i := range want.CouplingH {
		want.CouplingH[i] = -1 + 2*float64(i)/8
	}
	for i := range want.CouplingV {
		want.CouplingV[i] = 1 - 2*float64(i)/7
	}
	x := []uint8{1, 0, 1, 1, 0, 0, 1, 0, 1, 1, 1, 0}
	for _, sp := range []Spins{SpinsPM1, Spins01} {
		c, err := Load(filepath.Join(dir, sp.String()+".npz"), known)
		if err != nil {
			t.Fatal(err)
		}
		m, ok := c.Model.(*Ising)
		if !ok || m.Spins != sp {
			t.Fatalf("%s.npz loaded as %v", sp, c.Model)
		}
		want.Spins = sp
		if a, b := m.LogUnnorm(x), want.LogUnnorm(x); math.Abs(a-b) > 1e-12 {
			t.Errorf("%s: log p̃ %v, want %v", sp, a, b)
		}
	}
	for name, msg := range map[string]string{
		"badshape": "coupling_h has shape [4 3]", "nan": "coupling_h[0,0] is NaN", "badspins": "spins must be one integer",
	} {
		_, err := Load(filepath.Join(dir, name+".npz"), known)
		if err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("%s.npz: error %v, want one containing %q", name, err, msg)
		}
	}
}

func BenchmarkIsingLogUnnorm(b *testing.B) {
	m := randomIsing(28, 28, SpinsPM1, 0.5, 1)
	x := make([]uint8, 784)
	for i := range x {
		x[i] = uint8(i * 7 % 3 & 1)
	}
	b.ReportAllocs()
	s := 0.0
	for b.Loop() {
		s += m.LogUnnorm(x)
	}
	_ = s
}

func BenchmarkIsingGibbsSweep(b *testing.B) {
	m := randomIsing(28, 28, SpinsPM1, 0.5, 1)
	x := make([]uint8, 784)
	rng := rand.New(rand.NewPCG(1, 2))
	b.ReportAllocs()
	for b.Loop() {
		m.GibbsSweep(x, 1, nil, rng)
	}
}

// TestIsingWithoutMetaShapes (issue 25, item 13): a file without meta
// (as np.savez writes it) of a grid of one row needs no coupling_v, of one
// column no coupling_h, as documented; a coupling that is really missing
// is named with its shape, both when both are.
func TestIsingWithoutMetaShapes(t *testing.T) {
	arr := func(r, c int) *npyx.Array {
		a := &npyx.Array{Shape: []int{r, c}, Data: make([]float64, r*c)}
		for i := range a.Data {
			a.Data[i] = 0.1 * float64(i+1)
		}
		return a
	}
	for _, c := range []struct {
		name   string
		arrays map[string]*npyx.Array
		rows   int // of the model loaded; 0: an error containing want
		cols   int
		want   string
	}{
		{"1×4 without coupling_v", map[string]*npyx.Array{"fields": arr(1, 4), "coupling_h": arr(1, 3)}, 1, 4, ""},
		{"3×1 without coupling_h", map[string]*npyx.Array{"fields": arr(3, 1), "coupling_v": arr(2, 1)}, 3, 1, ""},
		{"1×1, fields only", map[string]*npyx.Array{"fields": arr(1, 1)}, 1, 1, ""},
		{"1×4 with an empty coupling_v", map[string]*npyx.Array{"fields": arr(1, 4), "coupling_h": arr(1, 3), "coupling_v": arr(0, 4)}, 1, 4, ""},
		{"3×4 with all three", map[string]*npyx.Array{"fields": arr(3, 4), "coupling_h": arr(3, 3), "coupling_v": arr(2, 4)}, 3, 4, ""},
		{"3×4 without coupling_v", map[string]*npyx.Array{"fields": arr(3, 4), "coupling_h": arr(3, 3)}, 0, 0,
			"no meta array, and the arrays (coupling_h, fields) make no complete model: as an ising: missing array coupling_v (2×4) for fields 3×4"},
		{"3×4 without coupling_h", map[string]*npyx.Array{"fields": arr(3, 4), "coupling_v": arr(2, 4)}, 0, 0,
			"as an ising: missing array coupling_h (3×3) for fields 3×4"},
		{"3×4, fields only", map[string]*npyx.Array{"fields": arr(3, 4)}, 0, 0,
			"as an ising: missing arrays coupling_h (3×3) and coupling_v (2×4) for fields 3×4"},
		{"1×4, fields only", map[string]*npyx.Array{"fields": arr(1, 4)}, 0, 0,
			"as an ising: missing array coupling_h (1×3) for fields 1×4"},
		{"3×1 with coupling_h of 3×0 only", map[string]*npyx.Array{"fields": arr(3, 1), "coupling_h": arr(3, 0)}, 0, 0,
			"as an ising: missing array coupling_v (2×1) for fields 3×1"},
		{"couplings without fields", map[string]*npyx.Array{"coupling_h": arr(1, 3), "coupling_v": arr(1, 4)}, 0, 0,
			"as an ising: needs array fields (rows×cols)"},
	} {
		ck, err := fromArrays(c.arrays, known)
		if c.rows == 0 {
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s: %v, want an error with %q", c.name, err, c.want)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		m, ok := ck.Model.(*Ising)
		if !ok || m.Rows != c.rows || m.Cols != c.cols || m.Spins != DefaultIsingSpins {
			t.Errorf("%s: loaded %+v", c.name, ck.Model)
			continue
		}
		if m.Fields[c.rows*c.cols-1] != 0.1*float64(c.rows*c.cols) || (c.cols > 1 && m.CouplingH[0] != 0.1) || (c.rows > 1 && m.CouplingV[0] != 0.1) {
			t.Errorf("%s: arrays not loaded: %+v", c.name, m)
		}
	}
}
