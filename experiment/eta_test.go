package experiment

import (
	"testing"
	"time"

	"github.com/logz-ml/logz/family/dbm"
	"github.com/logz-ml/logz/family/dbn"
	"github.com/logz-ml/logz/family/rbm"
)

// TestRunETAFormat: nothing before an epoch is timed; then the epochs left
// in every experiment times the mean epoch time, rounded honestly, marked
// as a lower bound while an experiment's epochs are not known.
func TestRunETAFormat(t *testing.T) {
	e := newRunETA([]int{3, 4})
	if s := e.String(); s != "" {
		t.Errorf("before the first epoch: %q, want none", s)
	}
	e.start(0, 3, 0, nil)
	e.epoch(0, 2*time.Minute, 0, false)
	if got, want := e.String(), "ETA ~12 min (run: 6 epoch(s) left, before final evaluations)"; got != want {
		t.Errorf("got %q, want %q", got, want) // 2 + 4 epochs left × 2 min
	}
	u := newRunETA([]int{2, -1})
	u.epoch(0, 10*time.Second, 0, false)
	if got, want := u.String(), "ETA ≥ ~10 s (run: 1 epoch(s) left, before final evaluations; 1 experiment(s) not counted)"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	for _, c := range []struct {
		secs float64
		want string
	}{{0.2, "<1 s"}, {40.2, "~41 s"}, {61, "~2 min"}, {89 * 60, "~89 min"}, {2.5 * 3600, "~2.5 h"}} {
		if got := approxDuration(c.secs); got != c.want {
			t.Errorf("approxDuration(%v) = %q, want %q", c.secs, got, c.want)
		}
	}
	var none *runETA
	none.epoch(0, time.Second, 0, false)
	if none.String() != "" {
		t.Error("a nil runETA says something")
	}
}

// costly is train settings whose epoch e costs 1 + e (like CD-k with k
// growing by one per epoch).
type costly struct{}

func (costly) EpochCost(e, _ int) float64 { return 1 + float64(e) }

// TestRunETAWeighsEpochCosts: with an epochCoster the time per unit of cost
// of the epochs done is multiplied by the cost of the epochs left, so an
// experiment whose k grows is foreseen, and an rbm's CD-k settings give
// 1 + k(e).
func TestRunETAWeighsEpochCosts(t *testing.T) {
	e := newRunETA([]int{4, 2}, costly{}, nil)
	e.start(0, 4, 0, nil)
	e.epoch(0, 20*time.Second, 0, false) // epoch 1 costs 2: 10 s per unit
	// Left: epochs 2–4 of the first (3 + 4 + 5 = 12 units) and 2 epochs
	// of the second at cost 1: 14 units × 10 s.
	if got, want := e.String(), "ETA ~3 min (run: 5 epoch(s) left, before final evaluations)"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	tr := rbm.Train{Layer: rbm.DefaultLayer()}
	tr.K, tr.KEnd, tr.Epochs = 1, 25, 25
	if c1, c25 := tr.EpochCost(1, 25), tr.EpochCost(25, 25); c1 != 2 || c25 != 26 {
		t.Errorf("CD-k 1→25 epoch costs %v, %v; want 2, 26", c1, c25)
	}
	if _, ok := any(&tr).(epochCoster); !ok {
		t.Error("rbm train settings are not an epochCoster")
	}
	// A dbm: 2 × 30 pretraining epochs at 1 + k = 2, then 80 joint epochs
	// at 2 + 3·10 mean-field iterations + 2·5 sweeps = 42.
	d := dbm.Train{Layer: rbm.DefaultLayer(), MeanFieldIters: 10, Pretrain: dbm.Pretrain{Epochs: 30, K: 1}}
	d.K, d.Epochs = 5, 80
	if p, j := d.EpochCost(60, 140), d.EpochCost(61, 140); p != 2 || j != 42 {
		t.Errorf("dbm epoch costs %v (pretraining), %v (joint); want 2, 42", p, j)
	}
	if _, ok := any(&d).(epochCoster); !ok {
		t.Error("dbm train settings are not an epochCoster")
	}
	// A dbn of two trained layers of 30 epochs each, k growing 1 → 25 in
	// each: its epochs 1 and 31 cost 2, 30 and 60 cost 26.
	n := dbn.Train{Layer: rbm.DefaultLayer()}
	n.K, n.KEnd, n.Epochs = 1, 25, 30
	if a, b, c, e := n.EpochCost(1, 60), n.EpochCost(30, 60), n.EpochCost(31, 60), n.EpochCost(60, 60); a != 2 || b != 26 || c != 2 || e != 26 {
		t.Errorf("dbn epoch costs %v %v %v %v; want 2 26 2 26", a, b, c, e)
	}
}

