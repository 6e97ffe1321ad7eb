package eval

import (
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"syscall"
	"testing"

	"github.com/logz-ml/logz/data"
	"github.com/logz-ml/logz/internal/nmath"
	"github.com/logz-ml/logz/internal/seeds"
	"github.com/logz-ml/logz/models"
)

// vaeISReference is VAEIS.Weights as it was before the batched decoder:
// one proposal at a time, m.LogLikelihood and m.LogPrior (mlp's
// matrix–vector forward pass), the same streams and order of draws,
// serially. It also returns, per example, a bound on how far the batched
// path's LogMeanW, MeanLogW and ESS (relative) may differ by float64
// rounding (vaeBatchBound), for a decoder with at most one hidden layer.
func vaeISReference(t testing.TB, m *models.VAE, x data.Examples, samples int, seed uint64) (w, tol VAEWeights) {
	if len(m.DecSizes) > 3 {
		t.Fatalf("the reference's bound is for at most one hidden layer, not %v", m.DecSizes)
	}
	N, Z := x.Len(), m.NumLatent()
	blocks := (samples + vaeISBlock - 1) / vaeISBlock
	s := m.NewScratch()
	z := make([]uint8, Z)
	kappa := make([]float64, Z)
	pcg := rand.NewPCG(0, 0)
	rng := rand.New(pcg)
	w = VAEWeights{LogMeanW: make([]float64, N), MeanLogW: make([]float64, N), ESS: make([]float64, N)}
	tol = VAEWeights{LogMeanW: make([]float64, N), MeanLogW: make([]float64, N), ESS: make([]float64, N)}
	const u = 0x1p-53
	K := float64(samples)
	for ex := range N {
		a := newVAELogAcc()
		var maxD, sumD, sumAbs float64
		for b := range blocks {
			pcg.Seed(seeds.Derive(seed, uint64(ex), uint64(b)), seeds.Derive(seed, uint64(ex), uint64(b), 1))
			xr := x.Row(ex)
			copy(kappa, m.EncoderLogits(s, xr))
			ab := newVAELogAcc()
			for range min(vaeISBlock, samples-b*vaeISBlock) {
				lq := models.SampleBernoulliLogits(z, kappa, rng)
				ll := m.LogLikelihood(s, xr, z)
				lp := m.LogPrior(s, z)
				lw := ll + lp - lq
				ab.add(lw)
				d := vaeBatchBound(m, s, ll, lp, lq)
				maxD, sumD, sumAbs = max(maxD, d), sumD+d, sumAbs+math.Abs(lw)
			}
			if b == 0 {
				a = ab
			} else {
				a.merge(ab)
			}
		}
		w.LogMeanW[ex] = a.w.LogSum() - math.Log(K)
		w.MeanLogW[ex] = a.sum / K
		w.ESS[ex] = a.w.ESS()
		// The accumulators' own rounding (each path): the K exps and
		// sums of S1 and S2 within (K+4)u relative, and the final log
		// and subtractions within a few ulps of the result.
		acc := 4 * (K + 4) * u
		tol.LogMeanW[ex] = maxD + acc + 8*u*(math.Abs(w.LogMeanW[ex])+math.Log(K))
		tol.MeanLogW[ex] = sumD/K + 2*(K+2)*u*sumAbs/K
		tol.ESS[ex] = math.Expm1(4*maxD) + 2*acc
	}
	return w, tol
}

