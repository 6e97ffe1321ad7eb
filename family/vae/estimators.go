package vae

import (
	"fmt"
	"math"
	"time"

	"github.com/logz-ml/logz/eval"
	"github.com/logz-ml/logz/eval/report"
	"github.com/logz-ml/logz/family"
	"github.com/logz-ml/logz/family/kit/estim"
	"github.com/logz-ml/logz/family/kit/evalenv"
	"github.com/logz-ml/logz/inference"
	"github.com/logz-ml/logz/inference/chi2"
	"github.com/logz-ml/logz/internal/seeds"
	"github.com/logz-ml/logz/models"
)

// PriorLogZ is how the is and elbo estimators get log Z of an RBM prior:
// exact (eval's enumeration of the smaller layer) when min(Z, H) ≤
// MaxUnits, else AIS along the base-rate path of the prior RBM with these
// AIS settings (from the uniform start: the latents have no data to take a
// base rate from). A Bernoulli prior is normalised: log Z = 0.
type PriorLogZ struct {
	// MaxUnits: the prior's log Z is exact when min(Z, H) ≤ max_units.
	MaxUnits  int `yaml:"max_units" want:"an integer in [1,40]" flag:"max-units"`
	estim.AIS `yaml:",inline"`
}

func defaultPriorLogZ() PriorLogZ {
	a := estim.DefaultAIS()
	a.Init = "uniform"
	return PriorLogZ{MaxUnits: 25, AIS: a}
}

// Check reports bad settings.
func (s *PriorLogZ) Check(p family.Problems) {
	p.Check("max_units", s.MaxUnits >= 1 && s.MaxUnits <= estim.MaxExactUnits, "an integer in [1,40]", s.MaxUnits)
	s.AIS.Check(p)
	if s.Init == "base-rate" {
		p.Crossf("", "init", "init: base-rate has no meaning for the AIS of a VAE's prior (the latents have no data to take a base rate from); use init: uniform")
	}
}

// ISSettings is the settings of is and elbo.
type ISSettings struct {
	// Samples is K, the proposals z_k ~ q(z|x) per example.
	Samples int `yaml:"samples" want:"a positive integer" flag:"samples"`
	// Examples evaluates a random subsample of each split (0 = all; the
	// same examples for every estimator of one evaluation).
	Examples  int `yaml:"examples" want:"a non-negative integer (0 = all)" flag:"examples"`
	PriorLogZ `yaml:",inline"`
}

// Check reports bad settings.
func (s *ISSettings) Check(p family.Problems) {
	p.Check("samples", s.Samples >= 1, "a positive integer", s.Samples)
	family.CheckMaxRuns(p, "samples", s.Samples)
	p.Check("examples", s.Examples >= 0, "a non-negative integer (0 = all)", s.Examples)
	s.PriorLogZ.Check(p)
}

// logZ is the prior's log Z an estimator subtracts, and where it came from.
type logZ struct {
	value float64
	exact bool
	ais   *eval.AISResult // nil unless from AIS
}

// Memo keys: the prior's exact log Z, an AIS log Ẑ of given settings, and
// exact's per-example log p(x) of a split.
type (
	exactPriorKey struct{}
	aisPriorKey   struct{ estim.AISKey }
	exactKey      struct{ split string }
)

// priorLogZ returns log Z of m's prior: 0 for a Bernoulli prior, exact when
// min(Z, H) ≤ s.MaxUnits, else AIS (shared by the entries of one evaluation
// with the same AIS settings).
func priorLogZ(env *evalenv.Env, m *models.VAE, s *PriorLogZ, seed uint64) (logZ, error) {
	r := m.Prior
	if r == nil {
		return logZ{value: 0, exact: true}, nil
	}
	if v, ok := env.Memo(exactPriorKey{}); ok {
		return logZ{value: v.(float64), exact: true}, nil
	}
	if min(r.NVis, r.NHid) <= s.MaxUnits {
		return exactPriorLogZ(env, r, s.MaxUnits)
	}
	key := aisPriorKey{s.AIS.Key()}
	if v, ok := env.Memo(key); ok {
		res := v.(eval.AISResult)
		return logZ{value: res.LogZ, ais: &res}, nil
	}
	path, err := inference.NewBaseRatePath(r, nil)
	if err != nil {
		return logZ{}, fmt.Errorf("AIS of the prior: %w", err)
	}
	res, err := estim.AnnealLogZ(env, path, &s.AIS, seeds.Derive(seed, 0xa15), fmt.Sprintf("%s epoch %d prior AIS %d×%d", env.Experiment, env.Epoch, s.Runs, s.Betas))
	if err != nil {
		return logZ{}, fmt.Errorf("AIS of the prior: %w", err)
	}
	env.Remember(key, res)
	return logZ{value: res.LogZ, ais: &res}, nil
}

