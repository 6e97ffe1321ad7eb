package sigpair

import (
	"math/rand/v2"
	"testing"
)

// The kernels on one unit of an SBN 784-200 chunk (784 visible units, 12
// lanes): per call, ns/op / 784 is the cost per element.
func benchCase(b *testing.B, ng, n, stride int) *prodCase {
	rng := rand.New(rand.NewPCG(1, 1))
	c := newProdCase(rng, ng, n, 2, 0.1, false)
	if stride != c.stride {
		c = newProdCase(rand.New(rand.NewPCG(1, 2)), ng, n, 2, 0.1, false)
	}
	b.ReportAllocs()
	return c
}

func BenchmarkProd3(b *testing.B) {
	c := benchCase(b, 3, 784, 12)
	a := &ProdArgs{T: c.t, S: c.s, Stride: c.stride, EP: c.ep, EN: c.en, Sel: c.sel,
		P: make([]float64, 12), Exp: make([]int64, 12), Dot: make([]float64, 12), Bad: make([]uint8, 3*25)}
	for b.Loop() {
		for k := range a.P {
			a.P[k] = 1
		}
		Prod(3, a)
	}
}

func BenchmarkShift1(b *testing.B) {
	c := benchCase(b, 3, 784, 12)
	a := &ShiftArgs{A: c.a, S: c.s, T: c.t, Stride: c.stride, W: c.w, EP: c.ep, EN: c.en, D: [4]float64{1, -1, 1, -1}, Sel: [4]uint64{0, ^uint64(0), 0, ^uint64(0)}, Fb: make([]uint8, 784)}
	for b.Loop() {
		a.D[0], a.D[1], a.D[2], a.D[3] = -a.D[0], -a.D[1], -a.D[2], -a.D[3]
		a.Sel[0], a.Sel[1], a.Sel[2], a.Sel[3] = ^a.Sel[0], ^a.Sel[1], ^a.Sel[2], ^a.Sel[3]
		Shift(a)
	}
}

func benchShift(b *testing.B, n, stride int) {
	rng := rand.New(rand.NewPCG(1, 1))
	var c *prodCase
	for c == nil || c.stride != stride {
		c = newProdCase(rng, stride/4, n, 2, 0.1, false)
		if stride%4 != 0 {
			c.stride = stride
		}
	}
	a := &ShiftArgs{A: c.a, S: c.s, T: c.t, Stride: c.stride, W: c.w, EP: c.ep, EN: c.en, D: [4]float64{1, -1, 1, -1}, Sel: [4]uint64{0, ^uint64(0), 0, ^uint64(0)}, Fb: make([]uint8, n)}
	b.ReportAllocs()
	for b.Loop() {
		a.D[0], a.D[1], a.D[2], a.D[3] = -a.D[0], -a.D[1], -a.D[2], -a.D[3]
		a.Sel[0], a.Sel[1], a.Sel[2], a.Sel[3] = ^a.Sel[0], ^a.Sel[1], ^a.Sel[2], ^a.Sel[3]
		Shift(a)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/elem")
}

func BenchmarkShiftL1(b *testing.B) { benchShift(b, 128, 4) }
func BenchmarkShiftL2(b *testing.B) { benchShift(b, 784, 12) }
