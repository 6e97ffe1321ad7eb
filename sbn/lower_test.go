package sbn

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestLowerSumsBits checks addLowerAll and addLowerGrad against the
// one-state, one-unit loops they reorder (addLower, and δ_m[i] added to
// gS[i,j] state after state), bit for bit, on layers whose width is not
// a multiple of four, groups of 1 to 6 states sharing their units, and
// states with no unit, every unit or a random half at 1.
func TestLowerSumsBits(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, k := range []int{1, 2, 3, 5, 9, 30} {
		for _, G := range []int{1, 2, 3, 4, 5, 6} {
			Q := 4
			M := Q * G
			S := make([]float64, k*k)
			for i := range k {
				for j := range i {
					S[i*k+j] = rng.NormFloat64() * math.Exp(4*rng.NormFloat64())
				}
			}
			var on []int32
			span := make([]int32, 2*M)
			for q := range Q {
				start := int32(len(on))
				for j := range k {
					if q == 1 || (q != 0 && rng.IntN(2) == 1) { // group 0: none; 1: all
						on = append(on, int32(j))
					}
				}
				for r := range G {
					span[2*(q*G+r)], span[2*(q*G+r)+1] = start, int32(len(on))
				}
			}
			A, D := make([]float64, M*k), make([]float64, M*k)
			for i := range A {
				A[i], D[i] = rng.NormFloat64(), rng.NormFloat64()*math.Exp(3*rng.NormFloat64())
			}
			wantA := append([]float64(nil), A...)
			gS, wantG := make([]float64, k*k), make([]float64, k*k)
			for m := range M {
				onm := on[span[2*m]:span[2*m+1]]
				for i := range k {
					wantA[m*k+i] = addLower(wantA[m*k+i], S, k, i, onm)
					for _, j := range onm {
						if int(j) < i {
							wantG[i*k+int(j)] += D[m*k+i]
						}
					}
				}
			}
			cur := make([]int32, M)
			addLowerAll(A, S, k, M, G, on, span, cur)
			addLowerGrad(gS, D, k, M, G, on, span, cur)
			for i := range A {
				if math.Float64bits(A[i]) != math.Float64bits(wantA[i]) {
					t.Fatalf("k %d G %d: activation %d = %v, one state at a time %v", k, G, i, A[i], wantA[i])
				}
			}
			for i := range gS {
				if math.Float64bits(gS[i]) != math.Float64bits(wantG[i]) {
					t.Fatalf("k %d G %d: gradient %d = %v, one state at a time %v", k, G, i, gS[i], wantG[i])
				}
			}
		}
	}
}
