package estim

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"time"

	"github.com/logz-ml/logz/eval"
	chi2est "github.com/logz-ml/logz/eval/chi2"
	"github.com/logz-ml/logz/eval/report"
	"github.com/logz-ml/logz/family"
	"github.com/logz-ml/logz/family/kit/evalenv"
	"github.com/logz-ml/logz/inference/chi2"
	"github.com/logz-ml/logz/internal/seeds"
	"github.com/logz-ml/logz/models"
)

// Chi2Estimator is the name of the shared χ² estimator.
const Chi2Estimator = "chi2"

// Chi2Qs are the accepted proposal families of the chi2 estimator.
var Chi2Qs = []string{chi2.KindMixture, chi2.KindAux}

// Chi2 is the settings of the χ² upper bound on log Z (Kuleshov & Ermon
// 2017; docs/methods.md#chi2-bound): a proposal q is fitted to minimise ½ log E_q[(p̃/q)²]
// and the bound is then estimated on fresh draws.
//
// The defaults are chosen so that the quickstart rows (RBMs of 20 visible
// units) are tight: 2,000 fit steps of 100 draws bring a 10-component
// mixture to within about 0.03–0.08 nats of the exact log Z there (more
// components tighten it: inference/chi2's tests show the gap shrinking with K),
// and 10,000 fresh draws in 20 batches give a standard error of about 0.01
// nats. When tracking, 200 warm steps per epoch follow a model that moves
// by up to a nat of log Z per epoch (100 left PCD's tracked gap at up to
// 0.6 nats on some epochs of quickstart-chi2).
type Chi2 struct {
	// Q is the proposal family: "mixture" (a uniform mixture of K Bernoulli
	// products, the paper's non-parametric q) or "aux" (an
	// auxiliary-variable network).
	Q string `yaml:"q" want:"mixture or aux" flag:"q"`
	// Components is K of the mixture.
	Components int `yaml:"components" want:"a positive integer" flag:"components"`
	// AuxDim and AuxHidden are the size of the auxiliary variable a and of
	// the hidden layer of the networks of the aux proposal.
	AuxDim    int `yaml:"aux_dim" want:"a positive integer"`
	AuxHidden int `yaml:"aux_hidden" want:"a positive integer"`
	// Steps is the number of fitter steps when q is fitted from scratch.
	Steps int `yaml:"steps" want:"a non-negative integer" flag:"fit-steps"`
	// WarmSteps is the number of fitter steps per evaluation when q is
	// tracked across epochs (warm-started from the previous epoch's q).
	WarmSteps int `yaml:"warm_steps" want:"a non-negative integer"`
	// FitSamples is the number of draws of q per fitter step (≥ 2).
	FitSamples int `yaml:"fit_samples" want:"an integer ≥ 2"`
	// LearningRate is Adam's step size on q's parameters; 0 = by q: 0.05
	// for a mixture, 0.005 for aux (its networks diverge at 0.05: on the
	// quickstart's RBM, ESS 3 at 0.05 against ≈ 200 at 0.005).
	LearningRate float64 `yaml:"learning_rate" want:"a non-negative number (0 = by q)"`
	// Decay is the weight of the past in the fitter's moving averages.
	Decay float64 `yaml:"decay" want:"a number in [0,1)"`
	// InitStd is the standard deviation of the noise added to the training
	// data's base-rate logits to start each mixture component (it breaks
	// the components' symmetry).
	InitStd float64 `yaml:"init_std" want:"a non-negative number"`
	// Samples is the number of fresh draws of q the bound is estimated on,
	// split into Batches independent batches for its standard error.
	Samples int `yaml:"samples" want:"a positive integer" flag:"samples"`
	// Batches is the number of independent batches the draws are split into for the standard error.
	Batches int `yaml:"batches" want:"an integer ≥ 2"`
	// MinESS: warn when the effective sample size of the weights w² is
	// below this many draws.
	MinESS float64 `yaml:"min_ess" want:"a non-negative number"`
	// Track keeps the fitted q between the per-epoch evaluations of an
	// experiment (warm-started with WarmSteps; saved in the checkpoint);
	// a final evaluation starts from the tracked q of the same family and
	// shape when there is one (and still takes Steps steps).
	Track         bool `yaml:"track" want:"true or false"`
	family.Seeded `yaml:",inline"`
}

