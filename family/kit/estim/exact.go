package estim

import (
	"fmt"
	"time"

	"github.com/logz-ml/logz/eval"
	"github.com/logz-ml/logz/family"
	"github.com/logz-ml/logz/family/kit/evalenv"
	"github.com/logz-ml/logz/models"
)

// MaxExactUnits is the most units exact enumeration may be allowed to
// enumerate (2^40 terms).
const MaxExactUnits = 40

// Exact is the settings of exact enumeration.
type Exact struct {
	// MaxUnits: exact enumeration refuses models that need more than 2^MaxUnits
	// terms; ≤ 40.
	MaxUnits int `yaml:"max_units" want:"an integer in [1,40]" flag:"max-units"`
}

// Check reports a max_units outside [1, MaxExactUnits].
func (e *Exact) Check(p family.Problems) {
	p.Check("max_units", e.Valid(), "an integer in [1,40]", e.MaxUnits)
}

// Valid reports whether MaxUnits is in [1, MaxExactUnits].
func (e *Exact) Valid() bool { return e.MaxUnits >= 1 && e.MaxUnits <= MaxExactUnits }

const (
	// ExactBarUnits is the least number of enumerated units (2^22 states,
	// about a second for 784 summed units) that gets a progress bar.
	ExactBarUnits = 22
	// ExactPlanUnits is the least number of enumerated units (2^26 states,
	// seconds of work) for which ExactRBM measures the rate of the
	// enumeration before it starts; the measurement takes tens of
	// milliseconds.
	ExactPlanUnits = 26
	// ExactNoticeUnits and ExactNoticeAfter: an enumeration of more units,
	// or measured to take longer, is announced through Env.Notice with the
	// time it will take.
	ExactNoticeUnits = 30
	ExactNoticeAfter = time.Minute
)

// ExactRBM returns the enumerator of r's log Z with at most maxUnits
// enumerated units, drawing its progress over the states on the Env's bar
// (labelled with what, e.g. "exact") from ExactBarUnits units on, and a
// function to call when it is done.
// Before a long enumeration (more than ExactNoticeUnits units, or measured
// at more than ExactNoticeAfter) it tells Env.Notice how long it will take,
// e.g. "e1 epoch 10 exact: enumerating 2^33 hidden states × 784 visible
// units: about 25 min (measured 5.6 M states/s)".
func ExactRBM(env *evalenv.Env, r *models.RBM, maxUnits int, what string) (eval.Exact, func(), error) {
	e := eval.Exact{MaxUnits: maxUnits}
	k := min(r.NVis, r.NHid)
	if k > maxUnits {
		return e, func() {}, nil // LogZ says why it refuses
	}
	label := fmt.Sprintf("%s epoch %d %s", env.Experiment, env.Epoch, what)
	if env.Notice != nil && k >= ExactPlanUnits {
		plan, err := e.Plan(r)
		if err != nil {
			return e, func() {}, err
		}
		if k > ExactNoticeUnits || plan.Estimate > ExactNoticeAfter {
			env.Notice(label + ": " + plan.String())
		}
	}
	if k < ExactBarUnits {
		return e, func() {}, nil
	}
	var done func()
	e.Progress, done = env.Bar(fmt.Sprintf("%s 2^%d states", label, k), int64(1)<<k)
	return e, done, nil
}
