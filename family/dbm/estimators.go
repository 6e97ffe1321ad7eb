package dbm

import (
	"fmt"
	"math"
	"runtime"

	"github.com/logz-ml/logz/data"
	"github.com/logz-ml/logz/eval"
	"github.com/logz-ml/logz/eval/report"
	"github.com/logz-ml/logz/family"
	"github.com/logz-ml/logz/family/kit/estim"
	"github.com/logz-ml/logz/family/kit/evalenv"
	"github.com/logz-ml/logz/inference"
	"github.com/logz-ml/logz/internal/seeds"
	"github.com/logz-ml/logz/models"
)

// exactUnits returns the number of units exact enumeration of a DBM visits
// for log Z (the cheaper parity class of all layers) and for log f(v) (the
// cheaper class of the hidden layers, v clamped).
func exactUnits(d *models.DBM) (logZ, logF int) {
	var all, hidden [2]int
	for l, n := range d.Sizes {
		all[l%2] += n
		if l > 0 {
			hidden[l%2] += n
		}
	}
	return min(all[0], all[1]), min(hidden[0], hidden[1])
}

// exactMeanKey is the Memo key of a split's exact mean log-likelihood.
type exactMeanKey struct{ split string }

// isLogFKey is the Memo key of a split's IS estimates of log f(v), reused as
// RAISE's control variate.
type isLogFKey struct{ split string }

// logZKey is the Memo key of an AIS log Z, one per setting.
type logZKey struct{ estim.AISKey }

// hiddenBaseKey is the Memo key of the even hidden layers' base rates.
type hiddenBaseKey struct{}

// HiddenBaseExamples is the number of training examples (evenly spaced)
// whose mean-field posteriors give the even hidden layers' base rates.
const HiddenBaseExamples = 2000

// annealBase returns the base of an annealing start by layer (see
// inference.NewDBMPathBase): for "base-rate", the training data's log-odds
// on v and, on every even hidden layer, the log-odds of its mean-field
// posterior means over HiddenBaseExamples training examples
// (eval.DBMHiddenBaseRate; once per evaluation); for "uniform", zeros.
func annealBase(env *evalenv.Env, d *models.DBM, init string) ([][]float64, error) {
	vb, err := env.BaseVBias(init, d.NumVisible())
	if err != nil || vb == nil {
		return nil, err
	}
	if h, ok := env.Memo(hiddenBaseKey{}); ok {
		return eval.DBMBase(vb, h.([][]float64)), nil
	}
	if env.Train == nil {
		return nil, fmt.Errorf("base-rate start needs the training data for the hidden layers' base rates")
	}
	h, err := eval.DBMHiddenBaseRate(d, env.Train, HiddenBaseExamples, runtime.GOMAXPROCS(0))
	if err != nil {
		return nil, err
	}
	env.Remember(hiddenBaseKey{}, h)
	return eval.DBMBase(vb, h), nil
}

// Exact enumerates the cheaper parity class of the layers.
var Exact = estim.Define(estim.Def[*models.DBM, estim.Exact]{
	Name:     "exact",
	Leans:    family.Leans{Why: "exact enumeration: the reference"},
	Unshared: true,
	Doc:      "exact log Z and log f(v) by enumerating the cheaper parity class of the layers",
	Defaults: estim.Exact{MaxUnits: 25},
	Feasible: func(d *models.DBM, s *estim.Exact) error {
		z, f := exactUnits(d)
		if n := max(z, f); n > s.MaxUnits {
			return fmt.Errorf("a DBM %v needs 2^%d terms for log Z and 2^%d per example for log f(v), above max_units %d; raise max_units (≤ 40) or drop exact", d.Sizes, z, f, s.MaxUnits)
		}
		return nil
	},
	Run: func(env *evalenv.Env, d *models.DBM, s *estim.Exact, j evalenv.Job) ([]report.Row, error) {
		laps := estim.StartLaps()
		var rows []report.Row
		for _, sp := range env.Splits {
			progress, done := env.Bar(fmt.Sprintf("%s epoch %d exact %s %d ex", env.Experiment, env.Epoch, sp.Name, sp.Data.Len()), int64(sp.Data.Len()))
			res, err := eval.DBMExact{MaxUnits: s.MaxUnits, Progress: progress}.LogProb(d, sp.Data)
			done()
			if err != nil {
				return rows, err
			}
			env.Remember(estim.ExactLogZKey{}, res.LogZ)
			env.Remember(exactMeanKey{sp.Name}, res.Mean)
			row := j.Base
			row.Split, row.LogZ = sp.Name, report.F(res.LogZ)
			st := estim.MeanOf(res.LogP)
			row.MeanLoglik, row.LoglikSE, row.NExamples = report.F(st.Mean), report.F(st.SE), st.N
			row.Seconds = laps.Lap()
			rows = append(rows, row)
		}
		if len(env.Splits) == 0 {
			z, err := eval.DBMExact{MaxUnits: s.MaxUnits}.LogZ(d)
			if err != nil {
				return rows, err
			}
			env.Remember(estim.ExactLogZKey{}, z)
			row := j.Base
			row.LogZ = report.F(z)
			rows = append(rows, row)
		}
		return rows, nil
	},
})

