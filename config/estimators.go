package config

import (
	"fmt"
	"reflect"
	"strings"

	"gopkg.in/yaml.v3"
)

// Estimator is one entry of evaluate.every_epoch or evaluate.final. Which
// fields apply depends on Name (see EstimatorKinds); fields that do not apply
// are zero, and setting them in a file is an error. In a file an entry is a
// mapping such as {name: ais, runs: 100} or just the name (`- pll`).
type Estimator struct {
	// Name is the estimator: exact, ais, raise, csl, dbn-bound, mf-bound,
	// pll or recon.
	Name string `yaml:"name" want:"an estimator name"`
	// Runs is the number M of independent AIS runs (chains), ≥ 2.
	Runs int `yaml:"runs" want:"an integer ≥ 2"`
	// Betas is the number K of intermediate distributions, ≥ 1 (≥ 3 for
	// the 2008 schedule).
	Betas int `yaml:"betas" want:"a positive integer"`
	// Schedule is the spacing of the inverse temperatures β_k: "linear"
	// (β_k = k/K) or "2008" (the piecewise-uniform shape of Salakhutdinov &
	// Murray 2008 — 500 β in [0,0.5), 4,000 in [0.5,0.9), 10,000 in [0.9,1]
	// — with each segment's count scaled by K/14,500).
	Schedule string `yaml:"schedule" want:"linear or 2008" cfg:"intstr"`
	// Init is the AIS base distribution: "base-rate" (W = 0, visible
	// biases at the data's smoothed log-odds) or "uniform" (all zero).
	Init string `yaml:"init" want:"base-rate or uniform"`
	// MaxUnits: exact enumeration refuses models whose smaller layer has
	// more units (it costs 2^min(D,H) terms); ≤ 40.
	MaxUnits int `yaml:"max_units" want:"an integer in [1,40]"`
	// MinESSFraction: warn when the effective sample size of the AIS
	// weights is below MinESSFraction × Runs; in [0,1].
	MinESSFraction float64 `yaml:"min_ess_fraction" want:"a number in [0,1]"`
	// Samples (dbn, dbm): proposals per test example — for a dbn from the
	// recognition model Q, importance samples for ais (RAISE §5.3) and
	// draws for dbn-bound (2008 eq. 23); for a dbm, importance samples of
	// the even hidden layers from the mean-field proposal for ais (RAISE
	// §5.2).
	Samples int `yaml:"samples" want:"a positive integer"`
	// Chains is the number of chains: RAISE reverse chains per example (M),
	// or CSL Gibbs chains.
	Chains int `yaml:"chains" want:"a positive integer"`
	// Examples is the number of examples of each split that RAISE or CSL
	// evaluate (a random subsample; the control variate extends RAISE to
	// the whole split); 0 = all.
	Examples int `yaml:"examples" want:"a non-negative integer (0 = all)"`
	// Steps is the number of Gibbs steps per CSL chain after burn-in; 0 =
	// matched, as in Burda et al. (2015, footnote 4), to the Gibbs steps
	// RAISE spends per example (chains × betas) or else AIS's (runs × betas)
	// in the same list.
	Steps int `yaml:"steps" want:"a non-negative integer (0 = matched to RAISE/AIS)"`
	// BurnIn is the number of CSL Gibbs steps discarded per chain.
	BurnIn int `yaml:"burn_in" want:"a non-negative integer"`
	// ControlVariate is how RAISE's subsample mean is extended to the whole
	// split with X = log f(v): "alpha1" (Y − X, Burda et al. §4), "fit"
	// (α by least squares) or "none" (plain subsample mean).
	ControlVariate string `yaml:"control_variate" want:"alpha1, fit or none"`
	// GapTolerance: warn when the AIS − RAISE gap of the same start exceeds
	// this many nats.
	GapTolerance float64 `yaml:"gap_tolerance" want:"a positive number (nats)"`
	// Seed seeds the estimator; 0 = derived by the runner from the
	// experiment seed (see DeriveSeed).
	Seed uint64 `yaml:"seed" want:"a non-negative integer (0 = derived)"`
}

// EstimatorKind describes one estimator name accepted in evaluate lists.
type EstimatorKind struct {
	Name string
	// Doc is one line for the README and error messages.
	Doc string
	// Keys are the settings (yaml keys besides name) that apply to it.
	Keys []string
	// Defaults holds the default of every key in Keys.
	Defaults Estimator
}

