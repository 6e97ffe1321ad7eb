package kernel

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// fma32Exact is x·y + z computed exactly and rounded once to float32
// (nearest, ties to even, subnormals included) by math/big.
func fma32Exact(x, y, z float32) float32 {
	p := new(big.Float).SetPrec(200).SetFloat64(float64(x))
	p.Mul(p, new(big.Float).SetPrec(200).SetFloat64(float64(y)))
	p.Add(p, new(big.Float).SetPrec(200).SetFloat64(float64(z)))
	f, _ := p.Float32()
	return f
}

// TestFMA32 checks fma32 against the exact sum rounded once: random
// operands of many magnitudes, cancellations, subnormals, and the cases
// where rounding to float64 first lands halfway between two float32s
// (z = 1 + 2⁻²³, x·y = 2⁻²⁴(1 − u²) just below the half ulp), where
// rounding twice gives the even neighbour instead of z.
func TestFMA32(t *testing.T) {
	check := func(x, y, z float32) {
		t.Helper()
		if got, want := fma32(x, y, z), fma32Exact(x, y, z); math.Float32bits(got) != math.Float32bits(want) {
			t.Fatalf("fma32(%g, %g, %g) = %g, want %g", x, y, z, got, want)
		}
	}
	halfway := 0
	for a := 1; a < 300; a++ {
		u := float32(a) / (1 << 23)
		x, y, z := float32(math.Ldexp(1, -24))*(1+u), 1-u, float32(1+1.0/(1<<23))
		if float32(float64(x)*float64(y)+float64(z)) != fma32Exact(x, y, z) {
			halfway++
		}
		check(x, y, z)
		check(-x, y, -z)
	}
	if halfway == 0 {
		t.Fatal("no case where rounding twice differs: the halfway cases are not exercised")
	}
	rng := rand.New(rand.NewPCG(5, 6))
	r := func() float32 {
		return float32(math.Ldexp(rng.NormFloat64(), rng.IntN(80)-40))
	}
	for range 200_000 {
		x, y := r(), r()
		z := r()
		switch rng.IntN(4) {
		case 0:
			z = -float32(float64(x) * float64(y)) // cancellation
		case 1:
			z = float32(math.Ldexp(rng.NormFloat64(), -140)) // subnormal
			x, y = float32(math.Ldexp(float64(x), -70)), float32(math.Ldexp(float64(y), -70))
		}
		check(x, y, z)
	}
}

// naive32 is the definition in float32: a fused chain per entry, then α
// and the op.
func naive32(op GemmOp, alpha float32, m, n, k int, a []float32, lda int, b []float32, ldb int, c []float32, ldc int) {
	for i := range m {
		for j := range n {
			var s float32
			for p := range k {
				s = fma32Exact(a[i*lda+p], b[p*ldb+j], s)
			}
			if op == GemmSet {
				c[i*ldc+j] = alpha * s
			} else {
				c[i*ldc+j] += float32(alpha * s)
			}
		}
	}
}

func randSlice32(rng *rand.Rand, n int) []float32 {
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(rng.NormFloat64())
	}
	return x
}

// TestCols32BitIdentical checks GemmCols32 against the definition (exact fused
// multiply–adds by math/big) bit for bit.
func TestCols32BitIdentical(t *testing.T) {
	checkColsBitIdentical(t, GemmCols32, naive32, [][3]int{{4, 16, 1}, {4, 16, 37}, {7, 19, 13}, {20, 61, 30}, {3, 5, 2}, {9, 48, 64}}, 16)
}

func BenchmarkCols32x100x1000x500(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	const m, n, k = 100, 1008, 500
	a, w, c := randSlice32(rng, m*k), randSlice32(rng, k*n), make([]float32, m*n)
	b.ReportAllocs()
	for b.Loop() {
		GemmCols32(GemmSet, 1, m, 0, n, k, a, k, w, n, c, n)
	}
	b.ReportMetric(2*m*n*k*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}
