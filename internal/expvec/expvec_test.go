package expvec

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestSigmoidBern: the vector σ has the bits of the scalar formula over
// activations of every scale, the reduction's grid points k·ln2 and their
// neighbours, the edge of the fast range (−708) and beyond it (subnormal
// and zero exponentials, handled by math.Exp), zeros of both signs,
// infinities and NaN, at every position of a block of four.
func TestSigmoidBern(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var a []float64
	for range 200000 {
		a = append(a, rng.NormFloat64()*math.Exp(3*rng.NormFloat64()))
	}
	for k := -1100; k <= 1100; k++ {
		g := float64(k) * math.Ln2 / 16
		a = append(a, g, math.Nextafter(g, 0), math.Nextafter(g, 1e9), float64(k)*math.Ln2)
	}
	for _, x := range []float64{0, math.Copysign(0, -1), 708, -708, 708.0001, 708.4, 709, 709.9, 745, 746, 800, 1e300,
		math.Inf(1), math.Inf(-1), math.NaN(), 5e-324, -5e-324} {
		a = append(a, x)
		for range 3 {
			a = append(a, rng.NormFloat64())
		}
		a = append(a, -x)
	}
	want := make([]float64, len(a))
	sigmoidBernGo(want, a)
	for off := range 4 {
		got := make([]float64, len(a)-off)
		SigmoidBern(got, a[off:])
		for i := range got {
			if math.Float64bits(got[i]) != math.Float64bits(want[off+i]) && !(math.IsNaN(got[i]) && math.IsNaN(want[off+i])) {
				t.Fatalf("offset %d: σ(%v) = %v (%#x), scalar %v (%#x)", off, a[off+i], got[i], math.Float64bits(got[i]), want[off+i], math.Float64bits(want[off+i]))
			}
		}
	}
	if !useAVX2 {
		t.Log("no AVX2/FMA kernel on this build or CPU: the scalar loop compared with itself")
	}
}

// benchArgs are 784 activations of scale 3 (a visible layer's).
func benchArgs(b *testing.B) (dst, a []float64) {
	rng := rand.New(rand.NewPCG(1, 2))
	a, dst = make([]float64, 784), make([]float64, 784)
	for i := range a {
		a[i] = 3 * rng.NormFloat64()
	}
	b.ReportAllocs()
	return dst, a
}

func BenchmarkSigmoidBern(b *testing.B) {
	dst, a := benchArgs(b)
	for b.Loop() {
		SigmoidBern(dst, a)
	}
}

func BenchmarkSigmoidBernScalar(b *testing.B) {
	dst, a := benchArgs(b)
	for b.Loop() {
		sigmoidBernGo(dst, a)
	}
}
