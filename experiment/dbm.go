package experiment

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/logz-ml/logz/config"
	"github.com/logz-ml/logz/eval"
	"github.com/logz-ml/logz/eval/report"
	"github.com/logz-ml/logz/models"
)

// dbmExactUnits returns the number of units exact enumeration of a DBM
// visits for log Z (the cheaper parity class of all layers) and for log f(v)
// (the cheaper class of the hidden layers, v clamped).
func dbmExactUnits(d *models.DBM) (logZ, logF int) {
	var all, hidden [2]int
	for l, n := range d.Sizes {
		all[l%2] += n
		if l > 0 {
			hidden[l%2] += n
		}
	}
	return min(all[0], all[1]), min(hidden[0], hidden[1])
}

// checkFeasibleDBM refuses exact enumeration of a DBM above max_units before
// any training.
func checkFeasibleDBM(d *models.DBM, ests []config.Estimator) error {
	for _, e := range ests {
		if e.Name != "exact" {
			continue
		}
		z, f := dbmExactUnits(d)
		if n := max(z, f); n > e.MaxUnits {
			return fmt.Errorf("exact: a DBM %v needs 2^%d terms for log Z and 2^%d per example for log f(v), above max_units %d; raise max_units (≤ 40) or drop exact", d.Sizes, z, f, e.MaxUnits)
		}
	}
	return nil
}

// runDBM evaluates a DBM: exact (enumeration), mf-bound (mean-field lower
// bound on log f(v) minus the AIS log Z), ais (importance sampling of f(v)
// with a mean-field proposal over the even hidden layers, odd layers summed
// out, minus the AIS log Z; RAISE §5.2) and raise (RAISE with an
// intractable posterior, Alg. 3, with the IS log f̂(v) as control variate).
func (ev Evaluation) runDBM(d *models.DBM, ests []config.Estimator) ([]report.Row, error) {
	label := modelLabel(d)
	var rows []report.Row
	type aisKey struct {
		runs, betas    int
		schedule, init string
	}
	logZs := map[aisKey]*eval.AISResult{}
	logZFor := func(e config.Estimator, seed uint64) (*eval.AISResult, error) {
		k := aisKey{e.Runs, e.Betas, e.Schedule, e.Init}
		if r, ok := logZs[k]; ok {
			return r, nil
		}
		r, err := ev.dbmAIS(d, e, seed)
		if err != nil {
			return nil, err
		}
		logZs[k] = &r
		return &r, nil
	}
	// IS estimates of log f(v) per split, reused as RAISE's control variate.
	isLogF := map[string][]float64{}
	exactMean := map[string]float64{}
	exactLogZ := math.NaN()
	for i, e := range ests {
		seed, base := ev.start(e, i, label)
		start := time.Now()
		switch e.Name {
		case "exact":
			for _, s := range ev.Splits {
				res, err := eval.DBMExact{MaxUnits: e.MaxUnits}.LogProb(d, s.Data)
				if err != nil {
					return rows, fmt.Errorf("exact: %w", err)
				}
				exactLogZ = res.LogZ
				exactMean[s.Name] = res.Mean
				row := base
				row.Split, row.LogZ = s.Name, report.F(res.LogZ)
				st := meanOfSlice(res.LogP)
				row.MeanLoglik, row.LoglikSE, row.NExamples = report.F(st.Mean), report.F(st.SE), st.N
				row.Seconds = time.Since(start).Seconds()
				rows = append(rows, row)
			}
			if len(ev.Splits) == 0 {
				z, err := eval.DBMExact{MaxUnits: e.MaxUnits}.LogZ(d)
				if err != nil {
					return rows, fmt.Errorf("exact: %w", err)
				}
				exactLogZ = z
				row := base
				row.LogZ = report.F(z)
				rows = append(rows, row)
			}
		case "mf-bound", "ais":
			z, err := logZFor(e, seed)
			if err != nil {
				return rows, fmt.Errorf("%s: %w", e.Name, err)
			}
			for si, s := range ev.Splits {
				row := base
				row.Split, row.Runs, row.Betas, row.Init = s.Name, e.Runs, e.Betas, e.Init
				setAISLogZ(&row, z, exactLogZ, e)
				var st eval.MeanStat
				if e.Name == "mf-bound" {
					b, err := dbmBounds(d, s.Data)
					if err != nil {
						return rows, fmt.Errorf("mf-bound: %w", err)
					}
					st = meanOfSlice(b)
					row.Notes = append(row.Notes, "mean-field lower bound on log f(v) (fixed-point iterations to convergence) minus the AIS log Z")
				} else {
					lf, minESS, err := dbmISLogF(d, s.Data, e.Samples, config.DeriveSeed(seed, 100+uint64(si)))
					if err != nil {
						return rows, fmt.Errorf("ais: %w", err)
					}
					isLogF[s.Name] = lf
					st = meanOfSlice(lf)
					row.Notes = append(row.Notes, fmt.Sprintf("log f(v) by importance sampling (%d proposals per example from the mean-field posterior over the even hidden layers, odd layers summed out; smallest ESS %.1f) minus the AIS log Z", e.Samples, minESS))
				}
				row.MeanLoglik = report.F(st.Mean - z.LogZ)
				row.LoglikSE, row.NExamples = report.F(st.SE), st.N
				if e.Name == "mf-bound" {
					if x, ok := exactMean[s.Name]; ok && *row.MeanLoglik > x+3*aisSE(z) {
						row.Warnings = append(row.Warnings, fmt.Sprintf("the mean-field bound %.3f lies above the exact log-likelihood %.3f by more than 3σ of log Ẑ: the AIS log Z is too low", *row.MeanLoglik, x))
					}
				}
				row.Seconds = time.Since(start).Seconds()
				rows = append(rows, row)
			}
		case "raise":
			rs, err := ev.raiseDBM(d, e, seed, base, isLogF)
			rows = append(rows, rs...)
			if err != nil {
				return rows, fmt.Errorf("raise: %w", err)
			}
		default:
			return rows, fmt.Errorf("estimator %q is not available for model type dbm (use exact, mf-bound, ais, raise)", e.Name)
		}
	}
	return finishRows(rows, ests), nil
}

