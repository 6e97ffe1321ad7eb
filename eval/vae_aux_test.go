package eval

import (
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"github.com/logz-ml/logz/internal/brute"
	"github.com/logz-ml/logz/models"
	"github.com/logz-ml/logz/models/modeltest"
)

// tinyAuxVAE is modeltest.RandomAuxVAE: X = 6, Z = 4, one hidden layer of 5,
// A = 2 auxiliary variables with nets of 3 hidden units (their parameters
// N(0, 0.25²): log σ of the Gaussians near 0, so that the weights
// p(a|x,z)/q(a|x) have a finite variance).
func tinyAuxVAE(t *testing.T, priorHidden int, seed uint64) *models.VAE {
	t.Helper()
	m, err := modeltest.RandomAuxVAE(priorHidden, 2, 3, seed, 0.7, 0.25)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func repeatRow(x []uint8, n int) cslRows {
	r := make(cslRows, n)
	for i := range r {
		r[i] = x
	}
	return r
}

// ratioStat is the mean and standard error over the estimates of
// p̂/p = exp(log p̂ − log p) (a ratio near 1, not a log weight), and the
// ratios' variance.
func ratioStat(lw []float64, logP float64) (MeanStat, float64) {
	var s, s2 float64
	for _, v := range lw {
		r := math.Exp(v - logP)
		s += r
		s2 += r * r
	}
	st := meanStat(s, s2, len(lw))
	return st, st.SE * st.SE * float64(len(lw))
}

// TestVAEAuxISUnbiased: with auxiliary variables, the mean weight of L
// proposals (a, z) ~ q(a|x) q(z|x,a) is unbiased for p̃(x), which the
// double enumeration of modeltest.VAE gives (a integrates out of p): over R
// estimates the mean of p̂/p is 1 within 4 standard errors, for L = 1 and
// L = 50, a Bernoulli and an RBM prior. At L = 5,000 each of 4 estimates
// is within 4 of its standard errors (the L = 1 variance over L) of p(x)
// and 20 times nearer to log p(x) than the ELBO is.
// Mutation checked: dropping log q(a|x) from the weight fails it (mean
// ratio 0.07 at L = 50).
func TestVAEAuxISUnbiased(t *testing.T) {
	for _, H := range []int{0, 3} {
		m := tinyAuxVAE(t, H, 5)
		for _, code := range []int{0, 45} {
			x := bitsRow(code, 6)
			lu, _ := modeltest.VAE(m, x)
			var var1, elbo float64
			for _, L := range []int{1, 50} {
				R := 10000
				if L > 1 {
					R = 400
				}
				w, err := VAEIS{Samples: L, Seed: 77}.Weights(m, repeatRow(x, R))
				if err != nil {
					t.Fatal(err)
				}
				st, vr := ratioStat(w.LogMeanW, lu)
				if L == 1 {
					var1 = vr
					var s float64
					for _, v := range w.MeanLogW {
						s += v
					}
					elbo = s / float64(R)
				}
				if math.Abs(st.Mean-1) > 4*st.SE {
					t.Errorf("prior H=%d x=%v L=%d: mean of p̂/p over %d estimates is %.4f ± %.4f; want 1", H, x, L, R, st.Mean, st.SE)
				}
			}
			if !(elbo < lu) {
				t.Errorf("prior H=%d x=%v: ELBO %.4f is not below log p̃(x) %.4f", H, x, elbo, lu)
			}
			const L = 5000
			w, err := VAEIS{Samples: L, Seed: 78}.Weights(m, repeatRow(x, 4))
			if err != nil {
				t.Fatal(err)
			}
			se := math.Sqrt(var1 / L)
			for i, v := range w.LogMeanW {
				if r := math.Exp(v - lu); math.Abs(r-1) > 4*se || math.Abs(v-lu) > (lu-elbo)/20 {
					t.Errorf("prior H=%d x=%v estimate %d at L=%d: log p̂ %.5f, exact %.5f (ratio SE %.2g, ELBO %.4f)", H, x, i, L, v, lu, se, elbo)
				}
			}
		}
	}
}

// auxELBOByHand returns E_{z ~ q(z|x,a)}[f(x,a,z)] for a = μ_q(x) +
// σ_q(x) ε, enumerating z, written out from the formulas with the nets'
// float forward passes: the encoder's hidden layer tanh(b_1 + W_1ᵀx +
// Enc(a)) by hand, the Gaussians' densities from a, μ and σ.
func auxELBOByHand(m *models.VAE, x []uint8, eps []float64) float64 {
	aux := m.Aux
	A := aux.Dim
	xf := make([]float64, len(x))
	for i, v := range x {
		xf[i] = float64(v)
	}
	gauss := func(a, mu, logSig []float64) float64 {
		t := 0.0
		for i := range a {
			sd := math.Exp(logSig[i])
			t += -0.5*(a[i]-mu[i])*(a[i]-mu[i])/(sd*sd) - math.Log(sd*math.Sqrt(2*math.Pi))
		}
		return t
	}
	qo := append([]float64(nil), aux.Q.Forward(make([]float64, aux.Q.ScratchLen()), xf)...)
	a := make([]float64, A)
	for i := range a {
		a[i] = qo[i] + math.Exp(qo[A+i])*eps[i]
	}
	lqa := gauss(a, qo[:A], qo[A:])
	g := aux.Enc.Forward(make([]float64, aux.Enc.ScratchLen()), a)
	W1, b1, W2, b2 := m.Enc.W[0], m.Enc.B[0], m.Enc.W[1], m.Enc.B[1]
	n1, Z := len(b1), len(b2)
	h := make([]float64, n1)
	for j := range h {
		v := b1[j] + g[j]
		for i, xi := range xf {
			v += xi * W1[i*n1+j]
		}
		h[j] = math.Tanh(v)
	}
	kappa := make([]float64, Z)
	for k := range kappa {
		v := b2[k]
		for j, hj := range h {
			v += hj * W2[j*Z+k]
		}
		kappa[k] = v
	}
	s := m.NewScratch()
	ps := make([]float64, aux.P.ScratchLen())
	e := 0.0
	for zc := range 1 << Z {
		z := brute.Bits(zc, Z)
		lqz := 0.0
		xz := append([]float64(nil), xf...)
		for k, zk := range z {
			p := 1 / (1 + math.Exp(-kappa[k]))
			if zk == 0 {
				p = 1 - p
			}
			lqz += math.Log(p)
			xz = append(xz, float64(zk))
		}
		po := aux.P.Forward(ps, xz)
		f := m.LogLikelihood(s, x, z) + m.LogPrior(s, z) + gauss(a, po[:A], po[A:]) - lqa - lqz
		e += math.Exp(lqz) * f
	}
	return e
}

// TestVAEAuxELBO: the elbo estimator's mean over R single-draw estimates
// equals E_ε[E_z f] (the inner expectation enumerated by hand,
// auxELBOByHand, the outer by N independent ε) within 4 combined standard
// errors, and that ELBO is below log p̃(x).
// Mutation checked: log q(a|x) in place of log p(a|x,z) in the weight
// (which leaves IS unbiased: Σ_z p(x,z) = p(x) for any a, and
// TestVAEAuxISUnbiased passes) fails it: −6.56 ± 0.01 against −9.09 ± 0.11.
func TestVAEAuxELBO(t *testing.T) {
	for _, H := range []int{0, 3} {
		m := tinyAuxVAE(t, H, 9)
		x := bitsRow(45, 6)
		lu, _ := modeltest.VAE(m, x)
		const R, N = 10000, 2000
		w, err := VAEIS{Samples: 1, Seed: 3}.Weights(m, repeatRow(x, R))
		if err != nil {
			t.Fatal(err)
		}
		var s, s2 float64
		for _, v := range w.MeanLogW {
			s, s2 = s+v, s2+v*v
		}
		est := meanStat(s, s2, R)
		rng := rand.New(rand.NewPCG(4, 5))
		eps := make([]float64, m.Aux.Dim)
		s, s2 = 0, 0
		for range N {
			for i := range eps {
				eps[i] = rng.NormFloat64()
			}
			v := auxELBOByHand(m, x, eps)
			s, s2 = s+v, s2+v*v
		}
		ref := meanStat(s, s2, N)
		t.Logf("prior H=%d: ELBO estimator %.4f ± %.4f, by hand %.4f ± %.4f, log p̃(x) %.4f", H, est.Mean, est.SE, ref.Mean, ref.SE, lu)
		if d := math.Abs(est.Mean - ref.Mean); d > 4*math.Hypot(est.SE, ref.SE) {
			t.Errorf("prior H=%d: ELBO estimator %.4f ± %.4f, by hand %.4f ± %.4f", H, est.Mean, est.SE, ref.Mean, ref.SE)
		}
		if !(ref.Mean+4*ref.SE < lu) {
			t.Errorf("prior H=%d: ELBO %.4f ± %.4f not below log p̃(x) %.4f", H, ref.Mean, ref.SE, lu)
		}
	}
}

// TestVAEAuxSameNumbersAnyGOMAXPROCS: the auxiliary model's IS and ELBO
// are bit-identical on 1 and 3 threads.
func TestVAEAuxSameNumbersAnyGOMAXPROCS(t *testing.T) {
	m := tinyAuxVAE(t, 3, 9)
	x := allStates(6)[:16]
	run := func(p int) VAEWeights {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(p))
		w, err := VAEIS{Samples: 2500, Seed: 5}.Weights(m, x) // 3 blocks per example
		if err != nil {
			t.Fatal(err)
		}
		return w
	}
	w1, w3 := run(1), run(3)
	if !slices.Equal(w1.LogMeanW, w3.LogMeanW) || !slices.Equal(w1.MeanLogW, w3.MeanLogW) {
		t.Error("results depend on GOMAXPROCS")
	}
}

