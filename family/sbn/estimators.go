package sbn

import (
	"fmt"
	"math"
	"time"

	"github.com/logz-ml/logz/data"
	"github.com/logz-ml/logz/eval/report"
	"github.com/logz-ml/logz/family"
	"github.com/logz-ml/logz/family/kit/estim"
	"github.com/logz-ml/logz/family/kit/evalenv"
	"github.com/logz-ml/logz/family/kit/sampling"
	"github.com/logz-ml/logz/models"
	belief "github.com/logz-ml/logz/sbn"
)

// latentUnits is the number of latent units, Σ_{l≥1} n_l.
func latentUnits(n *belief.Net) int {
	s := 0
	for _, k := range n.Sizes[1:] {
		s += k
	}
	return s
}

// meanRow fills a row's mean log-likelihood and its standard error over
// examples from per-example log p(x), and notes which posterior estimate
// of θ the net is (docs/methods.md#posterior-samples), when a trainer made it.
func meanRow(row report.Row, lp []float64, n *belief.Net) report.Row {
	st := estim.MeanOf(lp)
	row.MeanLoglik, row.LoglikSE, row.NExamples = report.F(st.Mean), report.F(st.SE), st.N
	if n.Posterior != "" {
		row.Notes = append(row.Notes, "the net evaluated is "+n.Posterior)
	}
	return row
}

// exactKey remembers exact's per-example log p(x) of a split for the
// checks of the sampling estimators (which may run on a subsample).
type exactKey struct{ split string }

// Exact is log p(x) by summing p(x, z) over every latent state.
var Exact = estim.Define(estim.Def[*belief.Net, estim.Exact]{
	Name:     "exact",
	Leans:    family.Leans{Why: "exact enumeration: the reference"},
	Unshared: true,
	Doc:      "exact log p(x) = log Σ_z p(x, z), enumerating the 2^(latent units) states",
	Defaults: estim.Exact{MaxUnits: 20},
	Feasible: func(n *belief.Net, s *estim.Exact) error {
		if k := latentUnits(n); k > s.MaxUnits {
			return fmt.Errorf("%s has %d latent units, above max_units %d (2^%d states); raise max_units (≤ 40) or drop exact", n.Label(), k, s.MaxUnits, k)
		}
		return nil
	},
	CheckModel: func(p family.Problems, s *estim.Exact, model family.Settings, visible int) {
		k := 0
		for _, l := range model.(*Model).Layers {
			k += l
		}
		if s.Valid() && k > s.MaxUnits {
			p.Crossf("", "", "exact enumeration needs at most max_units (%d) latent units, but the model has %d; remove exact or raise max_units (≤ %d)", s.MaxUnits, k, estim.MaxExactUnits)
		}
	},
	Run: func(env *evalenv.Env, n *belief.Net, s *estim.Exact, j evalenv.Job) ([]report.Row, error) {
		var rows []report.Row
		for _, sp := range env.Splits {
			start := time.Now()
			progress, done := env.Bar(fmt.Sprintf("%s epoch %d exact %s", env.Experiment, env.Epoch, sp.Name), int64(sp.Data.Len())<<latentUnits(n))
			lp, err := belief.ExactLogProb(n, sp.Data, s.MaxUnits, progress)
			done()
			if err != nil {
				return rows, err
			}
			row := meanRow(j.Base, lp, n)
			row.Split = sp.Name
			row.Seconds = time.Since(start).Seconds()
			env.Remember(exactKey{sp.Name}, lp)
			rows = append(rows, row)
		}
		return rows, nil
	},
})

// ISSettings is the settings of importance sampling with the recognition
// network.
type ISSettings struct {
	// Samples is the number of proposals per example.
	Samples int `yaml:"samples" want:"a positive integer" flag:"samples"`
	// Examples evaluates a random subsample of each split (0 = all).
	Examples      int `yaml:"examples" want:"a non-negative integer (0 = all)" flag:"examples"`
	family.Seeded `yaml:",inline"`
}

