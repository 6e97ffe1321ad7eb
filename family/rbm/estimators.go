package rbm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/logz-ml/logz/data"
	"github.com/logz-ml/logz/eval"
	"github.com/logz-ml/logz/eval/report"
	"github.com/logz-ml/logz/family"
	"github.com/logz-ml/logz/family/kit/estim"
	"github.com/logz-ml/logz/family/kit/evalenv"
	"github.com/logz-ml/logz/inference"
	"github.com/logz-ml/logz/inference/chi2"
	"github.com/logz-ml/logz/internal/kernel"
	"github.com/logz-ml/logz/models"
)

// Exact is exact log Z by enumerating the smaller layer with a Gray-code walk.
var Exact = estim.Define(estim.Def[*models.RBM, estim.Exact]{
	Name:     "exact",
	Leans:    family.Leans{Why: "exact enumeration: the reference"},
	Unshared: true,
	Doc:      "exact log Z by enumerating the smaller layer (2^min(D,H) terms)",
	Defaults: estim.Exact{MaxUnits: 25},
	Work:     exactWork,
	Feasible: func(r *models.RBM, s *estim.Exact) error {
		if n := min(r.NVis, r.NHid); n > s.MaxUnits {
			return fmt.Errorf("the smaller layer of a %d×%d RBM has %d units, above max_units %d (2^%d terms); raise max_units (≤ 40) or drop exact", r.NVis, r.NHid, n, s.MaxUnits, n)
		}
		return nil
	},
	CheckModel: func(p family.Problems, s *estim.Exact, model family.Settings, visible int) {
		h := model.(*Model).Hidden
		if s.Valid() && visible > 0 && h > 0 && min(visible, h) > s.MaxUnits {
			p.Crossf("", "", "exact enumeration needs min(visible, hidden) ≤ max_units (%d), but the model has %d visible and %d hidden units; remove exact or raise max_units (≤ %d)",
				s.MaxUnits, visible, h, estim.MaxExactUnits)
		}
	},
	Run: func(env *evalenv.Env, r *models.RBM, s *estim.Exact, j evalenv.Job) ([]report.Row, error) {
		start := time.Now()
		e, done, err := estim.ExactRBM(env, r, s.MaxUnits, "exact")
		if err != nil {
			return nil, err
		}
		logZ, err := e.LogZ(r)
		done()
		if err != nil {
			return nil, err
		}
		env.Remember(estim.ExactLogZKey{}, logZ)
		base := j.Base
		base.LogZ = report.F(logZ)
		base.Seconds = time.Since(start).Seconds()
		return LoglikRows(env, base, r, logZ, nil), nil
	},
})

// AISSettings is the settings of the rbm's ais.
type AISSettings struct {
	estim.AIS `yaml:",inline"`
	// Precision is the arithmetic of the annealing chains: float32 (W, the
	// pre-activations and exponentials in float32; paired runs on models
	// with exact log Z agree with float64 to 1e-6 nats per run) or float64.
	// The log weights are summed in float64 either way. Unset: float32.
	Precision string `yaml:"precision,omitempty" want:"float32 or float64 (unset: float32; the chains' arithmetic, log weights always float64)"`
}

// DefaultAISPrecision is the arithmetic of an ais whose precision is unset.
const DefaultAISPrecision = kernel.Float32

// Check reports bad settings.
func (s *AISSettings) Check(p family.Problems) {
	s.AIS.Check(p)
	if s.Precision != "" {
		p.Enum("precision", s.Precision, []string{string(kernel.Float32), string(kernel.Float64)})
	}
}

// PrecisionInUse is the precision the chains run in.
func (s *AISSettings) PrecisionInUse() kernel.Precision {
	p, err := kernel.Parse(s.Precision, DefaultAISPrecision)
	if err != nil {
		return DefaultAISPrecision // Check reported it
	}
	return p
}

// precisionNote is the note of an ais row naming its arithmetic.
func precisionNote(p kernel.Precision) string {
	return "AIS chains in " + string(p) + " (log weights summed in float64)"
}

// Legacy accepts samples, which format-1 configs carried for every ais.
func (*AISSettings) Legacy() map[string]any { return map[string]any{"samples": 500} }