// vaeBatchBound bounds |lw_batched − lw| for one proposal of
// vaeISReference, whose decoder forward pass is in s (ll = log p(x|z),
// lp = log p̃(z), lq = log q(z|x)). The latents' sums (the decoder's
// first layer, the prior's) are exact-order sums of the same terms in
// both paths, so bit-identical; the prior and q terms too. A hidden layer
// of n real inputs u makes each output logit ℓ_j = b_j + Σ_i u_i w_ij a
// recursive sum with each product rounded (mlp: 2 roundings per term) or
// fused (gemm: 1): each within γ_{n+1}·T_j of the exact value, T_j =
// |b_j| + Σ_i |u_i w_ij| (Higham, Accuracy and Stability, §3.1), so the
// two differ by at most 2γ_{n+1}T_j. log p(x|z) = −Σ_j softplus(±ℓ_j) is
// 1-Lipschitz in each ℓ_j; each softplus is computed within 4u of its
// value and the sum of X terms within γ_X Σ_j softplus (both paths); the
// two additions forming lw, within 2u of |ll| + |lp| + |lq| each.
func vaeBatchBound(m *models.VAE, s *models.VAEScratch, ll, lp, lq float64) float64 {
	const u = 0x1p-53
	gamma := func(n int) float64 { return float64(n) * u / (1 - float64(n)*u) }
	X := m.NumVisible()
	softs := -ll // Σ_j softplus(±ℓ_j) ≥ 0
	d := 2 * (4*u + gamma(X)) * softs
	d += 4 * u * (math.Abs(ll) + math.Abs(lp) + math.Abs(lq))
	if len(m.DecSizes) == 2 {
		return d // no hidden layer: the logits are bit-identical
	}
	n := m.DecSizes[1]
	hid := s.DecScratch()[:n] // u = tanh(z_1), left by the forward pass
	W, b := m.Dec.W[1], m.Dec.B[1]
	g := 2 * gamma(n+1)
	for j := range X {
		T := math.Abs(b[j])
		for i, ui := range hid {
			T += math.Abs(ui * W[i*X+j])
		}
		d += g * T
	}
	return d
}

// randomVAE is a VAE X-hidden-Z with an RBM(Z, H) prior (H = 0: Bernoulli)
// and every parameter N(0, scale²).
func randomVAE(t testing.TB, X, Z int, hidden []int, H int, seed uint64, scale float64) *models.VAE {
	t.Helper()
	m, err := models.NewVAE(X, Z, hidden, H)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(seed, 3))
	fill := func(xs ...[]float64) {
		for _, v := range xs {
			for i := range v {
				v[i] = scale * rng.NormFloat64()
			}
		}
	}
	fill(m.Dec.Params(), m.Enc.Params())
	if m.Prior != nil {
		fill(m.Prior.W, m.Prior.VBias, m.Prior.HBias)
	} else {
		fill(m.PriorLogits)
	}
	return m
}

// randomRows is n random binary rows of X units, each 1 with probability p.
func randomRows(n, X int, p float64, seed uint64) cslRows {
	rng := rand.New(rand.NewPCG(seed, 4))
	out := make(cslRows, n)
	for r := range out {
		out[r] = make([]uint8, X)
		for i := range out[r] {
			if rng.Float64() < p {
				out[r][i] = 1
			}
		}
	}
	return out
}

// vaeISAt is VAEIS{samples, seed}.Weights(m, x) with GOMAXPROCS p.
func vaeISAt(t *testing.T, p int, m *models.VAE, x data.Examples, samples int, seed uint64) VAEWeights {
	t.Helper()
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(p))
	w, err := VAEIS{Samples: samples, Seed: seed}.Weights(m, x)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// TestVAEISBatchedBitIdentical: with a decoder without a hidden layer
