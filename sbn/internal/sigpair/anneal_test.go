package sigpair

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestScale: the assembly gives the bits of scaleGo, for every pattern of
// flipping lanes and directions (3⁴), lengths 1 … 40; scaleGo adds D·w to a
// and multiplies s by e^{±w} on the flipping lanes and touches no other.
func TestScale(t *testing.T) {
	if !useAVX2 {
		t.Skip("no AVX2 kernel on this build or CPU")
	}
	rng := rand.New(rand.NewPCG(9, 9))
	defer func() { useAVX2 = true }()
	for n := 1; n <= 40; n++ {
		for pat := range 81 {
			w, ep, en := make([]float64, n), make([]float64, n), make([]float64, n)
			for i := range w {
				w[i] = 3 * rng.NormFloat64()
				ep[i], en[i] = math.Exp(w[i]), math.Exp(-w[i])
			}
			a0, s0 := make([]float64, 4*n), make([]float64, 4*n)
			for i := range a0 {
				a0[i], s0[i] = 5*rng.NormFloat64(), rng.Float64()
			}
			var d [4]float64
			var sel [4]uint64
			for q, p := 0, pat; q < 4; q, p = q+1, p/3 {
				d[q] = float64(p%3 - 1)
				if d[q] < 0 {
					sel[q] = ^uint64(0)
				}
			}
			var got [2][2][]float64
			for k, avx := range []bool{false, true} {
				useAVX2 = avx
				a := &ScaleArgs{A: append([]float64(nil), a0...), S: append([]float64(nil), s0...), W: w, EP: ep, EN: en, D: d, Sel: sel}
				Scale(a)
				got[k] = [2][]float64{a.A, a.S}
			}
			for i := range a0 {
				for k := range 2 {
					if math.Float64bits(got[0][k][i]) != math.Float64bits(got[1][k][i]) {
						t.Fatalf("n = %d, D = %v: element %d (array %d): Go %v, assembly %v", n, d, i, k, got[0][k][i], got[1][k][i])
					}
				}
				if d[i%4] == 0 && (got[1][0][i] != a0[i] || got[1][1][i] != s0[i]) {
					t.Fatalf("n = %d, D = %v: lane %d changed", n, d, i%4)
				}
				if q := i % 4; d[q] != 0 {
					e := ep[i/4]
					if d[q] < 0 {
						e = en[i/4]
					}
					if got[0][0][i] != a0[i]+d[q]*w[i/4] || got[0][1][i] != s0[i]*e {
						t.Fatalf("n = %d, D = %v: element %d: %v, %v", n, d, i, got[0][0][i], got[0][1][i])
					}
				}
			}
		}
	}
}
