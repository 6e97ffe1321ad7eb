package train

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/logz-ml/logz/data"
	"github.com/logz-ml/logz/models"
)

// TestFastUpdateMatchesReference: with the reference's draws (legacyDraws),
// the row-sum/scatter-add update agrees with the update before the rewrite
// (rbm_ref_test.go) to 1e-12 relative over several updates, for CD-k and
// PCD, k = 1 and 3, with and without input scales, on binary and real data.
func TestFastUpdateMatchesReference(t *testing.T) {
	old := legacyDraws
	legacyDraws = true
	defer func() { legacyDraws = old }()
	bin := mnistLike(60)
	for i := range bin {
		bin[i] = bin[i][:40]
	}
	real := &realRows{d: 40, data: make([]float32, 60*40)}
	for i := range real.data {
		real.data[i] = float32(0.5 + 0.45*math.Sin(float64(7*i+3)))
	}
	for _, c := range []struct {
		pcd      bool
		k        int
		up, down float64
		realData bool
	}{{false, 1, 0, 0, false}, {true, 1, 0, 0, false}, {false, 3, 2, 0, false}, {true, 3, 0, 2, false}, {true, 1, 0, 0, true}, {false, 2, 2, 2, true}} {
		var d data.Examples = bin
		if c.realData {
			d = real
		}
		mk := func() *RBMTrainer {
			tr, err := NewRBMTrainer(models.NewRBM(40, 30), RBMOptions{
				Persistent: c.pcd, Chains: 35, BatchSize: 60, WeightDecay: 1e-3, UpScale: c.up, DownScale: c.down,
				Schedule: constSchedule{k: c.k, lr: 0.1, mom: 0.5}, Workers: 2,
			}, 7)
			if err != nil {
				t.Fatal(err)
			}
			tr.InitParams(0.3, nil)
			tr.setup()
			return tr
		}
		a, b := mk(), mk()
		idx := make([]int, 60)
		for i := range idx {
			idx[i] = i
		}
		for u := range 5 {
			sa := a.refBatch(d, idx[:50], c.k, 0.1, 0.5)
			sb := b.batch(d, idx[:50], c.k, 0.1, 0.5)
			if !closeRel(sa, sb, 1e-12) {
				t.Fatalf("%+v update %d: reconstruction error %v, reference %v", c, u, sb, sa)
			}
			for _, p := range [][2][]float64{{a.M.W, b.M.W}, {a.M.VBias, b.M.VBias}, {a.M.HBias, b.M.HBias}, {a.velW, b.velW}, {a.chains, b.chains}} {
				for i := range p[0] {
					if !closeRel(p[0][i], p[1][i], 1e-12) {
						t.Fatalf("%+v update %d: entry %d is %v, reference %v", c, u, i, p[1][i], p[0][i])
					}
				}
			}
		}
	}
}

// closeRel reports |a−b| ≤ tol·max(|a|,|b|,1e-3): relative, with an
// absolute floor for entries near 0 (a weight of 1e-3 is far below the
// scale of the parameters).
func closeRel(a, b, tol float64) bool {
	return math.Abs(a-b) <= tol*max(math.Abs(a), math.Abs(b), 1e-3)
}

