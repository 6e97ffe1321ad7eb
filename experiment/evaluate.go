package experiment

import (
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"time"

	"github.com/logz-ml/logz/config"
	"github.com/logz-ml/logz/data"
	"github.com/logz-ml/logz/eval"
	"github.com/logz-ml/logz/eval/report"
	"github.com/logz-ml/logz/inference"
	"github.com/logz-ml/logz/internal/progress"
	"github.com/logz-ml/logz/models"
)

// Split is one named data split to report mean log-likelihoods on.
type Split struct {
	Name string
	Data eval.Examples
}

// Evaluation is everything the estimators need besides the model.
type Evaluation struct {
	Experiment string
	Stage      string // report.StageEpoch or report.StageFinal
	Epoch      int
	Splits     []Split
	// BaseRate is the smoothed log-odds of the training data, the visible
	// biases of the AIS data-base-rate start.
	BaseRate []float64
	// Train is the training set (the top RBM of a DBN takes its base rate
	// from the training data propagated up by Q).
	Train eval.Examples
	// Seed derives every estimator's seed (with the stage, epoch and
	// position) unless the estimator sets its own.
	Seed uint64
	// Progress, if set, is told about long estimators (label, total work)
	// and returns a function to report work done and one to call at the end.
	Progress func(label string, total int64) (add func(int64), done func())
}

// CheckFeasible reports settings that cannot work for this model before any
// training time is spent (e.g. exact enumeration of a layer above max_units).
func CheckFeasible(m models.Model, ests []config.Estimator) error {
	if d, ok := m.(*models.DBN); ok {
		return checkFeasibleDBN(d, ests)
	}
	if d, ok := m.(*models.DBM); ok {
		return checkFeasibleDBM(d, ests)
	}
	r, ok := m.(*models.RBM)
	if !ok {
		return fmt.Errorf("model type %s has no estimators yet", m.TypeName())
	}
	for _, e := range ests {
		if e.Name == "exact" {
			if n := min(r.NVis, r.NHid); n > e.MaxUnits {
				return fmt.Errorf("exact: the smaller layer of a %d×%d RBM has %d units, above max_units %d (2^%d terms); raise max_units (≤ 40) or drop exact", r.NVis, r.NHid, n, e.MaxUnits, n)
			}
		}
	}
	return nil
}

// Run evaluates m with the estimators in order and returns one row per
// (estimator, split), or one split-free row for an estimator of log Z alone.
// AIS rows carry the exact log Z of an earlier exact estimator of the same
// list, for "true vs estimate".
func (ev Evaluation) Run(m models.Model, ests []config.Estimator) ([]report.Row, error) {
	if d, ok := m.(*models.DBN); ok {
		return ev.runDBN(d, ests)
	}
	if d, ok := m.(*models.DBM); ok {
		return ev.runDBM(d, ests)
	}
	r, ok := m.(*models.RBM)
	if !ok {
		return nil, fmt.Errorf("model type %s has no estimators yet", m.TypeName())
	}
	label := modelLabel(r)
	exactLogZ := math.NaN()
	var rows []report.Row
	for i, e := range ests {
		seed, base := ev.start(e, i, label)
		start := time.Now()
		switch e.Name {
		case "exact":
			logZ, err := eval.Exact{MaxUnits: e.MaxUnits}.LogZ(r)
			if err != nil {
				return rows, fmt.Errorf("exact: %w", err)
			}
			exactLogZ = logZ
			base.LogZ = report.F(logZ)
			base.Seconds = time.Since(start).Seconds()
			rows = append(rows, ev.loglikRows(base, r, logZ, nil)...)
		case "ais":
			res, err := ev.ais(r, e, seed)
			if err != nil {
				return rows, fmt.Errorf("ais: %w", err)
			}
			setAISLogZ(&base, &res, exactLogZ, e)
			base.Runs, base.Betas, base.Init = e.Runs, e.Betas, e.Init
			base.Seconds = time.Since(start).Seconds()
			rows = append(rows, ev.loglikRows(base, r, res.LogZ, base.Warnings)...)
		case "raise":
			rs, err := ev.raise(r, e, seed, base)
			rows = append(rows, rs...)
			if err != nil {
				return rows, fmt.Errorf("raise: %w", err)
			}
		case "csl":
			rs, err := ev.csl(r, e, ests, seed, base)
			rows = append(rows, rs...)
			if err != nil {
				return rows, fmt.Errorf("csl: %w", err)
			}
		case "dbn-bound":
			// The stack is still a single RBM (the first layer of a DBN being
			// trained): its bound is its log-likelihood, which exact/ais give.
			continue
		case "pll":
			for _, s := range ev.Splits {
				row := base
				st := eval.PseudoLogLik(r, s.Data)
				row.Split, row.Value, row.NExamples = s.Name, report.F(st.Mean), st.N
				row.Seconds = time.Since(start).Seconds()
				rows = append(rows, row)
			}
		case "recon":
			rng := rand.New(rand.NewPCG(seed, 0))
			for _, s := range ev.Splits {
				row := base
				st := eval.ReconError(r, s.Data, rng)
				row.Split, row.Value, row.NExamples = s.Name, report.F(st.Mean), st.N
				row.Seconds = time.Since(start).Seconds()
				rows = append(rows, row)
			}
		default:
			return rows, fmt.Errorf("estimator %q is not available for model type rbm", e.Name)
		}
	}
	pairSandwich(rows, ests)
	return rows, nil
}

