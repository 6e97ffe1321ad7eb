// Package family is the registry of model families and the contracts a
// family fills in. A family is what the config loader, the runner and the
// command line need to know about one kind of model: its name and doc, its
// `model:` and `train:` settings (its own Go structs, decoded strictly by
// package config), its checkpoint codec (a models.Type), the names of its
// training methods, and its estimators, each with its own settings struct,
// defaults and the side of the truth its numbers lie on.
//
// The registry declares; it does not compute. It imports no trainer,
// estimator or kernel, so that reading a config needs none. What a family
// does — build and train a model, run an estimator, draw samples — is its
// Plugin and each estimator's Impl: typed interfaces declared here, whose
// further abilities (training, sampling, finishing rows) are small
// interfaces the packages under family/kit declare: trainer, sampling,
// evalenv (the evaluation environment and its run loop) and estim (the
// estimator definitions every family shares).
//
// A family lives in its own package (family/rbm, family/dbn, ...) and
// registers itself from an init function with kit.Register; family/all
// imports every family, one line each. Package experiment, package config
// and cmd/logz only ever see a *Family, never a model type.
package family

import (
	"fmt"
	"github.com/logz-ml/logz/data"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/logz-ml/logz/models"
)

// Family is one registered model family.
type Family struct {
	// Name is the value of model.type and the checkpoint's meta type.
	Name string
	// Doc is one line for `logz models` and docs/reference.md.
	Doc string
	// Codec stores and loads the family's models in model.npz (a value the
	// model's package exports, e.g. models.RBMType); Register records it,
	// and Codecs hands every family's to models.Load and models.Save.
	Codec models.Type
	// Model and Train return the family's model: and train: settings at
	// their defaults (pointers to structs, see Settings).
	Model func() Settings
	Train func() Settings
	// Trainers list the training methods, for `logz models`.
	Trainers []TrainerInfo
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
	// Plugin does the family's work: it builds and trains models (Plugin,
	// required here) and may also sample them, compare chain starts, show filters and
	// finish an evaluation's rows — each of those a small interface
	// declared by the package that uses it (sampling.Sampler,
	// sampling.Mixer, sampling.FilterSource, evalenv.Finisher) and found by
	// a type assertion.
	Plugin Plugin
}

// Plugin is a family's plug-in: the type whose methods build, train and
// sample its models. Building and training are the abilities every Plugin
// has; the optional ones are found by type assertion.
type Plugin interface {
	// NewModel builds a fresh model for data with visible units from the
	// model settings (parameters are initialised by the trainer).
	NewModel(model Settings, visible int) (models.Model, error)
	// NewTrainer builds the trainer of a model (from NewModel) and
	// initialises its parameters.
	NewTrainer(a TrainerArgs) (Trainer, error)
}

// Trainer is what the runner drives: one epoch at a time, checkpointed
// and resumed bit for bit.
type Trainer interface {
	TrainEpoch(x data.Examples) (models.EpochSummary, error)
	Checkpoint(experiment string) (*models.Checkpoint, error)
	Resume(c *models.Checkpoint) error
	// Completed and Total count epochs, all layers and phases included.
	Completed() int
	Total() int
	// Current is the model to evaluate now (for a DBN: the stack so far).
	Current() models.Model
	SetOnBatch(f func(int))
}

// TrainerArgs is what a Plugin's NewTrainer is given.
type TrainerArgs struct {
	// Model is the model to train, from the family's NewModel.
	Model models.Model
	// ModelSettings and Train are the experiment's model: and train:
	// sections (the family's own structs).
	ModelSettings, Train Settings
	// Data is the training set; BaseRate its smoothed log-odds per unit.
	Data     *data.Set
	BaseRate []float64
	// Seed seeds every random draw of training.
	Seed uint64
	// Workers is the number of goroutines; results do not depend on it.
	Workers int
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
// programming error caught when the program starts. Families register
// through kit.Register, which also checks what their Plugin and estimators
// can do.
func Register(f *Family) {
	mu.Lock()
	defer mu.Unlock()
	switch {
	case f.Name == "" || f.Doc == "":
		panic("family: a family needs a name and a doc")
	case f.Model == nil || f.Train == nil || f.Plugin == nil || f.EveryEpoch == nil || f.Final == nil:
		panic("family " + f.Name + ": Model, Train, Plugin, EveryEpoch and Final are required")
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
		if e.New == nil || e.Impl == nil || !e.Impl.Takes(e.New()) {
			panic(fmt.Sprintf("family %s: estimator %s: its Impl %T does not take the settings its New makes", f.Name, e.Name, e.Impl))
		}
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

// Reloader is a Plugin whose trainer evaluates a model its checkpoint does
// not hold as it is (an SBN's net carries which posterior estimate it is,
// which is not saved): Trained returns the model a finished training
// evaluates (its trainer's Current) from its checkpoint, without building
// a trainer. Without it, that model is the checkpoint's.
type Reloader interface {
	Trained(c *models.Checkpoint) (models.Model, error)
}

// Trained returns the model a finished training of family f evaluates,
// from its checkpoint c (see Reloader).
func Trained(f *Family, c *models.Checkpoint) (models.Model, error) {
	if r, ok := f.Plugin.(Reloader); ok {
		return r.Trained(c)
	}
	return c.Model, nil
}
