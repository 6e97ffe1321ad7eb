package train

import (
	"strings"
	"testing"

	"github.com/logz-ml/logz/internal/kernel"
)

// precisionOf is kernel.Float32 when f32 is set, else kernel.Float64.
func precisionOf(f32 bool) kernel.Precision {
	if f32 {
		return kernel.Float32
	}
	return kernel.Float64
}

// TestRBMCheckpointPrecision: a checkpoint records the trainer's precision
// ("precision"), and checkpoints written before that field keep the
// precision they were trained in — "float32": true is float32, no field
// float64 — so each resumes in its own precision and is refused in the
// other with kernel.Check's message.
func TestRBMCheckpointPrecision(t *testing.T) {
	_, train, _ := planted(400, 4)
	for _, f32 := range []bool{false, true} {
		prec := precisionOf(f32)
		tr := newTrainerIn(t, f32, true, 21, 1)
		tr.TrainEpoch(train)
		c := saveAndLoad(t, tr)
		meta := string(c.Meta.Train)
		if want := `"precision":"` + string(prec) + `"`; !strings.Contains(meta, want) {
			t.Fatalf("%s: checkpoint state %s lacks %s", prec, meta, want)
		}
		// The same checkpoint as an older logz wrote it.
		old := `"float32":true`
		if !f32 {
			old = ""
		}
		legacy := strings.Replace(meta, `"precision":"`+string(prec)+`"`, old, 1)
		legacy = strings.Replace(strings.Replace(legacy, ",}", "}", 1), ",,", ",", 1)
		for name, state := range map[string]string{"current": meta, "legacy": legacy} {
			c.Meta.Train = []byte(state)
			if err := newTrainerIn(t, f32, true, 9, 1).Resume(c); err != nil {
				t.Errorf("%s %s checkpoint %s: resume in %s: %v", name, prec, state, prec, err)
			}
			err := newTrainerIn(t, !f32, true, 9, 1).Resume(c)
			want := kernel.Check("checkpoint", prec, precisionOf(!f32)).Error()
			if err == nil || !strings.HasPrefix(err.Error(), want) {
				t.Errorf("%s %s checkpoint %s: resume in the other precision: err = %v, want %q", name, prec, state, err, want)
			}
		}
	}
}
