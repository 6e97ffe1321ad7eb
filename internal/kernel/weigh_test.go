package kernel

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestWeigh32 checks Weigh32 against the plain float32 loop bit for bit,
// with and without the running sum, on lengths around the vector width
// (the assembly body and the Go tail), with the assembly on and off.
func TestWeigh32(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, asm := range []bool{true, false} {
		saved := weighAVX2
		weighAVX2 = saved && asm
		for _, n := range []int{0, 1, 7, 8, 9, 16, 23, 200, 784, 785} {
			p, h, e := make([]float32, n), make([]float32, n), make([]float32, n)
			for i := range p {
				p[i] = rng.Float32()
				h[i] = float32(rng.IntN(2))
				e[i] = rng.Float32() - 0.5
			}
			w := float32(rng.Float64())
			want, wantE := make([]float32, n), make([]float32, n)
			for i := range p {
				want[i] = w * (h[i] - p[i])
				wantE[i] = e[i] + want[i]
			}
			q := append([]float32(nil), p...)
			Weigh32(q, h, nil, w)
			Weigh32(p, h, e, w)
			for i := range p {
				if math.Float32bits(q[i]) != math.Float32bits(want[i]) || math.Float32bits(p[i]) != math.Float32bits(want[i]) || math.Float32bits(e[i]) != math.Float32bits(wantE[i]) {
					t.Fatalf("asm %v n %d entry %d: p %v/%v e %v, want %v e %v", asm, n, i, q[i], p[i], e[i], want[i], wantE[i])
				}
			}
		}
		weighAVX2 = saved
	}
}
