package rbm

import (
	"fmt"
	"math"
	"time"

	"github.com/logz-ml/logz/eval"
	"github.com/logz-ml/logz/eval/report"
	"github.com/logz-ml/logz/family"
	"github.com/logz-ml/logz/family/kit/estim"
	"github.com/logz-ml/logz/family/kit/evalenv"
	"github.com/logz-ml/logz/models"
)

// RatioEstimator is the name of the estimator of log Z_B − log Z_A.
const RatioEstimator = "ais-ratio"

func init() {
	family.RegisterFlag(family.Flag{Name: "ratio-to", Usage: "ais-ratio: the rbm B.npz whose log Z_B − log Z_A (A = --model) is estimated; with --ratio-to, --data is optional and --estimator defaults to ais-ratio",
		Estimator: RatioEstimator, DataOptional: true})
	family.RegisterFlag(family.Flag{Name: "ratio-start", Usage: "ais-ratio: start of the runs: auto (exact draws of A when it has an exact sampler, else Gibbs chains of A), exact, gibbs or reversed (exact draws of B, runs from B to A) (default auto)"})
	family.RegisterFlag(family.Flag{Name: "gibbs-steps", Usage: "ais-ratio: Gibbs sweeps of A before each run with a gibbs start (default 10000, the 2008 paper's)"})
}

// The starts of ais-ratio (eval.AIS.EstimateRatio).
const (
	StartAuto     = eval.RatioAuto
	StartExact    = eval.RatioExact
	StartGibbs    = eval.RatioGibbs
	StartReversed = eval.RatioReversed
)

// RatioStarts are the accepted values of start.
var RatioStarts = eval.RatioStarts

// RatioSettings is the settings of ais-ratio.
type RatioSettings struct {
	// To is the path of model B, an rbm .npz over the same visible units as
	// the evaluated model A. A relative path is relative to the working
	// directory of the logz process, like the data paths of a config (so a
	// config.resolved.yaml copied into a run folder still means the same
	// file).
	To string `yaml:"to" want:"the path of an rbm .npz with the same visible units" flag:"ratio-to"`
	// Runs is the number M of AIS runs, ≥ 2.
	Runs int `yaml:"runs" want:"an integer ≥ 2" flag:"chains"`
	// Betas and Schedule are the intermediate distributions along the path
	// (1−β)E_A + βE_B, as for ais.
	Betas    int    `yaml:"betas" want:"a positive integer" flag:"betas"`
	Schedule string `yaml:"schedule" want:"linear or 2008" cfg:"intstr" flag:"schedule"`
	// MaxUnits: the exact difference log Z_B − log Z_A is shown beside the
	// estimate when both models' smaller layers have at most MaxUnits units.
	MaxUnits int `yaml:"max_units" want:"an integer in [1,40]" flag:"max-units"`
	// MinESSFraction: warn when the ESS of the weights is below this
	// fraction of Runs; in [0,1].
	MinESSFraction float64 `yaml:"min_ess_fraction" want:"a number in [0,1]"`
	// Start is where each run starts (eval.AIS.EstimateRatio): "exact"
	// draws of A, "gibbs" (the end of a Gibbs chain of A: approximate),
	// "reversed" (exact draws of B, the runs going from B to A), or "auto":
	// exact when A has an exact sampler (eval.HasExactSampler), else gibbs.
	Start string `yaml:"start" want:"auto, exact, gibbs or reversed" flag:"ratio-start"`
	// GibbsSteps is the number of block-Gibbs sweeps of A that make the
	// start of each run with a gibbs start, from a uniform random visible
	// state; ≥ 1 (the 2008 paper ran 10,000 between samples).
	GibbsSteps    int `yaml:"gibbs_steps" want:"an integer ≥ 1" flag:"gibbs-steps"`
	family.Seeded `yaml:",inline"`
}

// DefaultRatio is the 2008 paper's AIS (100 runs, 14,500 β on its
// schedule) along the joint path, from exact draws of A when there are
// any, else from Gibbs chains of A of the paper's 10,000 sweeps.
func DefaultRatio() RatioSettings {
	return RatioSettings{Runs: 100, Betas: 14500, Schedule: "2008", MaxUnits: 25, MinESSFraction: 0.1, Start: StartAuto, GibbsSteps: 10000}
}