// AIS is the annealed importance sampling estimate of log Z from the data
// base rate or the uniform start (Salakhutdinov & Murray 2008), with the
// mean log-likelihood −F(v) − log Ẑ on each split.
var AIS = estim.Define(estim.Def[*models.RBM, AISSettings]{
	Name:     "ais",
	Leans:    family.Leans{LogZ: family.Low, LogLik: family.High, Why: "log of an unbiased Ẑ is low; −log Ẑ makes log p high"},
	Doc:      "annealed importance sampling estimate of log Z (Salakhutdinov & Murray 2008)",
	Defaults: AISSettings{AIS: estim.DefaultAIS()},
	Work:     aisWork,
	Run: func(env *evalenv.Env, r *models.RBM, s *AISSettings, j evalenv.Job) ([]report.Row, error) {
		start := time.Now()
		vb, err := env.BaseVBias(s.Init, r.NVis)
		if err != nil {
			return nil, err
		}
		path, err := inference.NewBaseRatePathIn(s.PrecisionInUse(), r, vb)
		if err != nil {
			return nil, fmt.Errorf("AIS: %w", err)
		}
		base, res, err := estim.AISRow(env, path, &s.AIS, j, start)
		if err != nil {
			return nil, err
		}
		base.Notes = append(base.Notes, precisionNote(res.Precision))
		return LoglikRows(env, base, r, res.LogZ, base.Warnings), nil
	},
})

// LoglikRows turns a log Z into one row per split with the mean
// log-likelihood mean_n(log f(v_n)) − log Z and its standard error over
// examples; with no splits, one split-free row holds the log Z. The time
// of the log Z (base.Seconds) is counted on the first row only; each row
// adds the time of its own mean.
func LoglikRows(env *evalenv.Env, base report.Row, m *models.RBM, logZ float64, warn []string) []report.Row {
	base.Warnings = warn
	if len(env.Splits) == 0 {
		return []report.Row{base}
	}
	var rows []report.Row
	for k, s := range env.Splits {
		t0 := time.Now()
		row := base.Clone()
		if k > 0 {
			row.Seconds = 0
		}
		st := eval.MeanLogUnnorm(m, s.Data)
		row.Seconds += time.Since(t0).Seconds()
		row.Split = s.Name
		row.MeanLoglik = report.F(st.Mean - logZ)
		row.LoglikSE = report.F(st.SE)
		row.NExamples = st.N
		rows = append(rows, row)
	}
	return rows
}

// LogUnnormAll returns log f(v) = −F(v) for every example: the control
// variate X, cheap for all N.
func LogUnnormAll(m *models.RBM, x data.Examples) []float64 {
	v := make([]float64, m.NVis)
	scratch := make([]float64, m.NHid)
	out := make([]float64, x.Len())
	for n := range out {
		for i, b := range x.Row(n) {
			v[i] = float64(b)
		}
		out[n] = m.LogUnnorm(v, scratch)
	}
	return out
}

// RAISE is reverse AIS on the annealing path of ais (Burda et al. 2015,
// Alg. 2) on a subsample of each split, extended to the whole split by the
// control variate log f(v) = −F(v).
var RAISE = estim.Define(estim.Def[*models.RBM, estim.RAISE]{
	Name:     "raise",
	Leans:    family.Leans{LogLik: family.Low, Why: "log of an unbiased estimate of p_ann(v) (enough β that p_ann ≈ p)"},
	Doc:      "reverse AIS estimator: a stochastic lower bound on each example's log-probability under the annealing model (Burda et al. 2015)",
	Defaults: estim.DefaultRAISE(),
	Work:     raiseWork,
	Run: func(env *evalenv.Env, r *models.RBM, s *estim.RAISE, j evalenv.Job) ([]report.Row, error) {
		betas, err := s.BetaSchedule()
		if err != nil {
			return nil, err
		}
		est := eval.RAISE{Chains: s.Chains, Betas: betas, Seed: j.Seed}
		if s.Init == "base-rate" {
			if len(env.BaseRate) != r.NVis {
				return nil, fmt.Errorf("base-rate start needs the training data's log-odds")
			}
			est.BaseVBias = env.BaseRate
		}
		var rows []report.Row
		for _, sp := range env.Splits {
			start := time.Now()
			idx, err := env.Sample(sp, s.Examples)
			if err != nil {
				return rows, err
			}
			est.Units = env.Units()
			var done func()
			est.Progress, done = env.Bar(fmt.Sprintf("%s epoch %d RAISE %s %d ex × %d chains × %d β", env.Experiment, env.Epoch, sp.Name, len(idx), s.Chains, s.Betas), int64(len(idx))*int64(s.Chains)*int64(len(betas)-1))
			res, err := est.LogProb(r, evalenv.Subset{X: sp.Data, Idx: idx})
			done()
			if err != nil {
				return rows, err
			}
			row := raiseRow(j.Base, s, sp, idx, res, r, start)
			if set, ok := sp.Data.(*data.Set); ok && env.ByLabel && set.Labels != nil {
				// Each label's mean over its examples of the subsample
				// (not extended by the control variate).
				row.ByLabel = estim.ByLabel(res.LogP, idx, set.Labels, 0)
			}
			rows = append(rows, row)
		}
		return rows, nil
	},
})