// start returns the seed of the i-th estimator of an evaluation — its own,
// or derived from the evaluation seed, the stage, the epoch and i — and the
// row fields every estimator shares.
func (ev Evaluation) start(e config.Estimator, i int, model string) (uint64, report.Row) {
	seed := e.Seed
	if seed == 0 {
		stage := uint64(1)
		if ev.Stage == report.StageFinal {
			stage = 2
		}
		seed = config.DeriveSeed(ev.Seed, stage, uint64(ev.Epoch), uint64(i))
	}
	return seed, report.Row{Experiment: ev.Experiment, Model: model, Stage: ev.Stage, Epoch: ev.Epoch, Estimator: e.Name}
}

func hasESSWarning(ws []string) bool {
	for _, w := range ws {
		if len(w) >= 3 && w[:3] == "ESS" {
			return true
		}
	}
	return false
}

// loglikRows turns a log Z into one row per split with the mean
// log-likelihood mean_n(log f(v_n)) − log Z and its standard error over
// examples; with no splits, one split-free row holds the log Z.
func (ev Evaluation) loglikRows(base report.Row, m *models.RBM, logZ float64, warn []string) []report.Row {
	base.Warnings = warn
	if len(ev.Splits) == 0 {
		return []report.Row{base}
	}
	var rows []report.Row
	for _, s := range ev.Splits {
		row := base
		st := eval.MeanLogUnnorm(m, s.Data)
		row.Split = s.Name
		row.MeanLoglik = report.F(st.Mean - logZ)
		row.LoglikSE = report.F(st.SE)
		row.NExamples = st.N
		rows = append(rows, row)
	}
	return rows
}

// Schedule returns the β schedule an estimator asks for.
func Schedule(e config.Estimator) ([]float64, error) {
	switch e.Schedule {
	case "linear":
		return inference.LinearSchedule(e.Betas), nil
	case "2008":
		return inference.PiecewiseSchedule(e.Betas), nil
	}
	return nil, fmt.Errorf("unknown schedule %q", e.Schedule)
}

func (ev Evaluation) ais(m *models.RBM, e config.Estimator, seed uint64) (eval.AISResult, error) {
	betas, err := Schedule(e)
	if err != nil {
		return eval.AISResult{}, err
	}
	a := eval.AIS{Runs: e.Runs, Betas: betas, Seed: seed}
	if e.Init == "base-rate" {
		if len(ev.BaseRate) != m.NVis {
			return eval.AISResult{}, fmt.Errorf("base-rate start needs the training data's log-odds (%d values for %d visible units)", len(ev.BaseRate), m.NVis)
		}
		a.BaseVBias = ev.BaseRate
	}
	if ev.Progress != nil {
		total := int64(e.Runs) * int64(len(betas)-1)
		add, done := ev.Progress(fmt.Sprintf("%s epoch %d AIS %d×%d", ev.Experiment, ev.Epoch, e.Runs, e.Betas), total)
		defer done()
		a.Progress = cumulative(add)
	}
	return a.LogZ(m)
}

// Rows adapts a data set to the estimators' view of examples.
func Rows(s *data.Set) eval.Examples { return setRows{s} }

// StderrProgress returns an Evaluation.Progress that draws progress bars on w
// (quiet when w is not a terminal).
func StderrProgress(w io.Writer) func(string, int64) (func(int64), func()) {
	return func(label string, total int64) (func(int64), func()) {
		b := progress.New(w, label, total)
		return b.Add, b.Done
	}
}
