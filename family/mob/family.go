// Package mob registers the model family "mob": a mixture of K products
// of Bernoullis over the D visible units (models.MoB),
//
//	p(x) = Σ_k π_k Π_d μ_kd^x_d (1 − μ_kd)^(1−x_d),
//
// the baseline of Salakhutdinov & Murray (2008, §5.1 and Table 1), trained
// by EM (train.MoBTrainer: one epoch is one iteration over the training
// set, with Beta and Dirichlet smoothing) and evaluated exactly: the model
// is normalised (log Z = 0), so log p(x) is a logsumexp over the
// components and the exact estimator needs no partition function. After
// training the runner writes ancestral samples and the component means
// (filters.png).
package mob

import (
	"fmt"
	"math"
	"time"

	"github.com/logz-ml/logz/eval"
	"github.com/logz-ml/logz/eval/report"
	"github.com/logz-ml/logz/family"
	"github.com/logz-ml/logz/family/kit"
	"github.com/logz-ml/logz/family/kit/estim"
	"github.com/logz-ml/logz/family/kit/evalenv"
	"github.com/logz-ml/logz/family/kit/sampling"
	"github.com/logz-ml/logz/internal/nmath"
	"github.com/logz-ml/logz/models"
	"github.com/logz-ml/logz/train"
)

// Model is the model: section of a mob experiment.
type Model struct {
	// Components is K, the number of mixture components.
	Components int `yaml:"components" want:"a positive integer (K, the mixture components)"`
	// InitShrink is λ ∈ (0,1): component k starts at μ_k = (1−λ)·x_{n_k}
	// + λ·x̄, x_{n_k} one of K distinct training examples drawn with the
	// experiment's seed and x̄ the data's Laplace-smoothed mean
	// ((Σ_n x_nd + 1)/(N + 2)); the weights start uniform.
	InitShrink float64 `yaml:"init_shrink" want:"a number in (0,1)"`
}

// DefaultModel is 100 components starting halfway between a training
// example and the data's mean.
func DefaultModel() Model { return Model{Components: 100, InitShrink: 0.5} }

// Check reports bad model settings.
func (m *Model) Check(p family.Problems) {
	p.Check("components", m.Components >= 1 && m.Components <= models.MaxMoBComponents, fmt.Sprintf("an integer in [1, %d] (models.MaxMoBComponents)", models.MaxMoBComponents), m.Components)
	p.Check("init_shrink", m.InitShrink > 0 && m.InitShrink < 1, "a number in (0,1)", m.InitShrink)
}

// Train is the train: section of a mob experiment.
type Train struct {
	// Method is "em".
	Method string `yaml:"method" want:"em"`
	// Epochs is the number of EM iterations, each over the whole training
	// set.
	Epochs int `yaml:"epochs" want:"a positive integer"`
	// Smoothing is α > 0, the Beta pseudo-count of each μ_kd: the M-step
	// takes μ_kd = (S_kd + α)/(N_k + 2α) (the mode under a Beta(α+1, α+1)
	// prior), S_kd = Σ_n r_nk x_nd and N_k = Σ_n r_nk, so no μ is 0 or 1
	// and no test image has probability 0.
	Smoothing float64 `yaml:"smoothing" want:"a positive number"`
	// WeightSmoothing is β > 0, the Dirichlet pseudo-count of the weights:
	// π_k = (N_k + β)/(N + Kβ), so no component's weight is 0.
	WeightSmoothing float64 `yaml:"weight_smoothing" want:"a positive number"`
	// CheckpointEvery writes model.npz after every N-th epoch and after
	// the last; 0 = only after the last.
	CheckpointEvery int `yaml:"checkpoint_every" want:"a non-negative integer"`
	// Stopping adds early_stop (validation early stopping, every family).
	family.Stopping `yaml:",inline"`
}

// DefaultTrain is 20 EM iterations with Laplace smoothing (α = β = 1).
func DefaultTrain() Train {
	return Train{Method: "em", Epochs: 20, Smoothing: 1, WeightSmoothing: 1, CheckpointEvery: 1}
}

