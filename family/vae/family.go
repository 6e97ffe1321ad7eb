// Package vae registers the model family "vae": variational autoencoders
// with binary latents z ∈ {0,1}^Z, an MLP encoder q(z|x) and decoder
// p(x|z) with Bernoulli outputs, and a Bernoulli or RBM prior over z
// (Kuleshov & Ermon 2017 §4.1, docs/methods.md#vae; the model is models.VAE),
// optionally with continuous auxiliary variables in the approximate
// posterior (model.auxiliary; docs/methods.md#vae-auxiliary). Its
// estimators: exact (enumerating z), is (importance sampling with q(z|x)),
// elbo, and chi2 (the χ² upper bound on the RBM prior's log Z); after
// training, the runner writes ancestral samples to samples.npy (Samples).
package vae

import (
	"fmt"
	"math"

	"github.com/logz-ml/logz/family"
	"github.com/logz-ml/logz/family/kit"
	"github.com/logz-ml/logz/models"
)

// Model is the model: section of a vae.
type Model struct {
	// Latent is Z, the number of binary latents.
	Latent int `yaml:"latent" want:"a positive integer (Z, the binary latents)"`
	// Hidden are the sizes of the decoder's hidden layers (tanh), Z → … → X;
	// the encoder mirrors them, X → … → Z.
	Hidden []int `yaml:"hidden" want:"a list of positive integers (hidden layer sizes)"`
	// Prior is "bernoulli" (independent, log p(z) = Σ_j z_j λ_j −
	// softplus(λ_j)) or "rbm" (p(z) ∝ Σ_h exp(zᵀWh + aᵀz + bᵀh)).
	Prior string `yaml:"prior" want:"bernoulli or rbm"`
	// PriorHidden is H, the hidden units of an RBM prior (0 with bernoulli).
	PriorHidden int `yaml:"prior_hidden" want:"a positive integer (the RBM prior's hidden units) with prior: rbm, else 0"`
	// InitPriorStd is σ of the RBM prior's initial weights W ~ N(0, σ²)
	// (its biases, and the Bernoulli prior's logits, start at 0).
	InitPriorStd float64 `yaml:"init_prior_std" want:"a non-negative number"`
	// InitVisibleBias is "base-rate" (the decoder's output biases start at
	// the training data's smoothed log-odds) or "zero". The MLP weights
	// start N(0, 1/fan_in) (mlp.Net.Init), their other biases at 0.
	InitVisibleBias string `yaml:"init_visible_bias" want:"base-rate or zero"`
	// Auxiliary is A, the continuous auxiliary variables a of the
	// approximate posterior q(a, z|x) = q(a|x) q(z|x,a), with p(a|x,z) on
	// the generative side (an auxiliary deep generative model, Maaløe et
	// al. 2016; models.VAEAux); 0: none, the plain VAE.
	Auxiliary int `yaml:"auxiliary" want:"a non-negative integer (the auxiliary variables a; 0 = none)"`
	// AuxiliaryHidden is the tanh units of the one hidden layer of each
	// auxiliary net (q(a|x), p(a|x,z) and a's input to q(z|x,a)).
	AuxiliaryHidden int `yaml:"auxiliary_hidden" want:"a positive integer (hidden units of the auxiliary nets)"`
}

// DefaultModel is the paper's Ber(200) VAE: one hidden layer of 500 tanh
// units each way, 200 latents, a Bernoulli prior.
func DefaultModel() Model {
	return Model{Latent: 200, Hidden: []int{500}, Prior: models.PriorBernoulli, InitPriorStd: 0.01, InitVisibleBias: "base-rate", AuxiliaryHidden: 32}
}