// DefaultChi2 is the chi2 estimator's defaults.
func DefaultChi2() Chi2 {
	return Chi2{
		Q: chi2.KindMixture, Components: 10, AuxDim: 10, AuxHidden: 32,
		Steps: 2000, WarmSteps: 200, FitSamples: 100, LearningRate: 0, Decay: 0.9, InitStd: 0.5,
		Samples: 10000, Batches: 20, MinESS: 100, Track: true,
	}
}

// Check reports bad settings.
func (c *Chi2) Check(p family.Problems) {
	p.Enum("q", c.Q, Chi2Qs)
	p.Check("components", c.Components >= 1 && c.Components <= chi2.MaxComponents, fmt.Sprintf("an integer in [1,%d]", chi2.MaxComponents), c.Components)
	p.Check("aux_dim", c.AuxDim >= 1 && c.AuxDim <= 1<<12, "an integer in [1,4096]", c.AuxDim)
	p.Check("aux_hidden", c.AuxHidden >= 1 && c.AuxHidden <= 1<<14, "an integer in [1,16384]", c.AuxHidden)
	p.Check("steps", c.Steps >= 0, "a non-negative integer", c.Steps)
	family.CheckMax(p, "steps", c.Steps, family.MaxChi2Steps, "family.MaxChi2Steps")
	p.Check("warm_steps", c.WarmSteps >= 0, "a non-negative integer", c.WarmSteps)
	family.CheckMax(p, "warm_steps", c.WarmSteps, family.MaxChi2Steps, "family.MaxChi2Steps")
	p.Check("fit_samples", c.FitSamples >= 2, "an integer ≥ 2", c.FitSamples)
	family.CheckMaxRuns(p, "fit_samples", c.FitSamples)
	if c.FitSamples >= 2 && c.FitSamples <= family.MaxRuns && c.Steps >= 0 && int64(c.Steps)*int64(c.FitSamples) > family.MaxChi2Draws {
		p.Crossf("", "steps", "steps × fit_samples = %d × %d draws is more than the limit of %d (family.MaxChi2Draws)", c.Steps, c.FitSamples, int64(family.MaxChi2Draws))
	}
	p.Check("learning_rate", c.LearningRate >= 0 && !math.IsInf(c.LearningRate, 0), "a non-negative number (0 = by q)", c.LearningRate)
	p.Check("decay", c.Decay >= 0 && c.Decay < 1, "a number in [0,1)", c.Decay)
	p.Check("init_std", c.InitStd >= 0 && !math.IsInf(c.InitStd, 0), "a non-negative number", c.InitStd)
	p.Check("samples", c.Samples >= 1 && c.Samples <= 100_000_000, "an integer in [1,10^8]", c.Samples)
	p.Check("batches", c.Batches >= 2, "an integer ≥ 2", c.Batches)
	if c.Batches >= 2 && c.Samples >= 1 && c.Samples < c.Batches {
		p.Crossf("", "samples", "samples (%d) must be at least batches (%d): every batch needs a draw", c.Samples, c.Batches)
	}
	p.Check("min_ess", c.MinESS >= 0 && !math.IsInf(c.MinESS, 0), "a non-negative number", c.MinESS)
}

// FitOptions are the fitter's options.
func (c *Chi2) FitOptions() chi2.FitOptions {
	lr := c.LearningRate
	if lr == 0 {
		lr = 0.05
		if c.Q == chi2.KindAux {
			lr = 0.005
		}
	}
	return chi2.FitOptions{Samples: c.FitSamples, LearningRate: lr, Decay: c.Decay}
}

// Shape is the shape of q these settings build for D units.
func (c *Chi2) Shape(D int) []int {
	if c.Q == chi2.KindAux {
		return []int{D, c.AuxDim, c.AuxHidden}
	}
	return []int{D, c.Components}
}

// newAuxProposal builds an auxiliary-variable proposal over D units with
// auxiliary dimension A and hidden layer H, q(x|a)'s output biases at base
// (nil: 0); its weights start N(0, 1/fan_in) (chi2.NewAux).
func newAuxProposal(D, A, H int, base []float64, rng *rand.Rand) (chi2.Proposal, error) {
	if D < 1 || A < 1 || H < 1 || (A+D)*H > chi2.MaxParams {
		return nil, fmt.Errorf("aux proposal: sizes D = %d, aux_dim = %d, aux_hidden = %d out of range", D, A, H)
	}
	if base != nil {
		return chi2.NewAuxBase(base, A, H, rng), nil
	}
	return chi2.NewAux(D, A, H, rng), nil
}