func raiseRow(base report.Row, s *estim.RAISE, sp evalenv.Split, idx []int, res eval.RAISEResult, m *models.RBM, start time.Time) report.Row {
	row := base.Clone()
	row.Split, row.Runs, row.Betas, row.Init = sp.Name, s.Chains, s.Betas, s.Init
	cv, err := estim.Extend(s.ControlVariate, res.LogP, idx, LogUnnormAll(m, sp.Data))
	warn := append([]string(nil), res.Warnings...)
	if err != nil {
		warn = append(warn, "control variate: "+err.Error())
		cv.Estimate, cv.SE = res.Mean.Mean, res.Mean.SE
	}
	warn = append(warn, cv.Warnings...)
	if len(idx) < sp.Data.Len() {
		note := fmt.Sprintf("RAISE on %d of %d examples", len(idx), sp.Data.Len())
		switch {
		case s.ControlVariate != "none" && len(idx) >= 2 && err == nil:
			note += fmt.Sprintf(", extended by the control variate log f(v) (α = %.3g; variance reduced %.3g×)", cv.Alpha, cv.VarianceReduction)
		default:
			// The mean is the subsample's own (n = k of N in the tables).
			row.SplitExamples = sp.Data.Len()
			if len(idx) < 2 && s.ControlVariate != "none" {
				note += ": too few for a control variate to extend the mean to the split, so it is the mean of that subsample alone"
			}
		}
		row.Notes = append(row.Notes, note)
	}
	if res.MinESS < s.MinESSFraction*float64(s.Chains) && len(res.Warnings) == 0 {
		warn = append(warn, fmt.Sprintf("RAISE: smallest per-example ESS %.1f of %d chains", res.MinESS, s.Chains))
	}
	row.MeanLoglik = report.F(cv.Estimate)
	row.LoglikSE = report.F(cv.SE)
	row.NExamples = len(idx)
	row.Warnings = warn
	row.Seconds = time.Since(start).Seconds()
	return row
}

// CSLSettings is the settings of csl.
type CSLSettings struct {
	// Chains is the number of Gibbs chains.
	Chains int `yaml:"chains" want:"a positive integer" flag:"chains"`
	// Steps is the number of Gibbs steps per chain after burn-in; 0 =
	// matched, as in Burda et al. (2015, footnote 4), to the Gibbs steps
	// RAISE spends per example (chains × betas) or else AIS's (runs × betas)
	// in the same list.
	Steps int `yaml:"steps" want:"a non-negative integer (0 = matched to RAISE/AIS)"`
	// BurnIn is the number of Gibbs steps discarded per chain.
	BurnIn int `yaml:"burn_in" want:"a non-negative integer"`
	// Init is where the chains start: base-rate or uniform.
	Init string `yaml:"init" want:"base-rate or uniform" flag:"init"`
	// Examples is the number of examples of each split evaluated (a random
	// subsample, extended by the control variate log f(v)); 0 = all.
	Examples      int `yaml:"examples" want:"a non-negative integer (0 = all)" flag:"examples"`
	family.Seeded `yaml:",inline"`
}

// Check reports bad settings: counts out of range, and chains × steps or
// chains × (burn_in + steps) above the limits (for steps 0, CheckList).
func (c *CSLSettings) Check(p family.Problems) {
	p.Check("chains", c.Chains >= 1, "a positive integer", c.Chains)
	family.CheckMaxRuns(p, "chains", c.Chains)
	p.Check("steps", c.Steps >= 0, "a non-negative integer (0 = matched to RAISE/AIS)", c.Steps)
	family.CheckMax(p, "steps", c.Steps, eval.MaxGibbsSteps, "eval.MaxGibbsSteps")
	p.Check("burn_in", c.BurnIn >= 0, "a non-negative integer", c.BurnIn)
	family.CheckMax(p, "burn_in", c.BurnIn, eval.MaxGibbsSteps, "eval.MaxGibbsSteps")
	p.Enum("init", c.Init, estim.Inits)
	p.Check("examples", c.Examples >= 0, "a non-negative integer (0 = all)", c.Examples)
	if c.Steps > 0 && c.Steps <= eval.MaxGibbsSteps {
		c.checkBudget(p, c.Steps, "steps", "")
	}
}

