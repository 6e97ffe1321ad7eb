package estim

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/logz-ml/logz/inference"
)

// TestPilotChoosesLeastVariance: the pilot runs every shape at a tenth of
// K on seeds of its own, picks the one whose log weights vary least, and
// returns that shape at the full K with a note naming it. (Mutations:
// choosing the largest variance, or running the pilot at the full K, or
// on the main run's seed, fail.)
func TestPilotChoosesLeastVariance(t *testing.T) {
	a := Anneal{Betas: 1000, Schedule: "pilot", Init: "base-rate"}
	const main = 77
	// The spread of the log weights of shape i: the fourth shape varies least.
	spread := []float64{3, 2, 1.5, 0.25, 0.5}
	var seen []uint64
	got, note, err := a.ScheduleFor(main, func(betas []float64, seed uint64) ([]float64, error) {
		if len(betas)-1 != PilotBetas(1000) {
			t.Errorf("pilot run with K = %d, want %d", len(betas)-1, PilotBetas(1000))
		}
		i := slices.IndexFunc(inference.PilotShapes, func(s inference.Shape) bool { return slices.Equal(s.Schedule(len(betas)-1), betas) })
		if i < 0 {
			t.Fatalf("pilot ran a spacing that is not a pilot shape")
		}
		seen = append(seen, seed)
		w := make([]float64, PilotRuns)
		for r := range w {
			w[r] = spread[i] * float64(r%2*2-1)
		}
		return w, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := inference.PilotShapes[3].Schedule(1000); !slices.Equal(got, want) {
		t.Errorf("chose a schedule of %d β, not the least-variance shape %q at K = 1000", len(got)-1, inference.PilotShapes[3].Name)
	}
	if !strings.Contains(note, `"linear" chosen by a pilot of 20 runs × 100 β`) {
		t.Errorf("note %q", note)
	}
	if len(seen) != len(inference.PilotShapes) || slices.Contains(seen, main) {
		t.Errorf("pilot seeds %v: want one per shape, none the main run's %d", seen, main)
	}
	slices.Sort(seen)
	if len(slices.Compact(seen)) != len(inference.PilotShapes) {
		t.Errorf("pilot seeds repeat: %v", seen)
	}
}

// TestPilotRefusesNonFiniteWeights: a shape whose pilot weights are not
// finite never wins; when none is finite the pilot fails with the
// variances it saw.
func TestPilotRefusesNonFiniteWeights(t *testing.T) {
	a := Anneal{Betas: 50, Schedule: "pilot"}
	_, _, err := a.ScheduleFor(1, func(betas []float64, seed uint64) ([]float64, error) {
		return []float64{0, math.Inf(-1)}, nil
	})
	if err == nil || !strings.Contains(err.Error(), "no spacing gave finite log weights") {
		t.Errorf("err = %v", err)
	}
}

// TestFixedSchedulesUnchanged: the named spacings ignore the pilot.
func TestFixedSchedulesUnchanged(t *testing.T) {
	for _, s := range []string{"linear", "2008"} {
		a := Anneal{Betas: 300, Schedule: s}
		got, note, err := a.ScheduleFor(1, func([]float64, uint64) ([]float64, error) {
			t.Fatal("pilot ran for a fixed schedule")
			return nil, nil
		})
		want, _ := a.BetaSchedule()
		if err != nil || note != "" || !slices.Equal(got, want) {
			t.Errorf("%s: %d β, note %q, err %v", s, len(got)-1, note, err)
		}
	}
}