// NewChi2Proposal builds the proposal of settings c for D units, started at
// the base-rate logits base (nil: uniform) plus noise from rng.
func NewChi2Proposal(c *Chi2, D int, base []float64, rng *rand.Rand) (chi2.Proposal, error) {
	if base != nil && len(base) != D {
		base = nil
	}
	switch c.Q {
	case chi2.KindMixture:
		return chi2.NewMixture(D, c.Components, base, c.InitStd, rng)
	case chi2.KindAux:
		return newAuxProposal(D, c.AuxDim, c.AuxHidden, base, rng)
	}
	return nil, fmt.Errorf("unknown proposal q %q (expected mixture or aux)", c.Q)
}

// Chi2Def returns the chi2 estimator of a family whose models have a
// computable log p̃(x): target gives the chi2.Target of a model (e.g.
// chi2.RBMTarget for an RBM's visible marginal). Its rows (one per split,
// or one split-free row without splits) hold the bound as log_z with ±σ and
// ±3σ bands from its batch standard error, the ESS of the weights w², the
// mean log-likelihood bound mean log p̃(x) − bound (a stochastic lower bound
// on the log-likelihood, as the bound's estimate is biased low), the IS
// estimate log mean w in a note, the gap to an exact log Z of the same
// evaluation, and warnings. A family's Finish should call PairLogZ to
// bracket log Z between AIS and χ². M is the family's model type.
func Chi2Def[M models.Model](target func(m M) (chi2.Target, error)) *family.Estimator {
	return Define(Def[M, Chi2]{
		Name:     Chi2Estimator,
		Leans:    family.Leans{LogZ: family.High, LogLik: family.Low, Why: "the χ² bound is above log Z (its Monte-Carlo estimate leans low by less than its error with a good q)"},
		Unshared: true,
		Doc:      "χ² upper bound on log Z with a fitted proposal q (Kuleshov & Ermon 2017): ½ log mean (p̃/q)² on fresh draws; biased low as an estimate",
		Defaults: DefaultChi2(),
		Feasible: func(m M, s *Chi2) error {
			t, err := target(m)
			if err != nil {
				return err
			}
			_, err = NewChi2Proposal(s, t.Dim(), nil, rand.New(rand.NewPCG(0, 0)))
			return err
		},
		Run: func(env *evalenv.Env, m M, s *Chi2, j evalenv.Job) ([]report.Row, error) {
			t, err := target(m)
			if err != nil {
				return nil, err
			}
			return Chi2Rows(env, t, s, j)
		},
	})
}

// trackPrefix is the checkpoint prefix of the q tracked by the entry at
// index i of every_epoch.
func trackPrefix(i int) string { return fmt.Sprintf("track_%d_", i) }

