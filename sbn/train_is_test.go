package sbn

import (
	"fmt"
	"math"
	"testing"

	"github.com/logz-ml/logz/data"
	"github.com/logz-ml/logz/internal/kernel"
	"github.com/logz-ml/logz/internal/nmath"
)

// isTrainer is an adaptive-IS trainer in precision F of n on data, one
// minibatch of every example, with its engine, ready for gradients.
func isTrainer[F kernel.Float](t *testing.T, n *Net, data rows, samples int) (*Trainer, *isEngine[F]) {
	t.Helper()
	o := DefaultTrainOptions()
	o.Precision, o.Samples, o.BatchSize, o.Steps = kernel.Of[F](), samples, len(data), 1
	tr, err := NewTrainer(n, 3*len(data), o)
	if err != nil {
		t.Fatal(err)
	}
	f, ok := tr.is.(*isEngine[F])
	if !ok {
		t.Fatalf("no %s engine", kernel.Of[F]())
	}
	tr.cur.data, tr.cur.epoch, tr.cur.batch = data, 1, 0
	return tr, f
}

// TestISGradients: on small nets (plain, deep, autoregressive, deep
// autoregressive), the engine's log-weights and gradients at its own
// proposals agree with the float64 formulas of grad.go (LogJoint, LogQ,
// AddGradLogJoint, AddGradLogQ) on the same states, with the self-normalised
// weights recomputed in float64, to the rounding of its precision: 1e-4
// in float32, 1e-9 in float64.
func TestISGradients(t *testing.T) {
	testISGradients[float32](t, 1e-4)
	testISGradients[float64](t, 1e-9)
}

func testISGradients[F kernel.Float](t *testing.T, tol float64) {
	for _, c := range []struct {
		sizes []int
		ar    bool
	}{
		{[]int{12, 5}, false}, {[]int{10, 6, 3}, false}, {[]int{9, 4}, true}, {[]int{8, 5, 3}, true}, {[]int{17, 9}, false},
		// More than colBlock visible (and first-layer) units: ∂W_1 and ∂b_0 by blocks.
		{[]int{300, 7}, false}, {[]int{140, 130, 3}, true},
	} {
		name := fmt.Sprint(kernel.Of[F](), c.sizes, c.ar)
		n := randomNet(c.sizes, c.ar, 1, 61)
		data := plantedData(n, 7, 5)
		const S = 3
		tr, f := isTrainer[F](t, n, data, S)
		// A minibatch, then a smaller one (as an epoch's last may be): what
		// the first left in the buffers of its extra rows must not count.
		for _, idx := range [][]int{{6, 0, 3, 1, 5, 2, 4}, {5, 1, 2}} {
			scale := float64(tr.n) / float64(len(idx))
			for step := range 2 {
				tr.cur.step = step
				f.gradients(idx, scale, 2)
				g, gr := New(n.Sizes, n.AR()), NewRecognition(n.Sizes, n.AR())
				gs, sc := n.NewGradScratch(), n.NewScratch()
				h := n.States()
				signal := 0.0
				for k, row := range idx {
					lw := make([]float64, S)
					hs := make([][][]float64, S)
					for s := range S {
						r := k*S + s
						for i, v := range data[row] {
							h[0][i] = float64(v)
						}
						for l := 1; l < len(h); l++ {
							for i := range h[l] {
								h[l][i] = float64(f.h[l][r*n.Sizes[l]+i])
							}
						}
						lw[s] = n.LogJoint(h, 1, sc) - n.LogQ(h, sc)
						if d := math.Abs(lw[s] - f.lw[r]); d > tol {
							t.Errorf("%s: example %d sample %d: log w %.8g, float64 %.8g", name, k, s, f.lw[r], lw[s])
						}
						hs[s] = make([][]float64, len(h))
						for l := range h {
							hs[s][l] = append([]float64(nil), h[l]...)
						}
					}
					lse := nmath.LogSumExp(lw)
					signal += lse - math.Log(S)
					for s := range S {
						w := math.Exp(lw[s] - lse)
						n.AddGradLogJoint(hs[s], w, g, gs)
						n.AddGradLogQ(hs[s], w, gr, gs)
					}
				}
				want := make([]float64, len(tr.grad))
				xs, tri := paramSlices(g)
				gather(xs, tri, want)
				for i := range want {
					want[i] *= -scale
				}
				compareFlat(t, name+" θ", tr.grad, want, tol*scale)
				want = make([]float64, len(tr.gradPhi))
				xs, tri = recSlices(gr, n.Sizes)
				gather(xs, tri, want)
				compareFlat(t, name+" φ", tr.gradPhi, want, tol)
				if step == 0 {
					if s := f.signalSum(); math.Abs(s-signal) > 10*tol*float64(len(idx)) {
						t.Errorf("%s: signal %.8g, float64 %.8g", name, s, signal)
					}
				}
			}
		}
	}
}