// MFBound is the mean-field lower bound on log f(v) minus the AIS log Z.
var MFBound = estim.Define(estim.Def[*models.DBM, estim.AIS]{
	Name:     "mf-bound",
	Leans:    family.Leans{LogLik: family.Low, Why: "the mean-field bound minus AIS's log Ẑ: low up to AIS's error"},
	Doc:      "DBM mean-field lower bound on log f(v) (Salakhutdinov & Hinton 2009) minus the AIS estimate of log Z",
	Defaults: estim.DefaultAIS(),
	Run: func(env *evalenv.Env, d *models.DBM, s *estim.AIS, j evalenv.Job) ([]report.Row, error) {
		return aisRows(env, d, s, 0, j)
	},
})

// AISSettings is the settings of ais: importance samples per example and
// the AIS of log Z.
type AISSettings = estim.SampledAIS

// AIS is log f(v) by importance sampling minus the AIS log Z.
var AIS = estim.Define(estim.Def[*models.DBM, AISSettings]{
	Name:     "ais",
	Leans:    family.Leans{LogLik: family.Near, Why: "log f̂ by importance sampling leans low, −log Ẑ leans high"},
	Doc:      "log f(v) by importance sampling with a mean-field proposal over the even hidden layers, odd layers summed out (RAISE §5.2), minus the AIS log Z",
	Defaults: AISSettings{AIS: estim.DefaultAIS(), Samples: 500},
	Run: func(env *evalenv.Env, d *models.DBM, s *AISSettings, j evalenv.Job) ([]report.Row, error) {
		return aisRows(env, d, &s.AIS, s.Samples, j)
	},
})

// aisRows makes the rows of mf-bound (samples = 0) and ais: a per-example
// log f(v) — the mean-field bound or the IS estimate — minus the AIS log Z
// of these settings (one AIS per setting within an evaluation).
func aisRows(env *evalenv.Env, d *models.DBM, s *estim.AIS, samples int, j evalenv.Job) ([]report.Row, error) {
	laps := estim.StartLaps()
	z, reused, err := logZFor(env, d, s, j.Seed)
	if err != nil {
		return nil, err
	}
	bound := samples == 0
	var rows []report.Row
	for _, sp := range env.Splits {
		row := j.Base
		row.Split, row.Runs, row.Betas, row.Init = sp.Name, s.Runs, s.Betas, s.Init
		estim.SetAISLogZ(&row, z, estim.ExactLogZ(env), s)
		if reused {
			row.Notes = append(row.Notes, estim.ReusedNote("the AIS log Z"))
		}
		var st eval.MeanStat
		if bound {
			b, _, err := eval.DBMMeanField{}.Bounds(d, sp.Data)
			if err != nil {
				return rows, err
			}
			st = estim.MeanOf(b)
			row.Notes = append(row.Notes, "mean-field lower bound on log f(v) (fixed-point iterations to convergence) minus the AIS log Z")
		} else {
			progress, done := env.Bar(fmt.Sprintf("%s epoch %d IS %s %d ex × %d", env.Experiment, env.Epoch, sp.Name, sp.Data.Len(), samples), int64(sp.Data.Len()))
			lf, minESS, err := isLogF(d, sp.Data, samples, seeds.Derive(j.Seed, 100+sp.Key()), env.Units(), progress)
			done()
			if err != nil {
				return rows, err
			}
			env.Remember(isLogFKey{sp.Name}, lf)
			st = estim.MeanOf(lf)
			row.Notes = append(row.Notes, fmt.Sprintf("log f(v) by importance sampling (%d proposals per example from the mean-field posterior over the even hidden layers, odd layers summed out; smallest ESS %.1f) minus the AIS log Z", samples, minESS))
		}
		row.MeanLoglik = report.F(st.Mean - z.LogZ)
		row.LoglikSE, row.NExamples = report.F(st.SE), st.N
		if bound {
			if x, ok := env.Memo(exactMeanKey{sp.Name}); ok && *row.MeanLoglik > x.(float64)+report.Tolerance(estim.AISSE(z), x.(float64)) {
				row.Warnings = append(row.Warnings, fmt.Sprintf("the mean-field bound %.3f lies above the exact log-likelihood %.3f by more than 3σ of log Ẑ: the AIS log Z is too low", *row.MeanLoglik, x.(float64)))
			}
		}
		row.Seconds = laps.Lap()
		rows = append(rows, row)
	}
	return rows, nil
}

