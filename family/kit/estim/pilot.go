package estim

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/logz-ml/logz/inference"
	"github.com/logz-ml/logz/internal/seeds"
	"gonum.org/v1/gonum/stat"
)

// PilotRuns is the number of AIS runs of each shape in a pilot.
const PilotRuns = 20

// PilotBetas is the pilot's K for a main run of K intermediate
// distributions: a tenth of it, at least 3.
func PilotBetas(K int) int { return max(3, (K+9)/10) }

// keyPilot labels the pilot's random streams (seeds.Derive(seed, keyPilot,
// shape)): independent of the main runs', so that the spacing they choose
// is fixed before, and independently of, the runs that estimate log Z, and
// the main estimate of Z stays unbiased.
const keyPilot = 0x9170

// PilotRun runs PilotRuns AIS runs along the estimator's path with the
// given β and seed and returns their final log weights.
type PilotRun func(betas []float64, seed uint64) ([]float64, error)

// ScheduleFor returns the β schedule of a run of these settings and, for
// "pilot", a note saying which spacing the pilot chose and why: each shape
// of inference.PilotShapes is run (run, PilotRuns runs at PilotBetas(K) β)
// and the one whose final log weights have the smallest sample variance —
// the quantity Salakhutdinov & Murray (2008, §5) minimised — is scaled to
// K. Ties go to the earlier shape. The pilot costs
// len(PilotShapes)·PilotRuns·PilotBetas(K) transitions, a tenth of a main
// run of 5·PilotRuns = 100 runs.
func (a *Anneal) ScheduleFor(seed uint64, run PilotRun) ([]float64, string, error) {
	if a.Schedule != "pilot" {
		b, err := a.BetaSchedule()
		return b, "", err
	}
	kp := PilotBetas(a.Betas)
	best, bestVar := -1, math.Inf(1)
	parts := make([]string, len(inference.PilotShapes))
	for i, s := range inference.PilotShapes {
		logW, err := run(s.Schedule(kp), seeds.Derive(seed, keyPilot, uint64(i)))
		if err != nil {
			return nil, "", fmt.Errorf("pilot run of the %s spacing: %w", s.Name, err)
		}
		v := sampleVariance(logW)
		parts[i] = fmt.Sprintf("%s %.3g", s.Name, v)
		if v < bestVar { // NaN never wins
			best, bestVar = i, v
		}
	}
	if best < 0 {
		return nil, "", fmt.Errorf("pilot: no spacing gave finite log weights (variances: %s)", strings.Join(parts, ", "))
	}
	s := inference.PilotShapes[best]
	note := fmt.Sprintf("β spacing %q chosen by a pilot of %d runs × %d β per spacing (variance of the final log weights: %s)",
		s.Name, PilotRuns, kp, strings.Join(parts, ", "))
	return s.Schedule(a.Betas), note, nil
}

// sampleVariance is the unbiased sample variance of x (NaN for fewer than
// two values or any non-finite one).
func sampleVariance(x []float64) float64 {
	if len(x) < 2 || slices.ContainsFunc(x, func(v float64) bool { return math.IsNaN(v) || math.IsInf(v, 0) }) {
		return math.NaN()
	}
	return stat.Variance(x, nil)
}
