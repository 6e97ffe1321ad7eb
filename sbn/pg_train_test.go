package sbn

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/logz-ml/logz/data"
	"github.com/logz-ml/logz/internal/kernel"
)

// pgData returns N random binary examples of d units.
func pgData(N, d int, seed uint64) *data.Set {
	rng := rand.New(rand.NewPCG(seed, 3))
	x := make([]uint8, N*d)
	for i := range x {
		x[i] = uint8(rng.IntN(2))
	}
	return &data.Set{N: N, D: d, X: x}
}

func pgOptions(workers int) TrainOptions {
	return TrainOptions{Prior: "student-t", PriorSigma: 1.5, PriorNu: 3, Seed: 5, Workers: workers, Epochs: 10, Precision: kernel.Float64}
}

// batchMeans returns the mean of xs and its Monte-Carlo standard error
// from the means of nb consecutive batches.
func batchMeans(xs []float64, nb int) (mean, se float64) {
	b := len(xs) / nb
	ms := make([]float64, nb)
	for k := range nb {
		for _, x := range xs[k*b : (k+1)*b] {
			ms[k] += x
		}
		ms[k] /= float64(b)
		mean += ms[k]
	}
	mean /= float64(nb)
	v := 0.0
	for _, m := range ms {
		v += (m - mean) * (m - mean)
	}
	return mean, math.Sqrt(v / float64(nb-1) / float64(nb))
}

// gridMarginal returns, for the density ∝ exp(logp(u, v)) on a square
// grid, the marginal of u as (values, normalised weights).
func gridMarginal(logp func(u, v float64) float64, lo, hi float64, m int) ([]float64, []float64) {
	us, ws := make([]float64, m), make([]float64, m)
	lp := make([]float64, m*m)
	top := math.Inf(-1)
	h := (hi - lo) / float64(m-1)
	for i := range m {
		us[i] = lo + h*float64(i)
		for j := range m {
			lp[i*m+j] = logp(us[i], lo+h*float64(j))
			top = math.Max(top, lp[i*m+j])
		}
	}
	z := 0.0
	for i := range m {
		for j := range m {
			ws[i] += math.Exp(lp[i*m+j] - top)
		}
		z += ws[i]
	}
	for i := range ws {
		ws[i] /= z
	}
	return us, ws
}

// checkMarginal compares draws of a scalar with a grid marginal: the mean
// and the fractions below the grid's 10% and 80% quantiles, within 4.5
// batch-means standard errors.
func checkMarginal(t *testing.T, name string, draws, us, ws []float64) {
	t.Helper()
	mean := 0.0
	for i, u := range us {
		mean += u * ws[i]
	}
	if m, se := batchMeans(draws, 50); math.Abs(m-mean) > 4.5*se {
		t.Errorf("%s: mean %.4f, exact %.4f (se %.2g)", name, m, mean, se)
	}
	for _, q := range []float64{0.1, 0.8} {
		c, at := 0.0, us[len(us)-1]
		for i, w := range ws {
			if c += w; c >= q {
				at = us[i]
				break
			}
		}
		want := 0.0 // the grid's mass below at, half of at's own cell
		for i, u := range us {
			switch {
			case u < at:
				want += ws[i]
			case u == at:
				want += ws[i] / 2
			}
		}
		ind := make([]float64, len(draws))
		for i, d := range draws {
			if d <= at {
				ind[i] = 1
			}
		}
		if f, se := batchMeans(ind, 50); math.Abs(f-want) > 4.5*se {
			t.Errorf("%s: P(≤ %.3f) = %.4f, exact %.4f (se %.2g)", name, at, f, want, se)
		}
	}
}

