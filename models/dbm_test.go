package models

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/logz-ml/logz/internal/nmath"
	"github.com/logz-ml/logz/internal/npyx"
)

func randomDBMForTest(t *testing.T, seed uint64, scale float64, sizes ...int) *DBM {
	t.Helper()
	d, err := NewDBM(sizes...)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(seed, 1))
	for _, w := range d.W {
		for i := range w {
			w[i] = scale * rng.NormFloat64()
		}
	}
	for _, b := range d.B {
		for i := range b {
			b[i] = 0.5 * rng.NormFloat64()
		}
	}
	return d
}

func randomBinary(rng *rand.Rand, n int) []float64 {
	x := make([]float64, n)
	for i := range x {
		x[i] = float64(rng.IntN(2))
	}
	return x
}

func TestDBMEnergyByHand(t *testing.T) {
	d, _ := NewDBM(2, 2, 1)
	d.W[0] = []float64{1, 2, 3, 4} // W1[i][j]
	d.W[1] = []float64{5, 6}       // W2[j][0]
	d.B = [][]float64{{0.1, 0.2}, {0.3, 0.4}, {0.5}}
	xs := [][]float64{{1, 1}, {0, 1}, {1}}
	// vᵀW1h1 = W1[0][1] + W1[1][1] = 2 + 4; h1ᵀW2h2 = 6; biases 0.3 + 0.4 + 0.5.
	want := -(6.0 + 6 + 0.3 + 0.4 + 0.5)
	if got := d.Energy(xs); math.Abs(got-want) > 1e-12 {
		t.Fatalf("Energy = %v, want %v", got, want)
	}
}

// TestDBMConditionals checks p(x_l = 1 | neighbours) = σ(z_l) against the
// energy difference of flipping one unit, for every layer of a 3-layer DBM.
func TestDBMConditionals(t *testing.T) {
	d := randomDBMForTest(t, 3, 0.8, 4, 3, 3, 2)
	rng := rand.New(rand.NewPCG(7, 7))
	for trial := 0; trial < 20; trial++ {
		xs := make([][]float64, len(d.Sizes))
		for l, n := range d.Sizes {
			xs[l] = randomBinary(rng, n)
		}
		for l := range d.Sizes {
			below, above := d.neighbours(xs, l)
			z := make([]float64, d.Sizes[l])
			d.Preact(z, l, below, above)
			for j := range z {
				old := xs[l][j]
				xs[l][j] = 1
				e1 := d.Energy(xs)
				xs[l][j] = 0
				e0 := d.Energy(xs)
				xs[l][j] = old
				// log p(1)/p(0) = E(0) − E(1) = z.
				if math.Abs((e0-e1)-z[j]) > 1e-10 {
					t.Fatalf("layer %d unit %d: z = %v, energy difference %v", l, j, z[j], e0-e1)
				}
			}
		}
	}
}

// TestDBMLogUnnormEven sums the odd layers out by brute force.
func TestDBMLogUnnormEven(t *testing.T) {
	for _, sizes := range [][]int{{3, 2, 2}, {2, 3, 2, 2}, {2, 2, 1, 2, 1}} {
		d := randomDBMForTest(t, 5, 1.0, sizes...)
		rng := rand.New(rand.NewPCG(9, 9))
		xs := make([][]float64, len(sizes))
		var odd []int
		nOdd := 0
		for l, n := range sizes {
			xs[l] = randomBinary(rng, n)
			if l%2 == 1 {
				odd = append(odd, l)
				nOdd += n
			}
		}
		var terms []float64
		for s := 0; s < 1<<nOdd; s++ {
			bit := 0
			for _, l := range odd {
				for j := range xs[l] {
					xs[l][j] = float64((s >> bit) & 1)
					bit++
				}
			}
			terms = append(terms, -d.Energy(xs))
		}
		want := nmath.LogSumExp(terms)
		got := d.LogUnnormEven(xs, nil)
		if math.Abs(got-want) > 1e-10 {
			t.Fatalf("sizes %v: LogUnnormEven = %v, brute force %v", sizes, got, want)
		}
	}
}

func TestDBMValidateErrors(t *testing.T) {
	if _, err := NewDBM(3, 2); err == nil {
		t.Fatal("NewDBM with one hidden layer: want error")
	}
	if _, err := NewDBM(3, 0, 2); err == nil {
		t.Fatal("NewDBM with a zero size: want error")
	}
	d, _ := NewDBM(3, 2, 2)
	if err := d.Validate(); err != nil {
		t.Fatal(err)
	}
	bad := d.Clone()
	bad.W[1] = bad.W[1][:3]
	if err := bad.Validate(); err == nil || !strings.Contains(err.Error(), "W2") {
		t.Fatalf("short W2: got %v", err)
	}
	bad = d.Clone()
	bad.B[2][1] = math.NaN()
	if err := bad.Validate(); err == nil || !strings.Contains(err.Error(), "b2[1]") {
		t.Fatalf("NaN bias: got %v", err)
	}
	bad = d.Clone()
	bad.B = bad.B[:2]
	if err := bad.Validate(); err == nil {
		t.Fatal("missing bias vector: want error")
	}
}

func TestDBMCodecRoundTrip(t *testing.T) {
	typ := DBMType
	m, err := typ.New(4, []int{3, 2})
	if err != nil {
		t.Fatal(err)
	}
	d := m.(*DBM)
	orig := randomDBMForTest(t, 11, 1, 4, 3, 2)
	d.W, d.B = orig.W, orig.B
	arrs := map[string]*npyx.Array{}
	for _, a := range typ.Arrays(d) {
		arrs[a.Name] = &npyx.Array{Shape: a.Shape, Data: append([]float64(nil), a.Data...)}
	}
	for _, name := range []string{"W1", "W2", "b0", "b1", "b2"} {
		if arrs[name] == nil {
			t.Fatalf("Arrays lacks %s", name)
		}
	}
	got, err := detect(arrs, known)
	if err != nil || got.Name != "dbm" {
		t.Fatalf("detect: %v, %v", got.Name, err)
	}
	back, err := typ.FromArrays(arrs)
	if err != nil {
		t.Fatal(err)
	}
	b := back.(*DBM)
	xs := [][]float64{{1, 0, 1, 1}, {0, 1, 1}, {1, 1}}
	if b.Energy(xs) != orig.Energy(xs) || b.NumVisible() != 4 || b.NumLayers() != 2 {
		t.Fatal("round trip changed the model")
	}
	// Errors name the offending array.
	delete(arrs, "b1")
	if _, err := typ.FromArrays(arrs); err == nil || !strings.Contains(err.Error(), "b1") {
		t.Fatalf("missing b1: got %v", err)
	}
	arrs["b1"] = &npyx.Array{Shape: []int{2}, Data: []float64{0, 0}}
	if _, err := typ.FromArrays(arrs); err == nil || !strings.Contains(err.Error(), "b1") {
		t.Fatalf("wrong b1 shape: got %v", err)
	}
	arrs["b1"] = &npyx.Array{Shape: []int{3}, Data: []float64{0, 0, 0}}
	arrs["W2"] = &npyx.Array{Shape: []int{2, 2}, Data: []float64{0, 0, 0, 0}}
	if _, err := typ.FromArrays(arrs); err == nil || !strings.Contains(err.Error(), "W2") {
		t.Fatalf("mismatched W2: got %v", err)
	}
}
