package eval

import (
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/logz-ml/logz/models"
	"github.com/logz-ml/logz/models/modeltest"
)

// tinyVAE is modeltest.RandomVAE: X = 6, Z = 4, one hidden layer of 5, and an
// RBM(4, priorHidden) prior (0: a Bernoulli prior), every parameter N(0, scale²).
func tinyVAE(t *testing.T, priorHidden int, seed uint64, scale float64) *models.VAE {
	t.Helper()
	m, err := modeltest.RandomVAE(priorHidden, seed, scale)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestVAEExactLogUnnormMatchesBruteForce: VAEExactLogUnnorm's log p̃(x)
// (2^Z terms in blocks) equals the double enumeration over z and h, for an
// RBM and a Bernoulli prior, and p(x) = p̃(x)/Z sums to 1 over every x.
func TestVAEExactLogUnnormMatchesBruteForce(t *testing.T) {
	x := allStates(6)
	for _, H := range []int{3, 0} {
		m := tinyVAE(t, H, 11, 1.0)
		lp, err := VAEExactLogUnnorm(m, x, 20, nil)
		if err != nil {
			t.Fatal(err)
		}
		_, logZ := modeltest.VAE(m, x[0])
		sum := 0.0
		for n := range x {
			sum += math.Exp(lp[n] - logZ)
			if want, _ := modeltest.VAE(m, x[n]); math.Abs(lp[n]-want) > 1e-10 {
				t.Errorf("H=%d x=%v: log p̃ %.12f, brute force %.12f", H, x[n], lp[n], want)
			}
		}
		if math.Abs(sum-1) > 1e-10 {
			t.Errorf("H=%d: Σ_x p(x) = %.12f", H, sum)
		}
	}
}

// TestVAEISUnbiased: the IS estimate p̂(x) is unbiased for p(x) for any K,
// so over R independent estimates the mean of exp(log p̂ − log p) is 1
// within 4 standard errors (the sample's own). K = 3 proposals, so that
// the mean weight and the sum differ by log 3. Mutation checked: "− logK"
// dropped from VAEIS.Weights (the sum, not the mean) fails it (mean ratio
// ≈ 3).
func TestVAEISUnbiased(t *testing.T) {
	m := tinyVAE(t, 3, 5, 1.0)
	const R = 20000
	for _, code := range []int{0, 45} {
		x := bitsRow(code, 6)
		rep := make(cslRows, R)
		for i := range rep {
			rep[i] = x
		}
		w, err := VAEIS{Samples: 3, Seed: 77}.Weights(m, rep)
		if err != nil {
			t.Fatal(err)
		}
		lu, logZ := modeltest.VAE(m, x)
		var s, s2 float64
		for _, v := range w.LogMeanW {
			r := math.Exp(v - lu) // a ratio p̂/p, not a log weight
			s += r
			s2 += r * r
		}
		st := meanStat(s, s2, R)
		if math.Abs(st.Mean-1) > 4*st.SE {
			t.Errorf("x=%v: mean of p̂/p over %d estimates is %.4f ± %.4f; want 1 (log Z %.3f)", x, R, st.Mean, st.SE, logZ)
		}
		// Power: SE 0.019 and 0.062 for these two images; a noisier
		// estimator would pass the 4σ check too easily.
		if st.SE > 0.1 {
			t.Errorf("x=%v: SE %.4f of the mean of p̂/p is above 0.1", x, st.SE)
		}
	}
}

// TestVAESameNumbersAnyGOMAXPROCS: IS, ELBO and exact give bit-identical
// results on 1 and 3 threads.
func TestVAESameNumbersAnyGOMAXPROCS(t *testing.T) {
	m := tinyVAE(t, 3, 9, 1.0)
	x := allStates(6)
	run := func(p int) (VAEWeights, []float64) {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(p))
		w, err := VAEIS{Samples: 2500, Seed: 5}.Weights(m, x)
		if err != nil {
			t.Fatal(err)
		}
		lp, err := VAEExactLogUnnorm(m, x, 20, nil)
		if err != nil {
			t.Fatal(err)
		}
		return w, lp
	}
	w1, e1 := run(1)
	w3, e3 := run(3)
	if !slices.Equal(w1.LogMeanW, w3.LogMeanW) || !slices.Equal(w1.MeanLogW, w3.MeanLogW) || !slices.Equal(e1, e3) {
		t.Error("results depend on GOMAXPROCS")
	}
}

// TestVAEBadInput: wrong example sizes and non-binary data are errors
// naming the example, not panics; so are no proposals and too many latent
// units to enumerate.
func TestVAEBadInput(t *testing.T) {
	m := tinyVAE(t, 3, 1, 1.0)
	for _, x := range []cslRows{{{0, 1, 0}}, {{0, 1, 2, 0, 0, 0}}} {
		if _, err := (VAEIS{Samples: 10, Seed: 1}).Weights(m, x); err == nil || !strings.Contains(err.Error(), "example 0") {
			t.Errorf("%v: %v", x, err)
		}
		if _, err := VAEExactLogUnnorm(m, x, 20, nil); err == nil {
			t.Errorf("%v: no error", x)
		}
	}
	if _, err := (VAEIS{}).Weights(m, allStates(6)); err == nil {
		t.Error("0 samples: no error")
	}
	if _, err := VAEExactLogUnnorm(m, allStates(6), 3, nil); err == nil || !strings.Contains(err.Error(), "max_units") {
		t.Errorf("Z = 4 above max_units 3: %v", err)
	}
}

// BenchmarkVAEISPerExample times the importance-sampling estimate of one
// example with 5,000 proposals (the is estimator's default) on a
// 784-500-64 VAE with an RBM(64,64) prior: one op = one example.
func BenchmarkVAEISPerExample(b *testing.B) {
	m, err := models.NewVAE(784, 64, []int{500}, 64)
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	m.Dec.Init(rng)
	m.Enc.Init(rng)
	x := make([]uint8, 784)
	for i := range x {
		if rng.Float64() < 0.13 {
			x[i] = 1
		}
	}
	data := cslRows{x}
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		if _, err := (VAEIS{Samples: 5000, Seed: uint64(i)}).Weights(m, data); err != nil {
			b.Fatal(err)
		}
	}
}
