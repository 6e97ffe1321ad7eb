package vae

import (
	"fmt"
	"math/rand/v2"

	"github.com/logz-ml/logz/eval"
	"github.com/logz-ml/logz/family/kit/estim"
	"github.com/logz-ml/logz/family/kit/sampling"
	"github.com/logz-ml/logz/inference/chi2"
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

// Sample draws o.N ancestral samples z ~ p(z), x ~ p(x|z) of a VAE
// (eval.SampleVAE, keyed by o.Seed): the x (0/1), or with o.Mean the
// decoder's probabilities p(x=1|z) of the drawn z. The latents of an RBM
// prior with at most ExactPriorHidden hidden units are exact draws; above
// it they are the ends of GibbsSweeps-sweep block-Gibbs chains started
// from a χ² proposal fitted with the chi2 estimator's defaults.
func (Plugin) Sample(mm models.Model, o sampling.SampleOptions) (*sampling.Drawn, error) {
	m, ok := mm.(*models.VAE)
	if !ok {
		return nil, fmt.Errorf("vae samples: a %s is not a vae", mm.TypeName())
	}
	if _, err := o.Check(nil); err != nil {
		return nil, err
	}
	x, how, err := eval.SampleVAE(m, o.N, o.Seed, o.Mean, latents())
	if err != nil {
		return nil, err
	}
	kept := "x ~ p(x|z)"
	if o.Mean {
		kept = "the decoder's p(x=1|z)"
	}
	return &sampling.Drawn{N: o.N, D: m.NumVisible(), X: x, Method: sampling.MethodAncestral, Values: sampling.Values(o.Mean),
		What: fmt.Sprintf("%d ancestral samples: z ~ p(z) %s; %s", o.N, how, kept)}, nil
}

// latents is how Sample draws the latents of an RBM prior: exactly up to
// ExactPriorHidden hidden units, else by chains of GibbsSweeps sweeps from
// a χ² proposal fitted with the chi2 estimator's defaults
// (estim.DefaultChi2).
func latents() eval.VAELatents {
	c := estim.DefaultChi2()
	return eval.VAELatents{ExactHidden: ExactPriorHidden, Sweeps: GibbsSweeps, Q: eval.ProposalFit{
		Fit: c.FitOptions(), Steps: c.Steps,
		New: func(d int, rng *rand.Rand) (chi2.Proposal, error) { return estim.NewChi2Proposal(&c, d, nil, rng) },
	}}
}

// Filters returns the decoder's output weights (the last layer, the one
// that maps to the pixels), transposed to visible×hidden: one filter per
// unit of the decoder's last hidden layer (per latent without hidden
// layers).
func (Plugin) Filters(mm models.Model) (*sampling.Filters, bool) {
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
	return &sampling.Filters{W: out, Visible: X, Hidden: in, What: fmt.Sprintf("dec_W%d, the decoder's output weights (transposed)", L)}, true
}