// exactPriorLogZ enumerates the smaller layer of the prior RBM and leaves
// the value for the later entries (and as the evaluation's exact log Z, for
// a chi2 row to compare with).
func exactPriorLogZ(env *evalenv.Env, r *models.RBM, maxUnits int) (logZ, error) {
	e, done, err := estim.ExactRBM(env, r, maxUnits, "prior exact log Z")
	if err != nil {
		return logZ{}, err
	}
	v, err := e.LogZ(r)
	done()
	if err != nil {
		return logZ{}, fmt.Errorf("exact log Z of the prior: %w", err)
	}
	env.Remember(exactPriorKey{}, v)
	env.Remember(estim.ExactLogZKey{}, v)
	return logZ{value: v, exact: true}, nil
}

// setLogZ fills a row's log Z fields (the prior's) and notes where log Z
// came from.
func setLogZ(env *evalenv.Env, row *report.Row, m *models.VAE, z logZ, a *estim.AIS) {
	row.LogZ = report.F(z.value)
	switch {
	case m.Prior == nil:
		row.Notes = append(row.Notes, "Bernoulli prior: normalised, log Z = 0")
	case z.exact:
		row.ExactLogZ = report.F(z.value)
		row.Notes = append(row.Notes, fmt.Sprintf("log Z of the RBM(%d,%d) prior is exact: %.4f", m.Prior.NVis, m.Prior.NHid, z.value))
	default:
		estim.SetAISLogZ(row, z.ais, estim.ExactLogZ(env), a)
		row.Betas, row.Init = a.Betas, a.Init
		row.Notes = append(row.Notes, fmt.Sprintf("log Z of the RBM(%d,%d) prior by AIS (%d runs × %d β, %s start): %.4f ± %.4f, a stochastic lower bound, so the log-likelihood tends high by its error",
			m.Prior.NVis, m.Prior.NHid, a.Runs, a.Betas, a.Init, z.value, estim.AISSE(z.ais)))
	}
}

// Exact is log p(x) = logsumexp_z[log p(x|z) + log p̃(z)] − log Z over all
// 2^Z latent states, with the prior's exact log Z.
var Exact = estim.Define(estim.Def[*models.VAE, estim.Exact]{
	Name:     "exact",
	Leans:    family.Leans{Why: "exact enumeration: the reference"},
	Doc:      "exact log p(x) = logsumexp_z[log p(x|z) + log p̃(z)] − log Z, enumerating the 2^Z latent states (and the RBM prior's log Z)",
	Defaults: estim.Exact{MaxUnits: 20},
	Feasible: func(m *models.VAE, s *estim.Exact) error {
		if Z := m.NumLatent(); Z > s.MaxUnits {
			return fmt.Errorf("%s has %d latents, above max_units %d (2^%d states); raise max_units (≤ %d) or drop exact", m.Label(), Z, s.MaxUnits, Z, estim.MaxExactUnits)
		}
		return nil
	},
	CheckModel: func(p family.Problems, s *estim.Exact, model family.Settings, _ int) {
		if Z := model.(*Model).Latent; s.Valid() && Z > s.MaxUnits {
			p.Crossf("", "", "exact enumeration needs at most max_units (%d) latents, but the model has latent: %d; remove exact or raise max_units (≤ %d)", s.MaxUnits, Z, estim.MaxExactUnits)
		}
	},
	Run: func(env *evalenv.Env, m *models.VAE, s *estim.Exact, j evalenv.Job) ([]report.Row, error) {
		start := time.Now()
		z, err := priorLogZ(env, m, &PriorLogZ{MaxUnits: estim.MaxExactUnits}, j.Seed)
		if err != nil {
			return nil, err
		}
		var rows []report.Row
		for _, sp := range env.Splits {
			t0 := time.Now()
			progress, done := env.Bar(fmt.Sprintf("%s epoch %d exact %s", env.Experiment, env.Epoch, sp.Name), int64(sp.Data.Len())<<m.NumLatent())
			lp, err := eval.VAEExactLogUnnorm(m, sp.Data, s.MaxUnits, progress)
			done()
			if err != nil {
				return rows, err
			}
			for n := range lp {
				lp[n] -= z.value
			}
			env.Remember(exactKey{sp.Name}, lp)
			row := meanRow(j.Base, sp.Name, lp)
			setLogZ(env, &row, m, z, nil)
			row.Seconds = time.Since(t0).Seconds()
			rows = append(rows, row)
		}
		if len(rows) > 0 {
			rows[0].Seconds += t0Since(start, rows)
		}
		return rows, nil
	},
})