// CheckList checks the Gibbs budget of steps: 0, matched to the raise or
// ais entry of the list (matchedSteps), as the run will compute it.
func (c *CSLSettings) CheckList(p family.Problems, list []family.Configured) {
	if c.Steps != 0 || c.Chains < 1 || c.Chains > family.MaxRuns {
		return
	}
	steps := matchedSteps(c, list)
	c.checkBudget(p, steps, "", fmt.Sprintf("steps 0 matches the Gibbs budget of the list's raise or ais: %d steps per chain; ", steps))
}

// checkBudget reports steps (the chains' length after burn-in) that make
// too many states or sweeps, on the line of key rel ("" for the entry).
func (c *CSLSettings) checkBudget(p family.Problems, steps int, rel, why string) {
	if c.Chains < 1 || c.Chains > family.MaxRuns || c.BurnIn < 0 || c.BurnIn > eval.MaxGibbsSteps || steps < 1 {
		return // reported at their keys
	}
	if steps > eval.MaxGibbsSteps {
		p.Crossf("steps", rel, "%sexpected at most %d steps per chain (eval.MaxGibbsSteps); set steps", why, eval.MaxGibbsSteps)
		return
	}
	if states := int64(c.Chains) * int64(steps); states > eval.MaxCSLStates {
		p.Crossf("", rel, "%schains × steps = %d × %d = %d hidden states is more than the limit of %d (eval.MaxCSLStates)", why, c.Chains, steps, states, int64(eval.MaxCSLStates))
		return
	}
	if sweeps := int64(c.Chains) * int64(c.BurnIn+steps); sweeps > family.MaxSweeps {
		p.Crossf("", rel, "%schains × (burn_in + steps) = %d × (%d + %d) = %d Gibbs sweeps is more than the limit of %d (family.MaxSweeps)", why, c.Chains, c.BurnIn, steps, sweeps, int64(family.MaxSweeps))
	}
}

// matchedSteps is CSL's default chain length: the Gibbs steps RAISE spends
// per example (chains × betas) or else AIS's (runs × betas), divided among
// the CSL chains (Burda et al. 2015, footnote 4).
func matchedSteps(c *CSLSettings, all []family.Configured) int {
	budget := 0
	for _, o := range all {
		if r, ok := o.Settings.(*estim.RAISE); ok && o.Name == "raise" {
			budget = r.Chains * r.Betas
			break
		}
	}
	if budget == 0 {
		for _, o := range all {
			if a, ok := o.Settings.(*AISSettings); ok && o.Name == "ais" {
				budget = a.Runs * a.Betas
				break
			}
		}
	}
	if budget == 0 {
		return 1000
	}
	return max(1, budget/c.Chains)
}

// CSL is the conservative sampling-based log-likelihood (Bengio et al. 2013).
var CSL = estim.Define(estim.Def[*models.RBM, CSLSettings]{
	Name:     "csl",
	Leans:    family.Leans{LogLik: family.Low, Why: "a stochastic lower bound when its chains mix"},
	Doc:      "conservative sampling-based log-likelihood: log of the mean of p(v|h_s) over hidden states of Gibbs chains (Bengio et al. 2013)",
	Defaults: CSLSettings{Chains: 100, Init: "base-rate", Examples: 100},
	Work:     cslWork,
	Run: func(env *evalenv.Env, r *models.RBM, s *CSLSettings, j evalenv.Job) ([]report.Row, error) {
		steps := s.Steps
		if steps == 0 {
			steps = matchedSteps(s, j.List)
		}
		c := eval.CSL{Chains: s.Chains, Steps: steps, BurnIn: s.BurnIn, Init: s.Init, Seed: j.Seed}
		if s.Init == "base-rate" {
			c.BaseVBias = env.BaseRate
		}
		var rows []report.Row
		for _, sp := range env.Splits {
			start := time.Now()
			idx, err := env.Sample(sp, s.Examples)
			if err != nil {
				return rows, err
			}
			c.Units = env.Units()
			var done func()
			c.Progress, done = env.Bar(fmt.Sprintf("%s epoch %d CSL %s %d chains × %d steps", env.Experiment, env.Epoch, sp.Name, s.Chains, steps), int64(s.Chains)*int64(steps+s.BurnIn))
			res, err := c.Estimate(r, evalenv.Subset{X: sp.Data, Idx: idx})
			done()
			if err != nil {
				return rows, err
			}
			cv, err := estim.Extend("alpha1", res.LogP, idx, LogUnnormAll(r, sp.Data))
			row := j.Base
			row.Split, row.Runs, row.Betas, row.Init = sp.Name, s.Chains, 0, s.Init
			row.Warnings = append(row.Warnings, res.Warnings...)
			if err != nil {
				row.Warnings = append(row.Warnings, "control variate: "+err.Error())
				cv.Estimate, cv.SE = res.Mean.Mean, res.Mean.SE
			} else {
				// Every example shares the chains: their error moves
				// the whole estimate (ChainSE), beyond the spread the
				// control variate sees.
				cv.SE = math.Hypot(cv.SE, res.ChainSE)
			}
			note := fmt.Sprintf("CSL from %d hidden states (%d chains × %d steps, burn-in %d) on %d of %d examples", res.Samples, s.Chains, steps, s.BurnIn, len(idx), sp.Data.Len())
			switch {
			case len(idx) < sp.Data.Len() && len(idx) < 2:
				// The mean is the subsample's own (n = 1 of N in the tables).
				row.SplitExamples = sp.Data.Len()
				note += ": too few for a control variate to extend the mean to the split, so it is the mean of that subsample alone"
			case err == nil:
				note += fmt.Sprintf(", extended by the control variate log f(v) (variance reduced %.3g×)", cv.VarianceReduction)
			}
			row.Notes = append(row.Notes, note)
			row.MeanLoglik, row.LoglikSE = report.F(cv.Estimate), report.F(cv.SE)
			row.NExamples = len(idx)
			row.Seconds = time.Since(start).Seconds()
			rows = append(rows, row)
		}
		return rows, nil
	},
})