// Check reports bad IS settings.
func (s *ISSettings) Check(p family.Problems) {
	p.Check("samples", s.Samples >= 1, "a positive integer", s.Samples)
	p.Check("samples", s.Samples <= family.MaxRuns, fmt.Sprintf("at most %d (family.MaxRuns)", family.MaxRuns), s.Samples)
	p.Check("examples", s.Examples >= 0, "a non-negative integer (0 = all)", s.Examples)
}

// IS is importance sampling with the recognition network Q(z|x) as the
// proposal (App. B.1, eq. 16).
var IS = estim.Define(estim.Def[*belief.Net, ISSettings]{
	Name:     "is",
	Leans:    family.Leans{LogLik: family.Low, Why: "log of an unbiased estimate of p(x)"},
	Doc:      "importance sampling with the recognition network (App. B.1): log of an unbiased estimate of p(x), a stochastic lower bound",
	Defaults: ISSettings{Samples: 5000},
	// A recognition network is made by the adaptive-is trainer, so it
	// cannot be checked before training; Run refuses a net without one.
	Run: func(env *evalenv.Env, n *belief.Net, s *ISSettings, j evalenv.Job) ([]report.Row, error) {
		if n.Rec == nil {
			return nil, fmt.Errorf("is needs a recognition network, and this %s has none (rec_W…, rec_c… arrays); train with sampler adaptive-is, or use ais", n.Label())
		}
		return onSubsamples(env, n, j, s.Examples, int64(s.Samples), func(sp evalenv.Split, x evalenv.Subset, seed uint64, row *report.Row) ([]float64, error) {
			progress, done := env.Bar(fmt.Sprintf("%s epoch %d IS %s %d ex × %d", env.Experiment, env.Epoch, sp.Name, x.Len(), s.Samples), int64(x.Len()*s.Samples))
			res, err := belief.IS{Samples: s.Samples, Seed: seed, Progress: progress, Units: env.Units()}.LogProb(n, x)
			done()
			if err != nil {
				return nil, err
			}
			row.Runs, row.ESS = s.Samples, report.F(res.MinESS)
			row.Notes = append(row.Notes, fmt.Sprintf("%d proposals per example from the recognition network on %d of %d examples; smallest ESS %.1f", s.Samples, x.Len(), sp.Data.Len(), res.MinESS))
			if res.MinESS < 10 {
				row.Warnings = append(row.Warnings, fmt.Sprintf("an example's effective sample size is %.1f of %d: the recognition network misses part of its posterior, so this IS estimate is likely far below log p(x)", res.MinESS, s.Samples))
			}
			return res.LogP, nil
		})
	},
})

// AISSettings is the settings of per-example AIS over parameter scaling.
type AISSettings struct {
	// Chains is the number of AIS chains per example.
	Chains int `yaml:"chains" want:"a positive integer" flag:"chains"`
	// Betas is K, the number of intermediate distributions (β_k = k/K).
	Betas int `yaml:"betas" want:"a positive integer" flag:"betas"`
	// Examples evaluates a random subsample of each split (0 = all).
	Examples      int `yaml:"examples" want:"a non-negative integer (0 = all)" flag:"examples"`
	family.Seeded `yaml:",inline"`
}

// Check reports bad AIS settings.
func (s *AISSettings) Check(p family.Problems) {
	p.Check("chains", s.Chains >= 1, "a positive integer", s.Chains)
	p.Check("chains", s.Chains <= family.MaxRuns, fmt.Sprintf("at most %d (family.MaxRuns)", family.MaxRuns), s.Chains)
	p.Check("betas", s.Betas >= 1, "a positive integer", s.Betas)
	p.Check("betas", s.Betas <= family.MaxBetas, fmt.Sprintf("at most %d (family.MaxBetas)", family.MaxBetas), s.Betas)
	family.CheckSweeps(p, "chains", s.Chains, s.Betas)
	p.Check("examples", s.Examples >= 0, "a non-negative integer (0 = all)", s.Examples)
}

