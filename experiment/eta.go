package experiment

import (
	"fmt"
	"math"
	"reflect"
	"strings"
	"time"
)

// runETA estimates when a `logz run` finishes training: the epochs still to
// train in every experiment of the file, each weighted by its relative cost
// (epochCoster; 1 by default, 1 + k for CD-k so that a k growing to 25 is
// foreseen), times the training wall time per unit of cost of the epochs
// trained so far by this process; plus the per-epoch evaluations still due
// times the mean wall time of those done so far. (Evaluations are timed
// apart: their cost does not grow with the epoch's, and counted into the
// epochs they made a DBM's joint epochs, 21 times the cost of a
// pretraining epoch, look six times slower than they are.) It knows
// nothing before the first epoch ends and does not count epochs a --resume
// skips as done quickly. The final evaluations, which have no history to go
// by, are foreseen from their estimators' work (family.Estimator.Work:
// seconds on a reference machine, e.g. 2^H·D terms for exact, runs × β
// sweeps for AIS, N·D·H for pll) scaled by how long the per-epoch
// evaluations took against their own foreseen work; an estimator that
// cannot foresee its work, or a run without a per-epoch evaluation to
// compare, is said to be left out.
type runETA struct {
	total, done []int // per experiment; total −1 = not known yet
	cost        []func(epoch, total int) float64
	// due[i] says whether experiment i evaluates after an epoch (nil: never).
	due    []func(epoch int) bool
	secs   float64 // training time of the timed epochs
	units  float64 // the summed cost of the timed epochs
	epochs int
	// evalSecs and evals are the time and number of per-epoch evaluations.
	evalSecs float64
	evals    int
	// refSecs and refTook are the foreseen (reference machine, see
	// family.Estimator.Work) and the measured seconds of the per-epoch
	// evaluations whose every estimator could foresee its work: their
	// ratio scales the final evaluations' foreseen time to this machine
	// and these models.
	refSecs, refTook float64
	// final[i] is experiment i's final evaluation still to run, once its
	// runner has built the model (nil before, and after it ran); ran[i]
	// says it ran (or never will).
	final []*finalWork
	ran   []bool
}

// finalWork is what an experiment's final evaluation will cost: the
// foreseen seconds on the reference machine of the estimators that can
// say, and how many estimators cannot.
type finalWork struct {
	refSecs    float64
	unknown, n int
}

// epochCoster is implemented by train settings whose epochs differ in cost:
// EpochCost(e, total) is epoch e's cost (1-based, of total epochs, which
// for a greedy trainer include the pretraining) relative to the others.
type epochCoster interface {
	EpochCost(epoch, total int) float64
}

// newRunETA starts an estimate for experiments whose train settings give
// their epoch counts (−1 where unknown until the trainer is built) and,
// where they implement epochCoster, their epochs' relative costs.
func newRunETA(totals []int, trains ...any) *runETA {
	e := &runETA{total: totals, done: make([]int, len(totals)), cost: make([]func(int, int) float64, len(totals)), due: make([]func(int) bool, len(totals)),
		final: make([]*finalWork, len(totals)), ran: make([]bool, len(totals))}
	for i, t := range trains {
		if c, ok := t.(epochCoster); ok && i < len(totals) {
			e.cost[i] = c.EpochCost
		}
	}
	return e
}

// costOf is experiment i's epoch e cost (1 when unknown or not positive).
func (e *runETA) costOf(i, epoch int) float64 {
	if f := e.cost[i]; f != nil {
		if c := f(epoch, e.total[i]); c > 0 && !math.IsInf(c, 0) {
			return c
		}
	}
	return 1
}

// start records experiment i's epochs, total and done (after a --resume),
// and after which epochs it evaluates (nil: none).
func (e *runETA) start(i, total, done int, due func(epoch int) bool) {
	if e == nil {
		return
	}
	e.total[i], e.done[i], e.due[i] = total, done, due
}

// epoch records that experiment i finished an epoch whose training took
// train and whose evaluation, if it had one (evaluated), took eval.
func (e *runETA) epoch(i int, train, eval time.Duration, evaluated bool) {
	if e == nil {
		return
	}
	e.done[i]++
	e.secs += train.Seconds()
	e.units += e.costOf(i, e.done[i])
	e.epochs++
	if evaluated {
		e.evalSecs += eval.Seconds()
		e.evals++
	}
}

// evalWork records that a per-epoch evaluation foreseen to take ref
// seconds on the reference machine took took (ref ≤ 0: some estimator
// could not foresee its work; not used).
func (e *runETA) evalWork(ref float64, took time.Duration) {
	if e == nil || !(ref > 0) || math.IsInf(ref, 0) {
		return
	}
	e.refSecs += ref
	e.refTook += took.Seconds()
}

