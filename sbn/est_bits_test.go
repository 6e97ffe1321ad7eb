package sbn

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/logz-ml/logz/internal/nmath"
)

// TestEstChainKeepsPlainBits: recompute (the rows of the units that are
// on summed by seqsum) and logJoint (the exponentials a vector at a time)
// give the bits of the plain loops they replace — in = b + Σ_j on W rows
// in j order, then Σ_i h_i a_i − softplus(a_i) — on SBNs and ARSBNs with
// weights from small to large enough that activations leave expvec's
// fast range (|a| > 708) and softplus's two branches are both taken.
func TestEstChainKeepsPlainBits(t *testing.T) {
	for _, tc := range []struct {
		sizes []int
		ar    bool
		scale float64
	}{
		{[]int{784, 200}, false, 0.1},
		{[]int{30, 20, 10}, true, 1},
		{[]int{50, 40}, false, 40},
	} {
		n := randomNet(tc.sizes, tc.ar, tc.scale, 7)
		c := estPrepare(n).newChain()
		rng := rand.New(rand.NewPCG(3, 4))
		for trial := range 20 {
			for l := range c.h {
				for i := range c.h[l] {
					c.h[l][i] = float64(rng.Uint64() & 1)
				}
			}
			c.recompute()
			for l, in := range c.in {
				want := append([]float64(nil), n.B[l]...)
				if l < n.Layers() {
					for j, hj := range c.h[l+1] {
						if hj != 0 {
							for i := range want {
								want[i] += n.W[l+1][i*n.Sizes[l+1]+j]
							}
						}
					}
				}
				if n.S != nil {
					k := n.Sizes[l]
					for j, hj := range c.h[l] {
						if hj != 0 {
							for i := j + 1; i < k; i++ {
								want[i] += n.S[l][i*k+j]
							}
						}
					}
				}
				for i := range want {
					if math.Float64bits(in[i]) != math.Float64bits(want[i]) {
						t.Fatalf("%v ar=%v trial %d: in[%d][%d] = %v, plain loop %v", tc.sizes, tc.ar, trial, l, i, in[i], want[i])
					}
				}
			}
			for _, beta := range []float64{1, 0.37} {
				want := 0.0
				for l, in := range c.in {
					for i, v := range in {
						a := beta * v
						want += c.h[l][i]*a - nmath.Softplus(a)
					}
				}
				if got := c.logJoint(beta); math.Float64bits(got) != math.Float64bits(want) {
					t.Fatalf("%v ar=%v trial %d β=%v: logJoint %v, plain loop %v", tc.sizes, tc.ar, trial, beta, got, want)
				}
			}
		}
	}
}

// TestImportanceBatchKeepsBits: importance, which scores its proposals
// isBatch at a time, accumulates the bits of drawing and scoring them one
// at a time (sampleQ, recompute, logJoint(1)), for batch counts with and
// without a partial last batch.
func TestImportanceBatchKeepsBits(t *testing.T) {
	for _, tc := range []struct {
		sizes []int
		ar    bool
		scale float64
	}{
		{[]int{784, 200}, false, 0.1},
		{[]int{30, 20, 10}, true, 1},
		{[]int{50, 40, 30}, false, 3},
	} {
		n, x := benchNet(t, tc.sizes, tc.ar)
		if tc.scale != 0.1 {
			n = randomNet(tc.sizes, tc.ar, tc.scale, 9)
		}
		e := estPrepare(n)
		for _, m := range []int{1, isBatch - 1, isBatch, isBatch + 1, 3*isBatch + 5} {
			c := e.newChain()
			c.setVisible(x[0])
			got := c.importance(m, rand.New(rand.NewPCG(5, uint64(m))))
			r := e.newChain()
			r.setVisible(x[0])
			rng := rand.New(rand.NewPCG(5, uint64(m)))
			want := nmath.NewLogWeights()
			n.newQFirst(&r.qFirst, r.h[0])
			for range m {
				lq := n.sampleQ(r.h, rng, r.scratch, &r.qFirst)
				r.recompute()
				want.Add(r.logJoint(1) - lq)
			}
			if got != want {
				t.Fatalf("%v ar=%v m=%d: batched %+v, one at a time %+v", tc.sizes, tc.ar, m, got, want)
			}
		}
	}
}
