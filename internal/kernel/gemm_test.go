package kernel

import (
	"math"
	"math/rand/v2"
	"testing"
)

// naive is the definition: a fused chain per entry, then α and the op.
func naive(op GemmOp, alpha float64, m, n, k int, a []float64, lda int, b []float64, ldb int, c []float64, ldc int) {
	for i := range m {
		for j := range n {
			s := 0.0
			for p := range k {
				s = math.FMA(a[i*lda+p], b[p*ldb+j], s)
			}
			if op == GemmSet {
				c[i*ldc+j] = alpha * s
			} else {
				c[i*ldc+j] += alpha * s
			}
		}
	}
}

func randSlice(rng *rand.Rand, n int) []float64 {
	x := make([]float64, n)
	for i := range x {
		x[i] = rng.NormFloat64()
	}
	return x
}

// colsFunc is GemmCols or GemmCols32: c[:, j0:j1] (op)= α·a·b[:, j0:j1].
type colsFunc[F float32 | float64] func(op GemmOp, alpha F, m, j0, j1, k int, a []F, lda int, b []F, ldb int, c []F, ldc int)

// naiveFunc is the definition a colsFunc must reproduce bit for bit.
type naiveFunc[F float32 | float64] func(op GemmOp, alpha F, m, n, k int, a []F, lda int, b []F, ldb int, c []F, ldc int)

// checkColsBitIdentical checks cols, on every kernel available, against
// the definition bit for bit, for the shapes m×n×k given (with and without
// edge tiles), strides larger than the rows and column blocks split at 0,
// 3, one kernel width and n/2.
func checkColsBitIdentical[F float32 | float64](t *testing.T, cols colsFunc[F], def naiveFunc[F], shapes [][3]int, width int) {
	t.Helper()
	rng := rand.New(rand.NewPCG(3, 4))
	random := func(n int) []F {
		x := make([]F, n)
		for i := range x {
			x[i] = F(rng.NormFloat64())
		}
		return x
	}
	kernels := []bool{false}
	if gemmAVX2 {
		kernels = append(kernels, true)
	}
	defer func(u bool) { gemmAVX2 = u }(gemmAVX2)
	for _, sh := range shapes {
		m, n, k := sh[0], sh[1], sh[2]
		lda, ldb, ldc := k+3, n+5, n+2
		a, b := random(m*lda), random(k*ldb)
		c0 := random(m * ldc)
		for _, op := range []GemmOp{GemmSet, GemmAdd} {
			for _, alpha := range []F{1, 0.37} {
				want := append([]F(nil), c0...)
				def(op, alpha, m, n, k, a, lda, b, ldb, want, ldc)
				for _, avx := range kernels {
					gemmAVX2 = avx
					for _, split := range []int{0, min(3, n), min(width, n), n / 2} {
						got := append([]F(nil), c0...)
						cols(op, alpha, m, 0, split, k, a, lda, b, ldb, got, ldc)
						cols(op, alpha, m, split, n, k, a, lda, b, ldb, got, ldc)
						for i := range got {
							// Compare bits: the same value by another rounding path must fail.
							if float64(got[i]) != float64(want[i]) || math.Signbit(float64(got[i])) != math.Signbit(float64(want[i])) {
								t.Fatalf("%dx%dx%d op %d α %v avx %v split %d: c[%d] = %v, want %v", m, n, k, op, alpha, avx, split, i, got[i], want[i])
							}
						}
					}
				}
			}
		}
	}
}

// TestColsBitIdentical checks GemmCols against the definition bit for bit.
func TestColsBitIdentical(t *testing.T) {
	checkColsBitIdentical(t, GemmCols, naive, [][3]int{{4, 8, 1}, {4, 8, 37}, {7, 19, 13}, {100, 61, 50}, {3, 5, 2}, {9, 24, 64}}, 8)
}

func BenchmarkCols100x1000x500(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	const m, n, k = 100, 1000, 500
	a, w, c := randSlice(rng, m*k), randSlice(rng, k*n), make([]float64, m*n)
	b.ReportAllocs()
	for b.Loop() {
		GemmCols(GemmSet, 1, m, 0, n, k, a, k, w, n, c, n)
	}
	b.ReportMetric(2*m*n*k*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}