// TestRunETAEvaluationsApart: per-epoch evaluations are timed apart from
// training and counted for the epochs left that evaluate, not spread over
// the cost of training (a DBM's evaluated pretraining epochs made its
// joint epochs look six times slower than they were).
func TestRunETAEvaluationsApart(t *testing.T) {
	e := newRunETA([]int{6}, costly{})
	e.start(0, 6, 0, func(ep int) bool { return ep%2 == 0 })
	e.epoch(0, 20*time.Second, 0, false)              // epoch 1, cost 2: 10 s per unit
	e.epoch(0, 30*time.Second, 100*time.Second, true) // epoch 2, cost 3
	// Left: epochs 3–6, cost 4 + 5 + 6 + 7 = 22 units × 10 s = 220 s, and
	// the evaluations after epochs 4 and 6: 2 × 100 s. 420 s = 7 min.
	if got, want := e.String(), "ETA ~7 min (run: 4 epoch(s) left, before final evaluations)"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestEpochsOf reads train.epochs, also through an inline embedded struct.
func TestEpochsOf(t *testing.T) {
	type inner struct {
		Epochs int `yaml:"epochs"`
	}
	type outer struct {
		inner `yaml:",inline"`
		K     int `yaml:"k"`
	}
	if n := epochsOf(&outer{inner: inner{Epochs: 7}}); n != 7 {
		t.Errorf("inline: %d, want 7", n)
	}
	if n := epochsOf(&struct {
		Epochs int `yaml:"epochs"`
	}{5}); n != 5 {
		t.Errorf("top level: %d, want 5", n)
	}
	if n := epochsOf(&struct{ K int }{3}); n != -1 {
		t.Errorf("none: %d, want -1", n)
	}
}

// TestRunETAForeseesFinalEvaluations: once an experiment's final
// evaluation is due, the ETA includes it, its foreseen reference seconds
// scaled by the per-epoch evaluations' measured/foreseen ratio — so the
// ETA at the end of training is the final phase, not "<1 s"; without a
// per-epoch evaluation to compare it names the estimators it leaves out,
// as a lower bound; estimators that cannot foresee their work are named
// beside the foreseen time; a final evaluation that ran drops out.
// (Mutations: leaving the final work out of the sum, or not scaling it by
// the ratio, fail the first case.)
func TestRunETAForeseesFinalEvaluations(t *testing.T) {
	e := newRunETA([]int{2})
	e.start(0, 2, 0, func(int) bool { return true })
	e.finalDue(0, 6, 0, 4) // 6 s on the reference machine
	e.epoch(0, time.Minute, 10*time.Second, true)
	e.evalWork(1, 10*time.Second) // this machine and model: 10× the reference
	// 1 epoch (1 min) + its evaluation (10 s) + final 6 s × 10.
	if got, want := e.String(), "ETA ~3 min (run: 1 epoch(s) left, final evaluations ~1 min)"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	e.epoch(0, time.Minute, 10*time.Second, true)
	e.evalWork(1, 10*time.Second)
	if got, want := e.String(), "ETA ~1 min (run: 0 epoch(s) left, final evaluations ~1 min)"; got != want {
		t.Errorf("at the end of training: got %q, want %q", got, want)
	}
	e.finalDue(0, 6, 2, 4) // two of the four cannot say
	if got, want := e.String(), "ETA ≥ ~1 min (run: 0 epoch(s) left, final evaluations ~1 min and 2 final estimator(s) not foreseen)"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	e.finalRan(0)
	if got, want := e.String(), "ETA <1 s (run: 0 epoch(s) left, before final evaluations)"; got != want {
		t.Errorf("after the final evaluation: got %q, want %q", got, want)
	}

	two := newRunETA([]int{1, 1}) // the second experiment's final is not known yet
	two.start(0, 1, 0, func(int) bool { return true })
	two.finalDue(0, 6, 0, 4)
	two.epoch(0, time.Minute, 10*time.Second, true)
	two.evalWork(1, 10*time.Second)
	if got, want := two.String(), "ETA ~2 min (run: 1 epoch(s) left, final evaluations ~1 min; the final evaluations of 1 later experiment(s) not yet counted)"; got != want {
		t.Errorf("two experiments: got %q, want %q", got, want)
	}

	n := newRunETA([]int{1}) // no per-epoch evaluation: nothing to scale by
	n.start(0, 1, 0, nil)
	n.finalDue(0, 6, 0, 4)
	n.epoch(0, time.Second/2, 0, false)
	if got, want := n.String(), "ETA ≥ <1 s (run: 0 epoch(s) left, before final evaluations (4 estimator(s)))"; got != want {
		t.Errorf("uncalibrated: got %q, want %q", got, want)
	}
	n.evalWork(0, time.Second) // an evaluation whose work is unknown is not used
	if got := n.String(); got != "ETA ≥ <1 s (run: 0 epoch(s) left, before final evaluations (4 estimator(s)))" {
		t.Errorf("after an unforeseen evaluation: %q", got)
	}
}
