package kernel

import (
	"fmt"
	"math/rand/v2"
	"syscall"
	"testing"
)

// TestCols32x6BitIdentical checks GemmCols32x6 against the definition bit
// for bit: row counts with and without leftover rows after the 6-row tiles
// (5, 6, 7, 8, 12, 14, 16, 20, 23, 100), partial strips, split column
// blocks.
func TestCols32x6BitIdentical(t *testing.T) {
	checkColsBitIdentical(t, GemmCols32x6, naive32, [][3]int{{6, 16, 1}, {6, 16, 37}, {7, 19, 13}, {12, 61, 30}, {5, 5, 2}, {16, 48, 64}, {23, 35, 9}, {100, 64, 20}, {20, 32, 11}, {14, 16, 5}, {8, 16, 3}}, 16)
}

// TestCols6BitIdentical checks GemmCols6 against the definition bit for
// bit, with the same row counts as TestCols32x6BitIdentical and, with B
// packed (48 rows or more), panels of one strip (k = 3,000), of several
// (k = 700: five strips) and wider than the columns (k = 300).
func TestCols6BitIdentical(t *testing.T) {
	checkColsBitIdentical(t, GemmCols6, naive, [][3]int{{6, 8, 1}, {6, 8, 37}, {7, 19, 13}, {12, 61, 30}, {5, 5, 2}, {16, 48, 64}, {23, 35, 9}, {100, 64, 20}, {20, 32, 11}, {14, 16, 5}, {8, 16, 3},
		{60, 45, 300}, {54, 200, 700}, {50, 30, 3000}}, 8)
}

// BenchmarkCols6Shapes times GemmCols6 against GemmCols on the mean-field
// VB trainer's three products for a 784-200 layer in one block of 512
// examples (P = 20,301 packed covariance entries): the trace product's
// 32-row piece over a 256-entry chunk, the block's G = ω̄·Σ (columns in
// 512-wide jobs; 64 of them here) and the precisions' sums ω̄ᵀ·M (C += …,
// the same).
func BenchmarkCols6Shapes(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, s := range []struct {
		name    string
		op      GemmOp
		m, k, n int
	}{{"trace", GemmAdd, 32, 256, 512}, {"G", GemmSet, 512, 784, 512}, {"sums", GemmAdd, 784, 512, 512}} {
		a, w, c := randSlice(rng, s.m*s.k), randSlice(rng, s.k*s.n), make([]float64, s.m*s.n)
		for _, f := range []struct {
			name string
			cols func(GemmOp, float64, int, int, int, int, []float64, int, []float64, int, []float64, int)
		}{{"4x8", GemmCols}, {"6x8", GemmCols6}} {
			b.Run(fmt.Sprintf("%s/%s/%dx%dx%d", f.name, s.name, s.m, s.k, s.n), func(b *testing.B) {
				f.cols(s.op, 1, s.m, 0, s.n, s.k, a, s.k, w, s.n, c, s.n) // fills the panel pool
				b.ReportAllocs()
				var r0, r1 syscall.Rusage
				syscall.Getrusage(syscall.RUSAGE_SELF, &r0)
				for b.Loop() {
					f.cols(s.op, 1, s.m, 0, s.n, s.k, a, s.k, w, s.n, c, s.n)
				}
				syscall.Getrusage(syscall.RUSAGE_SELF, &r1)
				cpu := float64(r1.Utime.Nano()-r0.Utime.Nano()) / 1e9
				b.ReportMetric(2*float64(s.m*s.k*s.n)*float64(b.N)/cpu/1e9, "GFLOP/cpu-s")
			})
		}
	}
}

// BenchmarkCols32x6Shapes times GemmCols32x6 against GemmCols32 on the VAE
// engine's product shapes (m×k by k×n in 64-column jobs).
func BenchmarkCols32x6Shapes(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, s := range [][3]int{{100, 784, 512}, {100, 500, 208}, {100, 500, 784}, {16, 100, 512}} {
		m, k, n := s[0], s[1], s[2]
		a, w, c := randSlice32(rng, m*k), randSlice32(rng, k*n), make([]float32, m*n)
		for _, f := range []struct {
			name string
			cols func(GemmOp, float32, int, int, int, int, []float32, int, []float32, int, []float32, int)
		}{{"4x16", GemmCols32}, {"6x16", GemmCols32x6}} {
			b.Run(fmt.Sprintf("%s/%dx%dx%d", f.name, m, k, n), func(b *testing.B) {
				var r0, r1 syscall.Rusage
				syscall.Getrusage(syscall.RUSAGE_SELF, &r0)
				for b.Loop() {
					for j := 0; j < n; j += 64 {
						f.cols(GemmSet, 1, m, j, min(j+64, n), k, a, k, w, n, c, n)
					}
				}
				syscall.Getrusage(syscall.RUSAGE_SELF, &r1)
				cpu := float64(r1.Utime.Nano()-r0.Utime.Nano()) / 1e9
				b.ReportMetric(2*float64(m*k*n)*float64(b.N)/cpu/1e9, "GFLOP/cpu-s")
			})
		}
	}
}

// BenchmarkFMAPeak32 measures the core's float32 FMA throughput (twelve
// independent 8-lane chains, no loads), the ceiling of the GFLOP/cpu-s
// the GEMM benchmarks report.
func BenchmarkFMAPeak32(b *testing.B) {
	const rounds = 1 << 20
	if !fmaPeak32(1) {
		b.Skip("no AVX2/FMA assembly")
	}
	var r0, r1 syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &r0)
	for b.Loop() {
		fmaPeak32(rounds)
	}
	syscall.Getrusage(syscall.RUSAGE_SELF, &r1)
	cpu := float64(r1.Utime.Nano()-r0.Utime.Nano()) / 1e9
	b.ReportMetric(192*rounds*float64(b.N)/cpu/1e9, "GFLOP/cpu-s")
}

// BenchmarkCols32x6DW times GemmCols32x6 on the shape of the SBN engine's
// ∂W item: 48 units × 500 rows of h transposed, times a 128-column block
// of the 784-wide δ rows.
func BenchmarkCols32x6DW(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	m, k, n, ldb := 48, 500, 128, 784
	a, w, c := randSlice32(rng, m*k), randSlice32(rng, k*ldb), make([]float32, m*n)
	var r0, r1 syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &r0)
	for b.Loop() {
		GemmCols32x6(GemmSet, 1, m, 0, n, k, a, k, w[128:], ldb, c, n)
	}
	syscall.Getrusage(syscall.RUSAGE_SELF, &r1)
	cpu := float64(r1.Utime.Nano()-r0.Utime.Nano()) / 1e9
	b.ReportMetric(2*float64(m*k*n)*float64(b.N)/cpu/1e9, "GFLOP/cpu-s")
}
