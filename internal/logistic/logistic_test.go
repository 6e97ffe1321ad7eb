package logistic

import (
	"math"
	"math/rand/v2"
	"testing"
)

// sigmoid64 is σ(x) in float64.
func sigmoid64(x float64) float64 {
	if x >= 0 {
		return 1 / (1 + math.Exp(-x))
	}
	e := math.Exp(x)
	return e / (1 + e)
}

// testInputs are random arguments over the range where σ is not 0 or 1 in
// float32 and beyond, the range-reduction grid points ±k·ln2/8 and their
// neighbours, and special values.
func testInputs() []float32 {
	rng := rand.New(rand.NewPCG(1, 2))
	var x []float32
	for range 1 << 20 {
		x = append(x, float32((2*rng.Float64()-1)*math.Exp(5*rng.Float64()-1)))
	}
	for k := -1100; k <= 1100; k++ {
		g := float32(float64(k) * math.Ln2 / 8)
		x = append(x, g, math.Nextafter32(g, 0), math.Nextafter32(g, 1000))
	}
	return append(x, 0, float32(math.Copysign(0, -1)), 1e-30, -1e-30, 86.9, -86.9, 87, -87, 88, -88, 200, -200,
		float32(math.Inf(1)), float32(math.Inf(-1)))
}

// TestAgainstFloat64: σ within 4 float32 ulps (relative 2^{−22}: half an
// ulp each from the table, s + s·q, 1 + e and the division, and about one
// from e^r − 1 and the reduction) of σ in float64 for |x| ≤ 87, and the
// clamped values beyond: σ(x) = 1 for x ≥ 87 and σ(x) =
// e^{−87}/(1+e^{−87}) (to the same tolerance) for x ≤ −87.
func TestAgainstFloat64(t *testing.T) {
	x := testInputs()
	p := make([]float32, len(x))
	Sigmoid(p, x)
	worst, worstX := 0.0, float32(0)
	for i, xi := range x {
		want := sigmoid64(float64(xi))
		if xi <= expMin {
			want = sigmoid64(expMin)
		}
		rel := math.Abs(float64(p[i])-want) / want
		if rel > worst {
			worst, worstX = rel, xi
		}
		if !(rel <= 0x1p-22) {
			t.Fatalf("σ(%v) = %v, want %v (relative error %.3g)", xi, p[i], want, rel)
		}
	}
	t.Logf("worst relative error %.3g (%.2f ulp) at x = %v", worst, worst/0x1p-24, worstX)
	if Sigmoid(p[:1], []float32{0}); p[0] != 0.5 {
		t.Errorf("σ(0) = %v", p[0])
	}
	if Sigmoid(p[:1], []float32{float32(math.Copysign(0, -1))}); p[0] != 0.5 {
		t.Errorf("σ(−0) = %v", p[0])
	}
}

// TestAVX2SameBits compares the assembly with the Go loop bit for bit, with
// lengths that leave a tail for the Go loop, and in place (p aliasing x).
func TestAVX2SameBits(t *testing.T) {
	if !useAVX2 {
		t.Skip("no AVX2 kernel on this build or CPU")
	}
	defer func() { useAVX2 = true }()
	x := append(testInputs(), float32(math.NaN()))
	for _, n := range []int{len(x), 7, 8, 13} {
		var got [2][]float32
		for k, avx := range []bool{false, true} {
			useAVX2 = avx
			p := append([]float32(nil), x[len(x)-n:]...)
			Sigmoid(p, p)
			got[k] = p
		}
		for i := range got[0] {
			if math.Float32bits(got[0][i]) != math.Float32bits(got[1][i]) {
				t.Fatalf("x = %v: Go %v, AVX2 %v", x[len(x)-n+i], got[0][i], got[1][i])
			}
		}
	}
}

func BenchmarkSigmoid500(b *testing.B) {
	x := make([]float32, 500)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range x {
		x[i] = float32(8*rng.Float64() - 4)
	}
	p := make([]float32, len(x))
	b.ReportAllocs()
	for b.Loop() {
		Sigmoid(p, x)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(x)), "ns/element")
}
