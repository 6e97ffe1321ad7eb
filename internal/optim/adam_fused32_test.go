package optim

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestStepRange32: with and without the assembly loop, Step32.Range on a
// float32 gradient gives θ, M and S bit for bit as StepRange on the same
// gradient in float64, w = float32(θ), and the largest |θ| and NaN flag of
// the updated entries (gradients of many magnitudes, zeros, a NaN and an
// Inf among them; lengths with and without a remainder; a range not at 0).
func TestStepRange32(t *testing.T) {
	have := useAVX2
	defer func() { useAVX2 = have }()
	for _, avx := range []bool{false, true} {
		if avx && !have {
			continue
		}
		for _, n := range []int{1, 3, 4, 5, 8, 13, 37, 64} {
			useAVX2 = avx
			rng := rand.New(rand.NewPCG(uint64(n), 3))
			const lo = 2
			a, b := NewAdam(0.003, n+lo+1), NewAdam(0.003, n+lo+1)
			x, y := make([]float64, n+lo+1), make([]float64, n+lo+1)
			g32, g64, w := make([]float32, n), make([]float64, n+lo+1), make([]float32, n)
			for i := range x {
				x[i] = rng.NormFloat64() * 100
				y[i] = x[i]
			}
			for step := range 6 {
				for i := range g32 {
					g32[i] = float32(math.Ldexp(rng.NormFloat64(), rng.IntN(60)-30))
					switch rng.IntN(12) {
					case 0:
						g32[i] = 0
					case 1:
						if step == 5 {
							g32[i] = float32(math.NaN())
						}
					case 2:
						if step == 4 {
							g32[i] = float32(math.Inf(-1))
						}
					}
					g64[lo+i] = float64(g32[i])
				}
				a.T++
				b.T++
				st := a.Prepare32(-0.37)
				big, nan := st.Range(x, g32, w, lo)
				b.StepRange(y, g64, -0.37, lo, lo+n)
				wantBig, wantNaN := 0.0, false
				for i := range x {
					if math.Float64bits(x[i]) != math.Float64bits(y[i]) || math.Float64bits(a.M[i]) != math.Float64bits(b.M[i]) || math.Float64bits(a.S[i]) != math.Float64bits(b.S[i]) {
						t.Fatalf("n %d avx %v step %d entry %d: θ %v vs %v, m %v vs %v, s %v vs %v", n, avx, step, i, x[i], y[i], a.M[i], b.M[i], a.S[i], b.S[i])
					}
					if i < lo || i >= lo+n {
						continue
					}
					if math.Float32bits(w[i-lo]) != math.Float32bits(float32(y[i])) {
						t.Fatalf("n %d avx %v step %d entry %d: w %v, θ %v", n, avx, step, i, w[i-lo], y[i])
					}
					if v := math.Abs(y[i]); math.IsNaN(v) {
						wantNaN = true
					} else {
						wantBig = max(wantBig, v)
					}
				}
				if big != wantBig || nan != wantNaN {
					t.Fatalf("n %d avx %v step %d: largest %v NaN %v, want %v %v", n, avx, step, big, nan, wantBig, wantNaN)
				}
			}
		}
	}
}