// aisSE is the standard error of log Ẑ, log(Ẑ+σ̂) − log Ẑ.
func aisSE(z *eval.AISResult) float64 {
	if math.IsNaN(z.LogZHi1) {
		return 0
	}
	return z.LogZHi1 - z.LogZ
}

// setAISLogZ fills a row's log Z fields from an AIS estimate, with the
// warnings of the AIS run, a low-ESS warning and, when exact log Z is known,
// a warning if it lies outside the ±3σ band.
func setAISLogZ(row *report.Row, z *eval.AISResult, exactLogZ float64, e config.Estimator) {
	row.LogZ = report.F(z.LogZ)
	row.LogZLo, row.LogZHi = report.F(z.LogZLo3), report.F(z.LogZHi3)
	row.LogZLo1, row.LogZHi1 = report.F(z.LogZLo1), report.F(z.LogZHi1)
	row.ESS = report.F(z.ESS)
	row.ExactLogZ = report.F(exactLogZ)
	row.Warnings = append(row.Warnings, z.Warnings...)
	if z.ESS < e.MinESSFraction*float64(e.Runs) && !hasESSWarning(row.Warnings) {
		row.Warnings = append(row.Warnings, fmt.Sprintf("ESS %.1f of %d runs is below %.0f%%: log Z may be underestimated", z.ESS, e.Runs, 100*e.MinESSFraction))
	}
	if !math.IsNaN(exactLogZ) && !(z.LogZLo3 <= exactLogZ && exactLogZ <= z.LogZHi3) {
		row.Warnings = append(row.Warnings, fmt.Sprintf("AIS log Z %.3f is %+.3f nats from the exact %.3f, outside its ±3σ band [%.3f, %.3f]", z.LogZ, z.LogZ-exactLogZ, exactLogZ, z.LogZLo3, z.LogZHi3))
	}
}

// forExamples runs f(n, v) for every example n of x on GOMAXPROCS
// goroutines, v being the example as float64 (a buffer owned by the
// goroutine), and returns the first error by example order. Results written
// by f at index n do not depend on the scheduling.
func forExamples(d *models.DBM, x eval.Examples, f func(n int, v []float64) error) error {
	N := x.Len()
	errs := make([]error, N)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range max(1, min(runtime.GOMAXPROCS(0), N)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v := make([]float64, d.NumVisible())
			for {
				n := int(next.Add(1) - 1)
				if n >= N {
					return
				}
				row := x.Row(n)
				if len(row) != len(v) {
					errs[n] = fmt.Errorf("example %d has %d values, the model has %d visible units", n, len(row), len(v))
					continue
				}
				for i, b := range row {
					v[i] = float64(b)
				}
				errs[n] = f(n, v)
			}
		}()
	}
	wg.Wait()
	for n, err := range errs {
		if err != nil {
			return fmt.Errorf("example %d: %w", n, err)
		}
	}
	return nil
}

