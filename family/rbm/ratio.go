package rbm

import (
	"errors"
	"fmt"
	"math"
	"os"
	"time"

	"github.com/logz-ml/logz/eval"
	"github.com/logz-ml/logz/eval/report"
	"github.com/logz-ml/logz/family"
	"github.com/logz-ml/logz/models"
)

// RatioEstimator is the name of the estimator of log Z_B − log Z_A.
const RatioEstimator = "ais-ratio"

func init() {
	family.RegisterFlag(family.Flag{Name: "ratio-to", Usage: "ais-ratio: the rbm B.npz whose log Z_B − log Z_A (A = --model) is estimated; with --ratio-to, --data is optional and --estimator defaults to ais-ratio"})
}

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
	family.Seeded  `yaml:",inline"`
}

// DefaultRatio is the 2008 paper's AIS (100 runs, 14,500 β on its
// schedule) along the joint path.
func DefaultRatio() RatioSettings {
	return RatioSettings{Runs: 100, Betas: 14500, Schedule: "2008", MaxUnits: 25, MinESSFraction: 0.1}
}

// Check reports bad settings, a missing to, and a to that is not a
// readable rbm.
func (s *RatioSettings) Check(p family.Problems) {
	a := family.AIS{Runs: s.Runs, Anneal: family.Anneal{Betas: s.Betas, Schedule: s.Schedule, Init: "uniform"}, MinESSFraction: s.MinESSFraction}
	a.Check(p)
	p.Check("max_units", s.MaxUnits >= 1 && s.MaxUnits <= family.MaxExactUnits, "an integer in [1,40]", s.MaxUnits)
	if s.To == "" {
		p.Errorf("to", "expected the path of model B, an rbm .npz (ais-ratio estimates log Z_B − log Z_A); none given")
		return
	}
	if _, err := LoadRatioTarget(s.To); err != nil {
		p.Errorf("to", "expected the path of an rbm .npz; %v", err)
	}
}

// LoadRatioTarget loads model B of ais-ratio from path and checks that it
// is an rbm.
func LoadRatioTarget(path string) (*models.RBM, error) {
	if _, err := os.Stat(path); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("%s does not exist", path)
		}
		return nil, err
	}
	c, err := models.Load(path)
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
		return nil, fmt.Errorf("to: %w", err)
	}
	if visible > 0 && b.NVis != visible {
		return nil, fmt.Errorf("to: %s has %d visible units, the evaluated model %d; the ratio needs the same visible units", s.To, b.NVis, visible)
	}
	return b, nil
}

// Ratio is a log partition-function ratio with its error bars.
type Ratio struct {
	// LogRatio estimates log(Z_B/Z_A); Lo1, Hi1 and Lo3, Hi3 are the ends
	// of its ±σ̂ and ±3σ̂ bands, log(r̂ ∓ kσ̂) (−Inf/+Inf where undefined).
	LogRatio, Lo1, Hi1, Lo3, Hi3 float64
	// Reversed: the chains ran from B to A (A has no exact sampler), so
	// LogRatio = −log(Ẑ_A/Z_B)-hat, a stochastic upper bound on log(Z_B/Z_A).
	Reversed bool
	// LogZStart is the exact log Z of the start of the path (A, or B if
	// Reversed).
	LogZStart float64
	// AIS is the underlying estimate along the path actually run.
	AIS eval.AISResult
}