// benchVAEIS times VAEIS on n MNIST-like examples of a 784-500-200 VAE
// with a Bernoulli prior (aux auxiliary variables with nets of 32 units;
// 0: none), K proposals each.
func benchVAEIS(b *testing.B, aux, n, K int) {
	m, err := models.NewVAE(784, 200, []int{500}, 0)
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	m.Dec.Init(rng)
	m.Enc.Init(rng)
	if aux > 0 {
		if err := m.AddAux(aux, 32); err != nil {
			b.Fatal(err)
		}
		for _, net := range m.Aux.Nets() {
			net.Init(rng)
		}
	}
	data := make(cslRows, n)
	for k := range data {
		x := make([]uint8, 784)
		for i := range x {
			if rng.Float64() < 0.13 {
				x[i] = 1
			}
		}
		data[k] = x
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		if _, err := (VAEIS{Samples: K, Seed: uint64(i)}).Weights(m, data); err != nil {
			b.Fatal(err)
		}
	}
}

// 10 examples × 500 proposals, plain and with 10 auxiliary variables.
func BenchmarkVAEISBer200(b *testing.B)    { benchVAEIS(b, 0, 10, 500) }
func BenchmarkVAEISBer200Aux(b *testing.B) { benchVAEIS(b, 10, 10, 500) }

// 200 examples × 1 proposal (the ELBO's control variate's shape).
func BenchmarkVAEISBer200OneDraw(b *testing.B)    { benchVAEIS(b, 0, 200, 1) }
func BenchmarkVAEISBer200AuxOneDraw(b *testing.B) { benchVAEIS(b, 10, 200, 1) }