// AIS is per-example AIS from p(x, z | 0) to p(x, z | θ) (App. B.2, eq. 17).
var AIS = estim.Define(estim.Def[*belief.Net, AISSettings]{
	Name:     "ais",
	Leans:    family.Leans{LogLik: family.Low, Why: "log of an unbiased estimate of p(x)"},
	Doc:      "per-example AIS over parameter scaling p(x, z | βθ) (App. B.2): log of an unbiased estimate of p(x), a stochastic lower bound; needs no recognition network",
	Defaults: AISSettings{Chains: 16, Betas: 1000, Examples: 100},
	Run: func(env *evalenv.Env, n *belief.Net, s *AISSettings, j evalenv.Job) ([]report.Row, error) {
		return onSubsamples(env, n, j, s.Examples, int64(s.Chains)*int64(s.Betas), func(sp evalenv.Split, x evalenv.Subset, seed uint64, row *report.Row) ([]float64, error) {
			progress, done := env.Bar(fmt.Sprintf("%s epoch %d AIS %s %d ex × %d × %d β", env.Experiment, env.Epoch, sp.Name, x.Len(), s.Chains, s.Betas), int64(x.Len()*s.Chains))
			res, err := belief.AIS{Chains: s.Chains, Betas: s.Betas, Seed: seed, Progress: progress, Units: env.Units()}.LogProb(n, x)
			done()
			if err != nil {
				return nil, err
			}
			row.Runs, row.Betas = s.Chains, s.Betas
			minESS := math.Inf(1)
			for _, e := range res.ESS {
				minESS = min(minESS, e)
			}
			row.ESS = report.F(minESS)
			row.Notes = append(row.Notes, fmt.Sprintf("%d chains × %d β per example on %d of %d examples; smallest ESS %.1f", s.Chains, s.Betas, x.Len(), sp.Data.Len(), minESS))
			return res.LogP, nil
		})
	},
})

// onSubsamples runs a per-example estimator of log p(x) on each split's
// random subsample of the given size (0 = all; the same examples for every
// estimator of the evaluation) and makes a row of its mean, compared with
// exact on the same examples when an earlier entry computed it, and on a
// subsample extended to the whole split by a control variate
// (evalenv.Env.ExtendSubsample): exact where an earlier entry computed it,
// else a cheap estimate on every example (cheapX). est fills the row's own
// fields; perExample is its cost per example (proposals, chains × β).
func onSubsamples(env *evalenv.Env, n *belief.Net, j evalenv.Job, examples int, perExample int64, est func(sp evalenv.Split, x evalenv.Subset, seed uint64, row *report.Row) ([]float64, error)) ([]report.Row, error) {
	var rows []report.Row
	for _, sp := range env.Splits {
		start := time.Now()
		idx, err := env.Sample(sp, examples)
		if err != nil {
			return rows, err
		}
		row := j.Base
		row.Split = sp.Name
		lp, err := est(sp, evalenv.Subset{X: sp.Data, Idx: idx}, j.Seed+sp.Key(), &row)
		if err != nil {
			return rows, err
		}
		row = meanRow(row, lp, n)
		var exact []float64
		if x, ok := env.Memo(exactKey{sp.Name}); ok {
			exact = x.([]float64)
		}
		N := sp.Data.Len()
		cheap := func() (estim.ControlX, error) {
			return cheapX(env, n, sp, estim.CheapDraws(int64(len(idx))*perExample, N, cheapMost(n)))
		}
		if err := estim.ExtendSubsample(env, &row, lp, idx, N, exact, cheap); err != nil {
			return rows, err
		}
		row.Seconds = time.Since(start).Seconds()
		rows = append(rows, row)
	}
	return rows, nil
}

// cheapMost is the most draws per example of a cheap control variate: 10
// IS proposals from the recognition network, else 100 β of a one-chain
// AIS.
func cheapMost(n *belief.Net) int {
	if n.Rec != nil {
		return 10
	}
	return 100
}