// TestPGRowConditional: with the latent states held fixed, the chain of
// (ω, row, τ) updates of an SBN 1-1 draws the visible unit's row (w, b_0)
// from p(w, b_0 | h, x) ∝ t(w) t(b_0) Π_n σ(±(w h_n + b_0)), and the top
// chain (ω, b_1, τ) b_1 from p(b_1 | h) ∝ t(b_1) Π_n σ(±b_1), both
// evaluated on a grid (the Student-t's scale mixture integrated out). The
// (ω, τ) augmentation is exact: the marginal of the Gibbs chain is that
// density.
func TestPGRowConditional(t *testing.T) {
	const N = 24
	// h on for the first half; x on for 8 of its 12 and 4 of the other 12:
	// not separable, so the likelihood bounds (w, b_0) every way.
	x := &data.Set{N: N, D: 1, X: make([]uint8, N)}
	n := New([]int{1, 1}, false)
	tr, err := NewPGTrainer(n, N, pgOptions(1))
	if err != nil {
		t.Fatal(err)
	}
	hs := make([]float64, N)
	for ex := range N {
		if ex < 12 {
			hs[ex] = 1
			tr.h[ex] = 1
		}
		if ex < 8 || (ex >= 12 && ex < 16) {
			x.X[ex] = 1
		}
	}
	prior := tr.prior
	const sweeps = 30000
	ws, bs, tops := make([]float64, sweeps), make([]float64, sweeps), make([]float64, sweeps)
	for e := 1; e <= sweeps; e++ {
		if _, err := tr.sweepRows(x, e, 1); err != nil {
			t.Fatal(err)
		}
		tr.sweepTop(e)
		tr.sweepTau(e)
		ws[e-1], bs[e-1], tops[e-1] = n.W[1][0], n.B[0][0], n.B[1][0]
	}
	var count [2][2]float64 // examples by (h, x)
	for ex := range N {
		count[int(hs[ex])][x.X[ex]]++
	}
	logRow := func(w, b float64) float64 {
		lp := prior.LogDensity(w) + prior.LogDensity(b)
		for h := range 2 {
			psi := w*float64(h) + b
			lp -= count[h][1]*math.Log1p(math.Exp(-psi)) + count[h][0]*math.Log1p(math.Exp(psi))
		}
		return lp
	}
	us, wts := gridMarginal(logRow, -12, 12, 1201)
	checkMarginal(t, "w", ws, us, wts)
	us, wts = gridMarginal(func(b, w float64) float64 { return logRow(w, b) }, -12, 12, 1201)
	checkMarginal(t, "b_0", bs, us, wts)
	on := 0.0
	for _, h := range hs {
		on += h
	}
	us, wts = gridMarginal(func(b, _ float64) float64 {
		return prior.LogDensity(b) - on*math.Log1p(math.Exp(-b)) - (N-on)*math.Log1p(math.Exp(b))
	}, -12, 12, 1201) // (the second axis is a dummy)
	checkMarginal(t, "b_1", tops, us, wts)
}

// TestPGLatentConditional: the latent sweep of the trainer, θ fixed,
// visits the 16 states of an SBN 3-2-2's latents for a fixed x with the
// frequencies p(h | x) from enumerating log p(x, h) (the chains of 32
// copies of x, each an independent chain; standard errors from the spread
// of the copies' frequencies), in float64 and float32.
func TestPGLatentConditional(t *testing.T) {
	for _, prec := range []kernel.Precision{kernel.Float64, kernel.Float32} {
		n := randomNet([]int{3, 2, 2}, false, 1.2, 41)
		const copies, sweeps = 32, 1500
		x := &data.Set{N: copies, D: 3, X: make([]uint8, 3*copies)}
		for ex := range copies {
			copy(x.X[3*ex:], []uint8{1, 0, 1})
		}
		o := pgOptions(2)
		o.Precision = prec
		tr, err := NewPGTrainer(n, copies, o)
		if err != nil {
			t.Fatal(err)
		}
		// exact p(h | x)
		h, sc := n.States(), n.NewScratch()
		h[0] = []float64{1, 0, 1}
		lp := make([]float64, 16)
		for s := range 16 {
			h[1][0], h[1][1], h[2][0], h[2][1] = float64(s&1), float64(s>>1&1), float64(s>>2&1), float64(s>>3&1)
			lp[s] = n.LogJoint(h, 1, sc)
		}
		top := slices.Max(lp)
		z := 0.0
		for _, v := range lp {
			z += math.Exp(v - top)
		}
		freq := make([][]float64, 16)
		for s := range freq {
			freq[s] = make([]float64, copies)
		}
		for e := 1; e <= sweeps; e++ {
			tr.sweepLatent(x, e)
			tr.ep = e
			for ex := range copies {
				freq[int(tr.h[ex]&15)][ex] += 1.0 / sweeps
			}
		}
		for s := range 16 {
			p := math.Exp(lp[s]-top) / z
			m, se := batchMeans(freq[s], copies)
			if math.Abs(m-p) > 4.5*se+1e-4 {
				t.Errorf("%s: state %04b: frequency %.4f, exact %.4f (se %.2g)", prec, s, m, p, se)
			}
		}
	}
}