// Check reports bad model settings.
func (m *Model) Check(p family.Problems) {
	p.Check("latent", m.Latent >= 1 && m.Latent <= models.MaxUnits, fmt.Sprintf("an integer in [1, %d] (models.MaxUnits)", models.MaxUnits), m.Latent)
	family.CheckLayerCount(p, "hidden", m.Hidden)
	for i, n := range m.Hidden {
		p.Check(fmt.Sprintf("hidden[%d]", i), n >= 1 && n <= models.MaxUnits, fmt.Sprintf("an integer in [1, %d] (models.MaxUnits)", models.MaxUnits), n)
	}
	if p.Enum("prior", m.Prior, []string{models.PriorBernoulli, models.PriorRBM}) {
		switch {
		case m.Prior == models.PriorRBM:
			p.Check("prior_hidden", m.PriorHidden >= 1 && m.PriorHidden <= models.MaxUnits, fmt.Sprintf("an integer in [1, %d] with prior: rbm", models.MaxUnits), m.PriorHidden)
		case m.PriorHidden != 0:
			p.Crossf("", "prior_hidden", "prior_hidden (%d) is the hidden units of an RBM prior; set prior: rbm or drop prior_hidden", m.PriorHidden)
		}
	}
	p.Check("init_prior_std", m.InitPriorStd >= 0 && !math.IsInf(m.InitPriorStd, 0), "a non-negative number", m.InitPriorStd)
	p.Enum("init_visible_bias", m.InitVisibleBias, []string{"base-rate", "zero"})
	p.Check("auxiliary", m.Auxiliary >= 0 && m.Auxiliary <= MaxAuxiliary, fmt.Sprintf("an integer in [0, %d] (the auxiliary variables a; 0 = none)", MaxAuxiliary), m.Auxiliary)
	p.Check("auxiliary_hidden", m.AuxiliaryHidden >= 1 && m.AuxiliaryHidden <= MaxAuxiliary, fmt.Sprintf("an integer in [1, %d] (hidden units of the auxiliary nets)", MaxAuxiliary), m.AuxiliaryHidden)
}

// MaxAuxiliary bounds auxiliary and auxiliary_hidden (they size dense
// layers; the paper's are 10 and 32).
const MaxAuxiliary = 10_000

// priorHidden is H of the model settings (0 for a Bernoulli prior).
func (m *Model) priorHidden() int {
	if m.Prior == models.PriorRBM {
		return m.PriorHidden
	}
	return 0
}

// VAE is the registered family.
var VAE = &family.Family{
	Name:  "vae",
	Doc:   "VAE with binary latents (Kuleshov & Ermon 2017 §4.1): MLP encoder q(z|x) and decoder p(x|z) (tanh, Bernoulli outputs), Bernoulli or RBM prior over z; arrays dec_W<l>, dec_b<l>, enc_W<l>, enc_b<l>, prior_logits or prior_W, prior_vbias, prior_hbias",
	Codec: models.VAEType, OwnEvalDefaults: true,
	Model:      func() family.Settings { m := DefaultModel(); return &m },
	Train:      func() family.Settings { t := DefaultTrain(); return &t },
	Trainers:   Trainers,
	Estimators: []*family.Estimator{Exact, IS, ELBO, Chi2},
	EveryEpoch: func() []family.Configured {
		return []family.Configured{{Name: "elbo", Settings: &ISSettings{Samples: 10, Examples: 500, PriorLogZ: defaultPriorLogZ()}}}
	},
	Final: func() []family.Configured {
		return []family.Configured{{Name: "is", Settings: &ISSettings{Samples: 5000, Examples: 1000, PriorLogZ: defaultPriorLogZ()}}}
	},
	Plugin: Plugin{},
}

func init() { kit.Register(VAE) }

// Plugin is the vae family's Plugin: it builds, trains (NVIL, and χ²
// tracking of an RBM prior) and samples VAEs, and shows the decoder's
// filters.
type Plugin struct{}

// NewModel builds a VAE of model.latent binary latents, model.hidden
// hidden units per net and its prior.
func (Plugin) NewModel(s family.Settings, visible int) (models.Model, error) {
	m := s.(*Model)
	v, err := models.NewVAE(visible, m.Latent, m.Hidden, m.priorHidden())
	if err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	if m.Auxiliary > 0 {
		if err := v.AddAux(m.Auxiliary, m.AuxiliaryHidden); err != nil {
			return nil, fmt.Errorf("model: %w", err)
		}
	}
	return v, nil
}
