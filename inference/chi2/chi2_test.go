package chi2_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/logz-ml/logz/inference/chi2"
	"github.com/logz-ml/logz/inference/chi2/chi2test"
	"github.com/logz-ml/logz/models"
)

func TestSecondMomentBoundsZSquared(t *testing.T) {
	target := chi2.RBMTarget{M: chi2test.RandomRBM(7, 3, 1, 1)}
	rng := rand.New(rand.NewPCG(2, 2))
	for trial := range 30 {
		q, err := chi2.NewMixture(7, 1+trial%6, nil, 1.5, rng)
		if err != nil {
			t.Fatal(err)
		}
		logZ, b := chi2test.ExactBound(target, q)
		if b < logZ-1e-12 {
			t.Fatalf("trial %d: ½ log E_q[w²] = %.15g < log Z = %.15g", trial, b, logZ)
		}
	}
}

func TestBoundTightAtTarget(t *testing.T) {
	// With W = 0 the RBM's marginal is the Bernoulli product with logits
	// vbias: a mixture of K copies of it is p̃/Z, and the bound is exact.
	m := chi2test.RandomRBM(8, 2, 1, 3)
	clear(m.W)
	for _, K := range []int{1, 3} {
		q, err := chi2.NewMixture(8, K, m.VBias, 0, rand.New(rand.NewPCG(1, 1)))
		if err != nil {
			t.Fatal(err)
		}
		logZ, b := chi2test.ExactBound(chi2.RBMTarget{M: m}, q)
		if math.Abs(b-logZ) > 1e-12 {
			t.Fatalf("K = %d: bound %.15g, log Z %.15g", K, b, logZ)
		}
	}
}

func TestGradMatchesFiniteDifference(t *testing.T) {
	target := chi2.RBMTarget{M: chi2test.RandomRBM(5, 3, 1, 4)}
	q, err := chi2.NewMixture(5, 3, nil, 1, rand.New(rand.NewPCG(5, 5)))
	if err != nil {
		t.Fatal(err)
	}
	_, b0 := chi2test.ExactBound(target, q)
	gamma := math.Exp(2 * b0)
	// ∇ ½ log E_q[w²] = ½ Σ_x q(x) Grad(x; score = path = w²/γ).
	g := make([]float64, len(q.Params()))
	d := q.NewDraw()
	logp := target.NewLogP()
	for s := 0; s < 1<<5; s++ {
		for i := range d.X {
			d.X[i] = uint8(s >> i & 1)
		}
		q.Score(d)
		lw := logp(d.X) - d.LogQ
		sig := math.Exp(2*lw) / gamma
		tmp := make([]float64, len(g))
		q.Grad(d, sig, sig, tmp)
		for i := range g {
			g[i] += 0.5 * math.Exp(d.LogQ) * tmp[i]
		}
	}
	const h = 1e-6
	for i := range q.Params() {
		p := q.Params()
		old := p[i]
		p[i] = old + h
		q.Changed()
		_, up := chi2test.ExactBound(target, q)
		p[i] = old - h
		q.Changed()
		_, dn := chi2test.ExactBound(target, q)
		p[i] = old
		q.Changed()
		fd := (up - dn) / (2 * h)
		if math.Abs(fd-g[i]) > 1e-6*(1+math.Abs(fd)) {
			t.Fatalf("param %d: score-function gradient %.10g, finite difference %.10g", i, g[i], fd)
		}
	}
}

func TestFittedMixtureApproachesLogZ(t *testing.T) {
	target := chi2.RBMTarget{M: chi2test.RandomRBM(10, 4, 1.5, 31)}
	var gaps []float64
	for _, K := range []int{1, 2, 8} {
		q := chi2test.Fit(t, target, K, 1500, 11)
		logZ, b := chi2test.ExactBound(target, q)
		if b < logZ-1e-12 {
			t.Fatalf("K = %d: fitted bound %.6f under log Z %.6f", K, b, logZ)
		}
		gaps = append(gaps, b-logZ)
		t.Logf("K = %d: bound − log Z = %.4f", K, b-logZ)
	}
	if !(gaps[1] < gaps[0] && gaps[2] < gaps[0]) || gaps[2] > 0.05 {
		t.Fatalf("gaps by K = 1, 2, 8: %v; want them to shrink with K, under 0.05 at K = 8", gaps)
	}
}

func TestFitterStateRoundTrip(t *testing.T) {
	target := chi2.RBMTarget{M: chi2test.RandomRBM(6, 3, 1, 21)}
	mk := func() (*chi2.Fitter, func([]uint8) float64) {
		q, _ := chi2.NewMixture(6, 3, nil, 1, rand.New(rand.NewPCG(1, 2)))
		f, err := chi2.NewFitter(q, chi2.FitOptions{Samples: 20, LearningRate: 0.05, Decay: 0.9})
		if err != nil {
			t.Fatal(err)
		}
		return f, target.NewLogP()
	}
	a, logp := mk()
	rng := rand.New(rand.NewPCG(3, 3))
	for range 10 {
		a.Step(logp, rng)
	}
	b, _ := mk()
	if err := b.Restore(a.State()); err != nil {
		t.Fatal(err)
	}
	r1, r2 := rand.New(rand.NewPCG(4, 4)), rand.New(rand.NewPCG(4, 4))
	for range 5 {
		x, _ := a.Step(logp, r1)
		y, _ := b.Step(logp, r2)
		if x != y {
			t.Fatalf("restored fitter diverges: %g vs %g", x, y)
		}
	}
	for i, v := range a.Q.Params() {
		if b.Q.Params()[i] != v {
			t.Fatal("restored fitter's parameters differ")
		}
	}
	bad := a.State()
	bad["params"] = bad["params"][:3]
	if err := b.Restore(bad); err == nil {
		t.Fatal("short state accepted")
	}
}

func TestCheckpointState(t *testing.T) {
	q, _ := chi2.NewMixture(6, 3, nil, 1, rand.New(rand.NewPCG(1, 2)))
	opt := chi2.FitOptions{Samples: 20, LearningRate: 0.05, Decay: 0.9}
	f, _ := chi2.NewFitter(q, opt)
	logp := chi2.RBMTarget{M: chi2test.RandomRBM(6, 3, 1, 21)}.NewLogP()
	rng := rand.New(rand.NewPCG(3, 3))
	for range 5 {
		f.Step(logp, rng)
	}
	arrays, bytes := map[string]models.Array{}, map[string][]byte{}
	chi2.PutState("chi2_q_", f, arrays, bytes)
	g, err := chi2.LoadState("chi2_q_", opt, arrays, bytes)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range f.Q.Params() {
		if g.Q.Params()[i] != v {
			t.Fatal("loaded proposal differs")
		}
	}
	if _, err := chi2.LoadState("track_0_", opt, arrays, bytes); err == nil {
		t.Fatal("missing prefix accepted")
	}
	arrays["chi2_q_shape"] = models.Array{Shape: []int{2}, Data: []float64{6, 0.5}}
	if _, err := chi2.LoadState("chi2_q_", opt, arrays, bytes); err == nil {
		t.Fatal("bad shape accepted")
	}
}
