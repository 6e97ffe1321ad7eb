package eval

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"

	"github.com/logz-ml/logz/inference/chi2"
	"github.com/logz-ml/logz/internal/nmath"
	"github.com/logz-ml/logz/internal/seeds"
	"github.com/logz-ml/logz/models"
)

// ProposalFit is how a sampler fits a χ² proposal q ≈ p to start Markov
// chains near p (Kuleshov & Ermon 2017 §5.2): New makes the unfitted
// proposal over d units (drawing its initial parameters from rng), then
// Steps steps of the χ² fitter with options Fit (chi2.Fitter) move it
// towards p.
type ProposalFit struct {
	New   func(d int, rng *rand.Rand) (chi2.Proposal, error)
	Fit   chi2.FitOptions
	Steps int
}

// FitRBM fits the proposal to the visible marginal of m,
//
//	p̃(v) = e^{−F(v)},  F(v) = −aᵀv − Σ_j softplus(b_j + vᵀW_{:,j})
//
// (chi2.RBMTarget), each fitter step a stochastic gradient step on the
// χ² divergence estimated from Fit.Samples draws of q. Every draw, of the
// initial parameters and of the steps, comes from rng, in that order.
func (f ProposalFit) FitRBM(m *models.RBM, rng *rand.Rand) (chi2.Proposal, error) {
	q, err := f.New(m.NVis, rng)
	if err != nil {
		return nil, err
	}
	fit, err := chi2.NewFitter(q, f.Fit)
	if err != nil {
		return nil, err
	}
	logp := chi2.RBMTarget{M: m}.NewLogP()
	for range f.Steps {
		if _, err := fit.Step(logp, rng); err != nil {
			return nil, fmt.Errorf("fitting the χ² proposal: %w", err)
		}
	}
	return fit.Q, nil
}

// VAELatents says how SampleVAELatents draws the latents of a VAE with an
// RBM prior: exactly when the prior has at most ExactHidden hidden units,
// else by Sweeps block-Gibbs sweeps of chains started from the χ²
// proposal Q fitted to the prior.
type VAELatents struct {
	ExactHidden, Sweeps int
	Q                   ProposalFit
}

// Seed labels of the VAE sampler's streams.
const (
	keyVAEPrior uint64 = 1 + iota
	keyVAEData
	keyVAEFit
	keyVAEGibbs
)

// SampleVAE draws n ancestral samples z ~ p(z), x ~ p(x|z) of a VAE
// (n×X, row-major): the x (0/1), each x_i ~ Bernoulli(σ(ℓ_i)) with ℓ the
// decoder's logits at z, or with means the probabilities σ(ℓ_i). z is
// drawn by SampleVAELatents (with seed and o); sample i's x comes from the
// generator keyed (seed, 2, i). It returns the samples and says how z was
// drawn.
func SampleVAE(m *models.VAE, n int, seed uint64, means bool, o VAELatents) ([]float64, string, error) {
	z, how, err := SampleVAELatents(m, n, seed, o)
	if err != nil {
		return nil, "", err
	}
	Z, X := m.NumLatent(), m.NumVisible()
	out := make([]float64, n*X)
	s := m.NewScratch()
	x := make([]uint8, X)
	pcg := rand.NewPCG(0, 0)
	rng := rand.New(pcg)
	for i := range n {
		pcg.Seed(seeds.Derive(seed, keyVAEData, uint64(i)), seeds.Derive(seed, keyVAEData, uint64(i), 1))
		logits := m.DecoderLogits(s, z[i*Z:(i+1)*Z])
		if means {
			for j, a := range logits {
				out[i*X+j] = nmath.Sigmoid(a)
			}
			continue
		}
		models.SampleBernoulliLogits(x, logits, rng)
		for j, b := range x {
			out[i*X+j] = float64(b)
		}
	}
	return out, how, nil
}