// dbmBounds returns the mean-field bound on log f(v) of every example.
func dbmBounds(d *models.DBM, x eval.Examples) ([]float64, error) {
	out := make([]float64, x.Len())
	err := forExamples(d, x, func(n int, v []float64) error {
		fit, err := eval.DBMMeanField{}.Fit(d, v)
		out[n] = fit.Bound
		return err
	})
	return out, err
}

// dbmISLogF returns the importance-sampling estimate of log f(v) of every
// example (example n drawing from rand.NewPCG(seed, n), as
// eval.DBMIS.LogUnnormAll) and the smallest ESS of their weights.
func dbmISLogF(d *models.DBM, x eval.Examples, samples int, seed uint64) ([]float64, float64, error) {
	out := make([]float64, x.Len())
	ess := make([]float64, x.Len())
	err := forExamples(d, x, func(n int, v []float64) error {
		r, err := eval.DBMIS{Samples: samples}.LogUnnorm(d, v, rand.New(rand.NewPCG(seed, uint64(n))))
		out[n], ess[n] = r.LogF, r.Stats.ESS
		return err
	})
	minESS := math.Inf(1)
	for _, e := range ess {
		minESS = math.Min(minESS, e)
	}
	return out, minESS, err
}

func meanOfSlice(x []float64) eval.MeanStat {
	var s, s2 float64
	for _, v := range x {
		s += v
		s2 += v * v
	}
	return meanOf(s, s2, len(x))
}

// dbmAIS estimates a DBM's log Z by AIS with the odd layers summed out,
// from the data base rate or the uniform start.
func (ev Evaluation) dbmAIS(d *models.DBM, e config.Estimator, seed uint64) (eval.AISResult, error) {
	betas, err := Schedule(e)
	if err != nil {
		return eval.AISResult{}, err
	}
	a := eval.AIS{Runs: e.Runs, Betas: betas, Seed: seed}
	if e.Init == "base-rate" {
		if len(ev.BaseRate) != d.NumVisible() {
			return eval.AISResult{}, fmt.Errorf("base-rate start needs the training data's log-odds (%d values for %d visible units)", len(ev.BaseRate), d.NumVisible())
		}
		a.BaseVBias = ev.BaseRate
	}
	var done func()
	a.Progress, done = ev.bar(fmt.Sprintf("%s epoch %d DBM AIS %d×%d %s", ev.Experiment, ev.Epoch, e.Runs, e.Betas, e.Init), int64(e.Runs)*int64(len(betas)-1))
	defer done()
	return eval.DBMAISLogZ(d, a)
}

// raiseDBM runs RAISE for DBMs (Alg. 3) on a subsample of each split and
// extends it to the whole split with the control variate X = log f̂(v), the
// importance-sampling estimate of an earlier ais estimator of the same
// evaluation (else one made here with 100 proposals).
func (ev Evaluation) raiseDBM(d *models.DBM, e config.Estimator, seed uint64, base report.Row, isLogF map[string][]float64) ([]report.Row, error) {
	betas, err := Schedule(e)
	if err != nil {
		return nil, err
	}
	r := eval.DBMRAISE{Chains: e.Chains, Betas: betas, Seed: seed}
	if e.Init == "base-rate" {
		if len(ev.BaseRate) != d.NumVisible() {
			return nil, fmt.Errorf("base-rate start needs the training data's log-odds")
		}
		r.BaseVBias = ev.BaseRate
	}
	return ev.raiseBySubsample(e, base, "DBM RAISE", len(betas)-1,
		func(x eval.Examples, progress func(done, total int64)) (eval.RAISEResult, error) {
			r.Progress = progress
			return r.LogProb(d, x)
		},
		func(si int, s Split) ([]float64, string, error) {
			if x, ok := isLogF[s.Name]; ok {
				return x, "the ais estimator's", nil
			}
			x, _, err := dbmISLogF(d, s.Data, 100, config.DeriveSeed(seed, 200+uint64(si)))
			return x, "100", err
		})
}
