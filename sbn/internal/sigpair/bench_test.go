package sigpair

import (
	"math/rand/v2"
	"testing"
)

// The kernels on one unit of an SBN 784-200 chunk: 784 visible units, one
// group of four lanes stored contiguously (stride 4), weights N(0, 0.1²).
func benchRow(b *testing.B) *prodCase {
	c := newProdCase(rand.New(rand.NewPCG(1, 1)), 1, 784, 2, 0.1, false)
	for c.stride != 4 {
		c = newProdCase(rand.New(rand.NewPCG(uint64(c.stride), 2)), 1, 784, 2, 0.1, false)
	}
	b.ReportAllocs()
	return c
}

func BenchmarkProd(b *testing.B) {
	c := benchRow(b)
	a := &ProdArgs{T: c.t, S: c.s, Stride: 4, EP: c.ep, EN: c.en, Sel: c.sel,
		P: make([]float64, 4), Exp: make([]int64, 4), Dot: make([]float64, 4), Bad: make([]uint8, 25)}
	for b.Loop() {
		for k := range a.P {
			a.P[k] = 1
		}
		Prod(1, a)
	}
}

func shiftArgs(c *prodCase) *ShiftArgs {
	return &ShiftArgs{A: c.a, S: c.s, T: c.t, Stride: 4, W: c.w, EP: c.ep, EN: c.en, D: [4]float64{1, -1, 1, -1},
		Sel: [4]uint64{0, ^uint64(0), 0, ^uint64(0)}, Fb: make([]uint8, len(c.w))}
}

// flip alternates the direction of every lane, so that the state returns.
func flip(a *ShiftArgs) {
	for q := range 4 {
		a.D[q], a.Sel[q] = -a.D[q], ^a.Sel[q]
	}
}

func BenchmarkShift(b *testing.B) {
	a := shiftArgs(benchRow(b))
	for b.Loop() {
		flip(a)
		Shift(a)
	}
}

func benchRow32(b *testing.B) *case32 {
	c := newCase32(rand.New(rand.NewPCG(1, 1)), 784, 2, 0.1, false)
	for q := range 8 {
		c.d[q], c.sel[q] = float32(1-2*(q%2)), uint32(q%2)*^uint32(0)
	}
	b.ReportAllocs()
	return c
}

func BenchmarkProd32(b *testing.B) {
	c := benchRow32(b)
	a := c.prodArgs(false, make([]uint8, 25))
	for b.Loop() {
		c.p = [8]float64{1, 1, 1, 1, 1, 1, 1, 1}
		Prod32(a)
	}
}

func BenchmarkShift32(b *testing.B) {
	c := benchRow32(b)
	sh := c.shiftArgs(make([]uint8, 784))
	for b.Loop() {
		for q := range 8 {
			sh.D[q], sh.Sel[q] = -sh.D[q], ^sh.Sel[q]
		}
		Shift32(sh)
	}
}

func BenchmarkRhoProd32(b *testing.B) {
	c := benchRow32(b)
	sh := c.rhoArgs()
	pr := c.rhoProdArgs(make([]uint8, 25))
	for b.Loop() {
		for q := range 8 {
			sh.Sel[q] = ^sh.Sel[q]
		}
		c.p = [8]float64{1, 1, 1, 1, 1, 1, 1, 1}
		Rho(sh, pr)
	}
}

func BenchmarkRhoProdOnly32(b *testing.B) {
	c := benchRow32(b)
	c.rhoArgs()
	pr := c.rhoProdArgs(make([]uint8, 25))
	for b.Loop() {
		c.p = [8]float64{1, 1, 1, 1, 1, 1, 1, 1}
		RhoProd(pr)
	}
}

func BenchmarkRhoUpdate32(b *testing.B) {
	c := benchRow32(b)
	sh := c.rhoArgs()
	for b.Loop() {
		for q := range 8 {
			sh.Sel[q] = ^sh.Sel[q]
		}
		Rho(sh, nil)
	}
}
