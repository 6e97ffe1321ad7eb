package family

import "sync"

// Flag is a `logz eval` flag that sets estimator settings: every settings
// field tagged `flag:"<Name>"` takes its value.
type Flag struct {
	Name string
	// Default is applied when the flag is not given; "" = the estimator's
	// own default.
	Default string
	// ZeroUnset: a given value "0" means the estimator's own default.
	ZeroUnset bool
	Usage     string
	// Estimator, if set, is the one estimator the flag belongs to: given
	// without --estimator, `logz eval` runs it, and an --estimator list
	// without it is refused.
	Estimator string
	// DataOptional: with this flag --data may be left out; then only
	// Estimator and exact run (e.g. the ratio of two models' partition
	// functions needs no data).
	DataOptional bool
}

// SettingError is a problem with the value of one estimator setting (e.g.
// a file it names), as opposed to the model; Key is the setting's YAML key.
type SettingError struct {
	Key string
	Err error
}

func (e *SettingError) Error() string { return e.Key + ": " + e.Err.Error() }
func (e *SettingError) Unwrap() error { return e.Err }

// Selecting returns the flags among given that belong to one estimator
// (Flag.Estimator), in registration order.
func Selecting(given func(name string) bool) []Flag {
	var out []Flag
	for _, f := range Flags() {
		if f.Estimator != "" && given(f.Name) {
			out = append(out, f)
		}
	}
	return out
}

// WithEstimator lists the registered families that have the estimator
// name.
func WithEstimator(name string) []string {
	var out []string
	for _, f := range All() {
		if _, ok := f.Estimator(name); ok {
			out = append(out, f.Name)
		}
	}
	return out
}

var (
	flagMu sync.Mutex
	flags  = []Flag{
		{Name: "chains", Default: "100", Usage: "AIS runs; RAISE chains per example; CSL chains; sbn: AIS and BDMC chains per example (default 16)"},
		{Name: "betas", Default: "14500", Usage: "number of intermediate distributions K (sbn ais and bdmc: default 1000)"},
		{Name: "schedule", Default: "2008", Usage: "β schedule: linear, 2008 or pilot (ais: the spacing whose pilot runs' log weights vary least)"},
		{Name: "init", Default: "base-rate", Usage: "AIS start: base-rate or uniform"},
		{Name: "max-units", Default: "25", Usage: "exact: refuse above this many units to enumerate (≤ 40)"},
		{Name: "examples", Default: "100", Usage: "RAISE and CSL: evaluate a random subsample of N examples, extended to all by the control variate log f(v) (0 = all)"},
		{Name: "control-variate", Default: "alpha1", Usage: "RAISE: alpha1, fit (least squares) or none"},
		{Name: "samples", ZeroUnset: true, Usage: "proposals per example of estimators that sample (dbn/dbm ais: 500 by default; dbn-bound: 5); chi2: fresh draws of q for the bound (default 10000); sbn mf-bound: draws of q(h) for its ELBO (default 0: the Jaakkola–Jordan bound)"},
		{Name: "q", Usage: "chi2: the proposal family, mixture or aux (default mixture)"},
		{Name: "components", ZeroUnset: true, Usage: "chi2: mixture components K (default 10)"},
		{Name: "fit-steps", Usage: "chi2: fitter steps from scratch (default 2000)"},
	}
)

// RegisterFlag adds a flag for settings fields tagged with its name (for a
// family whose estimators need one the shared list lacks).
func RegisterFlag(f Flag) {
	flagMu.Lock()
	defer flagMu.Unlock()
	for _, g := range flags {
		if g.Name == f.Name {
			panic("family: flag registered twice: " + f.Name)
		}
	}
	flags = append(flags, f)
}

// Flags lists the estimator flags in order.
func Flags() []Flag {
	flagMu.Lock()
	defer flagMu.Unlock()
	return append([]Flag(nil), flags...)
}
