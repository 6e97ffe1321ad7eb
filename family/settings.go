package family

import (
	"fmt"

	"github.com/logz-ml/logz/eval/report"
	"github.com/logz-ml/logz/models"
)

// Settings is a family's section of an experiment — its model: or train:
// mapping, or the settings of one estimator entry — as a pointer to a Go
// struct. Package config decodes a section strictly onto the struct at its
// defaults: every exported field with a `yaml:"key"` tag is a key (embedded
// structs tagged `yaml:",inline"` contribute their keys), `want:"..."` says
// what a value must be in error messages, `cfg:"intstr"` lets a string field
// take an integer (schedule: 2008), and `flag:"name"` lets `logz eval --name`
// set the field.
type Settings interface {
	// Check fills values derived from other settings (e.g. PCD chains from
	// the batch size) and reports every problem to p, with key paths relative
	// to the section ("k", "pretrain.epochs"; "" for the section itself).
	Check(p Problems)
}

// ListChecker is implemented by estimator settings whose limits depend on
// the other entries of their evaluate list (csl's steps: 0 is matched to
// the Gibbs budget of the list's raise or ais). Package config calls
// CheckList with the entry's list after Check, so that the budget the run
// will use is checked when the config is read.
type ListChecker interface {
	CheckList(p Problems, list []Configured)
}

// Legacy is implemented by settings that accept keys older versions of logz
// wrote for every model type (the flat schema of config format 1) and this
// family does not use. Each key is accepted only with the value it had by
// default then, so an old config.resolved.yaml still runs and means the same;
// any other value is an error naming the key.
type Legacy interface {
	Legacy() map[string]any
}

// Problems collects what is wrong with a section. Package config reports
// each problem with the file, the line where the key was set and the full
// key path; `logz eval` with the flag that set the key.
type Problems interface {
	// Check reports "expected <want>, got <got>" at key rel unless ok.
	Check(rel string, ok bool, want string, got any)
	// Enum reports a problem at rel unless val is one of allowed, and says
	// whether it is.
	Enum(rel, val string, allowed []string) bool
	// Errorf reports a problem at key rel.
	Errorf(rel, format string, args ...any)
	// Crossf reports a problem involving several keys at path rel, on the
	// line of lineRel.
	Crossf(rel, lineRel, format string, args ...any)
}

// Configured is one entry of an evaluate list: an estimator name of the
// experiment's family and its settings.
type Configured struct {
	Name     string
	Settings Settings
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
	List []Configured
}

// Estimator is one estimator of a family.
type Estimator struct {
	Name string
	// Doc is one line for `logz models` and the README.
	Doc string
	// New returns the estimator's settings at their defaults.
	New func() Settings
	// Feasible refuses, before any training, a model the estimator cannot
	// evaluate with these settings (e.g. exact enumeration above max_units).
	Feasible func(m models.Model, s Settings) error
	// CheckModel reports, when the config is read, settings that cannot work
	// with the model settings; visible is the number of visible units when
	// the data spec tells it, else −1.
	CheckModel func(p Problems, s Settings, model Settings, visible int)
	// Run evaluates m on the environment's splits.
	Run func(env *Env, m models.Model, s Settings, j Job) ([]report.Row, error)
	// Unshared marks an estimator whose work is not divided among the
	// shards of a sharded evaluation (it never calls Env.Units: exact
	// enumeration, a χ² fit, pll) and whose remembered results change only
	// the rows of later entries, never their work: shards skip it and the
	// merge runs it (see Env.SkipUnshared).
	Unshared bool
}

// Def is an estimator with typed settings *S; see Define.
type Def[S any] struct {
	Name, Doc string
	// Defaults are the settings of an entry that sets nothing.
	Defaults S
	// Feasible and CheckModel are optional; see Estimator.
	Feasible   func(m models.Model, s *S) error
	CheckModel func(p Problems, s *S, model Settings, visible int)
	Run        func(env *Env, m models.Model, s *S, j Job) ([]report.Row, error)
	// Unshared: see Estimator.
	Unshared bool
}

// Define turns a typed definition into an Estimator. *S must implement
// Settings.
func Define[S any](d Def[S]) *Estimator {
	if _, ok := any(new(S)).(Settings); !ok {
		panic(fmt.Sprintf("family: estimator %s: *%T does not implement Settings", d.Name, d.Defaults))
	}
	typed := func(s Settings) *S {
		p, ok := any(s).(*S)
		if !ok {
			panic(fmt.Sprintf("family: estimator %s got settings %T, want *%T", d.Name, s, d.Defaults))
		}
		return p
	}
	e := &Estimator{
		Name: d.Name, Doc: d.Doc, Unshared: d.Unshared,
		New: func() Settings {
			s := d.Defaults
			return any(&s).(Settings)
		},
		Run: func(env *Env, m models.Model, s Settings, j Job) ([]report.Row, error) {
			return d.Run(env, m, typed(s), j)
		},
	}
	if d.Feasible != nil {
		e.Feasible = func(m models.Model, s Settings) error { return d.Feasible(m, typed(s)) }
	}
	if d.CheckModel != nil {
		e.CheckModel = func(p Problems, s Settings, model Settings, visible int) {
			d.CheckModel(p, typed(s), model, visible)
		}
	}
	return e
}

// Entry returns an estimator of f by name with its default settings; it
// panics if f has none of that name (for a family's default lists).
func (f *Family) Entry(name string) Configured {
	e, ok := f.Estimator(name)
	if !ok {
		panic("family " + f.Name + ": no estimator " + name)
	}
	return Configured{Name: name, Settings: e.New()}
}

// NoSettings is the settings of an estimator without any (pll).
type NoSettings struct{}

// Check has nothing to check.
func (*NoSettings) Check(Problems) {}

// Seeded is embedded (inline) by estimator settings with a seed of their own.
type Seeded struct {
	// Seed seeds the estimator; 0 = derived by the runner from the
	// experiment seed, the stage, the epoch and the entry's position.
	Seed uint64 `yaml:"seed" want:"a non-negative integer (0 = derived)"`
}

// OwnSeed returns the seed the entry sets, 0 if none.
func (s *Seeded) OwnSeed() uint64 { return s.Seed }

// CheckFeasible runs the Feasible check of every entry of ests against m.
func (f *Family) CheckFeasible(m models.Model, ests []Configured) error {
	for _, c := range ests {
		e, ok := f.Estimator(c.Name)
		if !ok {
			return fmt.Errorf("estimator %q is not available for model type %s (its estimators: %v)", c.Name, f.Name, f.EstimatorNames())
		}
		if e.Feasible != nil {
			if err := e.Feasible(m, c.Settings); err != nil {
				return fmt.Errorf("%s: %w", c.Name, err)
			}
		}
	}
	return nil
}
