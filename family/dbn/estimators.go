package dbn

import (
	"fmt"

	"github.com/logz-ml/logz/data"
	"github.com/logz-ml/logz/eval"
	"github.com/logz-ml/logz/eval/report"
	"github.com/logz-ml/logz/family"
	"github.com/logz-ml/logz/family/kit/estim"
	"github.com/logz-ml/logz/family/kit/evalenv"
	"github.com/logz-ml/logz/family/rbm"
	"github.com/logz-ml/logz/internal/seeds"
	"github.com/logz-ml/logz/models"
)

// While the first layer trains, the stack is a single RBM: the estimators
// then are the rbm family's (dbn-bound, the bound of a one-layer stack, is
// its log-likelihood, which exact and ais give).

// Exact enumerates the hidden layers below the top and the top RBM's
// smaller layer.
var Exact = estim.Define(estim.Def[models.Model, estim.Exact]{
	Name:     "exact",
	Leans:    family.Leans{Why: "exact enumeration: the reference"},
	Unshared: true,
	Doc:      "exact log p(v) by enumerating the hidden layers below the top and the top RBM's smaller layer",
	Defaults: estim.Exact{MaxUnits: 25},
	Feasible: func(m models.Model, s *estim.Exact) error {
		d, err := family.As[*models.DBN](m)
		if err != nil {
			return err
		}
		sizes := d.Sizes()
		below := 0
		for _, n := range sizes[1 : len(sizes)-1] {
			below += n
		}
		top := min(sizes[len(sizes)-2], sizes[len(sizes)-1])
		if below > s.MaxUnits || top > 30 {
			return fmt.Errorf("a DBN %v needs 2^%d terms for the hidden layers below the top (max_units %d) and 2^%d for the top RBM (at most 2^30); drop exact", sizes, below, s.MaxUnits, top)
		}
		return nil
	},
	Run: func(env *evalenv.Env, m models.Model, s *estim.Exact, j evalenv.Job) ([]report.Row, error) {
		if _, ok := m.(*models.RBM); ok {
			return evalenv.RunnerOf(rbm.Exact).Run(env, m, s, j)
		}
		d, err := family.As[*models.DBN](m)
		if err != nil {
			return nil, err
		}
		laps := estim.StartLaps()
		var rows []report.Row
		for _, sp := range env.Splits {
			progress, done := env.Bar(fmt.Sprintf("%s epoch %d exact %s %d ex", env.Experiment, env.Epoch, sp.Name, sp.Data.Len()), int64(sp.Data.Len()))
			res, err := eval.DBNExact{MaxUnits: s.MaxUnits, Top: eval.Exact{MaxUnits: 30}, Progress: progress}.LogProb(d, sp.Data)
			done()
			if err != nil {
				return rows, err
			}
			row := j.Base
			row.Split, row.LogZ = sp.Name, report.F(res.LogZ)
			row.MeanLoglik, row.LoglikSE, row.NExamples = report.F(res.Mean.Mean), report.F(res.Mean.SE), res.Mean.N
			row.Notes = append(row.Notes, fmt.Sprintf("exact variational bound (Q of the greedy layers): %.3f", res.MeanELBO.Mean))
			row.Seconds = laps.Lap()
			rows = append(rows, row)
		}
		return rows, nil
	},
})

// BoundSettings is the settings of dbn-bound.
type BoundSettings struct {
	// Samples is the number of draws from Q per example (2008 eq. 23).
	Samples int `yaml:"samples" want:"a positive integer" flag:"samples"`
	// Runs is the number of AIS runs for the top RBM's log Z.
	Runs         int `yaml:"runs" want:"an integer ≥ 2" flag:"chains"`
	estim.Anneal `yaml:",inline"`
	// MaxUnits: the top RBM's log Z is exact when its smaller layer has at
	// most this many units, else by AIS.
	MaxUnits      int `yaml:"max_units" want:"an integer in [1,40]" flag:"max-units"`
	family.Seeded `yaml:",inline"`
}

