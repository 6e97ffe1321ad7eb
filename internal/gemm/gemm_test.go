package gemm

import (
	"math"
	"math/rand/v2"
	"testing"
)

// naive is the definition: a fused chain per entry, then α and the op.
func naive(op Op, alpha float64, m, n, k int, a []float64, lda int, b []float64, ldb int, c []float64, ldc int) {
	for i := range m {
		for j := range n {
			s := 0.0
			for p := range k {
				s = math.FMA(a[i*lda+p], b[p*ldb+j], s)
			}
			if op == Set {
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

// TestColsBitIdentical checks Cols, on every kernel available, against the
// definition bit for bit, for shapes with and without edge tiles, strides
// larger than the rows and column blocks split anywhere.
func TestColsBitIdentical(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	kernels := []bool{false}
	if useAVX2 {
		kernels = append(kernels, true)
	}
	defer func(u bool) { useAVX2 = u }(useAVX2)
	for _, sh := range [][3]int{{4, 8, 1}, {4, 8, 37}, {7, 19, 13}, {100, 61, 50}, {3, 5, 2}, {9, 24, 64}} {
		m, n, k := sh[0], sh[1], sh[2]
		lda, ldb, ldc := k+3, n+5, n+2
		a, b := randSlice(rng, m*lda), randSlice(rng, k*ldb)
		c0 := randSlice(rng, m*ldc)
		for _, op := range []Op{Set, Add} {
			for _, alpha := range []float64{1, 0.37} {
				want := append([]float64(nil), c0...)
				naive(op, alpha, m, n, k, a, lda, b, ldb, want, ldc)
				for _, avx := range kernels {
					useAVX2 = avx
					for _, split := range []int{0, min(3, n), min(8, n), n / 2} {
						got := append([]float64(nil), c0...)
						Cols(op, alpha, m, 0, split, k, a, lda, b, ldb, got, ldc)
						Cols(op, alpha, m, split, n, k, a, lda, b, ldb, got, ldc)
						for i := range got {
							if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
								t.Fatalf("%dx%dx%d op %d α %v avx %v split %d: c[%d] = %v, want %v", m, n, k, op, alpha, avx, split, i, got[i], want[i])
							}
						}
					}
				}
			}
		}
	}
}

func BenchmarkCols100x1000x500(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	const m, n, k = 100, 1000, 500
	a, w, c := randSlice(rng, m*k), randSlice(rng, k*n), make([]float64, m*n)
	b.ReportAllocs()
	for b.Loop() {
		Cols(Set, 1, m, 0, n, k, a, k, w, n, c, n)
	}
	b.ReportMetric(2*m*n*k*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}
