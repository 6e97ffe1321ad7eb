package estim

import (
	"fmt"
	"math"
	"time"

	"github.com/logz-ml/logz/eval"
	"github.com/logz-ml/logz/eval/report"
	"github.com/logz-ml/logz/family"
	"github.com/logz-ml/logz/family/kit/evalenv"
	"github.com/logz-ml/logz/inference"
)

// The accepted values of the shared estimator settings.
var (
	Schedules       = []string{"linear", "2008"}
	AISSchedules    = []string{"linear", "2008", "pilot"}
	Inits           = []string{"base-rate", "uniform"}
	ControlVariates = []string{"alpha1", "fit", "none"}
)

// Anneal is the annealing path setting shared by AIS, RAISE and the bounds
// that subtract an AIS log Z: K, the spacing of the β_k and the start.
type Anneal struct {
	// Betas is the number K of intermediate distributions, ≥ 1 (≥ 3 for
	// the 2008 schedule).
	Betas int `yaml:"betas" want:"a positive integer" flag:"betas"`
	// Schedule is the spacing of the inverse temperatures β_k: "linear"
	// (β_k = k/K) or "2008" (the piecewise-uniform shape of Salakhutdinov &
	// Murray 2008 — 500 β in [0,0.5), 4,000 in [0.5,0.9), 10,000 in [0.9,1]
	// — with each segment's count scaled by (K+1)/14,500) or, for AIS,
	// "pilot": the spacing among inference.PilotShapes whose final log
	// weights vary least over a short pilot (PilotRuns runs of each shape
	// at PilotBetas(K) β, on seeds of their own), as the 2008 paper chose
	// its spacing.
	Schedule string `yaml:"schedule" want:"linear, 2008 or pilot (pilot: ais only)" cfg:"intstr" flag:"schedule"`
	// Init is the base distribution: "base-rate" (W = 0, visible biases at
	// the training data's smoothed log-odds) or "uniform" (all zero).
	Init string `yaml:"init" want:"base-rate or uniform" flag:"init"`
}

// Check reports bad betas, schedule (the "2008" shape needs three β) and init.
func (a *Anneal) Check(p family.Problems) {
	p.Check("betas", a.Betas >= 1, "a positive integer", a.Betas)
	family.CheckMax(p, "betas", a.Betas, family.MaxBetas, "family.MaxBetas; the papers use at most 100,000")
	if p.Enum("schedule", a.Schedule, AISSchedules) && a.Schedule == "2008" && a.Betas >= 1 && a.Betas < 3 {
		p.Crossf("", "betas", "schedule \"2008\" (three segments) needs betas ≥ 3, got %d", a.Betas)
	}
	p.Enum("init", a.Init, Inits)
}

// BetaSchedule returns the β schedule β_0 = 0 < … < β_K = 1.
func (a *Anneal) BetaSchedule() ([]float64, error) {
	switch a.Schedule {
	case "linear":
		return inference.LinearSchedule(a.Betas), nil
	case "2008":
		return inference.PiecewiseSchedule(a.Betas), nil
	case "pilot":
		return nil, fmt.Errorf("schedule \"pilot\" is chosen by pilot AIS runs on the model; only ais takes it")
	}
	return nil, fmt.Errorf("unknown schedule %q", a.Schedule)
}

// AIS is the settings of an AIS estimate of log Z.
type AIS struct {
	// Runs is the number M of independent AIS runs (chains), ≥ 2.
	Runs   int `yaml:"runs" want:"an integer ≥ 2" flag:"chains"`
	Anneal `yaml:",inline"`
	// MinESSFraction: warn when the effective sample size of the AIS
	// weights is below MinESSFraction × Runs; in [0,1].
	MinESSFraction float64 `yaml:"min_ess_fraction" want:"a number in [0,1]"`
	family.Seeded  `yaml:",inline"`
}

// DefaultAIS is the 2008 paper's AIS: 100 runs, 14,500 β on its schedule,
// from the data base rate.
func DefaultAIS() AIS {
	return AIS{Runs: 100, Anneal: Anneal{Betas: 14500, Schedule: "2008", Init: "base-rate"}, MinESSFraction: 0.1}
}

// Check reports bad settings.
func (a *AIS) Check(p family.Problems) {
	p.Check("runs", a.Runs >= 2, "an integer ≥ 2", a.Runs)
	family.CheckMax(p, "runs", a.Runs, family.MaxRuns, "family.MaxRuns")
	a.Anneal.Check(p)
	family.CheckSweeps(p, "runs", a.Runs, a.Betas)
	p.Check("min_ess_fraction", a.MinESSFraction >= 0 && a.MinESSFraction <= 1, "a number in [0,1]", a.MinESSFraction)
}

// Key identifies the AIS estimate these settings give, so estimators of one
// evaluation with the same settings share one log Ẑ.
func (a *AIS) Key() AISKey { return AISKey{a.Runs, a.Betas, a.Schedule, a.Init} }

// AISKey is the part of AIS settings that determines an estimate.
type AISKey struct {
	Runs, Betas    int
	Schedule, Init string
}