// t0Since is the time before the first split's (the prior's log Z), to be
// charged to the first row.
func t0Since(start time.Time, rows []report.Row) float64 {
	total := time.Since(start).Seconds()
	for _, r := range rows {
		total -= r.Seconds
	}
	return max(total, 0)
}

// meanRow is the base row of a split with the mean of per-example lp and
// its standard error over the examples.
func meanRow(base report.Row, split string, lp []float64) report.Row {
	st := estim.MeanOf(lp)
	base.Split = split
	base.MeanLoglik, base.LoglikSE, base.NExamples = report.F(st.Mean), report.F(st.SE), st.N
	return base
}

// cheapX is the cheap control variate X of split sp for the is and elbo
// rows of a subsample: the same estimator (pick of the weights, minus the
// same log Z) with draws proposals of q(z|x) per example on every example,
// so that Y − X is only the difference of two estimates of one quantity.
// Its seed depends on the evaluation alone (evalenv.Env.CVSeed), so every
// entry that needs it computes the same X; it is computed whole in every
// process (not shared among shards: it is cheap) and not remembered for
// later entries (which would make a resumed evaluation run this entry
// again).
func cheapX(env *evalenv.Env, m *models.VAE, sp evalenv.Split, draws int, what string, pick func(w eval.VAEWeights) []float64, logZ float64) (estim.ControlX, error) {
	N := sp.Data.Len()
	kind := uint64(1)
	if what == "ELBO" {
		kind = 2
	}
	progress, done := env.Bar(fmt.Sprintf("%s epoch %d control variate (%s) %s %d ex × %d", env.Experiment, env.Epoch, what, sp.Name, N, draws), int64(N)*int64(draws))
	w, err := eval.VAEIS{Samples: draws, Seed: estim.CVSeed(env, sp, kind), Progress: progress}.Weights(m, sp.Data)
	done()
	if err != nil {
		return estim.ControlX{}, err
	}
	x := pick(w)
	for n := range x {
		x[n] -= logZ
	}
	name := fmt.Sprintf("IS with q(z|x), %s per example", estim.Count(draws, "proposal"))
	if what == "ELBO" {
		name = fmt.Sprintf("ELBO from %s of q(z|x) per example", estim.Count(draws, "draw"))
	}
	return estim.ControlX{X: x, Name: name}, nil
}