// Chi2 is the χ² upper bound on log Z (Kuleshov & Ermon 2017; docs/methods.md#chi2-bound)
// of the RBM's visible marginal p̃(v) = exp(−F(v)) with a fitted proposal q
// over the visible units (estim.Chi2Def; target chi2.RBMTarget). With ais
// in the same evaluation, log Z is bracketed as [AIS, χ²] (estim.PairLogZ).
var Chi2 = estim.Chi2Def(func(r *models.RBM) (chi2.Target, error) {
	return chi2.RBMTarget{M: r}, nil
})

// PLL is the mean pseudo-log-likelihood.
var PLL = estim.Define(estim.Def[*models.RBM, family.NoSettings]{
	Name:     "pll",
	Leans:    family.Leans{Why: "a sum of log conditional probabilities, not an estimate of log p"},
	Unshared: true,
	Doc:      "mean pseudo-log-likelihood (a cheap training signal, not a likelihood)",
	Work:     pllWork,
	Run: func(env *evalenv.Env, r *models.RBM, _ *family.NoSettings, j evalenv.Job) ([]report.Row, error) {
		laps := estim.StartLaps()
		var rows []report.Row
		for _, s := range env.Splits {
			row := j.Base
			p := eval.PLL{}
			var done func()
			p.Progress, done = env.Bar(fmt.Sprintf("%s epoch %d PLL %s %d ex × %d×%d", env.Experiment, env.Epoch, s.Name, s.Data.Len(), r.NVis, r.NHid), int64(s.Data.Len()))
			st := p.Mean(r, s.Data)
			done()
			row.Split, row.Value, row.NExamples = s.Name, report.F(st.Mean), st.N
			row.Seconds = laps.Lap()
			rows = append(rows, row)
		}
		return rows, nil
	},
})

// ReconSettings is the settings of recon.
type ReconSettings struct {
	family.Seeded `yaml:",inline"`
}

// Check has nothing to check.
func (*ReconSettings) Check(family.Problems) {}

// Recon is the mean squared reconstruction error after one Gibbs step.
var Recon = estim.Define(estim.Def[*models.RBM, ReconSettings]{
	Name:     "recon",
	Leans:    family.Leans{Why: "a squared error of visible bits, not an estimate of log p"},
	Unshared: true,
	Doc:      "mean squared reconstruction error after one Gibbs step (a cheap signal)",
	Work:     reconWork,
	Run: func(env *evalenv.Env, r *models.RBM, _ *ReconSettings, j evalenv.Job) ([]report.Row, error) {
		laps := estim.StartLaps()
		rng := rand.New(rand.NewPCG(j.Seed, 0))
		var rows []report.Row
		for _, s := range env.Splits {
			row := j.Base
			progress, done := env.Bar(fmt.Sprintf("%s epoch %d recon %s %d ex", env.Experiment, env.Epoch, s.Name, s.Data.Len()), int64(s.Data.Len()))
			st := eval.ReconErrorProgress(r, s.Data, rng, progress)
			done()
			row.Split, row.Value, row.NExamples = s.Name, report.F(st.Mean), st.N
			row.Seconds = laps.Lap()
			rows = append(rows, row)
		}
		return rows, nil
	},
})