// AnnealLogZ estimates log Z by AIS along path with a's runs and schedule
// and the given seed; label names the progress bar.
func AnnealLogZ(env *evalenv.Env, path inference.Path, a *AIS, seed uint64, label string) (eval.AISResult, error) {
	betas, note, err := a.ScheduleFor(seed, func(betas []float64, seed uint64) ([]float64, error) {
		r, err := eval.AIS{Runs: PilotRuns, Betas: betas, Seed: seed, Units: env.Units()}.Run(path)
		return r.LogW, err
	})
	if err != nil {
		return eval.AISResult{}, err
	}
	run := eval.AIS{Runs: a.Runs, Betas: betas, Seed: seed, Units: env.Units()}
	var done func()
	run.Progress, done = env.Bar(label, int64(a.Runs)*int64(len(betas)-1))
	defer done()
	res, err := run.Run(path)
	if note != "" {
		res.Notes = append(res.Notes, note)
	}
	return res, err
}

// AISRow runs AIS along path (AnnealLogZ) and returns the entry's base row
// with its log Z fields (SetAISLogZ, against an exact log Z of the same
// evaluation), runs, β count, start and wall time, and the estimate.
func AISRow(env *evalenv.Env, path inference.Path, a *AIS, j evalenv.Job, start time.Time) (report.Row, eval.AISResult, error) {
	res, err := AnnealLogZ(env, path, a, j.Seed, fmt.Sprintf("%s epoch %d AIS %d×%d", env.Experiment, env.Epoch, a.Runs, a.Betas))
	if err != nil {
		return report.Row{}, res, err
	}
	row := j.Base
	SetAISLogZ(&row, &res, ExactLogZ(env), a)
	row.Runs, row.Betas, row.Init = a.Runs, a.Betas, a.Init
	row.Seconds = time.Since(start).Seconds()
	return row, res, nil
}

// AISSE is the standard error of log Ẑ, log(Ẑ+σ̂) − log Ẑ.
func AISSE(z *eval.AISResult) float64 {
	if math.IsNaN(z.LogZHi1) {
		return 0
	}
	return z.LogZHi1 - z.LogZ
}

// SetAISLogZ fills a row's log Z fields from an AIS estimate, with the
// warnings of the AIS run, a low-ESS warning (ESS below minESSFraction of
// runs) and, when the exact log Z is known (not NaN), a warning if it lies
// outside the ±3σ band.
func SetAISLogZ(row *report.Row, z *eval.AISResult, exactLogZ float64, a *AIS) {
	row.LogZ = report.F(z.LogZ)
	row.LogZLo, row.LogZHi = report.F(z.LogZLo3), report.F(z.LogZHi3)
	row.LogZLo1, row.LogZHi1 = report.F(z.LogZLo1), report.F(z.LogZHi1)
	row.ESS = report.F(z.ESS)
	row.ExactLogZ = report.F(exactLogZ)
	row.Warnings = append(row.Warnings, z.Warnings...)
	row.Notes = append(row.Notes, z.Notes...)
	if z.ESS < a.MinESSFraction*float64(a.Runs) && !hasESSWarning(row.Warnings) {
		row.Warnings = append(row.Warnings, fmt.Sprintf("ESS %.1f of %d runs is below %.0f%%: log Z may be underestimated", z.ESS, a.Runs, 100*a.MinESSFraction))
	}
	if !math.IsNaN(exactLogZ) && !(z.LogZLo3 <= exactLogZ && exactLogZ <= z.LogZHi3) {
		row.Warnings = append(row.Warnings, fmt.Sprintf("AIS log Z %.3f is %+.3f nats from the exact %.3f, outside its ±3σ band [%.3f, %.3f]", z.LogZ, z.LogZ-exactLogZ, exactLogZ, z.LogZLo3, z.LogZHi3))
	}
}

func hasESSWarning(ws []string) bool {
	for _, w := range ws {
		if len(w) >= 3 && w[:3] == "ESS" {
			return true
		}
	}
	return false
}

// ExactLogZKey is the Memo key under which an exact estimator leaves log Z
// (a float64) for the AIS rows after it ("true vs estimate").
type ExactLogZKey struct{}

// ExactLogZ returns the exact log Z an earlier estimator of the evaluation
// remembered, else NaN.
func ExactLogZ(env *evalenv.Env) float64 {
	if v, ok := env.Memo(ExactLogZKey{}); ok {
		return v.(float64)
	}
	return math.NaN()
}

// SampledAIS is the settings of an ais of a deep model: log f(v) by
// importance sampling per example, minus an AIS log Z.
type SampledAIS struct {
	AIS `yaml:",inline"`
	// Samples is the number of importance samples per example (from the
	// recognition model Q for a dbn, RAISE §5.3; from the mean-field
	// posterior over the even hidden layers for a dbm, RAISE §5.2).
	Samples int `yaml:"samples" want:"a positive integer" flag:"samples"`
}

// Check reports bad settings.
func (a *SampledAIS) Check(p family.Problems) {
	a.AIS.Check(p)
	p.Check("samples", a.Samples >= 1, "a positive integer", a.Samples)
	family.CheckMax(p, "samples", a.Samples, family.MaxRuns, "family.MaxRuns")
}