// EstimateRatio estimates log(Z_B/Z_A) by AIS along the joint path of
// Salakhutdinov & Murray (2008, §3.2, eq. 14–17),
//
//	p_k(v) ∝ f_A(v)^{1−β_k} f_B(v)^{β_k},  r̂ = (1/M) Σ_m w_m,  E[w] = Z_B/Z_A,
//
// with f = e^{−F(v)} each model's visible marginal. The runs start from exact
// draws of p_A (eval.AIS.LogRatio). When A has no exact sampler (weights and
// a smaller layer of more than 20 units) but B has one, the runs go from B
// to A and the result is −log r̂' with r̂' ≈ Z_A/Z_B: its bands are the
// reversed estimate's, negated (−log(r̂' ± kσ̂')), and it is a stochastic upper
// bound on log(Z_B/Z_A) rather than a lower one. Everything stays in log
// space.
func EstimateRatio(a eval.AIS, mA, mB *models.RBM) (Ratio, error) {
	res, err := a.LogRatio(mA, mB)
	if err == nil {
		return Ratio{
			LogRatio: res.LogRatio, Lo1: res.LogZLo1 - res.LogZBase, Hi1: res.LogZHi1 - res.LogZBase,
			Lo3: res.LogZLo3 - res.LogZBase, Hi3: res.LogZHi3 - res.LogZBase,
			LogZStart: res.LogZBase, AIS: res,
		}, nil
	}
	rev, err2 := a.LogRatio(mB, mA)
	if err2 != nil {
		return Ratio{}, fmt.Errorf("neither model has an exact sampler for the start of the path: %w", err)
	}
	b := rev.LogZBase
	return Ratio{
		LogRatio: -rev.LogRatio, Lo1: -(rev.LogZHi1 - b), Hi1: -(rev.LogZLo1 - b),
		Lo3: -(rev.LogZHi3 - b), Hi3: -(rev.LogZLo3 - b),
		Reversed: true, LogZStart: b, AIS: rev,
	}, nil
}

// AISRatio is the estimator ais-ratio: log Z_B − log Z_A for the evaluated
// rbm A and the rbm B in the file `to` (EstimateRatio), as log_z of one
// split-free row with its ±σ̂ and ±3σ̂ bands; when both models are small
// enough for exact enumeration (or an exact entry before it in the same
// list gave log Z_A and B is small enough), the exact difference is shown
// beside it (exact_log_z of the row) and a warning is raised when it lies
// outside the ±3σ̂ band.
var AISRatio = family.Define(family.Def[RatioSettings]{
	Name:     RatioEstimator,
	Doc:      "AIS estimate of log Z_B − log Z_A for this rbm A and the rbm B of to: (a file), along the joint path of Salakhutdinov & Murray 2008 §3.2",
	Defaults: DefaultRatio(),
	Feasible: func(m models.Model, s *RatioSettings) error {
		_, err := ratioTarget(s, m.NumVisible())
		return err
	},
	CheckModel: func(p family.Problems, s *RatioSettings, _ family.Settings, visible int) {
		if s.To == "" || visible <= 0 {
			return
		}
		if b, err := LoadRatioTarget(s.To); err == nil && b.NVis != visible {
			p.Errorf("to", "expected an rbm with the data's %d visible units, but %s has %d", visible, s.To, b.NVis)
		}
	},
	Run: func(env *family.Env, m models.Model, s *RatioSettings, j family.Job) ([]report.Row, error) {
		start := time.Now()
		mA := m.(*models.RBM)
		mB, err := ratioTarget(s, mA.NVis)
		if err != nil {
			return nil, err
		}
		betas, err := (&family.Anneal{Betas: s.Betas, Schedule: s.Schedule}).BetaSchedule()
		if err != nil {
			return nil, err
		}
		run := eval.AIS{Runs: s.Runs, Betas: betas, Seed: j.Seed}
		var done func()
		run.Progress, done = env.Bar(fmt.Sprintf("%s epoch %d AIS ratio %d×%d", env.Experiment, env.Epoch, s.Runs, s.Betas), int64(s.Runs)*int64(len(betas)-1))
		r, err := EstimateRatio(run, mA, mB)
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
		nameA, nameB := family.Label(mA), family.Label(mB)
		row.Notes = append(row.Notes, fmt.Sprintf("log Z_B − log Z_A with A = the evaluated %s and B = %s (%s)", nameA, s.To, nameB))
		if r.Reversed {
			row.Notes = append(row.Notes, "A has no exact sampler, so the runs went from B to A: the estimate is −log(Ẑ_A/Z_B), a stochastic upper bound on the ratio")
		}
		lzA, lzB := math.NaN(), math.NaN()
		if r.Reversed {
			lzB = r.LogZStart
		} else {
			lzA = r.LogZStart
		}
		if math.IsNaN(lzA) {
			lzA = exactIfSmall(mA, s.MaxUnits, env.ExactLogZ())
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