// Check reports bad settings, a missing to, a to that is not a readable
// rbm, and start: reversed with a B that has no exact sampler.
func (s *RatioSettings) Check(p family.Problems) {
	a := estim.AIS{Runs: s.Runs, Anneal: estim.Anneal{Betas: s.Betas, Schedule: s.Schedule, Init: "uniform"}, MinESSFraction: s.MinESSFraction}
	a.Check(p)
	p.Check("schedule", s.Schedule != "pilot", "linear or 2008 (pilot is for ais)", s.Schedule)
	p.Check("max_units", s.MaxUnits >= 1 && s.MaxUnits <= estim.MaxExactUnits, "an integer in [1,40]", s.MaxUnits)
	p.Enum("start", s.Start, RatioStarts)
	p.Check("gibbs_steps", s.GibbsSteps >= 1, "an integer ≥ 1", s.GibbsSteps)
	p.Check("gibbs_steps", s.GibbsSteps <= eval.MaxGibbsSteps, fmt.Sprintf("at most %d (eval.MaxGibbsSteps)", eval.MaxGibbsSteps), s.GibbsSteps)
	if s.Start != StartExact && s.Start != StartReversed && s.Runs >= 1 && s.Runs <= family.MaxRuns && s.Betas >= 1 && s.Betas <= family.MaxBetas &&
		s.GibbsSteps >= 1 && s.GibbsSteps <= eval.MaxGibbsSteps && s.Runs*(s.Betas+s.GibbsSteps) > family.MaxSweeps {
		p.Crossf("", "gibbs_steps", "runs × (betas + gibbs_steps) = %d × (%d + %d) Gibbs sweeps is more than the limit of %d (family.MaxSweeps)",
			s.Runs, s.Betas, s.GibbsSteps, int64(family.MaxSweeps))
	}
	if s.To == "" {
		p.Errorf("to", "expected the path of model B, an rbm .npz (ais-ratio estimates log Z_B − log Z_A); none given")
		return
	}
	b, err := LoadRatioTarget(s.To)
	if err != nil {
		p.Errorf("to", "expected the path of an rbm .npz; %v", err)
		return
	}
	if s.Start == StartReversed && !eval.HasExactSampler(b) {
		p.Errorf("start", "expected auto, exact or gibbs (reversed needs exact draws of B, but %s (%s) %s)", s.To, evalenv.Label(b), eval.NoExactSampler(b))
	}
}

// noExactStart is the error of a start that needs exact draws of model
// which ("A" for exact, "B" for reversed), named name, that has none.
func noExactStart(start, which, name string, m *models.RBM) error {
	return fmt.Errorf("start: %s needs exact draws of %s, but %s %s; use start: gibbs or auto (--ratio-start)", start, which, name, eval.NoExactSampler(m))
}

// LoadRatioTarget loads model B of ais-ratio from path and checks that it
// is an rbm.
func LoadRatioTarget(path string) (*models.RBM, error) {
	c, err := family.LoadModelFile(path, "")
	if err != nil {
		return nil, err
	}
	r, ok := c.Model.(*models.RBM)
	if !ok {
		return nil, fmt.Errorf("%s holds a %s, not an rbm (the joint path of Salakhutdinov & Murray 2008 §3.2 is between two RBMs)", path, c.Model.TypeName())
	}
	return r, nil
}

// ratioTarget loads B and checks it against A's visible units.
func ratioTarget(s *RatioSettings, visible int) (*models.RBM, error) {
	b, err := LoadRatioTarget(s.To)
	if err != nil {
		return nil, &family.SettingError{Key: "to", Err: err}
	}
	if visible > 0 && b.NVis != visible {
		return nil, &family.SettingError{Key: "to", Err: fmt.Errorf("%s has %d visible units, the evaluated model %d; the ratio needs the same visible units", s.To, b.NVis, visible)}
	}
	return b, nil
}

