package vae

import (
	"fmt"
	"math"

	"github.com/logz-ml/logz/family"
	"github.com/logz-ml/logz/family/rbm"
	"github.com/logz-ml/logz/internal/kernel"
	"github.com/logz-ml/logz/models"
	"github.com/logz-ml/logz/train"
)

// Train is the train: section of a vae: method nvil (train.VAETrainer)
// maximises, per example, E_q(z|x)[log p(x|z) + log p̃(z) − log q(z|x)]
// − log Z, with log Z of an RBM prior replaced by the χ² upper bound
// ½ log E_r[(p̃/r)²] of a mixture r fitted alternately (the rbm family's
// q_* keys), encoder gradients by NVIL and Adam (β₁ = 0.9, β₂ = 0.999,
// ε = 1e-8) at learning_rate on every parameter.
type Train struct {
	// Method is "nvil".
	Method string `yaml:"method" want:"nvil"`
	// Epochs is the number of passes over the training set.
	Epochs int `yaml:"epochs" want:"a positive integer"`
	// BatchSize is the minibatch size.
	BatchSize int `yaml:"batch_size" want:"a positive integer"`
	// LearningRate is Adam's step size.
	LearningRate float64 `yaml:"learning_rate" want:"a positive number"`
	// Samples is the number of draws z ~ q(z|x) per example and step.
	Samples int `yaml:"samples" want:"a positive integer"`
	// PriorTraining is how an RBM prior's ∇ log Z is estimated: "chi2"
	// (the bound's weighted draws of q) or "pcd" (persistent Gibbs chains
	// over z; q then only tracks log Z). Ignored by a Bernoulli prior.
	PriorTraining string `yaml:"prior_training" want:"chi2 or pcd"`
	// Chains and K are the persistent chains and block-Gibbs steps per
	// parameter step of prior_training pcd.
	Chains int `yaml:"chains" want:"a positive integer"`
	K      int `yaml:"k" want:"a positive integer"`
	// BaselineHidden is the number of tanh units of the NVIL baseline
	// network b(x) (0: the running mean only).
	BaselineHidden int `yaml:"baseline_hidden" want:"a non-negative integer"`
	// SignalDecay is the weight of the past in the running mean and
	// variance of the NVIL learning signal.
	SignalDecay float64 `yaml:"signal_decay" want:"a number in [0,1)"`
	// SignalClip clips the normalised learning signal (0: no clipping).
	SignalClip float64 `yaml:"signal_clip" want:"a non-negative number"`
	// Shuffle reshuffles the training set before each epoch.
	Shuffle bool `yaml:"shuffle" want:"true or false"`
	// CheckpointEvery writes model.npz after every N-th epoch and always
	// after the last; 0 = only after the last.
	CheckpointEvery int `yaml:"checkpoint_every" want:"a non-negative integer"`
	// Precision is the arithmetic of the gradient's matrix products and
	// activations, "float32" or "float64": either way the minibatch goes
	// through each layer as one matrix product, and the log-probabilities,
	// the signal, the prior, the parameters and Adam are float64.
	Precision string `yaml:"precision" want:"float32 or float64 (the minibatch through each layer as matrix products in that precision; log-probabilities, the signal, the prior, parameters and Adam float64)"`
	// Chi2Train holds the prior fitter's keys (q_steps, q_samples,
	// q_components, q_learning_rate, q_decay, q_init_std, linearise).
	rbm.Chi2Train `yaml:",inline"`
	// Stopping adds early_stop (validation early stopping, every family).
	family.Stopping `yaml:",inline"`
}

// DefaultTrain is nvil for 10 epochs, minibatch 100, Adam at 3e-4, one
// latent draw per example, prior_training chi2 with the rbm family's χ²
// defaults (10 q steps of 30 draws, 10 components), pcd's 100 chains and
// k = 1, a baseline of 100 tanh units, signal decay 0.8 and clip 10,
// precision float32.
func DefaultTrain() Train {
	return Train{
		Method: "nvil", Epochs: 10, BatchSize: 100, LearningRate: 3e-4, Samples: 1,
		PriorTraining: train.PriorTrainingChi2, Chains: 100, K: 1,
		BaselineHidden: 100, SignalDecay: 0.8, SignalClip: 10,
		Shuffle: true, CheckpointEvery: 1, Chi2Train: rbm.DefaultChi2Train(), Precision: string(kernel.Float32),
	}
}

// Maxima of the settings that size buffers (they keep a typo from
// exhausting memory).
const (
	MaxSamples  = 10_000
	MaxBaseline = 100_000
)

