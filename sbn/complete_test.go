package sbn

import (
	"math"
	"testing"
)

// TestCompleteIndependentPixels: when the visible units do not depend on
// the latents (W = 0), each missing pixel is Bernoulli(σ(b_i)) whatever
// the rest, so with 101 samples the majority vote is 1 exactly where
// b_i > 0 (|b_i| = 2: the vote errs with probability < 1e−18), and the
// error rate is the fraction of lower-half pixels where the truth differs
// from that. A 3×2 image: the first row is observed, the last two missing.
func TestCompleteIndependentPixels(t *testing.T) {
	n := randomNet([]int{6, 3}, false, 1, 41)
	clear(n.W[1])
	copy(n.B[0], []float64{2, -2, 2, -2, -2, 2}) // votes 1 0 | 1 0 | 0 1 (the first row is observed)
	x := estRows{
		{0, 0, 1, 0, 0, 1}, // lower half equals the votes: error 0
		{1, 1, 0, 1, 1, 0}, // every lower pixel differs: error 1
		{0, 1, 1, 1, 0, 1}, // one of four differs: error 0.25
	}
	r, err := Complete(n, x, 3, 2, 101, 2, 7)
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{0, 1, 0.25}
	for i, w := range want {
		if r.ExampleError[i] != w {
			t.Errorf("example %d: error %g, want %g (completed %v)", i, r.ExampleError[i], w, r.Completed[i])
		}
		for j := range 2 {
			if r.Completed[i][j] != x[i][j] {
				t.Errorf("example %d: observed pixel %d changed", i, j)
			}
		}
	}
	if math.Abs(r.ErrorRate-1.25/3) > 1e-15 {
		t.Errorf("mean error %g, want %g", r.ErrorRate, 1.25/3)
	}
}

// TestCompleteCopies: a net whose latent unit j sets both pixel j of the
// upper row and pixel j of the lower row (weights ±10 nats, uniform prior)
// completes the lower half as a copy of the upper half, so an image whose
// halves agree has error 0 and one whose halves are complements error 1;
// plain and autoregressive (a zero S: the AR code path).
func TestCompleteCopies(t *testing.T) {
	for _, ar := range []bool{false, true} {
		n := New([]int{6, 3}, ar)
		for j := range 3 {
			n.W[1][j*3+j] = 20
			n.W[1][(3+j)*3+j] = 20
		}
		for i := range n.B[0] {
			n.B[0][i] = -10
		}
		x := estRows{{1, 0, 1, 1, 0, 1}, {0, 1, 1, 1, 0, 0}, {1, 1, 0, 1, 0, 0}}
		r, err := Complete(n, x, 2, 3, 11, 20, 8)
		if err != nil {
			t.Fatal(err)
		}
		want := []float64{0, 1, 1.0 / 3}
		for i, w := range want {
			if math.Abs(r.ExampleError[i]-w) > 1e-15 {
				t.Errorf("ar %v, example %d: error %g, want %g (completed %v)", ar, i, r.ExampleError[i], w, r.Completed[i])
			}
		}
	}
}
