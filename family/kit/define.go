package kit

import (
	"fmt"
	"math"

	"github.com/logz-ml/logz/eval"
	"github.com/logz-ml/logz/eval/report"
	"github.com/logz-ml/logz/family"
	"github.com/logz-ml/logz/models"
)

// Builder builds and trains a family's models: every family's Plugin is one.
type Builder interface {
	// NewModel builds a fresh model for data with visible units from the
	// model settings (parameters are initialised by the trainer).
	NewModel(model family.Settings, visible int) (models.Model, error)
	// NewTrainer builds the trainer of a model (from NewModel) and
	// initialises its parameters.
	NewTrainer(a TrainerArgs) (Trainer, error)
}

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

// Finisher is a Plugin that post-processes the rows of one evaluation
// (pairing AIS and RAISE rows into brackets, dropping repeated warnings).
type Finisher interface {
	Finish(m models.Model, rows []report.Row, ests []family.Configured) []report.Row
}

// Runner is an estimator's Impl: it evaluates m on the environment's
// splits.
type Runner interface {
	Run(env *Env, m models.Model, s family.Settings, j Job) ([]report.Row, error)
}

// RunnerOf returns what runs estimator e (kit.Register made sure it is a
// Runner): for a family whose estimator builds on another family's.
func RunnerOf(e *family.Estimator) Runner { return e.Impl.(Runner) }

type runFunc func(env *Env, m models.Model, s family.Settings, j Job) ([]report.Row, error)

func (f runFunc) Run(env *Env, m models.Model, s family.Settings, j Job) ([]report.Row, error) {
	return f(env, m, s, j)
}

// Register checks that f's Plugin is a Builder and every estimator's Impl
// a Runner, and adds f to the registry; it panics otherwise (a
// programming error caught when the program starts).
func Register(f *family.Family) {
	if _, ok := f.Plugin.(Builder); !ok {
		panic(fmt.Sprintf("family %s: its Plugin %T is not a kit.Builder (NewModel, NewTrainer)", f.Name, f.Plugin))
	}
	for _, e := range f.Estimators {
		if _, ok := e.Impl.(Runner); !ok {
			panic(fmt.Sprintf("family %s: estimator %s: its Impl %T is not a kit.Runner", f.Name, e.Name, e.Impl))
		}
	}
	family.Register(f)
}

// BuilderOf returns f's Builder (kit.Register made sure it has one).
func BuilderOf(f *family.Family) Builder { return f.Plugin.(Builder) }

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

// Job is what one estimator entry of an evaluation gets besides its settings.
type Job struct {
	// Index is the entry's position in the list.
	Index int
	// Seed is the entry's own seed, or one derived from the evaluation's
	// seed, stage, epoch and Index.
	Seed uint64
	// Base holds the row fields every estimator shares (experiment, model,
	// stage, epoch, estimator name).
	Base report.Row
	// List is the whole list being evaluated (estimators that match their
	// cost to another one's, such as CSL, look at it).
	List []family.Configured
}

// Def is an estimator with typed settings *S; see Define.
type Def[S any] struct {
	Name, Doc string
	// Leans: see family.Estimator.
	Leans family.Leans
	// Defaults are the settings of an entry that sets nothing.
	Defaults S
	// Feasible and CheckModel are optional; see Estimator.
	Feasible   func(m models.Model, s *S) error
	CheckModel func(p family.Problems, s *S, model family.Settings, visible int)
	Run        func(env *Env, m models.Model, s *S, j Job) ([]report.Row, error)
	// Unshared: see Estimator.
	Unshared bool
	// Work: see Estimator.
	Work func(m models.Model, s *S, examples []int) float64
}

// Define turns a typed definition into an Estimator. *S must implement
// Settings.
func Define[S any](d Def[S]) *family.Estimator {
	if _, ok := any(new(S)).(family.Settings); !ok {
		panic(fmt.Sprintf("family: estimator %s: *%T does not implement Settings", d.Name, d.Defaults))
	}
	typed := func(s family.Settings) *S {
		p, ok := any(s).(*S)
		if !ok {
			panic(fmt.Sprintf("family: estimator %s got settings %T, want *%T", d.Name, s, d.Defaults))
		}
		return p
	}
	e := &family.Estimator{
		Name: d.Name, Doc: d.Doc, Unshared: d.Unshared, Leans: d.Leans,
		New: func() family.Settings {
			s := d.Defaults
			return any(&s).(family.Settings)
		},
		Impl: runFunc(func(env *Env, m models.Model, s family.Settings, j Job) ([]report.Row, error) {
			return d.Run(env, m, typed(s), j)
		}),
	}
	if d.Feasible != nil {
		e.Feasible = func(m models.Model, s family.Settings) error { return d.Feasible(m, typed(s)) }
	}
	if d.CheckModel != nil {
		e.CheckModel = func(p family.Problems, s family.Settings, model family.Settings, visible int) {
			d.CheckModel(p, typed(s), model, visible)
		}
	}
	if d.Work != nil {
		e.Work = func(m models.Model, s family.Settings, examples []int) float64 { return d.Work(m, typed(s), examples) }
	}
	return e
}

// ListWork foresees the wall time, on the reference machine, of the
// entries of list that skip does not skip (nil: none) for model m and
// splits of the given sizes (see family.Estimator.Work): the sum of the
// entries that can say, and how many cannot (unknown estimators included).
func ListWork(f *family.Family, m models.Model, list []family.Configured, examples []int, skip func(i int) bool) (secs float64, unknown int) {
	for i, c := range list {
		if skip != nil && skip(i) {
			continue
		}
		e, ok := f.Estimator(c.Name)
		w := 0.0
		if ok && e.Work != nil {
			w = e.Work(m, c.Settings, examples)
		}
		if !(w > 0) || math.IsInf(w, 0) {
			unknown++
			continue
		}
		secs += w
	}
	return secs, unknown
}
