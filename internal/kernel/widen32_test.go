package kernel

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestWiden32 checks Widen32 against the Go loop bit for bit (a = 1, a
// negative scale, subnormal and infinite entries; lengths around the
// vector width; assembly on and off).
func TestWiden32(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, asm := range []bool{true, false} {
		saved := widen32AVX2
		widen32AVX2 = saved && asm
		for _, a := range []float64{1, -600, 1e-300} {
			for _, n := range []int{0, 1, 3, 4, 5, 8, 11, 200} {
				src := make([]float32, n)
				for i := range src {
					src[i] = float32(rng.NormFloat64() * math.Pow(10, float64(rng.IntN(20)-10)))
				}
				if n > 4 {
					src[1], src[3] = 1e-42, float32(math.Inf(-1))
				}
				dst := make([]float64, n+1)
				dst[n] = 7
				Widen32(dst, src, a)
				for i, v := range src {
					if want := a * float64(v); math.Float64bits(dst[i]) != math.Float64bits(want) {
						t.Fatalf("asm %v a %v n %d: entry %d = %v, want %v", asm, a, n, i, dst[i], want)
					}
				}
				if dst[n] != 7 {
					t.Fatalf("asm %v n %d: wrote past the end", asm, n)
				}
			}
		}
		widen32AVX2 = saved
	}
}