// TestPCDReconUnbiased: PCD reconstructs every pcdReconEvery-th example of a
// minibatch and scales the sum to the minibatch. With learning rate 0 the
// model stays fixed, so the epoch's ReconError estimates the mean over the
// training set of R(v) = E_{h~p(h|v)} Σ_i (v_i − σ(a + W h)_i)², computed
// here exactly by enumerating h. Over 10 epochs the estimate must be within
// 4 standard errors, σ/√(examples reconstructed) with σ² the exact variance
// of one reconstructed example's error (sampling with replacement bounds the
// variance of sampling without). CD reconstructs every example, so its SE is
// that of h's draws alone.
func TestPCDReconUnbiased(t *testing.T) {
	const D, H, N, epochs = 12, 6, 1000, 10
	rng := rand.New(rand.NewPCG(3, 4))
	data := make(rows, N)
	for n := range data {
		data[n] = make([]uint8, D)
		for i := range data[n] {
			data[n][i] = b2i(rng.Float64() < 0.3+0.4*float64(i%3)/2)
		}
	}
	m := models.NewRBM(D, H)
	for i := range m.W {
		m.W[i] = 1.5 * rng.NormFloat64()
	}
	for i := range m.VBias {
		m.VBias[i] = rng.NormFloat64()
	}
	for j := range m.HBias {
		m.HBias[j] = rng.NormFloat64()
	}
	// Exact mean and variance of the error of one example drawn uniformly
	// from the data with its h ~ p(h|v), and the mean over the data of the
	// variance given v alone (sv: CD reconstructs every example, so only
	// h's draws vary).
	var s1, s2, sv float64
	v, p, h := make([]float64, D), make([]float64, H), make([]float64, H)
	for _, x := range data {
		for i := range v {
			v[i] = float64(x[i])
		}
		hiddenProbs(p, m, v, make([]int32, D), 1)
		var m1, m2 float64 // E_h[e | v], E_h[e² | v]
		for s := range 1 << H {
			ph := 1.0
			for j := range h {
				h[j] = float64(s >> j & 1)
				ph *= h[j]*p[j] + (1-h[j])*(1-p[j])
			}
			e := 0.0
			for i := range v {
				pre := m.VBias[i]
				for j := range h {
					pre += m.W[i*H+j] * h[j]
				}
				d := v[i] - 1/(1+math.Exp(-pre))
				e += d * d
			}
			m1 += ph * e
			m2 += ph * e * e
		}
		s1 += m1 / N
		s2 += m2 / N
		sv += (m2 - m1*m1) / N
	}
	// PCD: N/10 examples per epoch, a random subset; CD: every example, so
	// only the draws of h given each v vary.
	seOf := map[bool]float64{
		true:  math.Sqrt((s2 - s1*s1) / (N / pcdReconEvery * epochs)),
		false: math.Sqrt(sv / (N * epochs)),
	}
	for _, pcd := range []bool{true, false} {
		mc := models.NewRBM(D, H)
		copy(mc.W, m.W)
		copy(mc.VBias, m.VBias)
		copy(mc.HBias, m.HBias)
		tr, err := NewRBMTrainer(mc, RBMOptions{Persistent: pcd, BatchSize: 40, Shuffle: true,
			Schedule: constSchedule{k: 1, lr: 0, mom: 0}}, 5)
		if err != nil {
			t.Fatal(err)
		}
		est := 0.0
		for range epochs {
			st, err := tr.TrainEpoch(data)
			if err != nil {
				t.Fatal(err)
			}
			if want := map[bool]int{true: pcdReconEvery, false: 1}[pcd]; tr.reconEvery() != want {
				t.Fatalf("pcd=%v: reconEvery %d, want %d", pcd, tr.reconEvery(), want)
			}
			if want := map[bool]string{true: "recon-1in10", false: ""}[pcd]; st.Signal != want {
				t.Fatalf("pcd=%v: signal %q, want %q", pcd, st.Signal, want)
			}
			est += st.ReconError / epochs
		}
		if !sameParams(m, mc) {
			t.Fatal("learning rate 0 changed the model")
		}
		se := seOf[pcd]
		t.Logf("pcd=%v: recon %.4f, exact %.4f (SE %.4f)", pcd, est, s1, se)
		if math.Abs(est-s1) > 4*se {
			t.Errorf("pcd=%v: recon %.4f is %.1f SE from the exact %.4f", pcd, est, (est-s1)/se, s1)
		}
	}
}

// TestFloat32UpdateMatchesFloat64: a float32 update reads W, Wᵀ and the
// biases rounded to float32 and sums rows in float32, so from the same state
// and with the same draws (the float64 trainer switched to the float32
// path's draws) it must agree with the float64 update to float32 rounding.
// A pre-activation sums at most D+1 = 41 terms, each rounded to float32
// (relative error ≤ 2^{−24}) and added with a rounding each, so its error
// is at most 82·2^{−24}·Σ|terms| ≈ 5e-6·Σ|terms| and, the roundings being
// of both signs, typically √41·2^{−24}·|x| ≈ 4e-7·|x|; σ adds at most 4
// ulps, and a gradient entry, a mean of probabilities, inherits errors of
// the same order. Over several updates the differences feed back through
// the next pre-activations, so no useful worst case exists for the run;
// the test allows 2e-5 of the largest change of the parameters (50 times
// the largest difference seen, 2.6e-7 of it, and a thousandth of what a
// float32 copy left one update stale does: 2e-2), for every parameter and
// velocity after 5 updates, and equal chains, for CD-k and PCD, k = 1 and
// 3, with and without input scales, on binary and real data.
func TestFloat32UpdateMatchesFloat64(t *testing.T) {
	old := legacyDraws
	legacyDraws = false
	defer func() { legacyDraws = old }()
	bin := mnistLike(60)
	for i := range bin {
		bin[i] = bin[i][:40]
	}
	real := &realRows{d: 40, data: make([]float32, 60*40)}
	for i := range real.data {
		real.data[i] = float32(0.5 + 0.45*math.Sin(float64(7*i+3)))
	}
	for _, c := range []struct {
		pcd      bool
		k        int
		up, down float64
		realData bool
	}{{false, 1, 0, 0, false}, {true, 1, 0, 0, false}, {false, 3, 2, 0, false}, {true, 3, 0, 2, false}, {true, 1, 0, 0, true}, {false, 2, 2, 2, true}} {
		var d data.Examples = bin
		if c.realData {
			d = real
		}
		mk := func(f32 bool) *RBMTrainer {
			tr, err := NewRBMTrainer(models.NewRBM(40, 30), RBMOptions{
				Persistent: c.pcd, Chains: 35, BatchSize: 60, WeightDecay: 1e-3, UpScale: c.up, DownScale: c.down,
				Schedule: constSchedule{k: c.k, lr: 0.1, mom: 0.5}, Workers: 2, Precision: precisionOf(f32),
			}, 7)
			if err != nil {
				t.Fatal(err)
			}
			tr.InitParams(0.3, nil)
			tr.setup()
			return tr
		}
		a, b := mk(false), mk(true)
		w0 := append([]float64(nil), a.M.W...)
		idx := make([]int, 60)
		for i := range idx {
			idx[i] = i
		}
		for range 5 {
			a.batch(d, idx[:50], c.k, 0.1, 0.5)
			b.batch(d, idx[:50], c.k, 0.1, 0.5)
		}
		scale := 0.0
		for i, x := range a.M.W {
			scale = max(scale, math.Abs(x-w0[i]))
		}
		for _, x := range slices.Concat(a.M.VBias, a.M.HBias) {
			scale = max(scale, math.Abs(x))
		}
		worst := 0.0
		for _, p := range [][2][]float64{{a.M.W, b.M.W}, {a.M.VBias, b.M.VBias}, {a.M.HBias, b.M.HBias}, {a.velW, b.velW}, {a.velA, b.velA}, {a.velB, b.velB}} {
			for i := range p[0] {
				worst = max(worst, math.Abs(p[0][i]-p[1][i]))
			}
		}
		if !slices.Equal(a.chains, b.chains) {
			t.Errorf("%+v: the persistent chains differ", c)
		}
		t.Logf("%+v: largest difference %.3g, %.3g of the largest change %.3g", c, worst, worst/scale, scale)
		if !(worst <= 2e-5*scale) {
			t.Errorf("%+v: float32 and float64 differ by %.3g, more than 2e-5 × %.3g", c, worst, scale)
		}
	}
}

