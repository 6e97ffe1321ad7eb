package estim

import (
	"strings"
	"testing"

	"github.com/logz-ml/logz/family/kit/evalenv"
	"github.com/logz-ml/logz/models"
)

// TestExactRBMNotice checks that a long enumeration is announced through
// Env.Notice before it starts, with its size and time, that its progress
// bar counts the states, and that a short one is not announced.
func TestExactRBMNotice(t *testing.T) {
	var notes []string
	var label string
	var total int64
	env := &evalenv.Env{Experiment: "e1", Epoch: 3,
		Notice: func(msg string) { notes = append(notes, msg) },
		Progress: func(l string, n int64) (func(int64), func()) {
			label, total = l, n
			return func(int64) {}, func() {}
		},
	}
	// 2^31 states: announced (only planned here, not run).
	big := models.NewRBM(600, 31)
	e, done, err := ExactRBM(env, big, 40, "exact")
	if err != nil {
		t.Fatal(err)
	}
	done()
	if len(notes) != 1 || !strings.HasPrefix(notes[0], "e1 epoch 3 exact: enumerating 2^31 hidden states × 600 visible units: about ") ||
		!strings.Contains(notes[0], "states/s)") {
		t.Errorf("notices %q", notes)
	}
	if label != "e1 epoch 3 exact 2^31 states" || total != 1<<31 || e.Progress == nil || e.MaxUnits != 40 {
		t.Errorf("bar %q of %d, enumerator %+v", label, total, e)
	}

	// 2^22 states: no notice; the bar counts the states.
	notes = nil
	mid := models.NewRBM(22, 30)
	e, done, err = ExactRBM(env, mid, 25, "top-RBM exact")
	if err != nil {
		t.Fatal(err)
	}
	done()
	if len(notes) != 0 || label != "e1 epoch 3 top-RBM exact 2^22 states" || total != 1<<22 || e.Progress == nil {
		t.Errorf("notices %q, bar %q of %d", notes, label, total)
	}

	// 2^21 states: no bar.
	label = ""
	e, _, err = ExactRBM(env, models.NewRBM(21, 30), 25, "exact")
	if err != nil || label != "" || e.Progress != nil || len(notes) != 0 {
		t.Errorf("2^21 states: %v, bar %q, notices %q", err, label, notes)
	}

	// Above max units: no plan, no bar; LogZ refuses.
	label = ""
	e, _, err = ExactRBM(env, big, 30, "exact")
	if err != nil || label != "" || len(notes) != 0 {
		t.Errorf("above max units: %v, bar %q, notices %q", err, label, notes)
	}
	if _, err := e.LogZ(big); err == nil {
		t.Error("LogZ above max units did not fail")
	}
}
