package train

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/logz-ml/logz/models"
	"github.com/logz-ml/logz/models/modeltest"
)

var mobDefaults = MoBOptions{Epochs: 10, Smoothing: 1, WeightSmoothing: 1, InitShrink: 0.5}

// plantedMoB draws n examples of a mixture m (component by its weight,
// then each unit by its μ), from rng.
func plantedMoB(m *models.MoB, n int, rng *rand.Rand) rows {
	pi := m.LogMix()
	out := make(rows, n)
	for i := range out {
		u, k := rng.Float64(), 0
		for c := 0.0; k < m.K-1; k++ {
			if c += math.Exp(pi[k]); u < c {
				break
			}
		}
		x := make([]uint8, m.D)
		for d := range x {
			if rng.Float64() < 1/(1+math.Exp(-m.Logits[k*m.D+d])) {
				x[d] = 1
			}
		}
		out[i] = x
	}
	return out
}

// TestMoBStepAgainstFormula: one EM iteration from a random mixture gives
// the parameters of the M-step computed directly in plain probabilities
// (responsibilities r_nk = π_k p(x_n|k)/p(x_n) by modeltest.MoB, N_k = Σ r_nk,
// S_kd = Σ r_nk x_nd, μ = (S + α)/(N_k + 2α), π = (N_k + β)/(N + Kβ)), and
// its signal is the mean log p at the starting parameters; with 2,500
// examples the statistics run in three blocks. Tolerance: float64
// rounding of sums of 2,500 terms (1e-10 relative). The stored
// log-weights are compared as they are (normalised by the M-step, not
// where used). Mutation checked: μ = (S + α)/(N_k + α), π's denominator
// N + β, no counts N_k (their item dropped), pixel lists read from their
// ends (no shift back of pixAt) and responsibilities left unnormalised
// each fail.
func TestMoBStepAgainstFormula(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	K, D, N := 3, 5, 2500
	m, err := modeltest.RandomMoB(K, D, 1.5, rng)
	if err != nil {
		t.Fatal(err)
	}
	x := plantedMoB(m, N, rng)
	start := m.Clone()
	opt := MoBOptions{Epochs: 1, Smoothing: 0.7, WeightSmoothing: 2.5, InitShrink: 0.5}
	tr, err := NewMoBTrainer(m, opt, 1, 3)
	if err != nil {
		t.Fatal(err)
	}
	tr.block = 1000 // three blocks, the last one short
	sum, err := tr.TrainEpoch(x)
	if err != nil {
		t.Fatal(err)
	}
	nk, s := make([]float64, K), make([]float64, K*D)
	ll := 0.0
	for _, row := range x {
		p := modeltest.MoB(start, row)
		ll += math.Log(p)
		for k := range K {
			one := &models.MoB{K: 1, D: D, LogWeights: []float64{0}, Logits: start.Logits[k*D : (k+1)*D]}
			r := math.Exp(start.LogMix()[k]) * modeltest.MoB(one, row) / p
			nk[k] += r
			for d, v := range row {
				s[k*D+d] += r * float64(v)
			}
		}
	}
	near := func(what string, got, want float64) {
		if math.Abs(got-want) > 1e-10*math.Max(1, math.Abs(want)) {
			t.Errorf("%s: %.15g, by the formula %.15g", what, got, want)
		}
	}
	near("signal (mean log p before the step)", sum.ReconError, ll/float64(N))
	if sum.Signal != SignalEMLogLik || sum.Epoch != 1 {
		t.Errorf("summary %+v", sum)
	}
	for k := range K {
		near("π", math.Exp(m.LogWeights[k]), (nk[k]+2.5)/(float64(N)+float64(K)*2.5))
		for d := range D {
			near("μ", 1/(1+math.Exp(-m.Logits[k*D+d])), (s[k*D+d]+0.7)/(nk[k]+1.4))
		}
	}
}

