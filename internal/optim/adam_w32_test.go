package optim

import (
	"math"
	"math/rand/v2"
	"testing"
)

// testRange32 checks a kernel f with float32 moments, over 6 steps on
// gradients of many magnitudes with zeros (a NaN and an Inf in the last
// steps), lengths with and without a remainder and a range not at 0: the
// assembly loop gives θ, m, s, w and the largest |θ| and NaN flag bit for
// bit as the Go loop; and each step's θ change agrees with StepRange's
// (float64 moments and arithmetic, on the same gradient widened) from the
// same θ within tol(want, the float64 M before the step, the scaled
// gradient, θ, the step's constants), before the NaN and Inf steps.
func testRange32(t *testing.T, f func(st *Step32, theta []float64, m, s []float32, g, w []float32, lo int) (float64, bool), tol func(want, mPrev, g, θ float64, k *[9]float64) float64) {
	t.Helper()
	have := useAVX2
	defer func() { useAVX2 = have }()
	for _, n := range []int{1, 3, 4, 5, 8, 13, 37, 64} {
		const lo = 2
		type side struct {
			x    []float64
			m, s []float32
			w    []float32
			a    Adam
		}
		mk := func() *side {
			return &side{x: make([]float64, n+lo+1), m: make([]float32, n+lo+1), s: make([]float32, n+lo+1), w: make([]float32, n), a: NewAdam(0.003, n+lo+1)}
		}
		goS, asmS, ref := mk(), mk(), mk()
		rng := rand.New(rand.NewPCG(uint64(n), 5))
		for i := range goS.x {
			v := rng.NormFloat64() * 100
			goS.x[i], asmS.x[i], ref.x[i] = v, v, v
			if i >= lo && i < lo+n { // the float32 copies (RangeW32 reads them)
				goS.w[i-lo], asmS.w[i-lo] = float32(v), float32(v)
			}
		}
		g32, g64 := make([]float32, n), make([]float64, n+lo+1)
		for step := range 6 {
			for i := range g32 {
				g32[i] = float32(math.Ldexp(rng.NormFloat64(), rng.IntN(40)-20))
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
			before := append([]float64(nil), ref.x...)
			mPrev := append([]float64(nil), ref.a.M...)
			var bigs [2]float64
			var nans [2]bool
			for k, sd := range []*side{goS, asmS} {
				useAVX2 = k == 1 && have
				sd.a.T++
				st := sd.a.Prepare32(-0.37)
				bigs[k], nans[k] = f(&st, sd.x, sd.m, sd.s, g32, sd.w, lo)
			}
			ref.a.T++
			st := ref.a.Prepare32(-0.37)
			ref.a.StepRange(ref.x, g64, -0.37, lo, lo+n)
			for i := range goS.x {
				if math.Float64bits(goS.x[i]) != math.Float64bits(asmS.x[i]) || math.Float32bits(goS.m[i]) != math.Float32bits(asmS.m[i]) || math.Float32bits(goS.s[i]) != math.Float32bits(asmS.s[i]) {
					t.Fatalf("n %d step %d entry %d: Go θ %v m %v s %v, assembly θ %v m %v s %v", n, step, i, goS.x[i], goS.m[i], goS.s[i], asmS.x[i], asmS.m[i], asmS.s[i])
				}
				if i >= lo && i < lo+n && math.Float32bits(goS.w[i-lo]) != math.Float32bits(asmS.w[i-lo]) {
					t.Fatalf("n %d step %d entry %d: w %v vs %v", n, step, i, goS.w[i-lo], asmS.w[i-lo])
				}
				if step >= 4 || i < lo || i >= lo+n {
					continue
				}
				want, got := ref.x[i]-before[i], goS.x[i]-before[i]
				tol := tol(want, mPrev[i], -0.37*float64(g32[i-lo]), before[i], &st.k)
				if math.Abs(got-want) > tol {
					t.Errorf("n %d step %d entry %d: step %v, with float64 moments %v (tolerance %.3g)", n, step, i, got, want, tol)
				}
				goS.x[i] = ref.x[i] // the next step from the same θ
				asmS.x[i] = ref.x[i]
				goS.w[i-lo], asmS.w[i-lo] = float32(ref.x[i]), float32(ref.x[i])
			}
			if bigs[0] != bigs[1] || nans[0] != nans[1] {
				t.Fatalf("n %d step %d: largest |θ| %v vs %v, NaN %v vs %v", n, step, bigs[0], bigs[1], nans[0], nans[1])
			}
			if step == 5 && !nans[0] && n > 12 {
				t.Errorf("n %d: a NaN gradient left no NaN θ", n)
			}
		}
	}
}

// BenchmarkAdamRange32 times one step of StepRange (float64 gradient,
// moments and arithmetic) and RangeW32 (float32) over 1,060,000 entries,
// about the float32 Ber(200) VAE's nets, in blocks of 500 as the engine's
// rows.
func BenchmarkAdamRange32(b *testing.B) {
	const n, row = 1_060_000, 500
	for _, name := range []string{"F64", "W32"} {
		b.Run(name, func(b *testing.B) {
			a := NewAdam(0.003, n)
			x, g, w := make([]float64, n), make([]float32, n), make([]float32, n)
			g64 := make([]float64, n)
			m, s := make([]float32, n), make([]float32, n)
			for i := range g {
				g[i] = float32(i%7) * 1e-3
				g64[i] = float64(g[i])
			}
			b.SetBytes(n)
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				a.T++
				st := a.Prepare32(-1)
				for lo := 0; lo < n; lo += row {
					if name == "W32" {
						st.RangeW32(x, m, s, g[lo:lo+row], w[lo:lo+row], lo)
					} else {
						a.StepRange(x, g64, -1, lo, lo+row)
					}
				}
			}
		})
	}
}

// rangeF32Tol bounds a θ change of a float32 step against StepRange's: 2⁻¹⁸
// relative to the size of the terms it is made of (β₁M and (1−β₁)g may
// cancel in M, which float32 computes with an error relative to the
// terms, not to their difference), plus θ's float64 rounding.
func rangeF32Tol(want, mPrev, g, θ float64, k *[9]float64) float64 {
	c1, lr := k[5], k[7]
	terms := lr * c1 * (math.Abs(AdamB1*mPrev) + math.Abs((1-AdamB1)*g))
	// terms/(√ŝ + ε) from want = lr·c1·m/(√ŝ + ε) and m.
	m := AdamB1*mPrev + (1-AdamB1)*g
	size := math.Abs(want)
	if m != 0 {
		size = math.Abs(want) * terms / (lr * c1 * math.Abs(m))
	}
	return math.Ldexp(size, -18) + math.Ldexp(math.Abs(θ), -51)
}

// TestRangeW32 is testRange32 for RangeW32 (float32 arithmetic, the step
// taken on the float32 weights w, θ = float64(w)): each θ change against
// StepRange's within rangeF32Tol plus θ's float32 rounding before and
// after (2⁻²³|θ|).
// Mutations checked: the assembly's θ widened from w before the step
// (fails the bit comparison), the Go loop's √(s·c₂) without ε (fails the
// step bound), and before, in the same loops of the float32 step alone:
// the assembly's division without ε, the Go loop's M update with β₁ for
// 1−β₁ (each failed).
func TestRangeW32(t *testing.T) {
	testRange32(t, (*Step32).RangeW32, func(want, mPrev, g, θ float64, k *[9]float64) float64 {
		return rangeF32Tol(want, mPrev, g, θ, k) + math.Ldexp(math.Abs(θ), -23)
	})
}
