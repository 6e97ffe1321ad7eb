package vae

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"

	"github.com/logz-ml/logz/eval"
	"github.com/logz-ml/logz/family/kit"
	"github.com/logz-ml/logz/inference/chi2"
	"github.com/logz-ml/logz/internal/nmath"
	"github.com/logz-ml/logz/internal/seeds"
	"github.com/logz-ml/logz/models"
)

// Ancestral sampling settings.
const (
	// ExactPriorHidden is the most hidden units of an RBM prior whose
	// latents are drawn exactly (h from its marginal by enumerating 2^H
	// states, then z | h); above it, by Gibbs chains.
	ExactPriorHidden = 20
	// GibbsSweeps is the number of block-Gibbs sweeps of each chain when an
	// RBM prior is too large to sample exactly; the chains start from a χ²
	// proposal q (a mixture fitted with the chi2 estimator's defaults), so
	// they start near p(z) (Kuleshov & Ermon 2017 §5.2).
	GibbsSweeps = 1000
)

// Seed labels of the sampling streams.
const (
	keyPrior uint64 = 1 + iota
	keyData
	keyFit
	keyGibbs
)

// Sample draws o.N ancestral samples z ~ p(z), x ~ p(x|z) of a VAE: the
// x (0/1), or with o.Mean the decoder's probabilities p(x=1|z) of the
// drawn z. See SampleLatents for how z is drawn (o.Seed keys it). Sample
// i's x comes from the generator keyed (seed, data, i).
func (Plugin) Sample(mm models.Model, o kit.SampleOptions) (*kit.Drawn, error) {
	m, ok := mm.(*models.VAE)
	if !ok {
		return nil, fmt.Errorf("vae samples: a %s is not a vae", mm.TypeName())
	}
	if _, err := o.Check(nil); err != nil {
		return nil, err
	}
	n, seed := o.N, o.Seed
	z, how, err := SampleLatents(m, n, seed, ExactPriorHidden)
	if err != nil {
		return nil, err
	}
	Z, X := m.NumLatent(), m.NumVisible()
	out := make([]float64, n*X)
	s := m.NewScratch()
	x := make([]uint8, X)
	pcg := rand.NewPCG(0, 0)
	rng := rand.New(pcg)
	for i := range n {
		pcg.Seed(seeds.Derive(seed, keyData, uint64(i)), seeds.Derive(seed, keyData, uint64(i), 1))
		logits := m.DecoderLogits(s, z[i*Z:(i+1)*Z])
		if o.Mean {
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
	kept := "x ~ p(x|z)"
	if o.Mean {
		kept = "the decoder's p(x=1|z)"
	}
	return &kit.Drawn{N: n, D: X, X: out, Method: kit.MethodAncestral, Values: kit.Values(o.Mean),
		What: fmt.Sprintf("%d ancestral samples: z ~ p(z) %s; %s", n, how, kept)}, nil
}

// Filters returns the decoder's output weights (the last layer, the one
// that maps to the pixels), transposed to visible×hidden: one filter per
// unit of the decoder's last hidden layer (per latent without hidden
// layers).
func (Plugin) Filters(mm models.Model) (*kit.Filters, bool) {
	m, ok := mm.(*models.VAE)
	if !ok || len(m.Dec.W) == 0 {
		return nil, false
	}
	L := len(m.DecSizes) - 1
	in, X := m.DecSizes[L-1], m.DecSizes[L]
	w := m.Dec.W[L-1] // in×X
	out := make([]float64, X*in)
	for j := range in {
		for i := range X {
			out[i*in+j] = w[j*X+i]
		}
	}
	return &kit.Filters{W: out, Visible: X, Hidden: in, What: fmt.Sprintf("dec_W%d, the decoder's output weights (transposed)", L)}, true
}

// SampleLatents draws n latent vectors z ~ p(z) (n×Z, row-major) and says
// how:
//
//   - Bernoulli prior: z_j ~ Bernoulli(σ(λ_j)), exact;
//   - RBM prior with H ≤ exactHidden hidden units: exact, h from its
//     marginal p(h) ∝ exp(bᵀh) Π_i (1 + e^{a_i + W_i·h}) (all 2^H states
//     enumerated with a Gray-code walk, in log space), then
//     z_i | h ~ Bernoulli(σ(a_i + W_i·h));
//   - larger RBM priors: n block-Gibbs chains of GibbsSweeps sweeps started
//     from a χ² mixture proposal fitted to p̃(z) (approximate: the chains
//     may not have mixed).
//
// Sample i of the exact methods comes from the generator keyed (seed,
// prior, i).
func SampleLatents(m *models.VAE, n int, seed uint64, exactHidden int) ([]uint8, string, error) {
	if n < 1 {
		return nil, "", fmt.Errorf("vae samples: n is %d; want at least 1", n)
	}
	Z := m.NumLatent()
	z := make([]uint8, n*Z)
	pcg := rand.NewPCG(0, 0)
	rng := rand.New(pcg)
	reseed := func(i int) {
		pcg.Seed(seeds.Derive(seed, keyPrior, uint64(i)), seeds.Derive(seed, keyPrior, uint64(i), 1))
	}
	r := m.Prior
	if r == nil {
		for i := range n {
			reseed(i)
			models.SampleBernoulliLogits(z[i*Z:(i+1)*Z], m.PriorLogits, rng)
		}
		return z, "exact (independent Bernoulli prior)", nil
	}
	if r.NHid <= exactHidden {
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
	c := kit.DefaultChi2()
	fitRNG := rand.New(rand.NewPCG(seeds.Derive(seed, keyFit), 0))
	q, err := kit.NewChi2Proposal(&c, Z, nil, fitRNG)
	if err != nil {
		return nil, "", err
	}
	f, err := chi2.NewFitter(q, c.FitOptions())
	if err != nil {
		return nil, "", err
	}
	logp := chi2.RBMTarget{M: r}.NewLogP()
	for range c.Steps {
		if _, err := f.Step(logp, fitRNG); err != nil {
			return nil, "", fmt.Errorf("vae samples: fitting the χ² proposal: %w", err)
		}
	}
	g := eval.Gibbs{Chains: n, Steps: GibbsSweeps, Seed: seeds.Derive(seed, keyGibbs), Workers: 1}
	res, err := g.Run(r, eval.ProposalStart(f.Q))
	if err != nil {
		return nil, "", err
	}
	copy(z, res.Final)
	return z, fmt.Sprintf("%d block-Gibbs chains of %d sweeps from a χ² mixture proposal (%d fit steps); approximate", n, GibbsSweeps, c.Steps), nil
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