// TestMoBEMMonotoneAndRecovers: on 4,000 draws of a planted mixture of 3
// well-separated components over 12 units, EM from the data (the
// initialisation included) never decreases the penalised log-likelihood
// (MoBObjective) at the default smoothing, nor — at smoothing 1e-9, where
// the prior is negligible — the log-likelihood itself (the signal); beyond
// float64 rounding (1e-12 relative) either is a failure. After 40
// iterations it recovers the planted weights and means within 4 standard
// errors of their sampling error (√(π(1−π)/N), √(μ(1−μ)/(Nπ))), matched
// by the best permutation of components; the workers do not change a
// bit. Mutation checked: an M-step that is not the posterior mode — μ =
// (S + α)/(N_k + α), or logits shifted by +0.05 — lowers the objective
// from epoch 7 on; log-weights tempered by 0.9 fail recovery (0.468 for a
// planted 0.5, 4 SE = 0.032).
func TestMoBEMMonotoneAndRecovers(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	K, D, N := 3, 12, 4000
	planted, _ := models.NewMoB(K, D)
	copy(planted.LogWeights, []float64{math.Log(0.5), math.Log(0.3), math.Log(0.2)})
	for k := range K {
		for d := range D {
			mu := 0.1
			if (d/4 == k) || (d%3 == k) {
				mu = 0.85
			}
			planted.Logits[k*D+d] = math.Log(mu / (1 - mu))
		}
	}
	x := plantedMoB(planted, N, rng)
	for _, c := range []struct {
		smoothing float64
		signal    bool
	}{{1, false}, {1e-9, true}} {
		opt := mobDefaults
		opt.Smoothing, opt.Epochs = c.smoothing, 40
		m, _ := models.NewMoB(K, D)
		tr, err := NewMoBTrainer(m, opt, 5, 2)
		if err != nil {
			t.Fatal(err)
		}
		if err := tr.InitFromData(x); err != nil {
			t.Fatal(err)
		}
		prevF, prevL := math.Inf(-1), math.Inf(-1)
		for e := range opt.Epochs {
			f := MoBObjective(m, x, opt)
			sum, err := tr.TrainEpoch(x)
			if err != nil {
				t.Fatal(err)
			}
			if f < prevF-1e-12*math.Abs(f) {
				t.Errorf("smoothing %g, epoch %d: objective fell from %.12f to %.12f", c.smoothing, e, prevF, f)
			}
			if c.signal && sum.ReconError < prevL-1e-12*math.Abs(sum.ReconError) {
				t.Errorf("smoothing %g, epoch %d: log-likelihood fell from %.12f to %.12f", c.smoothing, e+1, prevL, sum.ReconError)
			}
			prevF, prevL = f, sum.ReconError
		}
		// Recovery, under the best matching of components.
		pi := m.LogMix()
		best, bestErr := []int(nil), math.Inf(1)
		for _, p := range [][]int{{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}} {
			e := 0.0
			for k := range K {
				for d := range D {
					e += math.Abs(sigm(m.Logits[p[k]*D+d]) - sigm(planted.Logits[k*D+d]))
				}
			}
			if e < bestErr {
				best, bestErr = p, e
			}
		}
		for k := range K {
			pk := math.Exp(planted.LogWeights[k])
			if got, se := math.Exp(pi[best[k]]), math.Sqrt(pk*(1-pk)/float64(N)); math.Abs(got-pk) > 4*se {
				t.Errorf("smoothing %g: weight of planted component %d: %.4f, planted %.4f (4 SE = %.4f)", c.smoothing, k, got, pk, 4*se)
			}
			for d := range D {
				mu := sigm(planted.Logits[k*D+d])
				se := math.Sqrt(mu * (1 - mu) / (float64(N) * pk))
				if got := sigm(m.Logits[best[k]*D+d]); math.Abs(got-mu) > 4*se {
					t.Errorf("smoothing %g: μ[%d,%d] %.4f, planted %.4f (4 SE = %.4f)", c.smoothing, k, d, got, mu, 4*se)
				}
			}
		}
	}
}

func sigm(e float64) float64 { return 1 / (1 + math.Exp(-e)) }

