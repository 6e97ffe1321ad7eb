package kernel

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/logz-ml/logz/internal/nmath"
)

// testArgs are arguments over every scale, the reduction's grid points
// k·ln2/16 and their neighbours, the edges of the fast range (±708) and
// beyond them (subnormal, zero and infinite exponentials, handled by
// math.Exp), zeros of both signs, infinities and NaN, each among ordinary
// arguments.
func testArgs() []float64 {
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
	return a
}

func sameBits(a, b float64) bool {
	return math.Float64bits(a) == math.Float64bits(b) || math.IsNaN(a) && math.IsNaN(b)
}

// TestSameBits: Exp, SigPair, Sigmoid and SigmoidBern have the bits of
// their scalar formulas on testArgs, at every offset of a block of four.
func TestSameBits(t *testing.T) {
	if !expvecAVX2 {
		t.Log("no AVX2/FMA kernel on this build or CPU: the scalar loop compared with itself")
	}
	a := testArgs()
	type fn struct {
		name   string
		vector func(dst, dst2, a []float64)
		scalar func(x float64) (float64, float64)
	}
	for _, f := range []fn{
		{"Exp", func(d, _, a []float64) { Exp(d, a) }, func(x float64) (float64, float64) { return math.Exp(x), 0 }},
		{"SigPair", SigPair, func(x float64) (float64, float64) {
			e := math.Exp(-math.Abs(x))
			r := 1 / (1 + e)
			if x >= 0 {
				return r, e * r
			}
			return e * r, r
		}},
		{"Sigmoid", func(d, _, a []float64) { Sigmoid(d, a) }, func(x float64) (float64, float64) { return nmath.Sigmoid(x), 0 }},
		{"SigmoidBern", func(d, _, a []float64) { SigmoidBern(d, a) }, func(x float64) (float64, float64) {
			e := math.Exp(-math.Abs(x))
			r := 1 / (1 + e)
			if x > 0 {
				return r, 0
			}
			return e * r, 0
		}},
	} {
		for off := range 4 {
			got, got2 := make([]float64, len(a)-off), make([]float64, len(a)-off)
			f.vector(got, got2, a[off:])
			for i, x := range a[off:] {
				w, w2 := f.scalar(x)
				if !sameBits(got[i], w) || !sameBits(got2[i], w2) {
					t.Fatalf("%s, offset %d: at %v got %v %v (%#x), scalar %v %v (%#x)", f.name, off, x, got[i], got2[i], math.Float64bits(got[i]), w, w2, math.Float64bits(w))
				}
			}
		}
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
