package optim

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestRangeM32 checks Step32.RangeM32 in two ways, over 6 steps on
// gradients of many magnitudes with zeros (a NaN and an Inf in the last
// steps), lengths with and without a remainder and a range not at 0:
// the assembly loop gives θ, m, s, w and the largest |θ| and NaN flag bit
// for bit as the Go loop; and against Range (float64 moments) from the
// same state, each step's θ change agrees within the float32 rounding of
// the moments: m and s carry a relative error of at most a few 2⁻²⁴ each,
// so the step lr·m̂/(√ŝ + ε) within 2⁻¹⁸ relative (generous: 64·u) plus
// the float64 rounding of θ, before the NaN and Inf steps.
// Mutations checked: the Go loop updating θ with the rounded float32 m
// (fails the bit comparison), the assembly storing s unrounded over m's
// slot (fails both).
func TestRangeM32(t *testing.T) {
	testRange32(t, (*Step32).RangeM32, func(want, mPrev, g, θ float64, k *[9]float64) float64 {
		return math.Ldexp(math.Abs(want), -18) + math.Ldexp(math.Abs(θ), -51)
	})
}

// rangeFunc is RangeM32 or RangeW32.
type rangeFunc func(st *Step32, theta []float64, m, s []float32, g, w []float32, lo int) (float64, bool)

// testRange32 is TestRangeM32 for a kernel f with float32 moments: the
// assembly against the Go loop bit for bit, and each step's θ change
// against Range's (float64 moments) within tol(want, the float64 M before
// the step, the scaled gradient, θ, the step's constants).
func testRange32(t *testing.T, f rangeFunc, tol func(want, mPrev, g, θ float64, k *[9]float64) float64) {
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
		g32 := make([]float32, n)
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
			st.Range(ref.x, g32, ref.w, lo)
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
				goS.w[i-lo], asmS.w[i-lo] = ref.w[i-lo], ref.w[i-lo]
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

// BenchmarkAdamRange32 times one step of Range (float64 moments),
// RangeM32 (float32 moments) and RangeW32 (float32 arithmetic and
// weights) over 1,060,000 entries, about the float32 Ber(200) VAE's nets,
// in blocks of 500 as the engine's rows.
func BenchmarkAdamRange32(b *testing.B) {
	const n, row = 1_060_000, 500
	for _, name := range []string{"M64", "M32", "W32"} {
		b.Run(name, func(b *testing.B) {
			a := NewAdam(0.003, n)
			x, g, w := make([]float64, n), make([]float32, n), make([]float32, n)
			m, s := make([]float32, n), make([]float32, n)
			for i := range g {
				g[i] = float32(i%7) * 1e-3
			}
			b.SetBytes(n)
			for range b.N {
				a.T++
				st := a.Prepare32(-1)
				for lo := 0; lo < n; lo += row {
					switch name {
					case "M32":
						st.RangeM32(x, m, s, g[lo:lo+row], w[lo:lo+row], lo)
					case "W32":
						st.RangeW32(x, m, s, g[lo:lo+row], w[lo:lo+row], lo)
					default:
						st.Range(x, g[lo:lo+row], w[lo:lo+row], lo)
					}
				}
			}
		})
	}
}

// rangeF32Tol bounds a θ change of a float32 step against Range's: 2⁻¹⁸
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

// TestRangeW32 is TestRangeM32 for RangeW32 (float32 arithmetic, the step
// taken on the float32 weights w, θ = float64(w)): the assembly against
// the Go loop bit for bit, and each θ change against Range's within
// rangeF32Tol plus θ's float32 rounding before and after (2⁻²³|θ|).
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
