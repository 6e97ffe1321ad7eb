// Package modeltest holds, for tests only, reference answers by direct
// enumeration against the models (a VAE's log p̃(x) and log Z, a mixture
// of Bernoullis' log p(x)): slow, in plain probabilities rather than log
// space, and written independently of the code they check, so that a test
// compares that code with mathematics rather than with itself; and the
// tiny random models those tests share.
package modeltest

import (
	"math"
	"math/rand/v2"

	"github.com/logz-ml/logz/internal/brute"
	"github.com/logz-ml/logz/models"
)

// VAE returns log p̃(x) and log Z of a VAE with a Bernoulli or RBM prior by
// the double enumeration of the latents z and the prior's hidden units h:
//
//	p̃(x) = Σ_z Σ_h e^{−E(z,h)} p(x|z),   Z = Σ_z Σ_h e^{−E(z,h)}
//
// (for a Bernoulli prior e^{−E} is the product of its unit probabilities and
// Z = 1), with p(x|z) = Π_i σ(ℓ_i)^{x_i} (1 − σ(ℓ_i))^{1−x_i}, ℓ the decoder's
// logits. log p(x) = log p̃(x) − log Z.
func VAE(m *models.VAE, x []uint8) (logUnnorm, logZ float64) {
	s := m.NewScratch()
	Z := m.NumLatent()
	num, den := 0.0, 0.0
	for zc := range 1 << Z {
		z := brute.Bits(zc, Z)
		pz := 0.0
		if r := m.Prior; r != nil {
			for hc := range 1 << r.NHid {
				h := brute.Bits(hc, r.NHid)
				e := 0.0
				for i := range Z {
					e += float64(z[i]) * r.VBias[i]
					for j := range r.NHid {
						e += float64(z[i]) * r.W[i*r.NHid+j] * float64(h[j])
					}
				}
				for j := range r.NHid {
					e += float64(h[j]) * r.HBias[j]
				}
				pz += math.Exp(e)
			}
		} else {
			pz = 1
			for j, l := range m.PriorLogits {
				p := 1 / (1 + math.Exp(-l))
				if z[j] == 0 {
					p = 1 - p
				}
				pz *= p
			}
		}
		px := 1.0
		for i, l := range m.DecoderLogits(s, z) {
			p := 1 / (1 + math.Exp(-l))
			if x[i] == 0 {
				p = 1 - p
			}
			px *= p
		}
		num += pz * px
		den += pz
	}
	return math.Log(num), math.Log(den)
}

// RandomVAE is a VAE with X = 6, Z = 4, one hidden layer of 5 in each net and
// an RBM(4, priorHidden) prior (priorHidden 0: a Bernoulli prior), every
// parameter drawn N(0, scale²) from the stream (seed, 1).
func RandomVAE(priorHidden int, seed uint64, scale float64) (*models.VAE, error) {
	m, err := models.NewVAE(6, 4, []int{5}, priorHidden)
	if err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(seed, 1))
	normals(rng, scale, m.Dec.Params(), m.Enc.Params())
	if m.Prior != nil {
		normals(rng, scale, m.Prior.W, m.Prior.VBias, m.Prior.HBias)
	} else {
		normals(rng, scale, m.PriorLogits)
	}
	return m, nil
}

// RandomAuxVAE is RandomVAE with A auxiliary variables and auxiliary nets
// of H hidden units (models.VAEAux), their parameters drawn N(0,
// auxScale²) from the stream (seed, 2). Its log p(x) is RandomVAE's by VAE
// (a integrates out of p).
func RandomAuxVAE(priorHidden, A, H int, seed uint64, scale, auxScale float64) (*models.VAE, error) {
	m, err := RandomVAE(priorHidden, seed, scale)
	if err != nil {
		return nil, err
	}
	if err := m.AddAux(A, H); err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(seed, 2))
	for _, n := range m.Aux.Nets() {
		normals(rng, auxScale, n.Params())
	}
	return m, nil
}

// normals fills each of xs in turn with N(0, scale²) draws from rng.
func normals(rng *rand.Rand, scale float64, xs ...[]float64) {
	for _, x := range xs {
		for i := range x {
			x[i] = scale * rng.NormFloat64()
		}
	}
}

// RandomDBN is a DBN of the given layer sizes with each RBM's weights,
// visible and hidden biases, bottom RBM first, drawn N(0, scale²) from rng.
func RandomDBN(scale float64, rng *rand.Rand, sizes ...int) (*models.DBN, error) {
	m, err := models.NewDBN(sizes...)
	if err != nil {
		return nil, err
	}
	for _, r := range m.Layers {
		normals(rng, scale, r.W, r.VBias, r.HBias)
	}
	return m, nil
}

// RandomRBM is a d×h RBM with N(0, wScale²) weights and N(0, bScale²)
// biases, drawn from rng in the order W, visible biases, hidden biases.
func RandomRBM(d, h int, wScale, bScale float64, rng *rand.Rand) *models.RBM {
	m := models.NewRBM(d, h)
	for i := range m.W {
		m.W[i] = wScale * rng.NormFloat64()
	}
	for i := range m.VBias {
		m.VBias[i] = bScale * rng.NormFloat64()
	}
	for j := range m.HBias {
		m.HBias[j] = bScale * rng.NormFloat64()
	}
	return m
}

// RandomDBM is a DBM of the given layer sizes with N(0, wScale²) weights
// and N(0, bScale²) biases, drawn from rng in the order W (bottom up), B
// (bottom up).
func RandomDBM(wScale, bScale float64, rng *rand.Rand, sizes ...int) (*models.DBM, error) {
	d, err := models.NewDBM(sizes...)
	if err != nil {
		return nil, err
	}
	for _, w := range d.W {
		for i := range w {
			w[i] = wScale * rng.NormFloat64()
		}
	}
	for _, b := range d.B {
		for i := range b {
			b[i] = bScale * rng.NormFloat64()
		}
	}
	return d, nil
}

// MoB returns p(x) of a mixture of Bernoullis by its definition, in plain
// probabilities: Σ_k π_k Π_d μ_kd^x_d (1 − μ_kd)^(1−x_d), with π_k =
// e^{w_k}/Σ_j e^{w_j} and μ_kd = 1/(1 + e^{−η_kd}).
func MoB(m *models.MoB, x []uint8) float64 {
	z := 0.0
	for _, w := range m.LogWeights {
		z += math.Exp(w)
	}
	p := 0.0
	for k := range m.K {
		q := math.Exp(m.LogWeights[k]) / z
		for d, v := range x {
			mu := 1 / (1 + math.Exp(-m.Logits[k*m.D+d]))
			if v == 1 {
				q *= mu
			} else {
				q *= 1 - mu
			}
		}
		p += q
	}
	return p
}

// RandomMoB is a mixture of K components over D units with N(0, 1)
// log-weights and N(0, scale²) logits, drawn from rng in that order.
func RandomMoB(K, D int, scale float64, rng *rand.Rand) (*models.MoB, error) {
	m, err := models.NewMoB(K, D)
	if err != nil {
		return nil, err
	}
	for k := range m.LogWeights {
		m.LogWeights[k] = rng.NormFloat64()
	}
	for i := range m.Logits {
		m.Logits[i] = scale * rng.NormFloat64()
	}
	return m, nil
}