// cheapX is the cheap control variate X of split sp for the sampling
// estimators' subsamples: importance sampling with the recognition network
// with draws proposals per example when the net has one, else per-example
// AIS with one chain and draws β — either the log of an unbiased estimate
// of p(x), so that Y − X varies little from example to example. Its seed
// depends on the evaluation alone (evalenv.Env.CVSeed), so every entry that
// needs it computes the same X; it is computed whole in every process (not
// shared among shards: it is cheap) and not remembered for later entries
// (which would make a resumed evaluation run this entry again).
func cheapX(env *evalenv.Env, n *belief.Net, sp evalenv.Split, draws int) (estim.ControlX, error) {
	N := sp.Data.Len()
	var x estim.ControlX
	if n.Rec != nil {
		progress, done := env.Bar(fmt.Sprintf("%s epoch %d control variate (IS) %s %d ex × %d", env.Experiment, env.Epoch, sp.Name, N, draws), int64(N)*int64(draws))
		res, err := belief.IS{Samples: draws, Seed: estim.CVSeed(env, sp, 1), Progress: progress}.LogProb(n, sp.Data)
		done()
		if err != nil {
			return x, err
		}
		x = estim.ControlX{X: res.LogP, Name: fmt.Sprintf("IS with the recognition network, %s per example", estim.Count(draws, "proposal"))}
	} else {
		progress, done := env.Bar(fmt.Sprintf("%s epoch %d control variate (AIS) %s %d ex × 1 × %d β", env.Experiment, env.Epoch, sp.Name, N, draws), int64(N))
		res, err := belief.AIS{Chains: 1, Betas: draws, Seed: estim.CVSeed(env, sp, 2), Progress: progress}.LogProb(n, sp.Data)
		done()
		if err != nil {
			return x, err
		}
		x = estim.ControlX{X: res.LogP, Name: fmt.Sprintf("AIS with 1 chain × %d β per example", draws)}
	}
	return x, nil
}

// BDMCSettings is the settings of bidirectional Monte Carlo.
type BDMCSettings struct {
	// Chains per example, forward and reverse.
	Chains int `yaml:"chains" want:"a positive integer" flag:"chains"`
	// Betas is K for both directions.
	Betas int `yaml:"betas" want:"a positive integer" flag:"betas"`
	// Examples is the number of points simulated from the model.
	Examples      int `yaml:"examples" want:"a positive integer" flag:"examples"`
	family.Seeded `yaml:",inline"`
}

// Check reports bad BDMC settings.
func (s *BDMCSettings) Check(p family.Problems) {
	p.Check("chains", s.Chains >= 1 && s.Chains <= family.MaxRuns, fmt.Sprintf("an integer in [1, %d]", family.MaxRuns), s.Chains)
	p.Check("betas", s.Betas >= 1 && s.Betas <= family.MaxBetas, fmt.Sprintf("an integer in [1, %d]", family.MaxBetas), s.Betas)
	p.Check("examples", s.Examples >= 1 && s.Examples <= family.MaxRuns, fmt.Sprintf("an integer in [1, %d]", family.MaxRuns), s.Examples)
	family.CheckSweeps(p, "chains", s.Chains, s.Betas)
}

