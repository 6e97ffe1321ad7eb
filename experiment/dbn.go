package experiment

import (
	"fmt"
	"time"

	"github.com/logz-ml/logz/config"
	"github.com/logz-ml/logz/eval"
	"github.com/logz-ml/logz/eval/report"
	"github.com/logz-ml/logz/models"
)

// checkFeasibleDBN refuses exact enumeration of a DBN whose hidden layers
// below the top are too many units together, before any training.
func checkFeasibleDBN(d *models.DBN, ests []config.Estimator) error {
	for _, e := range ests {
		if e.Name != "exact" {
			continue
		}
		sizes := d.Sizes()
		below := 0
		for _, n := range sizes[1 : len(sizes)-1] {
			below += n
		}
		top := min(sizes[len(sizes)-2], sizes[len(sizes)-1])
		if below > e.MaxUnits || top > 30 {
			return fmt.Errorf("exact: a DBN %v needs 2^%d terms for the hidden layers below the top (max_units %d) and 2^%d for the top RBM (at most 2^30); drop exact", sizes, below, e.MaxUnits, top)
		}
	}
	return nil
}

// topLogZ returns log Z of the DBN's top RBM: exact when its smaller layer
// has at most maxUnits units, else by AIS with the estimator's settings.
func (ev Evaluation) topLogZ(d *models.DBN, e config.Estimator, seed uint64, maxUnits int) (eval.TopLogZ, *eval.AISResult, error) {
	top := d.Top()
	if min(top.NVis, top.NHid) <= maxUnits {
		z, err := eval.ExactTopLogZ(d, eval.Exact{MaxUnits: maxUnits})
		return z, nil, err
	}
	betas, err := Schedule(e)
	if err != nil {
		return eval.TopLogZ{}, nil, err
	}
	a := eval.AIS{Runs: e.Runs, Betas: betas, Seed: seed}
	if e.Init == "base-rate" && ev.Train != nil {
		if a.BaseVBias, err = eval.TopBaseRate(d, ev.Train, 1); err != nil {
			return eval.TopLogZ{}, nil, err
		}
	}
	if ev.Progress != nil {
		add, done := ev.Progress(fmt.Sprintf("%s epoch %d top-RBM AIS %d×%d", ev.Experiment, ev.Epoch, e.Runs, e.Betas), int64(e.Runs)*int64(len(betas)-1))
		a.Progress = cumulative(add)
		defer done()
	}
	z, res, err := eval.AISTopLogZ(d, a)
	return z, &res, err
}

func setTopLogZ(row *report.Row, z eval.TopLogZ, res *eval.AISResult) {
	row.LogZ = report.F(z.LogZ)
	if res != nil {
		row.LogZLo, row.LogZHi = report.F(res.LogZLo3), report.F(res.LogZHi3)
		row.LogZLo1, row.LogZHi1 = report.F(res.LogZLo1), report.F(res.LogZHi1)
		row.ESS = report.F(res.ESS)
		row.Warnings = append(row.Warnings, res.Warnings...)
	}
	row.Warnings = append(row.Warnings, z.Warnings...)
}