// (z → ℓ directly: every sum one of 0/1-selected terms in the same
// order), the batched VAEIS.Weights is bit-identical to the one-at-a-time
// reference, for a Bernoulli and an RBM prior, on 1 and 3 threads, with
// 2,345 proposals (three blocks, a partial batch, a partial block).
// Mutations checked: dropping the bias row from the decoder's layer
// ([W] for [b; W]) and putting the bias last ([W; b] with rows [z, 1])
// both fail it.
func TestVAEISBatchedBitIdentical(t *testing.T) {
	for _, H := range []int{0, 7} {
		m := randomVAE(t, 30, 12, nil, H, 21, 1.0)
		x := randomRows(5, 30, 0.3, 8)
		want, _ := vaeISReference(t, m, x, 2345, 99)
		for _, p := range []int{1, 3} {
			got := vaeISAt(t, p, m, x, 2345, 99)
			if !slices.Equal(got.LogMeanW, want.LogMeanW) || !slices.Equal(got.MeanLogW, want.MeanLogW) || !slices.Equal(got.ESS, want.ESS) {
				t.Errorf("H=%d GOMAXPROCS=%d: batched %v %v %v,\nreference %v %v %v", H, p,
					got.LogMeanW, got.MeanLogW, got.ESS, want.LogMeanW, want.MeanLogW, want.ESS)
			}
		}
	}
}

// TestVAEISBatchedWithinRounding: with a hidden layer (real inputs to the
// output layer, whose terms gemm fuses and mlp rounds twice) the batched
// path agrees with the one-at-a-time reference within vaeBatchBound, per
// example, for a Bernoulli and an RBM prior, on 1 and 3 threads (which
// agree bit for bit). Mutations checked: the output layer's bias dropped
// ([W] for [b; W]) and tanh skipped on the hidden layer fail it.
func TestVAEISBatchedWithinRounding(t *testing.T) {
	for _, H := range []int{0, 9} {
		m := randomVAE(t, 40, 10, []int{25}, H, 5, 0.7)
		x := randomRows(6, 40, 0.2, 3)
		want, tol := vaeISReference(t, m, x, 1234, 7)
		var first VAEWeights
		worst := 0.0
		for _, p := range []int{1, 3} {
			got := vaeISAt(t, p, m, x, 1234, 7)
			for n := range want.LogMeanW {
				worst = max(worst, math.Abs(got.LogMeanW[n]-want.LogMeanW[n])/tol.LogMeanW[n])
				if d := math.Abs(got.LogMeanW[n] - want.LogMeanW[n]); d > tol.LogMeanW[n] {
					t.Errorf("H=%d p=%d example %d: log mean w %.17g, reference %.17g (|Δ| %.3g > %.3g)", H, p, n, got.LogMeanW[n], want.LogMeanW[n], d, tol.LogMeanW[n])
				}
				if d := math.Abs(got.MeanLogW[n] - want.MeanLogW[n]); d > tol.MeanLogW[n] {
					t.Errorf("H=%d p=%d example %d: mean log w %.17g, reference %.17g (|Δ| %.3g > %.3g)", H, p, n, got.MeanLogW[n], want.MeanLogW[n], d, tol.MeanLogW[n])
				}
				if d := math.Abs(got.ESS[n]/want.ESS[n] - 1); d > tol.ESS[n] {
					t.Errorf("H=%d p=%d example %d: ESS %.17g, reference %.17g (relative %.3g > %.3g)", H, p, n, got.ESS[n], want.ESS[n], d, tol.ESS[n])
				}
			}
			if p == 1 {
				first = got
			} else if !slices.Equal(first.LogMeanW, got.LogMeanW) || !slices.Equal(first.MeanLogW, got.MeanLogW) || !slices.Equal(first.ESS, got.ESS) {
				t.Errorf("H=%d: batched results depend on GOMAXPROCS", H)
			}
		}
		t.Logf("H=%d: largest |Δ log mean w| / bound %.3g", H, worst)
	}
}