// BDMC brackets log p(x) on data simulated from the model (Grosse,
// Ghahramani & Adams 2015): forward AIS from below, reverse AIS from the
// exact latent sample from above.
var BDMC = estim.Define(estim.Def[*belief.Net, BDMCSettings]{
	Name:     "bdmc",
	Leans:    family.Leans{Bracket: true, Why: "forward AIS below, reverse AIS above, on simulated data"},
	Doc:      "bidirectional Monte Carlo on data simulated from the model: forward AIS (lower) and reverse AIS from the exact latent sample (upper) bracket log p(x)",
	Defaults: BDMCSettings{Chains: 16, Betas: 1000, Examples: 100},
	Run: func(env *evalenv.Env, n *belief.Net, s *BDMCSettings, j evalenv.Job) ([]report.Row, error) {
		start := time.Now()
		progress, done := env.Bar(fmt.Sprintf("%s epoch %d BDMC %d ex × %d × %d β ×2", env.Experiment, env.Epoch, s.Examples, s.Chains, s.Betas), int64(2*s.Examples*s.Chains))
		res, err := belief.BDMC{Chains: s.Chains, Betas: s.Betas, Examples: s.Examples, Seed: j.Seed, Progress: progress, Units: env.Units()}.Run(n)
		done()
		if err != nil {
			return nil, err
		}
		row := meanRow(j.Base, res.Lower, n)
		row.Split, row.Runs, row.Betas = "simulated", s.Chains, s.Betas
		up := estim.MeanOf(res.Upper)
		row.LoglikLo, row.LoglikHi = report.F(res.MeanLower), report.F(res.MeanUpper)
		gap := res.MeanUpper - res.MeanLower
		row.Notes = append(row.Notes, fmt.Sprintf("%d points simulated from the model; forward AIS %.3f, reverse AIS %.3f (± %.3f): gap %.3f nats", s.Examples, res.MeanLower, res.MeanUpper, up.SE, gap))
		if k := latentUnits(n); k <= 20 {
			if lp, err := belief.ExactLogProb(n, res.Data, 20, nil); err == nil {
				ex := estim.MeanOf(lp)
				row.ExactLogZ = nil
				row.Notes = append(row.Notes, fmt.Sprintf("exact mean log p(x) of the simulated points: %.3f", ex.Mean))
				se := math.Hypot(*row.LoglikSE, up.SE)
				if ex.Mean < res.MeanLower-3*se || ex.Mean > res.MeanUpper+3*se {
					row.Warnings = append(row.Warnings, fmt.Sprintf("exact %.3f lies outside the BDMC bracket [%.3f, %.3f] beyond 3 standard errors: an AIS direction is wrong", ex.Mean, res.MeanLower, res.MeanUpper))
				}
			}
		}
		if gap > 1 {
			row.Warnings = append(row.Warnings, fmt.Sprintf("the BDMC gap is %.2f nats at K = %d: AIS with these settings can be off by that much on data like the model's own; raise betas", gap, s.Betas))
		}
		row.Seconds = time.Since(start).Seconds()
		return []report.Row{row}, nil
	},
})

// CompletionSettings is the settings of missing-data completion.
type CompletionSettings struct {
	// Rows and Cols give the image shape (rows × cols = visible units).
	Rows int `yaml:"rows" want:"a positive integer"`
	Cols int `yaml:"cols" want:"a positive integer"`
	// Samples reconstructions of the lower half vote per pixel; Sweeps of
	// Gibbs separate them (and burn in).
	Samples int `yaml:"samples" want:"a positive integer" flag:"samples"`
	// Sweeps are the Gibbs sweeps between two kept reconstructions (and before the first).
	Sweeps int `yaml:"sweeps" want:"a positive integer"`
	// Examples is how many test images are completed (the first ones; 0 = all).
	Examples      int `yaml:"examples" want:"a non-negative integer (0 = all)" flag:"examples"`
	family.Seeded `yaml:",inline"`
}

// Check reports bad completion settings.
func (s *CompletionSettings) Check(p family.Problems) {
	p.Check("rows", s.Rows >= 2 && s.Rows <= models.MaxUnits, fmt.Sprintf("an integer in [2, %d] (models.MaxUnits)", models.MaxUnits), s.Rows)
	p.Check("cols", s.Cols >= 1 && s.Cols <= models.MaxUnits, fmt.Sprintf("an integer in [1, %d] (models.MaxUnits)", models.MaxUnits), s.Cols)
	p.Check("samples", s.Samples >= 1 && s.Samples <= family.MaxRuns, fmt.Sprintf("an integer in [1, %d]", family.MaxRuns), s.Samples)
	p.Check("sweeps", s.Sweeps >= 1 && s.Sweeps <= 10000, "an integer in [1, 10000]", s.Sweeps)
	p.Check("examples", s.Examples >= 0, "a non-negative integer (0 = all)", s.Examples)
}

