package kernel

import (
	"math"
	"math/rand/v2"
	"testing"
)

// binEntry is the definition of one entry of BinMul32's product, written
// per entry: the chunks' subset sums as the package documents them, added
// in the order of the chunks to s (rows of B beyond K count as zero).
func binEntry(s float32, a []float32, K int, b []float32, ldb, j int) float32 {
	for c := 0; 4*c < K; c++ {
		var r [4]float32
		code := 0
		for i := range r {
			if k := 4*c + i; k < K {
				r[i] = b[k*ldb+j]
				if a[k] != 0 {
					code |= 1 << i
				}
			}
		}
		t3 := r[0] + r[1]
		e := [8]float32{0, r[0], r[1], t3, r[2], r[0] + r[2], r[1] + r[2], t3 + r[2]}
		v := e[code&7]
		if code&8 != 0 {
			v += r[3]
		}
		s += v
	}
	return s
}

// TestBinMul32 checks BinMul32, on every kernel available, against the
// definition bit for bit and against the float64 sum of the selected rows
// (within the float32 roundings of its partial sums), for shapes with
// partial row groups, partial column blocks, K not a multiple of four and
// K beyond one piece of tables, with both ops and column ranges not
// starting at 0.
func TestBinMul32(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	kernels := []bool{false}
	if binAVX2 {
		kernels = append(kernels, true)
	}
	defer func(u bool) { binAVX2 = u }(binAVX2)
	for _, sh := range [][3]int{{16, 32, 200}, {500, 24, 200}, {13, 21, 7}, {8, 8, 4}, {1, 5, 1}, {24, 16, 450}, {9, 40, 203}, {3, 8, 0}} {
		M, N, K := sh[0], sh[1], sh[2]
		a := make([]float32, M*K)
		for i := range a {
			if rng.IntN(2) == 1 {
				a[i] = 1
			}
		}
		ldb, ldc := N+3, N+5
		b := make([]float32, K*ldb)
		for i := range b {
			b[i] = float32(rng.NormFloat64())
		}
		codes := make([]int32, BinCodes32Len(M, K))
		for m := 0; m < M; m++ {
			BinCodes32(codes, m, K, a[m*K:])
		}
		c0 := make([]float32, M*ldc)
		for i := range c0 {
			c0[i] = float32(rng.NormFloat64())
		}
		scratch := make([]float32, BinScratch32)
		for _, avx := range kernels {
			binAVX2 = avx
			for _, op := range []GemmOp{GemmSet, GemmAdd} {
				for _, j0 := range []int{0, 3} {
					c := append([]float32(nil), c0...)
					BinMul32(op, M, j0, N, K, codes, b, ldb, c, ldc, scratch)
					for m := 0; m < M; m++ {
						for j := 0; j < ldc; j++ {
							got, old := c[m*ldc+j], c0[m*ldc+j]
							if j < j0 || j >= N {
								if got != old {
									t.Fatalf("%v avx %v op %d: C[%d,%d] outside the columns %d…%d changed", sh, avx, op, m, j, j0, N-1)
								}
								continue
							}
							var want float32
							if op == GemmAdd {
								want = old
							}
							want = binEntry(want, a[m*K:], K, b, ldb, j)
							exact, abs := 0.0, 0.0
							for k := 0; k < K; k++ {
								if a[m*K+k] != 0 {
									exact += float64(b[k*ldb+j])
									abs += math.Abs(float64(b[k*ldb+j]))
								}
							}
							if op == GemmAdd {
								exact += float64(old)
								abs += math.Abs(float64(old))
							}
							if got != want {
								t.Fatalf("%v avx %v op %d: C[%d,%d] = %v, the definition gives %v", sh, avx, op, m, j, got, want)
							}
							// Each of the ≤ K/4 + 4 additions on the way rounds
							// by at most half an ulp of a partial sum ≤ abs.
							if tol := float64(K/4+5) * abs * 0x1p-24; math.Abs(float64(got)-exact) > tol {
								t.Fatalf("%v avx %v op %d: C[%d,%d] = %v, the sum is %v (tolerance %g)", sh, avx, op, m, j, got, exact, tol)
							}
						}
					}
				}
			}
		}
	}
}