// sampled runs eval.VAEIS on each split's subsample and makes one row
// per split from the per-example values pick(w) − log Z; on a subsample the
// mean is extended to the whole split by a control variate
// (evalenv.Env.ExtendSubsample): exact where an earlier entry computed it,
// else the same estimator with a few proposals on every example (cheapX).
func sampled(env *evalenv.Env, m *models.VAE, s *ISSettings, j evalenv.Job, what string, pick func(w eval.VAEWeights) []float64, note func(w eval.VAEWeights, n, N int) string) ([]report.Row, error) {
	start := time.Now()
	z, err := priorLogZ(env, m, &s.PriorLogZ, j.Seed)
	if err != nil {
		return nil, err
	}
	var rows []report.Row
	for _, sp := range env.Splits {
		t0 := time.Now()
		idx, err := env.Sample(sp, s.Examples)
		if err != nil {
			return rows, err
		}
		progress, done := env.Bar(fmt.Sprintf("%s epoch %d %s %s %d ex × %d", env.Experiment, env.Epoch, what, sp.Name, len(idx), s.Samples), int64(len(idx))*int64(s.Samples))
		w, err := eval.VAEIS{Samples: s.Samples, Seed: seeds.Derive(j.Seed, sp.Key()), Progress: progress, Units: env.Units()}.Weights(m, evalenv.Subset{X: sp.Data, Idx: idx})
		done()
		if err != nil {
			return rows, err
		}
		lp := pick(w)
		for n := range lp {
			lp[n] -= z.value
		}
		row := meanRow(j.Base, sp.Name, lp)
		row.Runs = s.Samples
		setLogZ(env, &row, m, z, &s.AIS)
		row.Notes = append(row.Notes, note(w, len(idx), sp.Data.Len()))
		var exact []float64
		if ex, ok := env.Memo(exactKey{sp.Name}); ok {
			exact = ex.([]float64)
		}
		N := sp.Data.Len()
		draws := estim.CheapDraws(int64(len(idx))*int64(s.Samples), N, 10)
		cheap := func() (estim.ControlX, error) {
			return cheapX(env, m, sp, draws, what, pick, z.value)
		}
		if err := estim.ExtendSubsample(env, &row, lp, idx, N, exact, cheap); err != nil {
			return rows, err
		}
		row.Seconds = time.Since(t0).Seconds()
		rows = append(rows, row)
	}
	if len(rows) > 0 {
		rows[0].Seconds += t0Since(start, rows)
	}
	return rows, nil
}

// IS is importance sampling with the encoder as the proposal:
//
//	log p̂(x) = logmeanexp_k[log p(x|z_k) + log p̃(z_k) − log q(z_k|x)] − log Z,
//
// z_k ~ q(z|x); p̂ is unbiased for p(x) given log Z, so log p̂ is a
// stochastic lower bound on log p(x).
var IS = estim.Define(estim.Def[*models.VAE, ISSettings]{
	Name:     "is",
	Leans:    family.Leans{LogLik: family.Low, Why: "log of an unbiased estimate of p(x), given the prior's log Z"},
	Doc:      "importance sampling with the encoder q(z|x): logmeanexp_k[log p(x|z_k) + log p̃(z_k) − log q(z_k|x)] − log Z, a stochastic lower bound on log p(x); log Z of an RBM prior exact or by AIS",
	Defaults: ISSettings{Samples: 5000, PriorLogZ: defaultPriorLogZ()},
	Run: func(env *evalenv.Env, m *models.VAE, s *ISSettings, j evalenv.Job) ([]report.Row, error) {
		return sampled(env, m, s, j, "IS", func(w eval.VAEWeights) []float64 { return w.LogMeanW }, func(w eval.VAEWeights, n, N int) string {
			minESS := math.Inf(1)
			for _, e := range w.ESS {
				minESS = min(minESS, e)
			}
			return fmt.Sprintf("%d proposals per example from q(z|x) on %d of %d examples; smallest ESS %.1f", s.Samples, n, N, minESS)
		})
	},
})

// ELBO is the mean evidence lower bound
//
//	E_q(z|x)[log p(x|z) + log p̃(z) − log q(z|x)] − log Z ≤ log p(x),
//
// each example's expectation estimated from K draws of q(z|x).
var ELBO = estim.Define(estim.Def[*models.VAE, ISSettings]{
	Name:     "elbo",
	Leans:    family.Leans{LogLik: family.Low, Why: "a lower bound on log p(x), given the prior's log Z"},
	Doc:      "evidence lower bound E_q[log p(x|z) + log p̃(z) − log q(z|x)] − log Z (a lower bound on log p(x)), K draws of q(z|x) per example",
	Defaults: ISSettings{Samples: 100, PriorLogZ: defaultPriorLogZ()},
	Run: func(env *evalenv.Env, m *models.VAE, s *ISSettings, j evalenv.Job) ([]report.Row, error) {
		return sampled(env, m, s, j, "ELBO", func(w eval.VAEWeights) []float64 { return w.MeanLogW }, func(_ eval.VAEWeights, n, N int) string {
			return fmt.Sprintf("ELBO from %d draws of q(z|x) per example on %d of %d examples", s.Samples, n, N)
		})
	},
})

