package experiment

import (
	"testing"
	"time"
)

// TestRunETAFormat: nothing before an epoch is timed; then the epochs left
// in every experiment times the mean epoch time, rounded honestly, marked
// as a lower bound while an experiment's epochs are not known.
func TestRunETAFormat(t *testing.T) {
	e := newRunETA([]int{3, 4})
	if s := e.String(); s != "" {
		t.Errorf("before the first epoch: %q, want none", s)
	}
	e.start(0, 3, 0)
	e.epoch(0, 2*time.Minute)
	if got, want := e.String(), "ETA ~12 min (run: 6 epoch(s) left, before final evaluations)"; got != want {
		t.Errorf("got %q, want %q", got, want) // 2 + 4 epochs left × 2 min
	}
	u := newRunETA([]int{2, -1})
	u.epoch(0, 10*time.Second)
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
	none.epoch(0, time.Second)
	if none.String() != "" {
		t.Error("a nil runETA says something")
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