// Check reports bad train settings.
func (t *Train) Check(p family.Problems) {
	t.CheckStopping(p)
	finite := func(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
	p.Enum("method", t.Method, []string{"nvil"})
	family.CheckEpochs(p, "epochs", t.Epochs)
	p.Check("batch_size", t.BatchSize >= 1 && t.BatchSize <= rbm.MaxBatch, fmt.Sprintf("an integer in [1, %d]", rbm.MaxBatch), t.BatchSize)
	p.Check("learning_rate", t.LearningRate > 0 && finite(t.LearningRate), "a positive number", t.LearningRate)
	p.Check("samples", t.Samples >= 1 && t.Samples <= MaxSamples, fmt.Sprintf("an integer in [1, %d]", MaxSamples), t.Samples)
	p.Enum("prior_training", t.PriorTraining, []string{train.PriorTrainingChi2, train.PriorTrainingPCD})
	p.Check("chains", t.Chains >= 1 && t.Chains <= rbm.MaxBatch, fmt.Sprintf("an integer in [1, %d]", rbm.MaxBatch), t.Chains)
	p.Check("k", t.K >= 1 && t.K <= rbm.MaxQSteps, fmt.Sprintf("an integer in [1, %d]", rbm.MaxQSteps), t.K)
	if t.PriorTraining == train.PriorTrainingPCD && t.Chains <= rbm.MaxBatch {
		family.CheckUpdateSweeps(p, "k", t.K, "chains", t.Chains)
	}
	p.Check("baseline_hidden", t.BaselineHidden >= 0 && t.BaselineHidden <= MaxBaseline, fmt.Sprintf("an integer in [0, %d]", MaxBaseline), t.BaselineHidden)
	p.Check("signal_decay", t.SignalDecay >= 0 && t.SignalDecay < 1, "a number in [0,1)", t.SignalDecay)
	p.Check("signal_clip", t.SignalClip >= 0 && finite(t.SignalClip), "a non-negative number", t.SignalClip)
	p.Check("checkpoint_every", t.CheckpointEvery >= 0, "a non-negative integer", t.CheckpointEvery)
	p.Enum("precision", t.Precision, []string{string(kernel.Float32), string(kernel.Float64)})
	t.Chi2Train.Check(p)
}

// CheckpointDue reports whether model.npz is written after the 1-based
// epoch e: when CheckpointEvery > 0 divides e, and always after the last.
func (t Train) CheckpointDue(epoch int) bool {
	return epoch == t.Epochs || (t.CheckpointEvery > 0 && epoch%t.CheckpointEvery == 0)
}

// Options returns the trainer's options for these settings.
func (t Train) Options(workers int) train.VAEOptions {
	return train.VAEOptions{
		BatchSize: t.BatchSize, LearningRate: t.LearningRate, Samples: t.Samples, Shuffle: t.Shuffle, Workers: workers,
		PriorTraining: t.PriorTraining, QSteps: t.QSteps, QSamples: t.QSamples, QComponents: t.QComponents,
		QLearningRate: t.QLearningRate, QDecay: t.QDecay, QInitStd: t.QInitStd, Linearise: t.Linearise,
		Chains: t.Chains, GibbsSteps: t.K, BaselineHidden: t.BaselineHidden, SignalDecay: t.SignalDecay, SignalClip: t.SignalClip,
		Epochs: t.Epochs, Precision: t.precision(),
	}
}

// precision is the train precision, float32 when unset.
func (t Train) precision() kernel.Precision {
	p, err := kernel.Parse(t.Precision, kernel.Float32)
	if err != nil {
		return kernel.Precision(t.Precision) // the trainer's Check reports it
	}
	return p
}

// Trainers are the vae family's training methods.
var Trainers = []family.TrainerInfo{{
	Method: "nvil",
	Doc: "ELBO E_q[log p(x|z) + log p̃(z) − log q(z|x)] − log Z with an RBM prior's log Z replaced by the χ² bound of a fitted mixture; " +
		"encoder by NVIL (input-dependent baseline, running centring and normalisation), decoder and prior by exact gradients, " +
		"∇ log Z by the bound's weighted draws (prior_training chi2) or persistent chains (pcd); Adam",
}}

// newTrainer builds the nvil trainer of a *models.VAE and initialises its
// parameters (decoder output bias at the data's base-rate logits).
func (Plugin) NewTrainer(a family.TrainerArgs) (family.Trainer, error) {
	m, ok := a.Model.(*models.VAE)
	if !ok {
		return nil, fmt.Errorf("vae trainer: the model is a %s, not a vae", a.Model.TypeName())
	}
	s, ok := a.Train.(*Train)
	if !ok {
		return nil, fmt.Errorf("vae trainer: train settings are %T, not the vae family's", a.Train)
	}
	if m.Prior == nil && s.PriorTraining == train.PriorTrainingPCD {
		return nil, fmt.Errorf("train.prior_training pcd needs an RBM prior (the model's prior is %s: normalised, no log Z to estimate); use chi2 or set the prior", m.PriorKind())
	}
	t, err := train.NewVAETrainer(m, s.Options(a.Workers), a.Seed)
	if err != nil {
		return nil, fmt.Errorf("vae trainer: %w", err)
	}
	ms, ok := a.ModelSettings.(*Model)
	if !ok {
		return nil, fmt.Errorf("vae trainer: model settings are %T, not the vae family's", a.ModelSettings)
	}
	var base []float64
	if ms.InitVisibleBias == "base-rate" && len(a.BaseRate) == m.NumVisible() {
		base = a.BaseRate
	}
	if err := t.InitParams(base, ms.InitPriorStd); err != nil {
		return nil, err
	}
	return t, nil
}

// DataWarnings warns of a minibatch larger than the training set of n
// examples (family.DataWarner).
func (t *Train) DataWarnings(n int) []string { return family.BatchWarnings(t.BatchSize, n) }