// priorTarget is the χ² target of a VAE's RBM prior: p̃(z) = exp(−F(z)).
func priorTarget(m *models.VAE) (chi2.Target, error) {
	if m.Prior == nil {
		return nil, fmt.Errorf("chi2 bounds log Z of an RBM prior, and %s has a Bernoulli prior (log Z = 0); drop chi2", m.Label())
	}
	return chi2.RBMTarget{M: m.Prior}, nil
}

// Chi2 is the χ² upper bound on log Z of the RBM prior (Kuleshov & Ermon
// 2017, docs/methods.md#chi2-bound; evalenv.Env.Chi2Rows on chi2.RBMTarget of the prior):
// one split-free row with the bound as log_z. The is and elbo rows of the
// same evaluation then show the log Z bracket [their log Z, χ²] and the
// log-likelihood with the χ² bound in place of their log Z (finish).
var Chi2 = estim.Define(estim.Def[*models.VAE, estim.Chi2]{
	Name:     estim.Chi2Estimator,
	Leans:    family.Leans{LogZ: family.High, Why: "the χ² bound on the prior's log Z is above it"},
	Unshared: true,
	Doc:      "χ² upper bound on log Z of the RBM prior with a fitted proposal q (Kuleshov & Ermon 2017); biased low as an estimate; is and elbo rows note the log Z bracket and the log-likelihood with it",
	Defaults: estim.DefaultChi2(),
	Feasible: func(m *models.VAE, _ *estim.Chi2) error {
		_, err := priorTarget(m)
		return err
	},
	CheckModel: func(p family.Problems, _ *estim.Chi2, model family.Settings, _ int) {
		if model.(*Model).Prior != models.PriorRBM {
			p.Crossf("", "", "chi2 bounds log Z of an RBM prior, but the model has prior: %s (log Z = 0); remove chi2 or set prior: rbm", model.(*Model).Prior)
		}
	},
	Run: func(env *evalenv.Env, m *models.VAE, s *estim.Chi2, j evalenv.Job) ([]report.Row, error) {
		t, err := priorTarget(m)
		if err != nil {
			return nil, err
		}
		// The bound is of the prior over z, not of the data: one row
		// without a split.
		e := *env
		e.Splits = nil
		rows, err := estim.Chi2Rows(&e, t, s, j)
		for i := range rows {
			rows[i].Notes = append(rows[i].Notes, "χ² bound on log Z of the prior p̃(z) (an RBM over the latents)")
		}
		return rows, err
	},
})

// Finish shows, on each is, elbo and exact row of an evaluation that also
// ran chi2, the prior's log Z bracket [the row's log Z, χ² bound] and the
// mean log-likelihood with the χ² bound in place of the row's log Z: lower
// by the bracket's width, the part of the log-likelihood's uncertainty that
// log Z carries (a lower bound on it, up to the χ² estimate's low bias,
// docs/methods.md#chi2-bias).
func (Plugin) Finish(_ models.Model, rows []report.Row, _ []family.Configured) []report.Row {
	// is and elbo are lower bounds on log p(x) (given log Z): above the
	// exact row beyond noise, when exact was listed after them, is wrong.
	report.CheckLowerBounds(rows, func(r *report.Row) bool { return r.Estimator == "is" || r.Estimator == "elbo" })
	for i := range rows {
		c := &rows[i]
		if c.Estimator != estim.Chi2Estimator || c.LogZ == nil {
			continue
		}
		for k := range rows {
			r := &rows[k]
			if r.Estimator == estim.Chi2Estimator || r.LogZ == nil || r.MeanLoglik == nil ||
				r.Experiment != c.Experiment || r.Stage != c.Stage || r.Epoch != c.Epoch {
				continue
			}
			lo, hi := *r.LogZ, *c.LogZ
			r.LogZBracketLo, r.LogZBracketHi = report.F(lo), report.F(hi)
			src := "AIS"
			if r.ExactLogZ != nil && *r.ExactLogZ == lo {
				src = "exact"
			}
			r.Notes = append(r.Notes, fmt.Sprintf("prior log Z bracket [%s, χ²] = [%.3f, %.3f], width %.3f nats; with the χ² bound for log Z the mean log-likelihood is %.3f (a lower bound on it, up to the χ² estimate's low bias)",
				src, lo, hi, hi-lo, *r.MeanLoglik-(hi-lo)))
		}
	}
	return rows
}
