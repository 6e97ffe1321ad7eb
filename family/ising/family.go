package ising

import (
	"fmt"
	"time"

	"github.com/logz-ml/logz/eval/report"
	"github.com/logz-ml/logz/family"
	"github.com/logz-ml/logz/family/kit"
	"github.com/logz-ml/logz/family/kit/estim"
	"github.com/logz-ml/logz/family/kit/evalenv"
	"github.com/logz-ml/logz/inference"
	"github.com/logz-ml/logz/inference/chi2"
	"github.com/logz-ml/logz/models"
)

// Family is the registered ising family.
var Family = &family.Family{
	Name:  "ising",
	Doc:   "fully visible pairwise MRF on a rows×cols grid (Ising model), log p̃(x) = Σ h_i s_i + Σ_<ij> J_ij s_i s_j with spins s = x (01) or 2x−1 (pm1); arrays fields (R×C), coupling_h (R×(C−1)), coupling_v ((R−1)×C), spins",
	Codec: models.IsingType,
	Model: func() family.Settings { m := DefaultModel(); return &m },
	Train: func() family.Settings { t := DefaultTrain(); return &t },
	Trainers: []family.TrainerInfo{
		{Method: "exact", Doc: "maximum likelihood with the exact gradient E_data[T] − E_p[T], E_p[T] by forward-backward on the transfer matrix (narrow grids); Adam or SGD"},
		{Method: "pcd", Doc: "maximum likelihood with E_p[T] from persistent Gibbs chains (chains, sweeps per step); Adam or SGD"},
		{Method: "chi2", Doc: "maximise the mean log p̃(x) minus the χ² upper bound on log Z of a mixture q fitted alongside (q_steps fitter steps per θ step, q_samples draws; Kuleshov & Ermon 2017 eq. 5–6, §5.1); the epoch's signal is the tracked bound"},
	},
	Estimators:      []*family.Estimator{Exact, AIS, Chi2, BP},
	OwnEvalDefaults: true,
	EveryEpoch: func() []family.Configured {
		a := DefaultAIS()
		a.Runs, a.Betas = 16, 200
		return []family.Configured{{Name: "exact", Settings: Exact.New()}, {Name: "ais", Settings: &a}}
	},
	Final: func() []family.Configured {
		return []family.Configured{{Name: "exact", Settings: Exact.New()}, {Name: "ais", Settings: AIS.New()}}
	},
	Plugin: Plugin{},
}

func init() { kit.Register(Family) }

// Plugin is the ising family's Plugin: it builds, trains and samples
// Ising grids.
type Plugin struct{}

// NewModel builds a grid of model.rows × model.cols spins.
func (Plugin) NewModel(s family.Settings, visible int) (models.Model, error) {
	m := s.(*Model)
	R, C, err := m.Grid(visible)
	if err != nil {
		return nil, err
	}
	sp, err := models.ParseSpins(m.Spins)
	if err != nil {
		return nil, fmt.Errorf("model.spins: %w", err)
	}
	return models.NewIsing(R, C, sp), nil
}

// Finish pairs the χ² bound on log Z with the AIS and exact rows.
func (Plugin) Finish(_ models.Model, rows []report.Row, _ []family.Configured) []report.Row {
	estim.PairLogZ(rows)
	return rows
}

// ExactSettings is the settings of the exact estimator.
type ExactSettings struct {
	// Method is "auto" (the transfer matrix when the grid's narrower side
	// is at most max_width, else enumeration when the sites are at most
	// max_units), "transfer" or "enumerate".
	Method string `yaml:"method" want:"auto, transfer or enumerate"`
	// MaxUnits bounds the sites enumeration may enumerate (2^D terms).
	MaxUnits int `yaml:"max_units" want:"an integer in [1,40]" flag:"max-units"`
	// MaxWidth bounds the narrower side of the grid for the transfer
	// matrix (D·2^width terms).
	MaxWidth int `yaml:"max_width" want:"an integer in [1,20]"`
}

// Check reports bad settings.
func (s *ExactSettings) Check(p family.Problems) {
	p.Enum("method", s.Method, []string{"auto", "transfer", "enumerate"})
	p.Check("max_units", s.MaxUnits >= 1 && s.MaxUnits <= models.MaxIsingEnum, "an integer in [1,40]", s.MaxUnits)
	p.Check("max_width", s.MaxWidth >= 1 && s.MaxWidth <= models.MaxIsingWidth, "an integer in [1,20]", s.MaxWidth)
}

// plan returns the method exact uses for m ("transfer" or "enumerate"),
// or why neither applies.
func (s *ExactSettings) plan(m *models.Ising) (string, error) {
	tm := m.TransferFeasible(s.MaxWidth)
	en := error(nil)
	if D := m.NumVisible(); D > s.MaxUnits {
		en = fmt.Errorf("enumerating %d sites takes 2^%d terms, above max_units %d", D, D, s.MaxUnits)
	}
	switch {
	case s.Method == "transfer" && tm != nil:
		return "", tm
	case s.Method == "enumerate" && en != nil:
		return "", en
	case s.Method == "enumerate" || (s.Method == "auto" && tm != nil && en == nil):
		return "enumerate", nil
	case tm == nil:
		return "transfer", nil
	}
	return "", fmt.Errorf("no exact method applies to %s: %v; and %v; drop exact (use ais)", m.Label(), tm, en)
}

