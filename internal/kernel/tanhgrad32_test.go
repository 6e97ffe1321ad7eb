package kernel

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestTanhGrad32 checks TanhGrad32 against the three float32 operations
// done one by one, bit for bit (u near ±1 where 1 − u² cancels, u = 0,
// a subnormal, infinite and NaN deltas; lengths around the vector width;
// assembly on and off). Mutations checked: the assembly's 1 − u² as
// u² − 1 (fails), the Go loop's u·u fused into 1 − u·u by math.FMA
// (fails).
func TestTanhGrad32(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, asm := range []bool{true, false} {
		saved := tanhGrad32AVX2
		tanhGrad32AVX2 = saved && asm
		for _, n := range []int{0, 1, 7, 8, 9, 16, 23, 500} {
			u, d := make([]float32, n), make([]float32, n+1)
			for i := range u {
				u[i] = float32(math.Tanh(rng.NormFloat64() * 3))
				d[i] = float32(rng.NormFloat64() * math.Pow(10, float64(rng.IntN(20)-10)))
			}
			if n > 8 {
				u[0], u[1], d[2], d[3], d[4] = 0, 0.99999994, 1e-42, float32(math.Inf(1)), float32(math.NaN())
			}
			d[n] = 7
			want := append([]float32(nil), d...)
			for i, x := range u {
				sq := float32(x * x)
				one := float32(1 - sq)
				want[i] = want[i] * one
			}
			TanhGrad32(d, u)
			for i := range n {
				if math.Float32bits(d[i]) != math.Float32bits(want[i]) {
					t.Fatalf("asm %v n %d: entry %d = %v, want %v (u %v)", asm, n, i, d[i], want[i], u[i])
				}
			}
			if d[n] != 7 {
				t.Fatalf("asm %v n %d: wrote past the end", asm, n)
			}
		}
		tanhGrad32AVX2 = saved
	}
}