// SampleVAELatents draws n latent vectors z ~ p(z) of a VAE (n×Z,
// row-major) and says how:
//
//   - Bernoulli prior: z_j ~ Bernoulli(σ(λ_j)), exact;
//   - RBM prior with H ≤ o.ExactHidden hidden units: exact, h from its
//     marginal p(h) ∝ exp(bᵀh) Π_i (1 + e^{a_i + W_i·h}) (all 2^H states
//     enumerated with a Gray-code walk, in log space), then
//     z_i | h ~ Bernoulli(σ(a_i + W_i·h));
//   - larger RBM priors: n block-Gibbs chains of o.Sweeps sweeps
//     (Gibbs.Run, seed seeds.Derive(seed, 4), one worker) started from
//     draws of o.Q fitted to p̃(z) (ProposalFit.FitRBM, from the generator
//     keyed (seeds.Derive(seed, 3), 0)); approximate, as the chains may not
//     have mixed.
//
// Sample i of the exact methods comes from the generator keyed (seed, 1, i).
func SampleVAELatents(m *models.VAE, n int, seed uint64, o VAELatents) ([]uint8, string, error) {
	if n < 1 {
		return nil, "", fmt.Errorf("vae samples: n is %d; want at least 1", n)
	}
	Z := m.NumLatent()
	z := make([]uint8, n*Z)
	pcg := rand.NewPCG(0, 0)
	rng := rand.New(pcg)
	reseed := func(i int) {
		pcg.Seed(seeds.Derive(seed, keyVAEPrior, uint64(i)), seeds.Derive(seed, keyVAEPrior, uint64(i), 1))
	}
	r := m.Prior
	if r == nil {
		for i := range n {
			reseed(i)
			models.SampleBernoulliLogits(z[i*Z:(i+1)*Z], m.PriorLogits, rng)
		}
		return z, "exact (independent Bernoulli prior)", nil
	}
	if r.NHid <= o.ExactHidden {
		cdf := hiddenMarginalCDF(r)
		h := make([]float64, r.NHid)
		pre := make([]float64, Z)
		for i := range n {
			reseed(i)
			u := rng.Float64() * cdf[len(cdf)-1]
			code := min(sort.Search(len(cdf), func(k int) bool { return cdf[k] > u }), len(cdf)-1)
			for j := range h {
				h[j] = float64(code >> j & 1)
			}
			r.VisiblePreact(pre, h)
			models.SampleBernoulliLogits(z[i*Z:(i+1)*Z], pre, rng)
		}
		return z, fmt.Sprintf("exact (h from its marginal over 2^%d states, then z | h)", r.NHid), nil
	}
	q, err := o.Q.FitRBM(r, rand.New(rand.NewPCG(seeds.Derive(seed, keyVAEFit), 0)))
	if err != nil {
		return nil, "", fmt.Errorf("vae samples: %w", err)
	}
	g := Gibbs{Chains: n, Steps: o.Sweeps, Seed: seeds.Derive(seed, keyVAEGibbs), Workers: 1}
	res, err := g.Run(r, ProposalStart(q))
	if err != nil {
		return nil, "", err
	}
	copy(z, res.Final)
	return z, fmt.Sprintf("%d block-Gibbs chains of %d sweeps from a χ² mixture proposal (%d fit steps); approximate", n, o.Sweeps, o.Q.Steps), nil
}

// hiddenMarginalCDF returns the cumulative sums of p(h) over the 2^H hidden
// states of r in the order of their codes (bit j of the code is h_j),
// scaled so that the largest term is 1: log p̃(h) = bᵀh + Σ_i softplus(a_i
// + W_i·h), visited by a Gray-code walk (one column of W per step) and
// exponentiated after subtracting the maximum.
func hiddenMarginalCDF(r *models.RBM) []float64 {
	H, D := r.NHid, r.NVis
	states := 1 << H
	logp := make([]float64, states)
	pre := append([]float64(nil), r.VBias...)
	bh := 0.0
	code := 0
	for t := range states {
		if t > 0 {
			j := 0
			for (t>>j)&1 == 0 {
				j++
			}
			sign := 1.0
			if code>>j&1 == 1 {
				sign = -1
			}
			code ^= 1 << j
			for i := range D {
				pre[i] += sign * r.W[i*H+j]
			}
			bh += sign * r.HBias[j]
		}
		s := bh
		for _, p := range pre {
			s += nmath.Softplus(p)
		}
		logp[code] = s
	}
	mx := math.Inf(-1)
	for _, v := range logp {
		mx = max(mx, v)
	}
	cdf := logp
	acc := 0.0
	for k, v := range logp {
		acc += math.Exp(v - mx)
		cdf[k] = acc
	}
	return cdf
}