// Check reports bad settings.
func (b *BoundSettings) Check(p family.Problems) {
	p.Check("samples", b.Samples >= 1, "a positive integer", b.Samples)
	family.CheckMaxRuns(p, "samples", b.Samples)
	p.Check("runs", b.Runs >= 2, "an integer ≥ 2", b.Runs)
	family.CheckMaxRuns(p, "runs", b.Runs)
	family.CheckSweeps(p, "runs", b.Runs, b.Betas)
	b.Anneal.Check(p)
	p.Check("max_units", b.MaxUnits >= 1 && b.MaxUnits <= estim.MaxExactUnits, "an integer in [1,40]", b.MaxUnits)
}

// Bound is the DBN variational lower bound (2008 eq. 22–24).
var Bound = estim.Define(estim.Def[models.Model, BoundSettings]{
	Name:  "dbn-bound",
	Leans: family.Leans{LogLik: family.Low, Why: "a variational lower bound (minus the top RBM's AIS log Ẑ, which leans low)"},
	Doc:   "DBN variational lower bound (2008 eq. 22–24) with the top RBM's log Z exact when small, else by AIS",
	Defaults: BoundSettings{
		Samples: 5, Runs: 100, Anneal: estim.Anneal{Betas: 14500, Schedule: "2008", Init: "base-rate"}, MaxUnits: 25,
	},
	Run: func(env *evalenv.Env, m models.Model, s *BoundSettings, j evalenv.Job) ([]report.Row, error) {
		d, ok := m.(*models.DBN)
		if !ok {
			return nil, nil // a one-layer stack: its bound is its log-likelihood
		}
		laps := estim.StartLaps()
		ais := estim.AIS{Runs: s.Runs, Anneal: s.Anneal}
		z, zres, reused, err := topFor(env, d, &ais, j.Seed, s.MaxUnits)
		if err != nil {
			return nil, err
		}
		var rows []report.Row
		for _, sp := range env.Splits {
			progress, done := env.Bar(fmt.Sprintf("%s epoch %d dbn-bound %s %d ex × %d", env.Experiment, env.Epoch, sp.Name, sp.Data.Len(), s.Samples), int64(sp.Data.Len()))
			res, err := eval.DBNBound{Samples: s.Samples, Seed: seeds.Derive(j.Seed, sp.Key()), Units: env.Units(), Progress: progress}.LogProb(d, z, sp.Data)
			done()
			if err != nil {
				return rows, err
			}
			row := j.Base
			row.Split, row.Runs, row.Betas, row.Init = sp.Name, s.Runs, s.Betas, s.Init
			if zres == nil {
				row.Runs, row.Betas, row.Init = 0, 0, ""
			}
			setTopLogZ(&row, z, zres)
			if reused {
				row.Notes = append(row.Notes, estim.ReusedNote("the top RBM's log Z"))
			}
			row.MeanLoglik, row.LoglikSE, row.NExamples = report.F(res.Mean.Mean), report.F(res.Error), res.Mean.N
			row.Warnings = append(row.Warnings, res.Warnings...)
			row.Notes = append(row.Notes, fmt.Sprintf("lower bound with %d samples from Q per example; error of eq. 24 √(Var r̂_B + Var ln Ẑ) = %.3f", res.Samples, res.Error))
			row.Seconds = laps.Lap()
			rows = append(rows, row)
		}
		return rows, nil
	},
})

// AISSettings is the settings of ais: importance samples per example and
// the AIS of log Z.
type AISSettings = estim.SampledAIS

// CheapAIS is the after-epoch default: 16 runs × 1,000 linear β.
func CheapAIS() *AISSettings {
	return &AISSettings{AIS: estim.AIS{Runs: 16, Anneal: estim.Anneal{Betas: 1000, Schedule: "linear", Init: "base-rate"}, MinESSFraction: 0.1}, Samples: 500}
}