// TestBinCodesT32 checks the codes of rows (BinCodes32) and of a matrix
// given transposed (BinCodesT32), on every kernel available, against the
// portable codes of its rows copied.
func TestBinCodesT32(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	kernels := []bool{false}
	if binAVX2 {
		kernels = append(kernels, true)
	}
	defer func(u bool) { binAVX2 = u }(binAVX2)
	for _, sh := range [][2]int{{11, 30}, {16, 4}, {8, 7}, {3, 1}, {24, 37}} {
		M, K := sh[0], sh[1]
		at := make([]float32, K*(M+2)) // A transposed, row stride M+2: A_mk = at[k*(M+2)+m]
		for i := range at {
			at[i] = float32(rng.IntN(2))
		}
		want := make([]int32, BinCodes32Len(M, K))
		rows := make([]float32, M*K)
		for m := 0; m < M; m++ {
			for k := 0; k < K; k++ {
				rows[m*K+k] = at[k*(M+2)+m]
			}
			for c := 0; 4*c < K; c++ { // the definition
				code := int32(0)
				for i := 0; i < 4 && 4*c+i < K; i++ {
					if rows[m*K+4*c+i] != 0 {
						code |= 1 << i
					}
				}
				want[m/8*8*((K+3)/4)+8*c+m%8] = 32 * code
			}
		}
		for _, avx := range kernels {
			binAVX2 = avx
			got, gotT := make([]int32, len(want)), make([]int32, len(want))
			for m := 0; m < M; m++ {
				BinCodes32(got, m, K, rows[m*K:])
			}
			for m0 := 0; m0 < M; m0 += 8 {
				BinCodesT32(gotT, m0, min(m0+8, M), K, at, M+2)
			}
			for i := range want {
				if got[i] != want[i] || gotT[i] != want[i] {
					t.Fatalf("%v avx %v: code %d: of rows %d, transposed %d, want %d", sh, avx, i, got[i], gotT[i], want[i])
				}
			}
		}
	}
}

func BenchmarkBinCodes32(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	M, K := 500, 200
	a := make([]float32, M*K)
	for i := range a {
		a[i] = float32(rng.IntN(2))
	}
	codes := make([]int32, BinCodes32Len(M, K))
	codesT := make([]int32, BinCodes32Len(K, M))
	b.ReportAllocs()
	for b.Loop() {
		for m := 0; m < M; m++ {
			BinCodes32(codes, m, K, a[m*K:])
		}
		for u := 0; u < K; u += 8 {
			BinCodesT32(codesT, u, min(u+8, K), M, a, K)
		}
	}
}

// benchBinVsGemm times one product of a binary 500×200 matrix (half on)
// with a 200×784 one, as the SBN trainer's generative activations are, by
// BinMul32 or GemmCols32x6.
func benchBinVsGemm(b *testing.B, bin bool) {
	rng := rand.New(rand.NewPCG(1, 2))
	M, K, N := 500, 200, 784
	a := make([]float32, M*K)
	for i := range a {
		a[i] = float32(rng.IntN(2))
	}
	w := make([]float32, K*N)
	for i := range w {
		w[i] = float32(rng.NormFloat64())
	}
	c := make([]float32, M*N)
	codes := make([]int32, BinCodes32Len(M, K))
	for m := 0; m < M; m++ {
		BinCodes32(codes, m, K, a[m*K:])
	}
	scratch := make([]float32, BinScratch32)
	b.ReportAllocs()
	for b.Loop() {
		if bin {
			BinMul32(GemmSet, M, 0, N, K, codes, w, N, c, N, scratch)
		} else {
			GemmCols32x6(GemmSet, 1, M, 0, N, K, a, K, w, N, c, N)
		}
	}
	b.ReportMetric(float64(2*M*K*N)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GEMM-GFLOP/s")
}

func BenchmarkBinMul32x500x200x784(b *testing.B) { benchBinVsGemm(b, true) }
func BenchmarkGemm32x6x500x200x784(b *testing.B) { benchBinVsGemm(b, false) }