// pgState returns the trainer's θ, τ and latent bits.
func pgState(t *testing.T, tr *PGTrainer) ([]float64, []float64, []uint64) {
	c, err := tr.Checkpoint("x")
	if err != nil {
		t.Fatal(err)
	}
	return c.State["theta"].Data, c.State["tau"].Data, slices.Clone(tr.h)
}

// TestPGResumeAndWorkers: three sweeps give the same bits with one worker
// and with three, and two sweeps, a checkpoint, a new trainer resumed from
// it and a third sweep give them too; a state of another precision is
// refused with kernel.Check's message.
func TestPGResumeAndWorkers(t *testing.T) {
	sizes := []int{12, 5, 3}
	x := pgData(1500, 12, 2) // more than one block of examples
	train := func(workers, sweeps int, from *PGTrainer) *PGTrainer {
		n := randomNet(sizes, false, 0.3, 7)
		tr, err := NewPGTrainer(n, x.N, pgOptions(workers))
		if err != nil {
			t.Fatal(err)
		}
		if from != nil {
			c, _ := from.Checkpoint("x")
			if err := tr.Resume(c); err != nil {
				t.Fatal(err)
			}
		}
		for tr.Completed() < sweeps {
			if _, err := tr.TrainEpoch(x); err != nil {
				t.Fatal(err)
			}
		}
		return tr
	}
	th1, ta1, h1 := pgState(t, train(1, 3, nil))
	th3, ta3, h3 := pgState(t, train(3, 3, nil))
	thr, tar, hr := pgState(t, train(2, 3, train(1, 2, nil)))
	for name, pair := range map[string][2][]float64{"theta 3 workers": {th1, th3}, "tau 3 workers": {ta1, ta3}, "theta resumed": {th1, thr}, "tau resumed": {ta1, tar}} {
		if !slices.Equal(pair[0], pair[1]) {
			t.Errorf("%s: differs", name)
		}
	}
	if !slices.Equal(h1, h3) || !slices.Equal(h1, hr) {
		t.Error("latent states differ")
	}
	if slices.Equal(th1, pgStateTheta(t, train(1, 2, nil))) {
		t.Error("a sweep left θ unchanged")
	}
	o := pgOptions(1)
	o.Precision = kernel.Float32
	tr32, _ := NewPGTrainer(randomNet(sizes, false, 0.3, 7), x.N, o)
	c, _ := train(1, 1, nil).Checkpoint("x")
	if err := tr32.Resume(c); err == nil || err.Error() != kernel.Check("sbn trainer state", kernel.Float64, kernel.Float32).Error() {
		t.Errorf("resuming a float64 state as float32: %v", err)
	}
}

func pgStateTheta(t *testing.T, tr *PGTrainer) []float64 { th, _, _ := pgState(t, tr); return th }

// TestPGSignal: a sweep's signal is the mean over the examples of
// log p(x, h) at their new latent states and the θ before the sweep's
// parameter updates (LogJoint of a copy of that net).
func TestPGSignal(t *testing.T) {
	x := pgData(1300, 10, 4)
	n := randomNet([]int{10, 4, 3}, false, 0.8, 3)
	tr, err := NewPGTrainer(n, x.N, pgOptions(2))
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		before := n.clone()
		st, err := tr.TrainEpoch(x)
		if err != nil {
			t.Fatal(err)
		}
		h, sc := before.States(), before.NewScratch()
		want := 0.0
		for ex := range x.N {
			for i, v := range x.Row(ex) {
				h[0][i] = float64(v)
			}
			tr.unpack(ex, h)
			want += before.LogJoint(h, 1, sc)
		}
		want /= float64(x.N)
		if st.Signal != SignalLogJoint || math.Abs(st.ReconError-want) > 1e-9*math.Abs(want) {
			t.Errorf("signal %s %.12g, mean log p(x, h) %.12g", st.Signal, st.ReconError, want)
		}
	}
}