// AIS is log f(v) by importance sampling with Q minus the top RBM's AIS
// log Z.
var AIS = estim.Define(estim.Def[models.Model, AISSettings]{
	Name:     "ais",
	Leans:    family.Leans{LogLik: family.Near, Why: "log f̂ by importance sampling leans low, −log Ẑ leans high"},
	Doc:      "log f(v) by importance sampling with the recognition model Q (RAISE §5.3) minus the top RBM's AIS log Z",
	Defaults: AISSettings{AIS: estim.DefaultAIS(), Samples: 500},
	Run: func(env *evalenv.Env, m models.Model, s *AISSettings, j evalenv.Job) ([]report.Row, error) {
		if _, ok := m.(*models.RBM); ok {
			return evalenv.RunnerOf(rbm.AIS).Run(env, m, &rbm.AISSettings{AIS: s.AIS}, j)
		}
		d, err := family.As[*models.DBN](m)
		if err != nil {
			return nil, err
		}
		laps := estim.StartLaps()
		z, zres, reused, err := topFor(env, d, &s.AIS, j.Seed, 0)
		if err != nil {
			return nil, err
		}
		var rows []report.Row
		for _, sp := range env.Splits {
			progress, done := env.Bar(fmt.Sprintf("%s epoch %d IS %s %d ex × %d", env.Experiment, env.Epoch, sp.Name, sp.Data.Len(), s.Samples), int64(sp.Data.Len()))
			res, err := eval.DBNIS{Samples: s.Samples, Seed: seeds.Derive(j.Seed, 100+sp.Key()), Units: env.Units(), Progress: progress}.LogProb(d, z, sp.Data)
			done()
			if err != nil {
				return rows, err
			}
			row := j.Base
			row.Split, row.Runs, row.Betas, row.Init = sp.Name, s.Runs, s.Betas, s.Init
			setTopLogZ(&row, z, zres)
			if reused {
				row.Notes = append(row.Notes, estim.ReusedNote("the top RBM's log Z"))
			}
			row.MeanLoglik, row.LoglikSE, row.NExamples = report.F(res.Mean.Mean), report.F(res.Mean.SE), res.Mean.N
			row.Warnings = append(row.Warnings, res.Warnings...)
			row.Notes = append(row.Notes, fmt.Sprintf("log f(v) by importance sampling with Q (%d proposals per example, smallest ESS %.1f) minus the top RBM's AIS log Z", res.Samples, res.MinESS))
			row.Seconds = laps.Lap()
			rows = append(rows, row)
		}
		return rows, nil
	},
})

// RAISE is RAISE with the top RBM unrolled (RAISE §3.3) on a subsample of
// each split, extended by the control variate log f̂(v) (IS with Q).
var RAISE = estim.Define(estim.Def[models.Model, estim.RAISE]{
	Name:     "raise",
	Leans:    family.Leans{LogLik: family.Low, Why: "log of an unbiased estimate of p_ann(v)"},
	Doc:      "RAISE with the top RBM unrolled (Burda et al. 2015 §3.3), extended to the split by the control variate log f̂(v) (IS with Q)",
	Defaults: estim.DefaultRAISE(),
	Run: func(env *evalenv.Env, m models.Model, s *estim.RAISE, j evalenv.Job) ([]report.Row, error) {
		if _, ok := m.(*models.RBM); ok {
			return evalenv.RunnerOf(rbm.RAISE).Run(env, m, s, j)
		}
		d, err := family.As[*models.DBN](m)
		if err != nil {
			return nil, err
		}
		betas, err := s.BetaSchedule()
		if err != nil {
			return nil, err
		}
		r := eval.DBNRAISE{Samples: s.Chains, Betas: betas, Seed: j.Seed}
		if s.Init == "base-rate" && env.Train != nil {
			if r.BaseVBias, err = eval.TopBaseRate(d, env.Train, 1); err != nil {
				return nil, err
			}
		}
		return estim.RAISEBySubsample(env, s, j.Base, "RAISE", len(betas)-1,
			func(x data.Examples, progress func(done, total int64)) (eval.RAISEResult, error) {
				r.Progress, r.Units = progress, env.Units()
				res, err := r.LogProb(d, x)
				return eval.RAISEResult{LogP: res.LogP, LogPSE: res.LogPSE, Mean: res.Mean, LogW: res.LogW, MinESS: res.MinESS, Chains: res.Samples, Steps: res.Steps, Warnings: res.Warnings}, err
			},
			func(sp evalenv.Split) ([]float64, string, error) {
				progress, done := env.Bar(fmt.Sprintf("%s epoch %d control variate (IS) %s %d ex × 50", env.Experiment, env.Epoch, sp.Name, sp.Data.Len()), int64(sp.Data.Len()))
				is, err := eval.DBNIS{Samples: 50, Seed: seeds.Derive(j.Seed, 200+sp.Key()), Units: env.Units(), Progress: progress}.LogProb(d, eval.TopLogZ{}, sp.Data)
				done()
				return is.LogF, "50", err
			})
	},
})