// Check reports bad train settings.
func (t *Train) Check(p family.Problems) {
	t.CheckStopping(p)
	finite := func(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
	p.Enum("method", t.Method, []string{"em"})
	family.CheckEpochs(p, "epochs", t.Epochs)
	p.Check("smoothing", t.Smoothing > 0 && finite(t.Smoothing), "a positive number (the Beta pseudo-count that keeps every μ off 0 and 1)", t.Smoothing)
	p.Check("weight_smoothing", t.WeightSmoothing > 0 && finite(t.WeightSmoothing), "a positive number (the Dirichlet pseudo-count that keeps every weight above 0)", t.WeightSmoothing)
	p.Check("checkpoint_every", t.CheckpointEvery >= 0, "a non-negative integer", t.CheckpointEvery)
}

// CheckpointDue reports whether model.npz is written after epoch e.
func (t *Train) CheckpointDue(e int) bool {
	return e == t.Epochs || (t.CheckpointEvery > 0 && e%t.CheckpointEvery == 0)
}

// Options returns the trainer's options of the model: and train: sections.
func (t *Train) Options(m *Model) train.MoBOptions {
	return train.MoBOptions{Epochs: t.Epochs, Smoothing: t.Smoothing, WeightSmoothing: t.WeightSmoothing, InitShrink: m.InitShrink}
}

// Family is the registered mob family.
var Family = &family.Family{
	Name:  "mob",
	Doc:   "mixture of Bernoullis p(x) = Σ_k π_k Π_d μ_kd^x_d (1−μ_kd)^(1−x_d) (the baseline of Salakhutdinov & Murray 2008 §5.1), normalised: log Z = 0, log p(x) exact by logsumexp over the K components; arrays log_weights (K), logits (K×D)",
	Codec: models.MoBType,
	Model: func() family.Settings { m := DefaultModel(); return &m },
	Train: func() family.Settings { t := DefaultTrain(); return &t },
	Trainers: []family.TrainerInfo{{
		Method: "em",
		Doc:    "EM, one epoch = one iteration over the training set: responsibilities in log space, then μ_kd = (S_kd + α)/(N_k + 2α), π_k = (N_k + β)/(N + Kβ) (Beta/Dirichlet smoothing: smoothing α, weight_smoothing β); the epoch's signal em-loglik is the mean training log p(x) at the parameters the iteration started from",
	}},
	Estimators:      []*family.Estimator{Exact},
	OwnEvalDefaults: true,
	EveryEpoch:      func() []family.Configured { return []family.Configured{{Name: "exact", Settings: Exact.New()}} },
	Final:           func() []family.Configured { return []family.Configured{{Name: "exact", Settings: Exact.New()}} },
	Plugin:          Plugin{},
}

func init() { kit.Register(Family) }

// Plugin is the mob family's Plugin: it builds, trains and samples
// mixtures, and shows their component means.
type Plugin struct{}

// NewModel builds a mixture of model.components components over the
// data's units.
func (Plugin) NewModel(s family.Settings, visible int) (models.Model, error) {
	m, err := models.NewMoB(s.(*Model).Components, visible)
	if err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	return m, nil
}

// NewTrainer builds the EM trainer and starts the components from the
// training data.
func (Plugin) NewTrainer(a family.TrainerArgs) (family.Trainer, error) {
	m, ok := a.Model.(*models.MoB)
	if !ok {
		return nil, fmt.Errorf("mob trainer: the model is a %s, not a mob", a.Model.TypeName())
	}
	t, err := train.NewMoBTrainer(m, a.Train.(*Train).Options(a.ModelSettings.(*Model)), a.Seed, a.Workers)
	if err != nil {
		return nil, err
	}
	if err := t.InitFromData(a.Data); err != nil {
		return nil, err
	}
	return t, nil
}

// Sample draws o.N ancestral samples (eval.SampleMoB, keyed by o.Seed):
// the states x, or with o.Mean the means μ_k of the drawn components.
func (Plugin) Sample(mm models.Model, o sampling.SampleOptions) (*sampling.Drawn, error) {
	m, ok := mm.(*models.MoB)
	if !ok {
		return nil, fmt.Errorf("mob samples: a %s is not a mob", mm.TypeName())
	}
	if _, err := o.Check(nil); err != nil {
		return nil, err
	}
	x, err := eval.SampleMoB(m, o.N, o.Seed, o.Mean)
	if err != nil {
		return nil, err
	}
	kept := "x ~ Π_d Bernoulli(μ_kd)"
	if o.Mean {
		kept = "the component's means μ_k"
	}
	return &sampling.Drawn{N: o.N, D: m.D, X: x, Method: sampling.MethodAncestral, Values: sampling.Values(o.Mean),
		What: fmt.Sprintf("%d ancestral samples: a component k ~ π, then %s", o.N, kept)}, nil
}

// Filters returns the component means μ_kd = σ(logits), one tile per
// component.
func (Plugin) Filters(mm models.Model) (*sampling.Filters, bool) {
	m, ok := mm.(*models.MoB)
	if !ok {
		return nil, false
	}
	K, D := m.K, m.D
	w := make([]float64, D*K)
	for k := range K {
		for d := range D {
			w[d*K+k] = nmath.Sigmoid(m.Logits[k*D+d])
		}
	}
	return &sampling.Filters{W: w, Visible: D, Hidden: K, What: "the component means μ_k = σ(logits_k)"}, true
}

// Exact is the mean exact log p(x) of each split: logsumexp over the
// components of log π_k + log p(x|k); the mixture is normalised, so its
// log Z is 0 and nothing is estimated.
var Exact = estim.Define(estim.Def[*models.MoB, family.NoSettings]{
	Name:     "exact",
	Leans:    family.Leans{Why: "exact: a normalised mixture, log p(x) by logsumexp over its components"},
	Unshared: true,
	Doc:      "exact log p(x) = logsumexp_k[log π_k + Σ_d x_d log μ_kd + (1−x_d) log(1−μ_kd)]; the mixture is normalised (log Z = 0), so nothing is estimated",
	Run: func(env *evalenv.Env, m *models.MoB, _ *family.NoSettings, j evalenv.Job) ([]report.Row, error) {
		env.Remember(estim.ExactLogZKey{}, 0.0)
		base := j.Base
		base.LogZ = report.F(0)
		base.Notes = append(base.Notes, "a mixture of Bernoullis is normalised: log Z = 0 exactly (no partition function to estimate)")
		if len(env.Splits) == 0 {
			return []report.Row{base}, nil
		}
		var rows []report.Row
		for _, sp := range env.Splits {
			start := time.Now()
			progress, done := env.Bar(fmt.Sprintf("%s epoch %d exact %s", env.Experiment, env.Epoch, sp.Name), int64(sp.Data.Len()))
			lp, err := eval.MoBLogProbs(m, sp.Data, 0, progress)
			done()
			if err != nil {
				return rows, err
			}
			st := estim.MeanOf(lp)
			row := base.Clone()
			row.Split = sp.Name
			row.MeanLoglik, row.LoglikSE, row.NExamples = report.F(st.Mean), report.F(st.SE), st.N
			row.Seconds = time.Since(start).Seconds()
			rows = append(rows, row)
		}
		return rows, nil
	},
})