// finalDue records that experiment i's final evaluation of n estimators
// is still to run: ref foreseen seconds on the reference machine for the
// estimators that can say, unknown estimators that cannot.
func (e *runETA) finalDue(i int, ref float64, unknown, n int) {
	if e == nil || i >= len(e.final) || n == 0 {
		return
	}
	e.final[i] = &finalWork{refSecs: ref, unknown: unknown, n: n}
}

// finalRan records that experiment i's final evaluation has run (or will
// not).
func (e *runETA) finalRan(i int) {
	if e == nil || i >= len(e.final) {
		return
	}
	e.final[i], e.ran[i] = nil, true
}

// String is e.g. "ETA ~12 min (run: 6 epoch(s) left, before final
// evaluations)", "" before the first epoch has been timed. Once an
// experiment's final evaluation is known (finalDue), the ETA includes it,
// scaled from the reference machine to this one by the per-epoch
// evaluations timed so far ("ETA ~25 min (run: 2 epoch(s) left, final
// evaluations ~20 min)"), and says how many later experiments' final
// evaluations it does not count yet; the estimators it cannot foresee — all of them
// when no per-epoch evaluation could be compared — are named instead:
// "ETA <1 s (run: 0 epoch(s) left, before final evaluations (4
// estimators))".
func (e *runETA) String() string {
	if e == nil || e.epochs == 0 {
		return ""
	}
	left, unknown, units, evals := 0, 0, 0.0, 0
	for i, t := range e.total {
		if t < 0 {
			unknown++
			continue
		}
		left += max(0, t-e.done[i])
		for ep := e.done[i] + 1; ep <= t; ep++ {
			units += e.costOf(i, ep)
			if e.due[i] != nil && e.due[i](ep) {
				evals++
			}
		}
	}
	secs := 0.0
	if e.units > 0 {
		secs = units * e.secs / e.units
	}
	if e.evals > 0 {
		secs += float64(evals) * e.evalSecs / float64(e.evals)
	}
	known, final, notForeseen, later := false, 0.0, 0, 0
	for i, f := range e.final {
		if f == nil {
			if !e.ran[i] {
				later++
			}
			continue
		}
		known = true
		if e.refSecs > 0 && e.refTook > 0 {
			final += f.refSecs * e.refTook / e.refSecs
			notForeseen += f.unknown
		} else {
			notForeseen += f.n // nothing to scale the foreseen times by
		}
	}
	s := "ETA "
	if unknown > 0 || notForeseen > 0 {
		s += "≥ "
	}
	s += fmt.Sprintf("%s (run: %d epoch(s) left, ", approxDuration(secs+final), left)
	switch {
	case !known:
		s += "before final evaluations"
	case final > 0 && notForeseen > 0:
		s += fmt.Sprintf("final evaluations %s and %d final estimator(s) not foreseen", approxDuration(final), notForeseen)
	case final > 0:
		s += fmt.Sprintf("final evaluations %s", approxDuration(final))
	default:
		s += fmt.Sprintf("before final evaluations (%d estimator(s))", notForeseen)
	}
	if known && later > 0 {
		s += fmt.Sprintf("; the final evaluations of %d later experiment(s) not yet counted", later)
	}
	if unknown > 0 {
		s += fmt.Sprintf("; %d experiment(s) not counted", unknown)
	}
	return s + ")"
}

// approxDuration rounds seconds to what an ETA can honestly say: "~40 s",
// "~12 min", "~2.5 h".
func approxDuration(secs float64) string {
	switch {
	case secs < 1:
		return "<1 s"
	case secs < 60:
		return fmt.Sprintf("~%.0f s", math.Ceil(secs))
	case secs < 90*60:
		return fmt.Sprintf("~%.0f min", math.Ceil(secs/60))
	default:
		return fmt.Sprintf("~%.1f h", secs/3600)
	}
}

// epochsOf reads the epoch count of a family's train settings: a top-level
// int field with the yaml key "epochs" (−1 when there is none, e.g. a
// family whose epochs are per layer; the runner learns it from the trainer).
func epochsOf(train any) int { return epochsIn(reflect.ValueOf(train)) }

func epochsIn(v reflect.Value) int {
	for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
		if v.IsNil() {
			return -1
		}
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		return -1
	}
	t := v.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		switch {
		case name == "epochs" && f.Type.Kind() == reflect.Int:
			return int(v.Field(i).Int())
		case f.Anonymous && name == "" && opts == "inline":
			if n := epochsIn(v.Field(i)); n >= 0 {
				return n
			}
		}
	}
	return -1
}
