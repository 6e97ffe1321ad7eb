package sbn

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestSGHMCStudentTBits checks the fused update against the two steps it
// replaces, Prior.AddGradU then dynamics.stepRange with rand.New(src),
// bit for bit on θ, v and the gradient, over enough entries (400,000) that
// the normal draws take every branch of the ziggurat (the base strip's
// tail and the wedges) many times.
func TestSGHMCStudentTBits(t *testing.T) {
	const n = 400000
	theta, g, p := updateProblem(n)
	mk := func() *dynamics {
		d, err := newDynamics("sghmc", 0.01, 0.1, 0.01, 0, 60000, n)
		if err != nil {
			t.Fatal(err)
		}
		for i := range d.v {
			d.v[i] = 1e-4 * float64(i%7-3)
		}
		return d
	}
	d0, d1 := mk(), mk()
	th0, th1 := append([]float64(nil), theta...), append([]float64(nil), theta...)
	g0, g1 := append([]float64(nil), g...), append([]float64(nil), g...)
	lo, hi := 3, n-5
	p.AddGradU(th0[lo:hi], g0[lo:hi])
	d0.stepRange(th0, g0, rand.New(rand.NewPCG(7, 8)), lo, hi)
	sghmcStudentT(d1, p, th1, g1, 7, 8, lo, hi)
	same := func(what string, a, b []float64) {
		for i := range a {
			if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
				t.Fatalf("%s[%d] = %v, want %v", what, i, b[i], a[i])
			}
		}
	}
	same("θ", th0, th1)
	same("v", d0.v, d1.v)
	same("grad", g0, g1)
}

// TestColumns8 checks the unrolled column lists against a plain scan of
// a random binary matrix (with −0 and a non-unit nonzero among the
// entries), for every block of eight units.
func TestColumns8(t *testing.T) {
	const R, k = 37, 24
	rng := rand.New(rand.NewPCG(3, 4))
	mat := make([]float32, R*k)
	for i := range mat {
		if rng.IntN(2) == 1 {
			mat[i] = 1
		}
	}
	mat[5], mat[9] = float32(math.Copysign(0, -1)), 2
	cols := make([][]int32, jobUnits)
	for lo := 0; lo < k; lo += jobUnits {
		for i := range cols {
			cols[i] = make([]int32, R)
		}
		columns8(mat, k, lo, R, cols)
		for i := range jobUnits {
			var want []int32
			for r := range R {
				if mat[r*k+lo+i] != 0 {
					want = append(want, int32(r))
				}
			}
			if fmt.Sprint(cols[i]) != fmt.Sprint(want) {
				t.Errorf("unit %d: rows %v, want %v", lo+i, cols[i], want)
			}
		}
	}
}

// TestPCG checks pcg against math/rand/v2's PCG from the same seeds.
func TestPCG(t *testing.T) {
	for _, seed := range [][2]uint64{{0, 0}, {1, 2}, {^uint64(0), 12345}} {
		want := rand.NewPCG(seed[0], seed[1])
		got := pcg{seed[0], seed[1]}
		for i := range 1000 {
			if g, w := got.Uint64(), want.Uint64(); g != w {
				t.Fatalf("seed %v draw %d: %#x, want %#x", seed, i, g, w)
			}
		}
	}
}

// BenchmarkSGHMCStudentT times the fused update on SBN 784-200's θ
// (157,784 entries) in blocks of updBlock, as one dynamics step does.
func BenchmarkSGHMCStudentT(b *testing.B) {
	const n = 784*200 + 784 + 200
	theta, g, p := updateProblem(n)
	d, err := newDynamics("sghmc", 1e-6, 0.1, 0, 0, 60000, n)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for k := 0; b.Loop(); k++ {
		for lo := 0; lo < n; lo += updBlock {
			sghmcStudentT(d, p, theta, g, uint64(k), uint64(lo), lo, min(lo+updBlock, n))
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/entry")
}

// updateProblem is n parameters θ ~ N(0, 0.2²), gradients ~ N(0, 50²) and
// a Student-t prior, for the fused update's test and benchmark.
func updateProblem(n int) (theta, g []float64, p Prior) {
	rng := rand.New(rand.NewPCG(1, 2))
	theta, g = make([]float64, n), make([]float64, n)
	for i := range theta {
		theta[i] = 0.2 * rng.NormFloat64()
		g[i] = 50 * rng.NormFloat64()
	}
	return theta, g, Prior{Kind: "student-t", Sigma: 0.09, Nu: 2.2}
}