// runDBN evaluates a DBN: exact (enumeration), dbn-bound (2008 eq. 22–24),
// ais (IS with Q as proposal, RAISE §5.3, minus the top RBM's AIS log Z) and
// raise (RAISE with the top RBM unrolled, RAISE §3.3), with control variates.
func (ev Evaluation) runDBN(d *models.DBN, ests []config.Estimator) ([]report.Row, error) {
	label := modelLabel(d)
	var rows []report.Row
	// One top-RBM log Z per setting within an evaluation, so that dbn-bound
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
	tops := map[topKey]topVal{}
	topFor := func(e config.Estimator, seed uint64, maxUnits int) (eval.TopLogZ, *eval.AISResult, error) {
		top := d.Top()
		k := topKey{exact: min(top.NVis, top.NHid) <= maxUnits}
		if !k.exact {
			k.runs, k.betas, k.schedule, k.init = e.Runs, e.Betas, e.Schedule, e.Init
		}
		if v, ok := tops[k]; ok {
			return v.z, v.res, nil
		}
		z, res, err := ev.topLogZ(d, e, seed, maxUnits)
		if err == nil {
			tops[k] = topVal{z, res}
		}
		return z, res, err
	}
	for i, e := range ests {
		seed, base := ev.start(e, i, label)
		start := time.Now()
		switch e.Name {
		case "exact":
			for _, s := range ev.Splits {
				res, err := eval.DBNExact{MaxUnits: e.MaxUnits, Top: eval.Exact{MaxUnits: 30}}.LogProb(d, s.Data)
				if err != nil {
					return rows, fmt.Errorf("exact: %w", err)
				}
				row := base
				row.Split, row.LogZ = s.Name, report.F(res.LogZ)
				row.MeanLoglik, row.LoglikSE, row.NExamples = report.F(res.Mean.Mean), report.F(res.Mean.SE), res.Mean.N
				row.Notes = append(row.Notes, fmt.Sprintf("exact variational bound (Q of the greedy layers): %.3f", res.MeanELBO.Mean))
				row.Seconds = time.Since(start).Seconds()
				rows = append(rows, row)
			}
		case "dbn-bound":
			z, zres, err := topFor(e, seed, e.MaxUnits)
			if err != nil {
				return rows, fmt.Errorf("dbn-bound: %w", err)
			}
			for si, s := range ev.Splits {
				res, err := eval.DBNBound{Samples: e.Samples, Seed: config.DeriveSeed(seed, uint64(si))}.LogProb(d, z, s.Data)
				if err != nil {
					return rows, fmt.Errorf("dbn-bound: %w", err)
				}
				row := base
				row.Split, row.Runs, row.Betas, row.Init = s.Name, e.Runs, e.Betas, e.Init
				if zres == nil {
					row.Runs, row.Betas, row.Init = 0, 0, ""
				}
				setTopLogZ(&row, z, zres)
				row.MeanLoglik, row.LoglikSE, row.NExamples = report.F(res.Mean.Mean), report.F(res.Error), res.Mean.N
				row.Warnings = append(row.Warnings, res.Warnings...)
				row.Notes = append(row.Notes, fmt.Sprintf("lower bound with %d samples from Q per example; error of eq. 24 √(Var r̂_B + Var ln Ẑ) = %.3f", res.Samples, res.Error))
				row.Seconds = time.Since(start).Seconds()
				rows = append(rows, row)
			}
		case "ais":
			z, zres, err := topFor(e, seed, 0)
			if err != nil {
				return rows, fmt.Errorf("ais: %w", err)
			}
			for si, s := range ev.Splits {
				res, err := eval.DBNIS{Samples: e.Samples, Seed: config.DeriveSeed(seed, 100+uint64(si))}.LogProb(d, z, s.Data)
				if err != nil {
					return rows, fmt.Errorf("ais: %w", err)
				}
				row := base
				row.Split, row.Runs, row.Betas, row.Init = s.Name, e.Runs, e.Betas, e.Init
				setTopLogZ(&row, z, zres)
				row.MeanLoglik, row.LoglikSE, row.NExamples = report.F(res.Mean.Mean), report.F(res.Mean.SE), res.Mean.N
				row.Warnings = append(row.Warnings, res.Warnings...)
				row.Notes = append(row.Notes, fmt.Sprintf("log f(v) by importance sampling with Q (%d proposals per example, smallest ESS %.1f) minus the top RBM's AIS log Z", res.Samples, res.MinESS))
				row.Seconds = time.Since(start).Seconds()
				rows = append(rows, row)
			}
		case "raise":
			rs, err := ev.raiseDBN(d, e, seed, base)
			rows = append(rows, rs...)
			if err != nil {
				return rows, fmt.Errorf("raise: %w", err)
			}
		default:
			return rows, fmt.Errorf("estimator %q is not available for model type dbn (use exact, dbn-bound, ais, raise)", e.Name)
		}
	}
	return finishRows(rows, ests), nil
}

// finishRows brackets AIS and RAISE rows (pairSandwich) and drops repeated
// warnings: the last step of a deep model's evaluation.
func finishRows(rows []report.Row, ests []config.Estimator) []report.Row {
	pairSandwich(rows, ests)
	for i := range rows {
		rows[i].Warnings = dedupe(rows[i].Warnings)
	}
	return rows
}

// dedupe drops repeated warnings, keeping the first occurrence of each.
func dedupe(ws []string) []string {
	seen := map[string]bool{}
	out := ws[:0]
	for _, w := range ws {
		if !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}

// raiseDBN runs RAISE with the top RBM unrolled on a subsample of each split
// and extends it to the whole split with the control variate X = log f̂(v),
// an importance-sampling estimate of the unnormalised log-probability.
func (ev Evaluation) raiseDBN(d *models.DBN, e config.Estimator, seed uint64, base report.Row) ([]report.Row, error) {
	betas, err := Schedule(e)
	if err != nil {
		return nil, err
	}
	r := eval.DBNRAISE{Samples: e.Chains, Betas: betas, Seed: seed}
	if e.Init == "base-rate" && ev.Train != nil {
		if r.BaseVBias, err = eval.TopBaseRate(d, ev.Train, 1); err != nil {
			return nil, err
		}
	}
	return ev.raiseBySubsample(e, base, "RAISE", len(betas)-1,
		func(x eval.Examples, progress func(done, total int64)) (eval.RAISEResult, error) {
			r.Progress = progress
			res, err := r.LogProb(d, x)
			return eval.RAISEResult{LogP: res.LogP, LogPSE: res.LogPSE, Mean: res.Mean, LogW: res.LogW, MinESS: res.MinESS, Chains: res.Samples, Steps: res.Steps, Warnings: res.Warnings}, err
		},
		func(si int, s Split) ([]float64, string, error) {
			is, err := eval.DBNIS{Samples: 50, Seed: config.DeriveSeed(seed, 200+uint64(si))}.LogProb(d, eval.TopLogZ{}, s.Data)
			return is.LogF, "50", err
		})
}