// AISRatio is the estimator ais-ratio: log Z_B − log Z_A for the evaluated
// rbm A and the rbm B in the file `to` (eval.AIS.EstimateRatio, with the
// start of start: and gibbs_steps), as log_z of one split-free row with its
// ±σ̂ and ±3σ̂ bands and notes saying how the runs started; when both models
// are small enough for exact enumeration (or an exact entry before it in
// the same list gave log Z_A and B is small enough), the exact difference
// is shown beside it (exact_log_z of the row) and a warning is raised when
// it lies outside the ±3σ̂ band.
var AISRatio = estim.Define(estim.Def[*models.RBM, RatioSettings]{
	Name:     RatioEstimator,
	Leans:    family.Leans{LogZ: family.Low, Ratio: true, Why: "runs from exact draws of A: log of an unbiased ratio estimate"},
	Doc:      "AIS estimate of log Z_B − log Z_A for this rbm A and the rbm B of to: (a file), along the joint path of Salakhutdinov & Murray 2008 §3.2; runs start from exact draws of A, or from Gibbs chains of A when it has no exact sampler",
	Defaults: DefaultRatio(),
	Feasible: func(mA *models.RBM, s *RatioSettings) error {
		if _, err := ratioTarget(s, mA.NumVisible()); err != nil {
			return err
		}
		if s.Start == StartExact && !eval.HasExactSampler(mA) {
			return noExactStart(StartExact, "A", "the evaluated "+evalenv.Label(mA), mA)
		}
		return nil
	},
	CheckModel: func(p family.Problems, s *RatioSettings, model family.Settings, visible int) {
		if h := model.(*Model).Hidden; s.Start == StartExact && visible > 0 && min(visible, h) > eval.MaxExactStartUnits {
			p.Errorf("start", "expected auto, gibbs or reversed (exact needs exact draws of A, but the trained rbm %d-%d will have a smaller layer of %d units, more than the %d of an exact sampler)",
				visible, h, min(visible, h), eval.MaxExactStartUnits)
		}
		if s.To == "" || visible <= 0 {
			return
		}
		if b, err := LoadRatioTarget(s.To); err == nil && b.NVis != visible {
			p.Errorf("to", "expected an rbm with the data's %d visible units, but %s has %d", visible, s.To, b.NVis)
		}
	},
	Run: func(env *evalenv.Env, mA *models.RBM, s *RatioSettings, j evalenv.Job) ([]report.Row, error) {
		start := time.Now()
		mB, err := ratioTarget(s, mA.NVis)
		if err != nil {
			return nil, err
		}
		betas, err := (&estim.Anneal{Betas: s.Betas, Schedule: s.Schedule}).BetaSchedule()
		if err != nil {
			return nil, err
		}
		run := eval.AIS{Runs: s.Runs, Betas: betas, Seed: j.Seed, Units: env.Units()}
		startKind := eval.ResolveRatioStart(s.Start, mA)
		label, steps := fmt.Sprintf("%s epoch %d AIS ratio %d×%d", env.Experiment, env.Epoch, s.Runs, s.Betas), int64(len(betas)-1)
		if startKind == StartGibbs {
			label += fmt.Sprintf(" after %d Gibbs sweeps", s.GibbsSteps)
			steps += int64(s.GibbsSteps)
		}
		var done func()
		run.Progress, done = env.Bar(label, int64(s.Runs)*steps)
		r, err := run.EstimateRatio(mA, mB, s.Start, s.GibbsSteps)
		done()
		if err != nil {
			return nil, err
		}
		row := j.Base
		row.LogZ = report.F(r.LogRatio)
		row.LogZLo, row.LogZHi = report.F(r.Lo3), report.F(r.Hi3)
		row.LogZLo1, row.LogZHi1 = report.F(r.Lo1), report.F(r.Hi1)
		row.ESS = report.F(r.AIS.ESS)
		row.Runs, row.Betas = s.Runs, s.Betas
		row.Warnings = append(row.Warnings, r.AIS.Warnings...)
		if r.AIS.ESS < s.MinESSFraction*float64(s.Runs) {
			row.Warnings = append(row.Warnings, fmt.Sprintf("ESS %.1f of %d runs is below %.0f%%: the ratio may be off", r.AIS.ESS, s.Runs, 100*s.MinESSFraction))
		}
		nameA, nameB := evalenv.Label(mA), evalenv.Label(mB)
		row.Notes = append(row.Notes, fmt.Sprintf("log Z_B − log Z_A with A = the evaluated %s and B = %s (%s)", nameA, s.To, nameB))
		switch r.Start {
		case StartReversed:
			row.Notes = append(row.Notes, "start: reversed, so the runs went from exact draws of B to A: the estimate is −log(Ẑ_A/Z_B), a stochastic upper bound on the ratio")
		case StartGibbs:
			row.Notes = append(row.Notes, fmt.Sprintf("approximate starts: each run began where its own Gibbs chain of A was after %d sweeps from a uniform random state (not an exact draw of A); the estimate is unbiased, and its bands mean something, only to the extent those chains reached A's distribution (their mean free energy moved by %+.3g ± %.2g over the last half of the sweeps)",
				r.AIS.GibbsSweeps, r.AIS.Drift, r.AIS.DriftSE))
			if s.Start == StartAuto && eval.HasExactSampler(mB) {
				row.Notes = append(row.Notes, "B has an exact sampler: start: reversed would start from exact draws of B instead (a stochastic upper bound)")
			}
		}
		lzA, lzB := math.NaN(), math.NaN()
		if r.Reversed {
			lzB = r.LogZStart
		} else {
			lzA = r.LogZStart
		}
		if math.IsNaN(lzA) {
			lzA = exactIfSmall(mA, s.MaxUnits, estim.ExactLogZ(env))
		}
		if math.IsNaN(lzB) {
			lzB = exactIfSmall(mB, s.MaxUnits, math.NaN())
		}
		if !math.IsNaN(lzA) && !math.IsNaN(lzB) {
			d := lzB - lzA
			row.ExactLogZ = report.F(d)
			row.Notes = append(row.Notes, fmt.Sprintf("exact: log Z_B − log Z_A = %.3f − %.3f = %.3f", lzB, lzA, d))
			if !(r.Lo3 <= d && d <= r.Hi3) {
				row.Warnings = append(row.Warnings, fmt.Sprintf("AIS log ratio %.3f is %+.3f nats from the exact %.3f, outside its ±3σ band [%.3f, %.3f]", r.LogRatio, r.LogRatio-d, d, r.Lo3, r.Hi3))
			}
		}
		row.Seconds = time.Since(start).Seconds()
		return []report.Row{row}, nil
	},
})

// exactIfSmall returns known if it is a number, else the exact log Z of m
// when its smaller layer has at most maxUnits units, else NaN.
func exactIfSmall(m *models.RBM, maxUnits int, known float64) float64 {
	if !math.IsNaN(known) {
		return known
	}
	if min(m.NVis, m.NHid) > maxUnits {
		return math.NaN()
	}
	lz, err := eval.Exact{MaxUnits: maxUnits}.LogZ(m)
	if err != nil {
		return math.NaN()
	}
	return lz
}