func compareFlat(t *testing.T, name string, got, want []float64, tol float64) {
	t.Helper()
	bad := 0
	for i := range want {
		if d := math.Abs(got[i] - want[i]); !(d <= tol) {
			if bad++; bad <= 3 {
				t.Errorf("%s[%d] = %.8g, float64 %.8g", name, i, got[i], want[i])
			}
		}
	}
}

// TestISDrawsFollowQ: the engine's proposals (float32 and float64) for one example, over
// many steps (each its own random stream), have the frequencies of
// Q(h | x) computed exactly in float64 (a χ² test over the 2^5 latent
// states), for a plain and an autoregressive recognition network.
func TestISDrawsFollowQ(t *testing.T) {
	testISDrawsFollowQ[float32](t)
	testISDrawsFollowQ[float64](t)
}

func testISDrawsFollowQ[F kernel.Float](t *testing.T) {
	for _, ar := range []bool{false, true} {
		n := randomNet([]int{6, 3, 2}, ar, 1.2, 71)
		data := plantedData(n, 1, 8)
		const S, steps = 5, 4000
		tr, f := isTrainer[F](t, n, data, S)
		counts := make([]float64, 32)
		for step := range steps {
			tr.cur.step = step
			f.gradients([]int{0}, 1, 1)
			for s := range S {
				code := 0
				for l, b := 1, 0; l <= 2; l++ {
					for i := range n.Sizes[l] {
						code |= int(f.h[l][s*n.Sizes[l]+i]) << b
						b++
					}
				}
				counts[code]++
			}
		}
		h, sc := n.States(), n.NewScratch()
		for i, v := range data[0] {
			h[0][i] = float64(v)
		}
		chi2, total := 0.0, 0.0
		for code := range counts {
			for l, b := 1, 0; l <= 2; l++ {
				for i := range h[l] {
					h[l][i] = float64(code >> b & 1)
					b++
				}
			}
			want := S * steps * math.Exp(n.LogQ(h, sc))
			total += want
			chi2 += (counts[code] - want) * (counts[code] - want) / want
		}
		// 31 degrees of freedom: P(χ² > 61) ≈ 0.001.
		if math.Abs(total-S*steps) > 1e-6*S*steps || chi2 > 61 {
			t.Errorf("%s ar %v: χ² = %.1f over 32 states (expected ≈ 31), Σ Q = %g", kernel.Of[F](), ar, chi2, total/(S*steps))
		}
	}
}

// TestISTrainerNoAllocs: with one worker (no goroutine to start) a minibatch of
// the engine (float32 and float64) allocates nothing once its buffers
// exist.
func TestISTrainerNoAllocs(t *testing.T) {
	for _, p := range []kernel.Precision{kernel.Float32, kernel.Float64} {
		testISTrainerNoAllocs(t, p)
	}
}

func testISTrainerNoAllocs(t *testing.T, p kernel.Precision) {
	n := randomNet([]int{20, 10, 5}, true, 1, 81)
	set := plantedData(n, 30, 9)
	o := DefaultTrainOptions()
	o.Precision, o.Workers, o.BatchSize = p, 1, 30
	tr, err := NewTrainer(n, len(set), o)
	if err != nil {
		t.Fatal(err)
	}
	idx := make([]int, len(set))
	for i := range idx {
		idx[i] = i
	}
	var ex data.Examples = set // boxed once, not per call
	b := 0
	if a := testing.AllocsPerRun(3, func() { b++; tr.minibatch(ex, idx, 1, b) }); a != 0 {
		t.Errorf("%s: %g allocations per minibatch", p, a)
	}
}
