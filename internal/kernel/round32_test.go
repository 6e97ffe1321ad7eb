package kernel

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestRound32 checks Round32 against Go's conversion bit for bit on
// values that round up, down and to even, subnormals, overflow to ±Inf,
// ±0 and NaN, lengths around the vector width, assembly on and off.
func TestRound32(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	special := []float64{0, math.Copysign(0, -1), 1e-40, -1e-45, 1e-50, 3.5e38, -1e39, math.Inf(1), math.Inf(-1), math.NaN(),
		1 + 0x1p-24, 1 + 0x3p-24, 1 + 0x1p-25, -(1 + 0x1p-24)}
	for _, asm := range []bool{true, false} {
		saved := round32AVX2
		round32AVX2 = saved && asm
		for _, n := range []int{0, 1, 7, 8, 9, 15, 16, 33, 200, 4096} {
			src := make([]float64, n)
			for i := range src {
				src[i] = rng.NormFloat64() * math.Pow(10, float64(rng.IntN(20)-10))
				if rng.IntN(4) == 0 {
					src[i] = special[rng.IntN(len(special))]
				}
			}
			dst := make([]float32, n+1)
			dst[n] = 7
			Round32(dst, src)
			for i, v := range src {
				if math.Float32bits(dst[i]) != math.Float32bits(float32(v)) {
					t.Fatalf("asm %v n %d: float32(%v) = %v, want %v", asm, n, v, dst[i], float32(v))
				}
			}
			if dst[n] != 7 {
				t.Fatalf("asm %v n %d: wrote past the end", asm, n)
			}
		}
		round32AVX2 = saved
	}
}