// TestIncrementalGibbsMatchesFull: the incremental sweeps of CD-k and PCD-k
// (k ≥ 2) make the same draws as the full sums and differ from them only by
// rounding: over 4 updates every parameter, velocity and chain agrees with
// the full-sum trainer's to 1e-12 relative in float64 and within the float32
// test's bound (2e-5 of the largest change) in float32. The weights (σ = 1)
// make the chains sticky, so most steps are incremental; k = 25 passes the
// refresh period gibbsRefresh several times.
func TestIncrementalGibbsMatchesFull(t *testing.T) {
	defer func() { incrementalGibbs = true }()
	bin := mnistLike(60)
	for i := range bin {
		bin[i] = bin[i][:40]
	}
	real := &realRows{d: 40, data: make([]float32, 60*40)}
	for i := range real.data {
		real.data[i] = float32(0.5 + 0.45*math.Sin(float64(7*i+3)))
	}
	for _, f32 := range []bool{false, true} {
		for _, c := range []struct {
			pcd      bool
			k        int
			up, down float64
			realData bool
		}{{false, 2, 0, 0, false}, {true, 3, 0, 0, false}, {false, 25, 2, 0, false}, {true, 5, 0, 2, false}, {true, 2, 0, 0, true}, {false, 4, 2, 2, true}} {
			var d data.Examples = bin
			if c.realData {
				d = real
			}
			mk := func(inc bool) *RBMTrainer {
				incrementalGibbs = inc
				tr, err := NewRBMTrainer(models.NewRBM(40, 30), RBMOptions{
					Persistent: c.pcd, Chains: 35, BatchSize: 60, WeightDecay: 1e-3, UpScale: c.up, DownScale: c.down,
					Schedule: constSchedule{k: c.k, lr: 0.1, mom: 0.5}, Workers: 2, Precision: precisionOf(f32),
				}, 7)
				if err != nil {
					t.Fatal(err)
				}
				tr.InitParams(1, nil)
				tr.setup()
				return tr
			}
			a, b := mk(false), mk(true)
			w0 := append([]float64(nil), a.M.W...)
			idx := make([]int, 60)
			for i := range idx {
				idx[i] = i
			}
			for range 4 {
				incrementalGibbs = false
				a.batch(d, idx[:50], c.k, 0.1, 0.5)
				incrementalGibbs = true
				b.batch(d, idx[:50], c.k, 0.1, 0.5)
			}
			scale := 0.0
			for i, x := range a.M.W {
				scale = max(scale, math.Abs(x-w0[i]))
			}
			for _, x := range slices.Concat(a.M.VBias, a.M.HBias) {
				scale = max(scale, math.Abs(x))
			}
			if !slices.Equal(a.chains, b.chains) {
				t.Errorf("float32=%v %+v: the persistent chains differ", f32, c)
			}
			for _, p := range [][2][]float64{{a.M.W, b.M.W}, {a.M.VBias, b.M.VBias}, {a.M.HBias, b.M.HBias}, {a.velW, b.velW}, {a.velA, b.velA}, {a.velB, b.velB}} {
				for i := range p[0] {
					if f32 && !(math.Abs(p[0][i]-p[1][i]) <= 2e-5*scale) || !f32 && !closeRel(p[0][i], p[1][i], 1e-12) {
						t.Fatalf("float32=%v %+v: entry %d is %v incrementally, %v with full sums", f32, c, i, p[1][i], p[0][i])
					}
				}
			}
		}
	}
}