// logZFor returns the AIS estimate of log Z with these settings, running it
// once per evaluation (reused: an earlier entry ran it).
func logZFor(env *evalenv.Env, d *models.DBM, s *estim.AIS, seed uint64) (*eval.AISResult, bool, error) {
	k := logZKey{s.Key()}
	if r, ok := env.Memo(k); ok {
		return r.(*eval.AISResult), true, nil
	}
	base, err := annealBase(env, d, s.Init)
	if err != nil {
		return nil, false, err
	}
	path, err := inference.NewDBMPathBase(d, base)
	if err != nil {
		return nil, false, fmt.Errorf("AIS: %w", err)
	}
	r, err := estim.AnnealLogZ(env, path, s, seed, fmt.Sprintf("%s epoch %d DBM AIS %d×%d %s", env.Experiment, env.Epoch, s.Runs, s.Betas, s.Init))
	if err != nil {
		return nil, false, err
	}
	env.Remember(k, &r)
	return &r, false, nil
}

// RAISE is RAISE for DBMs (Alg. 3) on a subsample of each split, extended
// by the control variate log f̂(v) (the IS estimate of an earlier ais entry
// of the evaluation, else one with 100 proposals).
var RAISE = estim.Define(estim.Def[*models.DBM, estim.RAISE]{
	Name:     "raise",
	Leans:    family.Leans{LogLik: family.Low, Why: "log of an unbiased estimate of p_ann(v)"},
	Doc:      "RAISE with an intractable posterior (Burda et al. 2015, Alg. 3), extended to the split by the control variate log f̂(v) (IS)",
	Defaults: estim.DefaultRAISE(),
	Run: func(env *evalenv.Env, d *models.DBM, s *estim.RAISE, j evalenv.Job) ([]report.Row, error) {
		betas, err := s.BetaSchedule()
		if err != nil {
			return nil, err
		}
		base, err := annealBase(env, d, s.Init)
		if err != nil {
			return nil, err
		}
		r := eval.DBMRAISE{Chains: s.Chains, Betas: betas, Seed: j.Seed}
		if base != nil {
			r.BaseVBias, r.BaseHidden = base[0], base
		}
		return estim.RAISEBySubsample(env, s, j.Base, "DBM RAISE", len(betas)-1,
			func(x data.Examples, progress func(done, total int64)) (eval.RAISEResult, error) {
				r.Progress, r.Units = progress, env.Units()
				return r.LogProb(d, x)
			},
			func(sp evalenv.Split) ([]float64, string, error) {
				if x, ok := env.Memo(isLogFKey{sp.Name}); ok {
					return x.([]float64), "the ais estimator's", nil
				}
				progress, done := env.Bar(fmt.Sprintf("%s epoch %d control variate (IS) %s %d ex × 100", env.Experiment, env.Epoch, sp.Name, sp.Data.Len()), int64(sp.Data.Len()))
				x, _, err := isLogF(d, sp.Data, 100, seeds.Derive(j.Seed, 200+sp.Key()), env.Units(), progress)
				done()
				return x, "100", err
			})
	},
})

// isLogF returns the importance-sampling estimate of log f(v) of every
// example (example n drawing from rand.NewPCG(seed, n), as
// eval.DBMIS.LogUnnormAll) and the smallest ESS of their weights; units,
// if set, shares the examples among the shards of a sharded evaluation;
// progress, if set, is told the examples done.
func isLogF(d *models.DBM, x data.Examples, samples int, seed uint64, units eval.Units, progress func(done, total int64)) ([]float64, float64, error) {
	rs, err := eval.DBMIS{Samples: samples, Progress: progress}.LogUnnormAll(d, x, seed, units)
	out := make([]float64, len(rs))
	ess := make([]float64, len(rs))
	for n, r := range rs {
		out[n], ess[n] = r.LogF, r.Stats.ESS
	}
	if err == nil {
		err = eval.CompleteColumns(units, out, ess)
	}
	minESS := math.Inf(1)
	for _, e := range ess {
		minESS = math.Min(minESS, e)
	}
	return out, minESS, err
}
