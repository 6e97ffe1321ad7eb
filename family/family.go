// Package family is the registry of model families. A family is everything
// the runner, the config loader and the command line need to know about one
// kind of model: its name and doc, its `model:` and `train:` settings (its
// own Go structs, decoded strictly by package config), its checkpoint codec
// (a models.Type), its trainer and its estimators, each with its own
// settings struct, defaults and the function that evaluates a model on the
// data splits.
//
// A family lives in its own package (family/rbm, family/dbn, ...) and
// registers itself from an init function; family/all imports every family,
// one line each. Package experiment, package config and cmd/logz only ever
// see a *Family, never a model type.
//
// The shared machinery — AIS over an inference.Path, RAISE with a control
// variate, the AIS/RAISE sandwich — lives here too, and a family opts into it
// by providing what it needs (a path, log f(v)), not by being listed.
package family

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/logz-ml/logz/eval"
	"github.com/logz-ml/logz/eval/report"
	"github.com/logz-ml/logz/models"
)

// Family is one registered model family.
type Family struct {
	// Name is the value of model.type and the checkpoint's meta type.
	Name string
	// Doc is one line for `logz models` and the README.
	Doc string
	// Codec stores and loads the family's models in model.npz (a value the
	// model's package exports, e.g. models.RBMType); Register records it,
	// and Codecs hands every family's to models.Load and models.Save.
	Codec models.Type
	// Model and Train return the family's model: and train: settings at
	// their defaults (pointers to structs, see Settings).
	Model func() Settings
	Train func() Settings
	// NewModel builds a fresh model for data with visible units from the
	// model settings (parameters are initialised by the trainer).
	NewModel func(model Settings, visible int) (models.Model, error)
	// Trainers list the training methods, for `logz models`.
	Trainers []TrainerInfo
	// NewTrainer builds the trainer of a model (from NewModel) and
	// initialises its parameters.
	NewTrainer func(a TrainerArgs) (Trainer, error)
	// Estimators are the estimator names the family accepts, in the order
	// `logz models` lists them.
	Estimators []*Estimator
	// EveryEpoch and Final are the default evaluate lists of an experiment
	// of this family.
	EveryEpoch, Final func() []Configured
	// OwnEvalDefaults makes `logz eval` leave this family's estimators at
	// their own defaults for the flags not given (the flags' defaults are
	// those of the Boltzmann families: 14,500 β, 100 AIS runs).
	OwnEvalDefaults bool
	// Finish, if set, post-processes the rows of one evaluation (pairing
	// AIS and RAISE rows into brackets, dropping repeated warnings).
	Finish func(m models.Model, rows []report.Row, ests []Configured) []report.Row
	// Sample, if set, draws samples of a trained model (see SampleOptions
	// and Drawn); the runner writes them to samples.npy, samples.json and
	// samples.png in the experiment's folder after the final evaluation,
	// and `logz sample` draws them from a saved model.
	Sample func(m models.Model, o SampleOptions) (*Drawn, error)
	// SampleInits are the chain starts Sample accepts (InitRandom,
	// InitData, InitQ), its default first; nil for an ancestral sampler,
	// which has no start and ignores SampleOptions.Steps.
	SampleInits []string
	// Mixing, if set, runs SampleOptions.N chains from each of the starts
	// and compares how soon they reach the long-run level of the chains'
	// trace (`logz sample --compare`).
	Mixing func(m models.Model, o SampleOptions, starts []string) (*eval.MixingResult, error)
	// Filters, if set, returns the model's first-layer weights, the ones
	// that meet the visible units (visible×hidden), for filters.png; false
	// when the model has none.
	Filters func(m models.Model) (*Filters, bool)
}

// TrainerInfo names and documents one training method of a family.
type TrainerInfo struct {
	// Method is the value of train.method that selects it.
	Method string
	Doc    string
}

// Estimator looks up one of the family's estimators by name.
func (f *Family) Estimator(name string) (*Estimator, bool) {
	for _, e := range f.Estimators {
		if e.Name == name {
			return e, true
		}
	}
	return nil, false
}

// EstimatorNames lists the family's estimator names in order.
func (f *Family) EstimatorNames() []string {
	out := make([]string, len(f.Estimators))
	for i, e := range f.Estimators {
		out[i] = e.Name
	}
	return out
}

var (
	mu       sync.RWMutex
	families = map[string]*Family{}
	order    []string
)

// Register adds a family. It panics on a duplicate or incomplete family: a
// programming error caught when the program starts.
func Register(f *Family) {
	mu.Lock()
	defer mu.Unlock()
	switch {
	case f.Name == "" || f.Doc == "":
		panic("family: a family needs a name and a doc")
	case f.Model == nil || f.Train == nil || f.NewModel == nil || f.NewTrainer == nil || f.EveryEpoch == nil || f.Final == nil:
		panic("family " + f.Name + ": Model, Train, NewModel, NewTrainer, EveryEpoch and Final are required")
	case f.Codec.Name != f.Name:
		panic(fmt.Sprintf("family %s: its codec is named %q", f.Name, f.Codec.Name))
	}
	if _, dup := families[f.Name]; dup {
		panic("family: registered twice: " + f.Name)
	}
	seen := map[string]bool{}
	for _, e := range f.Estimators {
		if seen[e.Name] {
			panic("family " + f.Name + ": estimator listed twice: " + e.Name)
		}
		seen[e.Name] = true
	}
	families[f.Name] = f
	order = append(order, f.Name)
}

// Lookup returns the family of a model type name.
func Lookup(name string) (*Family, error) {
	mu.RLock()
	defer mu.RUnlock()
	if f, ok := families[name]; ok {
		return f, nil
	}
	return nil, fmt.Errorf("unknown model type %q (known: %s)", name, strings.Join(sortedNames(), ", "))
}

// Names lists the registered family names, sorted.
func Names() []string {
	mu.RLock()
	defer mu.RUnlock()
	return sortedNames()
}

func sortedNames() []string {
	out := slices.Clone(order)
	sort.Strings(out)
	return out
}

// All returns the registered families in the order they registered.
func All() []*Family {
	mu.RLock()
	defer mu.RUnlock()
	out := make([]*Family, len(order))
	for i, n := range order {
		out[i] = families[n]
	}
	return out
}

// KnownEstimator reports which families have an estimator of that name, and
// every estimator name of every family (in registration order, each once).
func KnownEstimator(name string) (owners, all []string) {
	seen := map[string]bool{}
	for _, f := range All() {
		for _, e := range f.Estimators {
			if e.Name == name {
				owners = append(owners, f.Name)
			}
			if !seen[e.Name] {
				seen[e.Name] = true
				all = append(all, e.Name)
			}
		}
	}
	return owners, all
}

// Codecs returns the checkpoint codecs of the registered families, in the
// order they registered: the model types models.Load and models.Save know.
func Codecs() models.Codecs {
	mu.RLock()
	defer mu.RUnlock()
	out := make(models.Codecs, len(order))
	for i, n := range order {
		out[i] = families[n].Codec
	}
	return out
}