// TestMoBWorkersSameBits: 1, 2 and 5 workers train the same bits, the
// initialisation included (with several blocks per epoch). Mutation
// checked: summing the counts N_k in two parts split where the number of
// workers says (a worker-dependent grouping) differs in the last bits.
func TestMoBWorkersSameBits(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	planted, _ := modeltest.RandomMoB(4, 20, 2, rng)
	x := plantedMoB(planted, 700, rng)
	var ref *models.MoB
	for _, w := range []int{1, 2, 5} {
		m, _ := models.NewMoB(6, 20)
		opt := mobDefaults
		opt.Epochs = 3
		tr, err := NewMoBTrainer(m, opt, 9, w)
		if err != nil {
			t.Fatal(err)
		}
		tr.block = 256
		if err := tr.InitFromData(x); err != nil {
			t.Fatal(err)
		}
		for range 3 {
			if _, err := tr.TrainEpoch(x); err != nil {
				t.Fatal(err)
			}
		}
		if ref == nil {
			ref = m
			continue
		}
		for i, v := range m.Logits {
			if math.Float64bits(v) != math.Float64bits(ref.Logits[i]) {
				t.Fatalf("%d workers: logits[%d] %v, with 1 worker %v", w, i, v, ref.Logits[i])
			}
		}
		for k, v := range m.LogWeights {
			if math.Float64bits(v) != math.Float64bits(ref.LogWeights[k]) {
				t.Fatalf("%d workers: log_weights[%d] %v, with 1 worker %v", w, k, v, ref.LogWeights[k])
			}
		}
	}
}

// TestMoBBadOptions: smoothing ≤ 0 (or not finite), weight_smoothing ≤ 0,
// init_shrink outside (0,1) and more components than examples are errors
// that name the setting.
func TestMoBBadOptions(t *testing.T) {
	m, _ := models.NewMoB(3, 4)
	for _, c := range []struct {
		mod  func(*MoBOptions)
		want string
	}{
		{func(o *MoBOptions) { o.Smoothing = 0 }, "smoothing 0"},
		{func(o *MoBOptions) { o.Smoothing = -1 }, "smoothing -1"},
		{func(o *MoBOptions) { o.Smoothing = math.NaN() }, "smoothing NaN"},
		{func(o *MoBOptions) { o.Smoothing = math.Inf(1) }, "smoothing +Inf"},
		{func(o *MoBOptions) { o.WeightSmoothing = 0 }, "weight_smoothing 0"},
		{func(o *MoBOptions) { o.InitShrink = 0 }, "init_shrink 0"},
		{func(o *MoBOptions) { o.InitShrink = 1 }, "init_shrink 1"},
	} {
		o := mobDefaults
		c.mod(&o)
		if _, err := NewMoBTrainer(m, o, 1, 1); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("want an error containing %q, got %v", c.want, err)
		}
	}
	tr, err := NewMoBTrainer(m, mobDefaults, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := tr.InitFromData(rows{{0, 1, 0, 1}, {1, 1, 0, 0}}); err == nil || !strings.Contains(err.Error(), "model.components is 3, more than the 2 training examples") {
		t.Errorf("3 components from 2 examples: %v", err)
	}
	if err := tr.InitFromData(rows{{0, 1, 0}}); err == nil || !strings.Contains(err.Error(), "examples have 3 units, the model 4") {
		t.Errorf("3-unit examples: %v", err)
	}
}

// BenchmarkMoBEpoch784x500 is one EM iteration of a 500-component mixture
// on 50,000 MNIST-like examples (13% of the pixels on) on one worker: the
// unit of configs/repro-2008-mob.yaml's largest experiment.
func BenchmarkMoBEpoch784x500(b *testing.B) {
	x := mnistLike(50000)
	m, _ := models.NewMoB(500, 784)
	tr, err := NewMoBTrainer(m, mobDefaults, 1, 1)
	if err != nil {
		b.Fatal(err)
	}
	if err := tr.InitFromData(x); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if _, err := tr.TrainEpoch(x); err != nil {
			b.Fatal(err)
		}
	}
}