// Exact is exact log Z and mean log-likelihoods.
var Exact = estim.Define(estim.Def[*models.Ising, ExactSettings]{
	Name:     "exact",
	Leans:    family.Leans{Why: "exact enumeration: the reference"},
	Unshared: true,
	Doc:      "exact log Z: a transfer matrix over the grid's narrower side (D·2^width terms), or enumeration of all 2^D states",
	Defaults: ExactSettings{Method: "auto", MaxUnits: 25, MaxWidth: 20},
	Feasible: func(im *models.Ising, s *ExactSettings) error {
		_, err := s.plan(im)
		return err
	},
	CheckModel: func(p family.Problems, s *ExactSettings, model family.Settings, visible int) {
		if visible <= 0 {
			return
		}
		R, C, err := model.(*Model).Grid(visible)
		if err != nil {
			return // reported when the model is built
		}
		if _, err := s.plan(models.NewIsing(R, C, models.SpinsPM1)); err != nil && s.MaxUnits >= 1 && s.MaxWidth >= 1 {
			p.Crossf("", "", "%v", err)
		}
	},
	Run: func(env *evalenv.Env, m *models.Ising, s *ExactSettings, j evalenv.Job) ([]report.Row, error) {
		start := time.Now()
		method, err := s.plan(m)
		if err != nil {
			return nil, err
		}
		var logZ float64
		if method == "transfer" {
			logZ, err = m.LogZTransfer(s.MaxWidth)
		} else {
			logZ, err = m.LogZEnum(s.MaxUnits, 0)
		}
		if err != nil {
			return nil, err
		}
		env.Remember(estim.ExactLogZKey{}, logZ)
		base := j.Base
		base.LogZ = report.F(logZ)
		base.Notes = append(base.Notes, "log Z by "+map[string]string{"transfer": "the transfer matrix", "enumerate": "enumeration"}[method])
		base.Seconds = time.Since(start).Seconds()
		return loglikRows(env, base, m, logZ), nil
	},
})

// AISSettings is the settings of the ising's ais.
type AISSettings struct {
	estim.AIS `yaml:",inline"`
}

// DefaultAIS is 100 runs of 1,000 linearly spaced β from the uniform start.
func DefaultAIS() AISSettings {
	return AISSettings{estim.AIS{Runs: 100, Anneal: estim.Anneal{Betas: 1000, Schedule: "linear", Init: "uniform"}, MinESSFraction: 0.1}}
}

// AIS is annealed importance sampling from independent bits.
var AIS = estim.Define(estim.Def[*models.Ising, AISSettings]{
	Name:     "ais",
	Leans:    family.Leans{LogZ: family.Low, LogLik: family.High, Why: "log of an unbiased Ẑ is low; −log Ẑ makes log p high"},
	Doc:      "AIS estimate of log Z along f_β = exp((1−β)·bᵀx + β·log p̃(x)) from independent bits (uniform: b = 0, log Z_0 = D log 2; or the data's base rate), single-site Gibbs sweeps",
	Defaults: DefaultAIS(),
	Run: func(env *evalenv.Env, m *models.Ising, s *AISSettings, j evalenv.Job) ([]report.Row, error) {
		start := time.Now()
		b, err := env.BaseVBias(s.Init, m.NumVisible())
		if err != nil {
			return nil, err
		}
		path, err := inference.NewIsingPath(m, b)
		if err != nil {
			return nil, fmt.Errorf("AIS: %w", err)
		}
		base, res, err := estim.AISRow(env, path, &s.AIS, j, start)
		if err != nil {
			return nil, err
		}
		return loglikRows(env, base, m, res.LogZ), nil
	},
})

// loglikRows returns one row per split with the mean log-likelihood
// mean_n log p̃(x_n) − log Z and its standard error over examples; with no
// splits, one split-free row with log Z.
func loglikRows(env *evalenv.Env, base report.Row, m *models.Ising, logZ float64) []report.Row {
	if len(env.Splits) == 0 {
		return []report.Row{base}
	}
	var rows []report.Row
	for k, sp := range env.Splits {
		t0 := time.Now()
		lp := make([]float64, sp.Data.Len())
		for n := range lp {
			lp[n] = m.LogUnnorm(sp.Data.Row(n))
		}
		st := estim.MeanOf(lp)
		row := base.Clone()
		row.Split = sp.Name
		row.MeanLoglik, row.LoglikSE, row.NExamples = report.F(st.Mean-logZ), report.F(st.SE), st.N
		// The log Z's time (base.Seconds) on the first row only.
		if k > 0 {
			row.Seconds = 0
		}
		row.Seconds += time.Since(t0).Seconds()
		rows = append(rows, row)
	}
	return rows
}

// Chi2 is the χ² upper bound on log Z (estim.Chi2Def): an Ising model is
// its own target, log p̃(x) = Σ h_i s_i + Σ J_ij s_i s_j.
var Chi2 = estim.Chi2Def(func(im *models.Ising) (chi2.Target, error) { return im, nil })

// SampleInits are the chain starts Sample accepts.
func (Plugin) SampleInits() []string { return SampleInits }
