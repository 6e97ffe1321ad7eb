package sampling

import (
	"github.com/logz-ml/logz/eval"
	"github.com/logz-ml/logz/family"
	"github.com/logz-ml/logz/models"
)

// Sampler is a Plugin that draws samples of a trained model (see
// SampleOptions and Drawn); the runner writes them to samples.npy,
// samples.json and samples.png in the experiment's folder after the final
// evaluation, and `logz sample` draws them from a saved model.
type Sampler interface {
	Sample(m models.Model, o SampleOptions) (*Drawn, error)
}

// ChainSampler is a Sampler that runs Markov chains (an ancestral sampler
// is not one: it has no start and ignores SampleOptions.Steps).
type ChainSampler interface {
	Sampler
	// SampleInits are the chain starts Sample accepts (InitRandom,
	// InitData, InitQ), its default first.
	SampleInits() []string
}

// Mixer is a Plugin that runs SampleOptions.N chains from each of the
// starts and compares how soon they reach the long-run level of the
// chains' trace (`logz sample --compare`).
type Mixer interface {
	Mixing(m models.Model, o SampleOptions, starts []string) (*eval.MixingResult, error)
}

// FilterSource is a Plugin that shows a model's first-layer weights, the
// ones that meet the visible units (visible×hidden), in filters.png;
// false when the model has none.
type FilterSource interface {
	Filters(m models.Model) (*Filters, bool)
}

// ProposalPicturer is a Plugin that draws pictures of a χ² proposal q
// saved in a trained model's checkpoint (χ² training, a tracked chi2
// estimator): its components (QComponentsArtifact) and Markov chains
// started at q against chains from random states (QChainsArtifact),
// Kuleshov & Ermon 2017 §5.2. It returns none when c holds no proposal.
// The runner writes them after the samples and report.html shows them.
type ProposalPicturer interface {
	ProposalPictures(m models.Model, c *models.Checkpoint, seed uint64, workers int) ([]Artifact, error)
}

// Names of the ProposalPicturer's artifacts.
const (
	QComponentsArtifact = "q-components"
	QChainsArtifact     = "q-chains"
)

// ProposalPicturerOf returns f's ProposalPicturer, if it has one.
func ProposalPicturerOf(f *family.Family) (ProposalPicturer, bool) {
	p, ok := f.Plugin.(ProposalPicturer)
	return p, ok
}

// SamplerOf returns f's Sampler, if it has one.
func SamplerOf(f *family.Family) (Sampler, bool) {
	s, ok := f.Plugin.(Sampler)
	return s, ok
}

// SampleInits are the chain starts f's sampler accepts (nil without a
// sampler, or for an ancestral one, which is no ChainSampler).
func SampleInits(f *family.Family) []string {
	if s, ok := f.Plugin.(ChainSampler); ok {
		return s.SampleInits()
	}
	return nil
}

// MixerOf returns f's Mixer, if it has one.
func MixerOf(f *family.Family) (Mixer, bool) {
	m, ok := f.Plugin.(Mixer)
	return m, ok
}

// FiltersOf returns f's first-layer weights of m, if f shows filters and m
// has them.
func FiltersOf(f *family.Family, m models.Model) (*Filters, bool) {
	if s, ok := f.Plugin.(FilterSource); ok {
		return s.Filters(m)
	}
	return nil, false
}
