package kernel

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestStep checks SGDStep and SGDStep32 entry by entry against the formula, and
// the assembly against the Go loop bit for bit (w, vel, the float32 copy,
// max |w|), for lengths with and without a tail.
func TestStep(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const mom, lr, c, wd = 0.9, 0.05, 0.01, 2e-4
	for _, n := range []int{1, 3, 4, 7, 500, 503} {
		w0, v0, g := make([]float64, n), make([]float64, n), make([]float64, n)
		g32 := make([]float32, n)
		for j := range w0 {
			w0[j] = rng.NormFloat64() * math.Exp(3*rng.NormFloat64())
			v0[j] = rng.NormFloat64() * 0.01
			g[j] = rng.NormFloat64() * 30
			g32[j] = float32(g[j])
		}
		type result struct {
			w, vel []float64
			w32    []float32
			big    float64
		}
		run := func(f32, avx bool) result {
			old := sgdAVX2
			sgdAVX2 = avx && old
			defer func() { sgdAVX2 = old }()
			r := result{w: append([]float64(nil), w0...), vel: append([]float64(nil), v0...), w32: make([]float32, n)}
			var finite bool
			if f32 {
				r.big, finite = SGDStep32(r.w, r.vel, g32, r.w32, mom, lr, c, wd)
			} else {
				r.big, finite = SGDStep(r.w, r.vel, g, mom, lr, c, wd)
			}
			if !finite {
				t.Fatalf("n=%d: finite entries reported as not finite", n)
			}
			return r
		}
		for _, f32 := range []bool{false, true} {
			goRes, asmRes := run(f32, false), run(f32, true)
			big := 0.0
			for j := range w0 {
				gj := g[j]
				if f32 {
					gj = float64(g32[j])
				}
				u := mom*v0[j] + lr*(c*gj-wd*w0[j])
				if goRes.vel[j] != u || goRes.w[j] != w0[j]+u {
					t.Fatalf("f32=%v n=%d: entry %d: w %v vel %v, want %v, %v", f32, n, j, goRes.w[j], goRes.vel[j], w0[j]+u, u)
				}
				if f32 && goRes.w32[j] != float32(goRes.w[j]) {
					t.Fatalf("n=%d: entry %d: float32 copy %v of %v", n, j, goRes.w32[j], goRes.w[j])
				}
				big = max(big, math.Abs(goRes.w[j]))
				for _, p := range [][2]float64{{goRes.w[j], asmRes.w[j]}, {goRes.vel[j], asmRes.vel[j]}, {float64(goRes.w32[j]), float64(asmRes.w32[j])}} {
					if math.Float64bits(p[0]) != math.Float64bits(p[1]) {
						t.Fatalf("f32=%v n=%d: entry %d: Go %v, AVX2 %v", f32, n, j, p[0], p[1])
					}
				}
			}
			if goRes.big != big || asmRes.big != big {
				t.Fatalf("f32=%v n=%d: max |w| Go %v, AVX2 %v, want %v", f32, n, goRes.big, asmRes.big, big)
			}
		}
	}
}

// TestStepNotFinite: a NaN or infinite result anywhere in the row (in the
// assembly's part or the Go tail) is reported.
func TestStepNotFinite(t *testing.T) {
	const n = 11
	for _, bad := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		for pos := range n {
			w, vel, g := make([]float64, n), make([]float64, n), make([]float64, n)
			w[pos] = bad
			if _, finite := SGDStep(w, vel, g, 0.5, 0.1, 1, 0); finite {
				t.Errorf("w[%d] = %v reported finite", pos, bad)
			}
			w[pos] = 0
			g32 := make([]float32, n)
			g32[pos] = float32(bad)
			if _, finite := SGDStep32(w, vel, g32, make([]float32, n), 0.5, 0.1, 1, 0); finite {
				t.Errorf("float32 gradient %v at %d reported finite", bad, pos)
			}
		}
	}
}

func BenchmarkStep500(b *testing.B) {
	w, vel, g := make([]float64, 500), make([]float64, 500), make([]float64, 500)
	g32, w32 := make([]float32, 500), make([]float32, 500)
	b.Run("float64", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			SGDStep(w, vel, g, 0.9, 0.01, 0.01, 2e-4)
		}
	})
	b.Run("float32", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			SGDStep32(w, vel, g32, w32, 0.9, 0.01, 0.01, 2e-4)
		}
	})
}