// Completion fills in the lower half of images from the upper half (paper
// §4.2.2) and reports the pixel error rate.
var Completion = estim.Define(estim.Def[*belief.Net, CompletionSettings]{
	Name:     "completion",
	Leans:    family.Leans{Why: "a pixel error rate, not an estimate of log p"},
	Unshared: true,
	Doc:      "missing-data completion (§4.2.2): infer the lower half of each image from the upper half by Gibbs sampling, majority vote per pixel; the value is the pixel error rate of the lower half",
	Defaults: CompletionSettings{Rows: 28, Cols: 28, Samples: 100, Sweeps: 5, Examples: 100},
	Feasible: func(m *belief.Net, s *CompletionSettings) error {
		if d := m.NumVisible(); d != s.Rows*s.Cols {
			return fmt.Errorf("completion: rows × cols = %d × %d = %d, but the model has %d visible units; set rows and cols", s.Rows, s.Cols, s.Rows*s.Cols, d)
		}
		return nil
	},
	Run: func(env *evalenv.Env, n *belief.Net, s *CompletionSettings, j evalenv.Job) ([]report.Row, error) {
		var rows []report.Row
		for si, sp := range env.Splits {
			start := time.Now()
			idx, err := env.Sample(sp, s.Examples)
			if err != nil {
				return rows, err
			}
			res, err := belief.Complete(n, evalenv.Subset{X: sp.Data, Idx: idx}, s.Rows, s.Cols, s.Samples, s.Sweeps, j.Seed+sp.Key())
			if err != nil {
				return rows, err
			}
			if si == 0 && env.Artifact != nil && len(idx) > 0 {
				if err := env.Artifact(CompletionFigure(evalenv.Subset{X: sp.Data, Idx: idx}, res, s.Rows, s.Cols, sp.Name)); err != nil {
					return rows, err
				}
			}
			row := j.Base
			row.Split, row.Value, row.NExamples = sp.Name, report.F(res.ErrorRate), len(idx)
			row.Notes = append(row.Notes, fmt.Sprintf("lower %d of %d rows inferred from the upper ones; %d samples %d sweeps apart vote per pixel; %d of %d examples", s.Rows-s.Rows/2, s.Rows, s.Samples, s.Sweeps, len(idx), sp.Data.Len()))
			row.Seconds = time.Since(start).Seconds()
			rows = append(rows, row)
		}
		return rows, nil
	},
})

var _ data.Examples = evalenv.Subset{}

// CompletionExamples is the number of examples CompletionFigure shows.
const CompletionExamples = 8

// CompletionFigure is the picture of a completion (artifact "completion"):
// the first CompletionExamples examples of x (at most all) in three rows —
// the originals, the hollowed inputs (the missing lower half grey, 0.5) and
// the completions (the vote in the lower half) — as rows × cols images.
func CompletionFigure(x data.Examples, res belief.CompletionResult, rows, cols int, split string) sampling.Artifact {
	k := min(CompletionExamples, x.Len(), len(res.Completed))
	D := rows * cols
	first := rows / 2 * cols
	out := make([]float64, 3*k*D)
	for e := range k {
		orig, done := x.Row(e), res.Completed[e]
		for i := range D {
			out[e*D+i] = float64(orig[i])
			out[(k+e)*D+i] = float64(orig[i])
			if i >= first {
				out[(k+e)*D+i] = 0.5
			}
			out[(2*k+e)*D+i] = float64(done[i])
		}
	}
	return sampling.Artifact{
		Name: "completion", Rows: 3, Cols: k, TileRows: rows, TileCols: cols, X: out,
		RowNames: []string{"original", "hollowed", "completed"},
		Caption:  fmt.Sprintf("missing-data completion of the first %d %s examples: originals; the lower %d of %d rows hidden (grey); completed by the per-pixel vote", k, split, rows-rows/2, rows),
	}
}