// Chi2Rows fits q (from scratch, or warm from the tracked q) and estimates
// the bound for target t; see Chi2Def.
func Chi2Rows(env *evalenv.Env, t chi2.Target, s *Chi2, j evalenv.Job) ([]report.Row, error) {
	start := time.Now()
	D := t.Dim()
	opt := s.FitOptions()
	fitRNG := rand.New(rand.NewPCG(j.Seed, 1))
	var f *chi2.Fitter
	steps, how := s.Steps, "fitted from scratch"
	tracking := s.Track && env.Tracked != nil
	prefix := trackPrefix(j.Index)
	if tracking {
		var err error
		switch env.Stage {
		case report.StageEpoch:
			f, err = env.Tracked.Fitter(prefix, opt)
			if f != nil && !evalenv.SameShape(f.Q, s.Q, s.Shape(D)) {
				f = nil
			}
			if f != nil {
				steps, how = s.WarmSteps, "warm-started from the tracked q"
			}
		default:
			// The final evaluation starts from a copy of the tracked q of
			// the same family and shape, leaving the tracked one as saved.
			var from string
			f, from, err = env.Tracked.Copy(s.Q, s.Shape(D), opt)
			if f != nil {
				how = "started from the q tracked across epochs (" + from + ")"
			}
		}
		if err != nil {
			return nil, err
		}
	}
	if f == nil {
		base, _ := env.BaseVBias("base-rate", D)
		q, err := NewChi2Proposal(s, D, base, fitRNG)
		if err != nil {
			return nil, err
		}
		if f, err = chi2.NewFitter(q, opt); err != nil {
			return nil, err
		}
	}
	logp := t.NewLogP()
	progress, done := env.Bar(fmt.Sprintf("%s epoch %d χ² fit %d steps × %d", env.Experiment, env.Epoch, steps, s.FitSamples), int64(steps))
	for k := range steps {
		if _, err := f.Step(logp, fitRNG); err != nil {
			done()
			return nil, fmt.Errorf("fitting q: %w", err)
		}
		if progress != nil {
			progress(int64(k+1), int64(steps))
		}
	}
	done()
	if tracking && env.Stage == report.StageEpoch {
		env.Tracked.Set(prefix, f)
	}
	workers := max(1, min(runtime.GOMAXPROCS(0), s.Batches))
	progress, done = env.Bar(fmt.Sprintf("%s epoch %d χ² bound %d draws", env.Experiment, env.Epoch, s.Samples), int64(s.Samples))
	e, err := chi2est.BoundProgress(t, f.Q, s.Samples, s.Batches, seeds.Derive(j.Seed, 2), workers, progress)
	done()
	if err != nil {
		return nil, err
	}
	base := j.Base
	base.Init = f.Q.Kind()
	base.Runs = s.Samples
	base.LogZ = report.F(e.LogZ)
	base.LogZLo, base.LogZHi = report.F(e.LogZ-3*e.SE), report.F(e.LogZ+3*e.SE)
	base.LogZLo1, base.LogZHi1 = report.F(e.LogZ-e.SE), report.F(e.LogZ+e.SE)
	base.ESS = report.F(e.ESS)
	qdesc := f.Q.Kind()
	if sh := f.Q.Shape(); f.Q.Kind() == chi2.KindMixture && len(sh) == 2 {
		qdesc = fmt.Sprintf("mixture of %d Bernoulli products", sh[1])
	}
	base.Notes = append(base.Notes,
		fmt.Sprintf("χ² bound ½ log mean (p̃/q)² = %.3f ± %.3f over %d draws in %d batches; q: %s, %s, %d steps of %d draws (%d steps in all); the Monte-Carlo estimate is biased low and can fall under log Z (see docs/methods.md#chi2-bias)",
			e.LogZ, e.SE, e.Samples, s.Batches, qdesc, how, steps, s.FitSamples, f.Steps),
		fmt.Sprintf("IS estimate with the same q: log mean p̃/q = %.3f ± %.3f (a stochastic lower bound on log Z)", e.LogZIS, e.SEIS))
	if e.ESS < s.MinESS {
		base.Warnings = append(base.Warnings, fmt.Sprintf("χ² bound: ESS of the weights w² is %.1f of %d draws, below min_ess %g: the estimate rests on a few draws and is likely too low (biased low, see docs/methods.md#chi2-bias); fit q longer (steps) or draw more samples", e.ESS, e.Samples, s.MinESS))
	}
	if exact := ExactLogZ(env); !math.IsNaN(exact) {
		base.ExactLogZ = report.F(exact)
		addChi2ExactGap(&base, exact, e.LogZ, e.SE)
	}
	base.Seconds = time.Since(start).Seconds()
	if len(env.Splits) == 0 {
		return []report.Row{base}, nil
	}
	var rows []report.Row
	for k, sp := range env.Splits {
		t0 := time.Now()
		row := base.Clone()
		if k > 0 {
			row.Seconds = 0 // the fit and the bound are counted on the first row
		}
		st := meanLogP(t, sp)
		row.Split = sp.Name
		row.MeanLoglik = report.F(st.Mean - e.LogZ)
		row.LoglikSE = report.F(st.SE)
		row.NExamples = st.N
		row.Seconds += time.Since(t0).Seconds()
		rows = append(rows, row)
	}
	return rows, nil
}

// Chi2Negligible is the difference in nats below which the χ² estimate is
// not called "under" exact or AIS whatever the standard errors say (a q
// equal to p̃/Z has a zero standard error, and floating point still differs).
const Chi2Negligible = 1e-3

// addChi2ExactGap notes bound − exact on a chi2 row, and warns when the
// bound's estimate fell under the exact log Z by more than its standard error
// (and Chi2Negligible).
func addChi2ExactGap(row *report.Row, exact, bound, se float64) {
	gap := bound - exact
	switch {
	case gap < -math.Max(se, Chi2Negligible):
		row.Warnings = append(row.Warnings, fmt.Sprintf("χ² estimate %.3f is %.3f nats BELOW the exact log Z %.3f (more than its SE %.3f): the χ² Monte-Carlo estimate is biased low (see docs/methods.md#chi2-bias) and is no upper bound here", bound, -gap, exact, se))
	case gap < 0:
		row.Notes = append(row.Notes, fmt.Sprintf("χ² − exact log Z = %+.3f nats: under the exact value within its SE %.3f (the estimate is biased low)", gap, se))
	default:
		row.Notes = append(row.Notes, fmt.Sprintf("χ² − exact log Z = %+.3f nats (the bound's slack plus noise)", gap))
	}
}