// BenchmarkVAEISItem times one work item of VAEIS.Weights (one example,
// vaeISBlock = 1,000 proposals) on the Table 1 VAEs, 784-500-200 with a
// Bernoulli prior and 784-500-64 with an RBM(64,64) prior, batched (new)
// and one proposal at a time (old: vaeISReference, whose rounding bound
// costs extra, so old runs it with the bound switched off), one thread.
func BenchmarkVAEISItem(b *testing.B) {
	for _, c := range []struct {
		name string
		Z, H int
	}{{"ber200", 200, 0}, {"rbm64x64", 64, 64}} {
		m := randomVAE(b, 784, c.Z, []int{500}, c.H, 1, 0.05)
		x := randomRows(1, 784, 0.13, 2)
		for _, path := range []string{"old", "new"} {
			b.Run(c.name+"/"+path, func(b *testing.B) {
				defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
				b.ReportAllocs()
				cpu0 := cpuSeconds()
				for i := range b.N {
					if path == "old" {
						vaeISOld(m, x, vaeISBlock, uint64(i))
						continue
					}
					if _, err := (VAEIS{Samples: vaeISBlock, Seed: uint64(i)}).Weights(m, x); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.N*vaeISBlock)/b.Elapsed().Seconds(), "proposals/s")
				b.ReportMetric(float64(b.N*vaeISBlock)/(cpuSeconds()-cpu0), "proposals/cpu-s")
			})
		}
	}
}

// cpuSeconds is the process's user + system CPU time: on a machine shared
// with other jobs, proposals per CPU second vary less than per second.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return math.NaN()
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

// vaeISOld is the old work item loop alone (vaeISReference without the
// bound), for the benchmark: the log-sum of the weights of example 0's
// first block.
func vaeISOld(m *models.VAE, x data.Examples, k int, seed uint64) float64 {
	s := m.NewScratch()
	z := make([]uint8, m.NumLatent())
	kappa := make([]float64, m.NumLatent())
	pcg := rand.NewPCG(seeds.Derive(seed, 0, 0), seeds.Derive(seed, 0, 0, 1))
	rng := rand.New(pcg)
	xr := x.Row(0)
	copy(kappa, m.EncoderLogits(s, xr))
	a := nmath.NewLogWeights()
	for range k {
		lq := models.SampleBernoulliLogits(z, kappa, rng)
		a.Add(m.LogLikelihood(s, xr, z) + m.LogPrior(s, z) - lq)
	}
	return a.LogSum()
}

// TestVAEExactBatchedMatchesPerState: VAEExactLogUnnorm on 2^10 latent
// states (four blocks of 256, each in batches of vaeExactBatch) equals the
// logsumexp of m.LogLikelihood + m.LogPrior over the states one at a time,
// within vaeBatchBound of the largest term plus the two accumulations'
// rounding (2^Z exps and sums each within (2^Z+4)u relative), for a
// Bernoulli and an RBM prior. Mutations checked: every batch decoding the
// states of the block's first batch (code := start + r), and every block
// those of the first block (code := j0 + r), fail it.
func TestVAEExactBatchedMatchesPerState(t *testing.T) {
	const u = 0x1p-53
	for _, H := range []int{0, 6} {
		m := randomVAE(t, 12, 10, []int{8}, H, 17, 1.0)
		x := randomRows(4, 12, 0.4, 6)
		got, err := VAEExactLogUnnorm(m, x, 20, nil)
		if err != nil {
			t.Fatal(err)
		}
		s := m.NewScratch()
		z := make([]uint8, 10)
		for n := range x {
			a := nmath.NewLogWeights()
			maxD := 0.0
			for code := range 1 << 10 {
				for i := range z {
					z[i] = uint8(code >> i & 1)
				}
				ll := m.LogLikelihood(s, x[n], z)
				lp := m.LogPrior(s, z)
				a.Add(ll + lp)
				maxD = max(maxD, vaeBatchBound(m, s, ll, lp, 0))
			}
			want := a.LogSum()
			tol := maxD + 8*(1<<10+4)*u + 8*u*math.Abs(want)
			if d := math.Abs(got[n] - want); d > tol {
				t.Errorf("H=%d example %d: log p̃(x) %.17g, per state %.17g (|Δ| %.3g > %.3g)", H, n, got[n], want, d, tol)
			}
		}
	}
}