// MFSettings is the settings of the mean-field bound.
type MFSettings struct {
	// Passes is the number of rounds of q(ω) and q(h) updates per example.
	Passes int `yaml:"passes" want:"a positive integer"`
	// Samples is the number of draws h ~ q per example for the ELBO of the
	// fitted q(h) itself (sbn.MeanFieldELBO: unbiased, tighter than the
	// Jaakkola–Jordan bound); 0 reports the Jaakkola–Jordan bound.
	Samples int `yaml:"samples" want:"a non-negative integer (0: the Jaakkola–Jordan bound)" flag:"samples"`
	// Examples evaluates a random subsample of each split (0 = all).
	Examples      int `yaml:"examples" want:"a non-negative integer (0 = all)" flag:"examples"`
	family.Seeded `yaml:",inline"`
}

// Check reports bad mean-field settings.
func (s *MFSettings) Check(p family.Problems) {
	p.Check("passes", s.Passes >= 1 && s.Passes <= 10000, "an integer in [1, 10000]", s.Passes)
	p.Check("samples", s.Samples >= 0 && s.Samples <= 1000000, "an integer in [0, 1000000] (0: the Jaakkola–Jordan bound)", s.Samples)
	p.Check("examples", s.Examples >= 0, "a non-negative integer (0 = all)", s.Examples)
}

// MFBound is the mean-field lower bound on log p(x) at the net's
// parameters (pg-vb's q(h) per test example, sbn.MeanFieldBound).
var MFBound = estim.Define(estim.Def[*belief.Net, MFSettings]{
	Name:     "mf-bound",
	Leans:    family.Leans{LogLik: family.Low, Why: "a variational lower bound on log p(x)"},
	Unshared: true,
	Doc:      "mean-field lower bound on log p(x) at the net's parameters: a factorised Bernoulli q(h) per example by coordinate ascent on the Jaakkola–Jordan (Pólya-Gamma) bound, as pg-vb's q(h); that bound, or with samples > 0 the ELBO of the same q(h) estimated from its draws (tighter); plain SBNs",
	Defaults: MFSettings{Passes: 50},
	Feasible: func(n *belief.Net, _ *MFSettings) error {
		if n.AR() {
			return fmt.Errorf("mf-bound: %s is autoregressive; the mean-field bound is for plain SBNs", n.Label())
		}
		return nil
	},
	Run: func(env *evalenv.Env, n *belief.Net, s *MFSettings, j evalenv.Job) ([]report.Row, error) {
		return onSubsamples(env, n, j, s.Examples, int64(s.Passes+s.Samples), func(sp evalenv.Split, x evalenv.Subset, seed uint64, row *report.Row) ([]float64, error) {
			if s.Samples > 0 {
				lp, err := belief.MeanFieldELBO(n, x, s.Passes, s.Samples, seed, 0)
				if err != nil {
					return nil, err
				}
				row.Notes = append(row.Notes, fmt.Sprintf("mean-field ELBO at the net's parameters (θ a point): q(h) fitted by %d rounds of q(ω) and q(h) updates per example from q(h) = ½, its ELBO E_q[log p(x, h) − log q(h)] from %d draws per example (an unbiased estimate of a lower bound), on %d of %d examples", s.Passes, s.Samples, x.Len(), sp.Data.Len()))
				return lp, nil
			}
			lp, err := belief.MeanFieldBound(n, x, s.Passes, 0)
			if err != nil {
				return nil, err
			}
			row.Notes = append(row.Notes, fmt.Sprintf("mean-field lower bound at the net's parameters (θ a point), %d rounds of q(ω) and q(h) updates per example from q(h) = ½, Jaakkola–Jordan's bound on each log σ (samples > 0: the ELBO of the same q(h), tighter), on %d of %d examples", s.Passes, x.Len(), sp.Data.Len()))
			return lp, nil
		})
	},
})
