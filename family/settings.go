package family

import (
	"fmt"
	"strings"

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

// AddedKeys is implemented by train: settings with keys added after runs
// were made without them, whose unset value now differs from what those
// runs used (train.precision of the Boltzmann trainers: float64 before the
// key existed, float32 unset now). A run folder's config.resolved.yaml
// lacking such a key was written before it existed; --resume reads it with
// SetBefore(key) applied, so the run is compared with the config as it was
// made.
type AddedKeys interface {
	// Added lists the keys.
	Added() []string
	// SetBefore sets key to the value runs made before it existed used.
	SetBefore(key string)
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

// ChecksInputFiles says whether p wants the settings that name input files
// (a dbn's train.bottom_from) checked against the file system: yes unless
// p says otherwise with a ChecksInputFiles method, as the problems of a
// config that a run recorded do (the files may have moved since, and
// re-evaluating the run's models does not read them).
func ChecksInputFiles(p Problems) bool {
	c, ok := p.(interface{ ChecksInputFiles() bool })
	return !ok || c.ChecksInputFiles()
}

// Configured is one entry of an evaluate list: an estimator name of the
// experiment's family and its settings.
type Configured struct {
	Name     string
	Settings Settings
}

// Estimator is one estimator of a family.
type Estimator struct {
	Name string
	// Doc is one line for `logz models` and docs/reference.md.
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
	// Leans says on which side of the truth the estimator's numbers lie
	// (a lower bound, an upper bound, unbiased); the conformance test holds
	// every estimator to it against exact enumeration.
	Leans Leans
	// Impl evaluates a model with these settings: family/kit/estim.Define
	// makes it and the evaluation's run loop (family/kit/evalenv, above
	// this floor) runs it. Register checks here that it takes the settings
	// New makes.
	Impl Impl
	// Unshared marks an estimator whose work is not divided among the
	// shards of a sharded evaluation (it never calls Env.Units: exact
	// enumeration, a χ² fit, pll) and whose remembered results change only
	// the rows of later entries, never their work: shards skip it and the
	// merge runs it (see Env.SkipUnshared).
	Unshared bool
	// Work, if set, foresees the estimator's wall time on the reference
	// machine for a model m and splits of the given numbers of examples, in
	// seconds (0: it cannot say). The run's ETA scales it by how the
	// per-epoch evaluations' measured times compare with their own Work.
	Work func(m models.Model, s Settings, examples []int) float64
}

// Impl is what evaluates a model with an estimator's settings. Its run
// method takes the evaluation environment, which is declared above this
// floor (family/kit/evalenv.Runner); here it is typed by what the registry
// can check: the settings type it runs with.
type Impl interface {
	// Takes reports whether s is of the estimator's own settings type.
	Takes(s Settings) bool
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

// CheckpointSchedule is implemented by train settings that say after which
// epochs model.npz is written (besides the last).
type CheckpointSchedule interface {
	CheckpointDue(epoch int) bool
}

// Lean is the side of the truth on which an estimator's expectation lies.
type Lean int

const (
	// NoClaim: the estimator's rows carry no such number.
	NoClaim Lean = iota
	// Low: a stochastic lower bound, E[estimate] ≤ truth (the log of an
	// unbiased estimate of a probability, by Jensen's inequality; a
	// variational lower bound).
	Low
	// High: a stochastic upper bound, E[estimate] ≥ truth (the χ² bound on
	// log Z; −log Ẑ of an unbiased Ẑ).
	High
	// Near: unbiased or consistent, or biased either way by less than its
	// standard error (log f̂ by importance sampling minus an AIS log Ẑ).
	Near
)

func (l Lean) String() string {
	return [...]string{"no claim", "low", "high", "near"}[l]
}

// Leans is what an estimator's rows promise about the truth.
type Leans struct {
	// LogLik is the direction of the mean log-likelihood's error, LogZ
	// that of log Z (of the ratio Z/Z_B when Ratio is set).
	LogLik, LogZ Lean
	Ratio        bool
	// Bracket: the row's [LoglikLo, LoglikHi] contains the truth (a lower
	// and an upper estimate, as BDMC's on simulated data).
	Bracket bool
	// Why says where the claim comes from, in a few words.
	Why string
}

// Summary says the claim in a few words ("log Z low, log p high"; "log p
// bracketed"), "" when there is none.
func (l Leans) Summary() string {
	var parts []string
	if l.LogZ != NoClaim {
		what := "log Z"
		if l.Ratio {
			what = "log Z_B − log Z_A"
		}
		parts = append(parts, what+" "+l.LogZ.String())
	}
	if l.LogLik != NoClaim {
		parts = append(parts, "log p "+l.LogLik.String())
	}
	if l.Bracket {
		parts = append(parts, "log p bracketed")
	}
	return strings.Join(parts, ", ")
}