// estimatorKinds is the one list of estimator names the config accepts. To
// add an estimator (raise, csl, dbn-bound, ...), add a row here, with any new
// setting as a field of Estimator.
var estimatorKinds = []EstimatorKind{
	{
		Name:     "exact",
		Doc:      "exact log Z by enumerating the smaller layer (2^min(D,H) terms)",
		Keys:     []string{"max_units"},
		Defaults: Estimator{MaxUnits: 25},
	},
	{
		Name: "ais",
		Doc:  "annealed importance sampling estimate of log Z (Salakhutdinov & Murray 2008)",
		Keys: []string{"runs", "betas", "schedule", "init", "min_ess_fraction", "samples", "seed"},
		Defaults: Estimator{
			Runs: 100, Betas: 14500, Schedule: "2008", Init: "base-rate", MinESSFraction: 0.1, Samples: 500,
		},
	},
	{
		Name: "dbn-bound",
		Doc:  "DBN variational lower bound (2008 eq. 22–24) with the top RBM's log Z exact when small, else by AIS",
		Keys: []string{"samples", "runs", "betas", "schedule", "init", "max_units", "seed"},
		Defaults: Estimator{
			Samples: 5, Runs: 100, Betas: 14500, Schedule: "2008", Init: "base-rate", MaxUnits: 25,
		},
	},
	{
		Name: "mf-bound",
		Doc:  "DBM mean-field lower bound on log f(v) (Salakhutdinov & Hinton 2009) minus the AIS estimate of log Z",
		Keys: []string{"runs", "betas", "schedule", "init", "min_ess_fraction", "seed"},
		Defaults: Estimator{
			Runs: 100, Betas: 14500, Schedule: "2008", Init: "base-rate", MinESSFraction: 0.1,
		},
	},
	{
		Name: "raise",
		Doc:  "reverse AIS estimator: a stochastic lower bound on each example's log-probability under the annealing model (Burda et al. 2015)",
		Keys: []string{"chains", "betas", "schedule", "init", "examples", "control_variate", "gap_tolerance", "min_ess_fraction", "seed"},
		Defaults: Estimator{
			Chains: 50, Betas: 14500, Schedule: "2008", Init: "base-rate", Examples: 100,
			ControlVariate: "alpha1", GapTolerance: 1, MinESSFraction: 0.1,
		},
	},
	{
		Name:     "csl",
		Doc:      "conservative sampling-based log-likelihood: log of the mean of p(v|h_s) over hidden states of Gibbs chains (Bengio et al. 2013)",
		Keys:     []string{"chains", "steps", "burn_in", "init", "examples", "seed"},
		Defaults: Estimator{Chains: 100, Init: "base-rate", Examples: 100},
	},
	{
		Name: "pll",
		Doc:  "mean pseudo-log-likelihood (a cheap training signal, not a likelihood)",
	},
	{
		Name: "recon",
		Doc:  "mean squared reconstruction error after one Gibbs step (a cheap signal)",
		Keys: []string{"seed"},
	},
}

// EstimatorKinds returns the accepted estimator names with their settings.
func EstimatorKinds() []EstimatorKind {
	out := make([]EstimatorKind, len(estimatorKinds))
	for i, k := range estimatorKinds {
		k.Keys = append([]string(nil), k.Keys...)
		out[i] = k
	}
	return out
}

func lookupEstimator(name string) (EstimatorKind, bool) {
	for _, k := range estimatorKinds {
		if k.Name == name {
			return k, true
		}
	}
	return EstimatorKind{}, false
}

func estimatorNames() []string {
	out := make([]string, len(estimatorKinds))
	for i, k := range estimatorKinds {
		out[i] = k.Name
	}
	return out
}

// NewEstimator returns the estimator with that name and every applicable
// setting at its default.
func NewEstimator(name string) (Estimator, error) {
	k, ok := lookupEstimator(name)
	if !ok {
		return Estimator{}, fmt.Errorf("config: unknown estimator %q (known: %s)", name, strings.Join(estimatorNames(), ", "))
	}
	e := k.Defaults
	e.Name = name
	return e, nil
}

// MustEstimator is NewEstimator for names known to exist; it panics
// otherwise (a programming error).
func MustEstimator(name string) Estimator {
	e, err := NewEstimator(name)
	if err != nil {
		panic(err)
	}
	return e
}

// MarshalYAML writes the name and the settings that apply to the estimator,
// as a flow mapping: {name: ais, runs: 100, betas: 14500, ...}.
func (e Estimator) MarshalYAML() (any, error) {
	k, ok := lookupEstimator(e.Name)
	if !ok {
		return nil, fmt.Errorf("config: unknown estimator %q (known: %s)", e.Name, strings.Join(estimatorNames(), ", "))
	}
	n := &yaml.Node{Kind: yaml.MappingNode, Style: yaml.FlowStyle}
	add := func(key string, v any) error {
		var val yaml.Node
		if err := val.Encode(v); err != nil {
			return err
		}
		n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: key}, &val)
		return nil
	}
	if err := add("name", e.Name); err != nil {
		return nil, err
	}
	fields := fieldsOf(reflect.TypeOf(e))
	rv := reflect.ValueOf(e)
	for _, key := range k.Keys {
		f := fields.byKey[key]
		if err := add(key, rv.Field(f.index).Interface()); err != nil {
			return nil, err
		}
	}
	return n, nil
}