// topKey identifies a top-RBM log Z within an evaluation, so that dbn-bound
// and ais of the same settings subtract the same estimate.
type topKey struct {
	exact          bool
	runs, betas    int
	schedule, init string
}

type topVal struct {
	z   eval.TopLogZ
	res *eval.AISResult
}

// topFor returns log Z of the DBN's top RBM: exact when its smaller layer
// has at most maxUnits units, else by AIS with a's settings; one per
// setting within an evaluation (reused: an earlier entry computed it).
func topFor(env *evalenv.Env, d *models.DBN, a *estim.AIS, seed uint64, maxUnits int) (eval.TopLogZ, *eval.AISResult, bool, error) {
	top := d.Top()
	k := topKey{exact: min(top.NVis, top.NHid) <= maxUnits}
	if !k.exact {
		k.runs, k.betas, k.schedule, k.init = a.Runs, a.Betas, a.Schedule, a.Init
	}
	if v, ok := env.Memo(k); ok {
		return v.(topVal).z, v.(topVal).res, true, nil
	}
	z, res, err := topLogZ(env, d, a, seed, maxUnits)
	if err == nil {
		env.Remember(k, topVal{z, res})
	}
	return z, res, false, err
}

func topLogZ(env *evalenv.Env, d *models.DBN, a *estim.AIS, seed uint64, maxUnits int) (eval.TopLogZ, *eval.AISResult, error) {
	top := d.Top()
	if min(top.NVis, top.NHid) <= maxUnits {
		e, done, err := estim.ExactRBM(env, top, maxUnits, "top-RBM exact")
		if err != nil {
			return eval.TopLogZ{}, nil, err
		}
		defer done()
		z, err := eval.ExactTopLogZ(d, e)
		return z, nil, err
	}
	var base []float64
	if a.Init == "base-rate" && env.Train != nil {
		var err error
		if base, err = eval.TopBaseRate(d, env.Train, 1); err != nil {
			return eval.TopLogZ{}, nil, err
		}
	}
	betas, note, err := a.ScheduleFor(seed, func(betas []float64, seed uint64) ([]float64, error) {
		r, err := eval.AIS{Runs: estim.PilotRuns, Betas: betas, BaseVBias: base, Seed: seed, Units: env.Units()}.LogZ(top)
		return r.LogW, err
	})
	if err != nil {
		return eval.TopLogZ{}, nil, err
	}
	run := eval.AIS{Runs: a.Runs, Betas: betas, BaseVBias: base, Seed: seed, Units: env.Units()}
	var done func()
	run.Progress, done = env.Bar(fmt.Sprintf("%s epoch %d top-RBM AIS %d×%d", env.Experiment, env.Epoch, a.Runs, a.Betas), int64(a.Runs)*int64(len(betas)-1))
	defer done()
	z, res, err := eval.AISTopLogZ(d, run)
	if note != "" {
		res.Notes = append(res.Notes, note)
	}
	return z, &res, err
}

func setTopLogZ(row *report.Row, z eval.TopLogZ, res *eval.AISResult) {
	row.LogZ = report.F(z.LogZ)
	if res != nil {
		row.LogZLo, row.LogZHi = report.F(res.LogZLo3), report.F(res.LogZHi3)
		row.LogZLo1, row.LogZHi1 = report.F(res.LogZLo1), report.F(res.LogZHi1)
		row.ESS = report.F(res.ESS)
		row.Warnings = append(row.Warnings, res.Warnings...)
		row.Notes = append(row.Notes, res.Notes...)
	}
	row.Warnings = append(row.Warnings, z.Warnings...)
}