// meanLogP is the mean of log p̃(x) over a split, with its standard error.
func meanLogP(t chi2.Target, sp evalenv.Split) eval.MeanStat {
	logp := t.NewLogP()
	vals := make([]float64, sp.Data.Len())
	for n := range vals {
		vals[n] = logp(sp.Data.Row(n))
	}
	return MeanOf(vals)
}

// PairLogZ brackets log Z between AIS (a stochastic lower bound, E log Ẑ ≤
// log Z) and the χ² bound (an upper bound whose estimate is biased low) of
// the same evaluation: each chi2 row with a log Z gets log_z_bracket_lo/hi =
// [AIS log Ẑ, χ² log Ẑ] and a note with the width, taking the AIS row of
// the same split with the highest log Ẑ; each AIS row gets the bracket with
// the lowest χ² above it. When AIS exceeds χ² by more than their combined
// standard error √(σ_AIS² + σ_χ²²) (and Chi2Negligible), both rows get a
// warning: the χ² estimate has fallen under log Z (see docs/methods.md#chi2-bias) — unless
// the evaluation's exact log Z shows χ² is not under it, in which case AIS
// came out high and the chi2 row gets a note saying so. A family opts in by naming
// its rows "ais" and "chi2" and calling PairLogZ from its Finish.
func PairLogZ(rows []report.Row) {
	same := func(a, b *report.Row) bool {
		return a.Experiment == b.Experiment && a.Stage == b.Stage && a.Epoch == b.Epoch && a.Split == b.Split
	}
	for i := range rows {
		c := &rows[i]
		if c.Estimator != Chi2Estimator || c.LogZ == nil {
			continue
		}
		var best *report.Row
		for j := range rows {
			a := &rows[j]
			if a.Estimator == "ais" && a.LogZ != nil && same(a, c) && (best == nil || *a.LogZ > *best.LogZ) {
				best = a
			}
		}
		if best == nil {
			continue
		}
		lo, hi := *best.LogZ, *c.LogZ
		c.LogZBracketLo, c.LogZBracketHi = report.F(lo), report.F(hi)
		if best.LogZBracketHi == nil || hi < *best.LogZBracketHi {
			best.LogZBracketLo, best.LogZBracketHi = report.F(lo), report.F(hi)
		}
		se := math.Hypot(logZSE(best), logZSE(c))
		q := ""
		if c.Init != "" {
			q = " (" + c.Init + ")"
		}
		c.Notes = append(c.Notes, fmt.Sprintf("log Z bracket [AIS, χ²%s] = [%.3f, %.3f], width %.3f nats", q, lo, hi, hi-lo))
		switch {
		case lo-hi <= math.Max(se, Chi2Negligible):
		case c.ExactLogZ != nil && hi >= *c.ExactLogZ-math.Max(logZSE(c), Chi2Negligible):
			// χ² is not under the exact log Z: AIS came out high.
			c.Notes = append(c.Notes, fmt.Sprintf("AIS's log Ẑ %.3f is above χ²%s %.3f by %.3f nats (> their combined SE %.3f), but χ² is not under the exact log Z %.3f: AIS came out high (its standard error from few runs is rough)", lo, q, hi, lo-hi, se, *c.ExactLogZ))
		default:
			w := fmt.Sprintf("χ²%s log Z %.3f is below AIS's log Ẑ %.3f by %.3f nats (> their combined SE %.3f): the χ² Monte-Carlo estimate is biased low (see docs/methods.md#chi2-bias) and has fallen under log Z; fit q longer or draw more samples", q, hi, lo, lo-hi, se)
			c.Warnings = append(c.Warnings, w)
			best.Warnings = append(best.Warnings, w)
		}
	}
}

// logZSE is the standard error of a row's log Ẑ: log(Ẑ+σ̂) − log Ẑ.
func logZSE(r *report.Row) float64 {
	if r.LogZ == nil || r.LogZHi1 == nil {
		return 0
	}
	return math.Max(*r.LogZHi1-*r.LogZ, 0)
}
