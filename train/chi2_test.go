package train

import (
	"errors"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/logz-ml/logz/inference/chi2"
	"github.com/logz-ml/logz/internal/nmath"
	"github.com/logz-ml/logz/models"
)

func chi2Options(workers int) Chi2Options {
	return Chi2Options{
		BatchSize: 40, WeightDecay: 1e-4, Shuffle: true,
		Schedule: constSchedule{k: 1, lr: 0.02}, Workers: workers,
		QSteps: 10, QSamples: 30, QComponents: 10, QLearningRate: 0.05, QDecay: 0.9, QInitStd: 0.1,
		Linearise: true,
	}
}

func newChi2Trainer(t testing.TB, opt Chi2Options, D, H int, base []float64, seed uint64) *RBMChi2Trainer {
	t.Helper()
	tr, err := NewRBMChi2Trainer(models.NewRBM(D, H), opt, base, seed)
	if err != nil {
		t.Fatal(err)
	}
	tr.InitParams(0.01, nil)
	return tr
}

// TestChi2RaisesExactLikelihood trains a 10×4 RBM by χ² learning on data
// drawn from a planted RBM: the exact (enumerated) training log-likelihood
// must close half the gap from the start to the planted model's; PCD with
// the same epochs is logged beside it.
func TestChi2RaisesExactLikelihood(t *testing.T) {
	truth, train, _ := planted(1000, 11)
	best := exactLogLik(truth, train)
	br := baseRate(train, len(train[0]))
	for _, lin := range []bool{true, false} {
		opt := chi2Options(2)
		opt.Linearise = lin
		tr := newChi2Trainer(t, opt, 10, 4, br, 5)
		before := exactLogLik(tr.M, train)
		var st EpochSummary
		for range 12 {
			var err error
			if st, err = tr.TrainEpoch(train); err != nil {
				t.Fatal(err)
			}
		}
		after := exactLogLik(tr.M, train)
		logZ := exactLogZ(tr.M)
		t.Logf("chi2 linearise=%v: train log-lik %.3f → %.3f (planted model %.3f); tracked log Z %.3f, exact %.3f", lin, before, after, best, st.ReconError, logZ)
		if !(after > before+0.5*(best-before)) {
			t.Errorf("linearise=%v: train log-lik %.3f → %.3f does not close half the gap to %.3f", lin, before, after, best)
		}
	}
	pcd := newRBMTrainer10x4(t, true)
	before := exactLogLik(pcd.M, train)
	for range 12 {
		if _, err := pcd.TrainEpoch(train); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("pcd (100 chains, SGD lr 0.1, momentum 0.5): train log-lik %.3f → %.3f", before, exactLogLik(pcd.M, train))
}

// newRBMTrainer10x4 is a CD-1 or PCD-1 (100 chains) trainer of a 10×4 RBM
// with minibatches of 40, the χ² tests' shape.
func newRBMTrainer10x4(t *testing.T, persistent bool) *RBMTrainer {
	t.Helper()
	opt := RBMOptions{Persistent: persistent, BatchSize: 40, WeightDecay: 1e-4, Shuffle: true,
		Schedule: constSchedule{k: 1, lr: 0.1, mom: 0.5}, Workers: 2}
	if persistent {
		opt.Chains = 100
	}
	tr, err := NewRBMTrainer(models.NewRBM(10, 4), opt, 5)
	if err != nil {
		t.Fatal(err)
	}
	tr.InitParams(0.01, nil)
	return tr
}

// exactLogZ enumerates the visible states of a small RBM.
func exactLogZ(m *models.RBM) float64 {
	D := m.NVis
	v := make([]float64, D)
	all := make([]float64, 1<<D)
	for n := range all {
		for i := range v {
			v[i] = float64(n >> i & 1)
		}
		all[n] = m.LogUnnorm(v, nil)
	}
	return nmath.LogSumExp(all)
}

// gradStats is the running mean and variance of a vector of estimates.
type gradStats struct {
	n         int
	sum, sum2 []float64
}

func (g *gradStats) add(parts ...[]float64) {
	if g.sum == nil {
		size := 0
		for _, p := range parts {
			size += len(p)
		}
		g.sum, g.sum2 = make([]float64, size), make([]float64, size)
	}
	i := 0
	for _, p := range parts {
		for _, x := range p {
			g.sum[i] += x
			g.sum2[i] += x * x
			i++
		}
	}
	g.n++
}

// check compares the mean with want, component by component, within z
// standard errors of the mean; it returns the largest |mean − want|/SE.
func (g *gradStats) check(t *testing.T, what string, want []float64, z float64) float64 {
	t.Helper()
	n := float64(g.n)
	worst := 0.0
	for i, w := range want {
		mean := g.sum[i] / n
		se := math.Sqrt(max(g.sum2[i]/n-mean*mean, 0) / (n - 1))
		dev := math.Abs(mean - w)
		if dev > z*se+1e-12 {
			t.Errorf("%s: component %d: mean %.5f, exact %.5f, %.1f SE away (SE %.2g)", what, i, mean, w, dev/se, se)
		}
		if se > 0 {
			worst = max(worst, dev/se)
		}
	}
	return worst
}

// seRange returns the smallest and largest standard error of the
// components' means.
func (g *gradStats) seRange() (lo, hi float64) {
	n := float64(g.n)
	lo = math.Inf(1)
	for i := range g.sum {
		mean := g.sum[i] / n
		se := math.Sqrt(max(g.sum2[i]/n-mean*mean, 0) / (n - 1))
		lo, hi = min(lo, se), max(hi, se)
	}
	return lo, hi
}

// enumGrad returns the exact Σ_x π(x) ∇ log p̃(x) over all 2^D states, for
// weights π(x) ∝ exp(logPi(x)), flattened as (W, a, b).
func enumGrad(m *models.RBM, logPi func(x []uint8) float64) []float64 {
	D, H := m.NVis, m.NHid
	xs := make([][]uint8, 1<<D)
	lw := make([]float64, 1<<D)
	for s := range xs {
		x := make([]uint8, D)
		for i := range x {
			x[i] = uint8(s >> i & 1)
		}
		xs[s] = x
		lw[s] = logPi(x)
	}
	lse := nmath.LogSumExp(lw)
	g := make([]float64, D*H+D+H)
	for s, x := range xs {
		pi := math.Exp(lw[s] - lse)
		for j := range H {
			pre := m.HBias[j]
			for i := range D {
				pre += float64(x[i]) * m.W[i*H+j]
			}
			sj := nmath.Sigmoid(pre)
			g[D*H+D+j] += pi * sj
			for i := range D {
				g[i*H+j] += pi * float64(x[i]) * sj
			}
		}
		for i := range D {
			g[D*H+i] += pi * float64(x[i])
		}
	}
	return g
}

func randomSmallRBM(D, H int, std float64, seed uint64) *models.RBM {
	rng := rand.New(rand.NewPCG(seed, 7))
	m := models.NewRBM(D, H)
	for i := range m.W {
		m.W[i] = std * rng.NormFloat64()
	}
	for i := range m.VBias {
		m.VBias[i] = -0.5 + std*rng.NormFloat64()
	}
	for j := range m.HBias {
		m.HBias[j] = std * rng.NormFloat64()
	}
	return m
}

// TestChi2GradientUnbiased: for a fixed mixture q (not fitted), the
// linearised negative phase −Σ_i w_i²/(nγ) ∇ log p̃(x_i) with γ = E_q[w²]
// is unbiased for the exact θ-gradient of ½ log E_q[w²],
// E_q[w² ∇ log p̃]/E_q[w²] = Σ_x (p̃(x)²/q(x)) ∇ log p̃(x) / Σ_x p̃²/q, by
// enumeration; its mean over R batches must lie within 4.5 SE of it.
func TestChi2GradientUnbiased(t *testing.T) {
	const D, H, R = 8, 3, 3000
	m := randomSmallRBM(D, H, 0.8, 3)
	opt := chi2Options(2)
	tr, err := NewRBMChi2Trainer(m, opt, nil, 17)
	if err != nil {
		t.Fatal(err)
	}
	q := tr.Fit.Q.(*chi2.Mixture)
	logp := chi2.RBMTarget{M: m}.NewLogP()
	bound := func(x []uint8) float64 { return 2*logp(x) - q.LogProb(x) } // log p̃²/q
	exact := enumGrad(m, bound)
	for i := range exact {
		exact[i] = -exact[i]
	}
	// γ = E_q[w²] = Σ_x p̃²/q exactly.
	var lw []float64
	for s := range 1 << D {
		x := make([]uint8, D)
		for i := range x {
			x[i] = uint8(s >> i & 1)
		}
		lw = append(lw, bound(x))
	}
	tr.Fit.LogGamma, tr.Fit.Steps = nmath.LogSumExp(lw), 1
	var g gradStats
	for range R {
		if _, err := tr.Fit.Draw(tr.logp, tr.qrng); err != nil {
			t.Fatal(err)
		}
		gW, gA, gB := tr.Gradient(rows{}, nil)
		g.add(gW, gA, gB)
	}
	worst := g.check(t, "linearised negative phase", exact, 4.5)
	t.Logf("largest deviation %.2f SE over %d components", worst, len(exact))
}

// TestChi2FittedGradientMatchesLikelihood: after fitting q by the trainer's
// fitter steps, the θ step's estimate (data term exact, self-normalised
// and linearised negative phases) matches the exact log-likelihood
// gradient E_data[∇ log p̃] − E_p[∇ log p̃] (enumerated) within 4.5 SE of
// the mean of R estimates. The exact gap between the bound's gradient at
// the fitted q and the likelihood's must be below the smallest SE for the
// test to be meaningful, and is checked to be.
func TestChi2FittedGradientMatchesLikelihood(t *testing.T) {
	const D, H, R = 8, 3, 400
	m := randomSmallRBM(D, H, 0.5, 5)
	_, data := exactDraws(D, 400, rand.New(rand.NewPCG(8, 8)), func(v []float64) float64 { return m.LogUnnorm(v, nil) })
	idx := make([]int, len(data))
	for i := range idx {
		idx[i] = i
	}
	for _, lin := range []bool{true, false} {
		opt := chi2Options(2)
		opt.Linearise, opt.QSamples = lin, 100
		tr, err := NewRBMChi2Trainer(m, opt, baseRate(data, len(data[0])), 23)
		if err != nil {
			t.Fatal(err)
		}
		for range 3000 {
			if _, err := tr.QStep(); err != nil {
				t.Fatal(err)
			}
		}
		q := tr.Fit.Q.(*chi2.Mixture)
		logp := chi2.RBMTarget{M: m}.NewLogP()
		model := enumGrad(m, logp)
		boundG := enumGrad(m, func(x []uint8) float64 { return 2*logp(x) - q.LogProb(x) })
		want := make([]float64, len(model))
		gap := 0.0
		var g gradStats
		for range R {
			if _, err := tr.Fit.Draw(tr.logp, tr.qrng); err != nil {
				t.Fatal(err)
			}
			gW, gA, gB := tr.Gradient(data, idx)
			g.add(gW, gA, gB)
		}
		// Exact data term.
		dt := enumDataGrad(m, data)
		for i := range want {
			want[i] = dt[i] - model[i]
			gap = max(gap, math.Abs(boundG[i]-model[i]))
		}
		worst := g.check(t, "θ-gradient", want, 4.5)
		seLo, seHi := g.seRange()
		t.Logf("linearise=%v: largest deviation %.2f SE; exact gap bound-vs-likelihood gradient %.2g; SE %.2g–%.2g", lin, worst, gap, seLo, seHi)
		// Meaningful only if the bound's own bias is below the noise, and
		// the noise is what these R estimates give (SE 0.0004–0.0026).
		if gap >= seLo || seHi > 0.005 {
			t.Errorf("linearise=%v: exact gap %.2g must lie below the smallest SE %.2g, and the largest SE %.2g below 0.005", lin, gap, seLo, seHi)
		}
	}
}

// enumDataGrad is (1/n) Σ_data ∇ log p̃(v), flattened as (W, a, b).
func enumDataGrad(m *models.RBM, data rows) []float64 {
	D, H := m.NVis, m.NHid
	g := make([]float64, D*H+D+H)
	for _, x := range data {
		for j := range H {
			pre := m.HBias[j]
			for i := range D {
				pre += float64(x[i]) * m.W[i*H+j]
			}
			sj := nmath.Sigmoid(pre)
			g[D*H+D+j] += sj
			for i := range D {
				g[i*H+j] += float64(x[i]) * sj
			}
		}
		for i := range D {
			g[D*H+i] += float64(x[i])
		}
	}
	for i := range g {
		g[i] /= float64(len(data))
	}
	return g
}

// TestChi2DeterministicAcrossWorkers: bit-identical parameters and q
// whatever the workers and GOMAXPROCS.
func TestChi2DeterministicAcrossWorkers(t *testing.T) {
	_, train, _ := planted(300, 3)
	var ref *RBMChi2Trainer
	for _, procs := range []int{1, 2} {
		for _, workers := range []int{1, 3} {
			old := runtime.GOMAXPROCS(procs)
			tr := newChi2Trainer(t, chi2Options(workers), 10, 4, baseRate(train, len(train[0])), 9)
			for range 2 {
				if _, err := tr.TrainEpoch(train); err != nil {
					t.Fatal(err)
				}
			}
			runtime.GOMAXPROCS(old)
			if ref == nil {
				ref = tr
			} else if !sameParams(ref.M, tr.M) || !slices.Equal(ref.Fit.Q.Params(), tr.Fit.Q.Params()) {
				t.Fatalf("GOMAXPROCS=%d workers=%d differs", procs, workers)
			}
		}
	}
}

// TestChi2ResumeEqualsUninterrupted: 2 epochs, a checkpoint on disk, a
// fresh trainer resumed from it and 2 more epochs equal 4 uninterrupted
// epochs bit for bit (parameters, q and the epoch's tracked log Z).
func TestChi2ResumeEqualsUninterrupted(t *testing.T) {
	_, train, _ := planted(300, 4)
	br := baseRate(train, len(train[0]))
	full := newChi2Trainer(t, chi2Options(2), 10, 4, br, 21)
	var fullSt EpochSummary
	for range 4 {
		fullSt, _ = full.TrainEpoch(train)
	}
	part := newChi2Trainer(t, chi2Options(2), 10, 4, br, 21)
	for range 2 {
		part.TrainEpoch(train)
	}
	loaded := saveAndLoad(t, part)
	resumed := newChi2Trainer(t, chi2Options(1), 10, 4, nil, 999) // overwritten by Resume
	if err := resumed.Resume(loaded); err != nil {
		t.Fatal(err)
	}
	if resumed.Completed() != 2 {
		t.Fatalf("resumed at epoch %d", resumed.Completed())
	}
	var st EpochSummary
	for range 2 {
		st, _ = resumed.TrainEpoch(train)
	}
	if !sameParams(full.M, resumed.M) || !slices.Equal(full.Fit.Q.Params(), resumed.Fit.Q.Params()) || st != fullSt {
		t.Errorf("resumed run differs from the uninterrupted one (log Z %v vs %v)", st.ReconError, fullSt.ReconError)
	}
	// A CD trainer refuses the χ² checkpoint and vice versa.
	cd := newRBMTrainer10x4(t, false)
	if err := cd.Resume(loaded); err == nil || !strings.Contains(err.Error(), "chi2") {
		t.Errorf("cd resume of a chi2 checkpoint: %v", err)
	}
	other := saveAndLoad(t, cd)
	if err := resumed.Resume(other); err == nil || !strings.Contains(err.Error(), "trained by cd") {
		t.Errorf("chi2 resume of a cd checkpoint: %v", err)
	}
}

func TestChi2DivergenceNamesEpoch(t *testing.T) {
	_, train, _ := planted(200, 5)
	opt := chi2Options(2)
	opt.Schedule = constSchedule{lr: 1e300}
	tr := newChi2Trainer(t, opt, 10, 4, nil, 1)
	var err error
	for e := 0; e < 3 && err == nil; e++ {
		_, err = tr.TrainEpoch(train)
	}
	if !errors.Is(err, ErrDiverged) || !strings.Contains(err.Error(), "epoch 1") {
		t.Fatalf("err = %v", err)
	}
}

func TestChi2BadOptions(t *testing.T) {
	for _, c := range []struct {
		edit func(*Chi2Options)
		want string
	}{
		{func(o *Chi2Options) { o.QSteps = 0 }, "q steps"},
		{func(o *Chi2Options) { o.QSamples = 1 }, "2 samples"},
		{func(o *Chi2Options) { o.QComponents = 0 }, "component"},
		{func(o *Chi2Options) { o.QLearningRate = math.NaN() }, "learning rate"},
		{func(o *Chi2Options) { o.BatchSize = 0 }, "batch size"},
	} {
		opt := chi2Options(1)
		c.edit(&opt)
		if _, err := NewRBMChi2Trainer(models.NewRBM(4, 2), opt, nil, 1); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("want an error with %q, got %v", c.want, err)
		}
	}
}
