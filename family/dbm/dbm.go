// Package dbm is the model family "dbm": deep Boltzmann machines of any
// depth ≥ 2, pretrained greedily with the modified RBMs of Salakhutdinov &
// Hinton (2009) and trained jointly by PCD with a mean-field positive
// phase, with exact, mean-field-bound, importance-sampling and RAISE
// (Alg. 3) estimators.
package dbm

import (
	"math"

	"github.com/logz-ml/logz/eval/report"
	"github.com/logz-ml/logz/family"
	"github.com/logz-ml/logz/family/dbn"
	"github.com/logz-ml/logz/family/kit"
	"github.com/logz-ml/logz/family/kit/estim"
	"github.com/logz-ml/logz/family/rbm"
	"github.com/logz-ml/logz/models"
	"github.com/logz-ml/logz/train"
)

// Model is the model: section of a dbm.
type Model struct {
	// Layers are the hidden layer sizes, bottom to top (at least two).
	Layers   []int `yaml:"layers" want:"a list of positive integers"`
	rbm.Init `yaml:",inline"`
}

// Check reports bad model settings.
func (m *Model) Check(p family.Problems) {
	dbn.CheckLayers(p, "dbm", m.Layers)
	m.Init.Check(p)
}

// Legacy accepts hidden: 25, which format-1 configs carried for every model.
func (*Model) Legacy() map[string]any { return dbn.LegacyModelKeys() }

// Train is the train: section of a dbm: joint training by PCD with a
// mean-field positive phase (method pcd; chains persistent chains, k Gibbs
// sweeps per update) after optional greedy pretraining.
type Train struct {
	rbm.Layer       `yaml:",inline"`
	family.Stopping `yaml:",inline"`
	// MeanFieldIters is the number of mean-field fixed-point iterations of
	// the positive phase of joint training (Salakhutdinov & Hinton 2009).
	MeanFieldIters int `yaml:"mean_field_iters" want:"a positive integer"`
	// Pretrain configures greedy layer-wise pretraining before joint
	// training.
	Pretrain Pretrain `yaml:"pretrain"`
}

// EpochCost is the relative cost of epoch e of total for the run's ETA:
// the last Epochs epochs are joint updates, each about 3 row-sum-equivalent
// passes per mean-field iteration plus 2 per Gibbs sweep plus 2; the
// pretraining epochs before them are RBM updates, 1 + pretrain.k.
func (t *Train) EpochCost(epoch, total int) float64 {
	if epoch > total-t.Epochs {
		return 2 + 3*float64(t.MeanFieldIters) + 2*float64(t.K)
	}
	return 1 + float64(t.Pretrain.K)
}

// Pretrain configures DBM pretraining: each layer is trained as an RBM
// whose input from the missing neighbour layer is doubled (bottom-up for
// the first RBM, top-down for the top one, both for middle ones), for
// Epochs epochs, with train.batch_size, train.momentum,
// train.final_momentum, train.momentum_switch_epoch and train.weight_decay.
type Pretrain struct {
	// Epochs per layer; 0 = no pretraining (joint training starts from
	// random weights).
	Epochs int `yaml:"epochs" want:"a non-negative integer (0 = no pretraining)"`
	// Method is "cd" or "pcd" for the pretraining RBMs.
	Method string `yaml:"method" want:"cd or pcd"`
	// K is the number of Gibbs steps per pretraining update.
	K int `yaml:"k" want:"a positive integer"`
	// LearningRate is the constant learning rate of pretraining.
	LearningRate float64 `yaml:"learning_rate" want:"a positive number"`
}

// StopFrom is the first epoch of joint training: early stopping
// (train.early_stop) watches the DBM, not its pretraining RBMs.
func (t *Train) StopFrom(total int) int { return total - t.Epochs + 1 }

// Check reports bad settings; joint training needs method pcd.
func (t *Train) Check(p family.Problems) {
	t.CheckStopping(p)
	t.Layer.Check(p)
	if t.Method != "pcd" {
		p.Crossf("method", "method", "a dbm is trained jointly with persistent chains (PCD with a mean-field positive phase): set train.method: pcd (got %q; pretraining has its own train.pretrain.method)", t.Method)
	}
	family.CheckK(p, "mean_field_iters", t.MeanFieldIters)
	pt := &t.Pretrain
	p.Check("pretrain.epochs", pt.Epochs >= 0, "a non-negative integer (0 = no pretraining)", pt.Epochs)
	family.CheckMax(p, "pretrain.epochs", pt.Epochs, family.MaxEpochs, "family.MaxEpochs")
	p.Enum("pretrain.method", pt.Method, rbm.Methods)
	family.CheckK(p, "pretrain.k", pt.K)
	if pt.Epochs > 0 && t.BatchSize <= rbm.MaxBatch && t.Chains <= rbm.MaxBatch {
		// The pretraining RBMs run pretrain.k sweeps on the minibatch (cd)
		// or on train.chains persistent chains (pcd).
		if pt.Method == "pcd" {
			family.CheckUpdateSweeps(p, "pretrain.k", pt.K, "chains", t.Chains)
		} else {
			family.CheckUpdateSweeps(p, "pretrain.k", pt.K, "batch_size", t.BatchSize)
		}
	}
	p.Check("pretrain.learning_rate", pt.LearningRate > 0 && !math.IsInf(pt.LearningRate, 0), "a positive number", pt.LearningRate)
}

// Legacy accepts the dbn keys format-1 configs carried for every model.
func (*Train) Legacy() map[string]any { return rbm.LegacyTrainKeys("mean_field_iters", "pretrain") }

// Family is the registered dbm family.
var Family = &family.Family{
	Name:  "dbm",
	Doc:   "deep Boltzmann machine of two or more hidden layers; arrays W<l> (between layers l−1 and l) and b<l> (biases of layer l, b0 visible). AIS and RAISE anneal over the even layers with the odd ones summed out; `init: base-rate` starts them from independent bits with the training data's base rate on v and, on every even hidden layer, the base rate of its mean-field posterior over 2,000 evenly spaced training examples",
	Codec: models.DBMType,
	Model: func() family.Settings { return &Model{Init: rbm.DefaultInit()} },
	Train: func() family.Settings {
		t := rbm.DefaultLayer()
		t.Method = "pcd"
		return &Train{Layer: t, MeanFieldIters: 10, Pretrain: Pretrain{Epochs: 0, Method: "cd", K: 1, LearningRate: 0.05}}
	},
	Trainers: []family.TrainerInfo{
		{Method: "pcd", Doc: "greedy pretraining with doubled-input RBMs (train.pretrain), then joint PCD with a mean-field positive phase (mean_field_iters)"},
	},
	Estimators: []*family.Estimator{Exact, MFBound, AIS, RAISE, Sandwich},
	EveryEpoch: func() []family.Configured {
		return []family.Configured{{Name: "exact", Settings: Exact.New()}, {Name: "ais", Settings: &AISSettings{AIS: estim.AIS{Runs: 16, Anneal: estim.Anneal{Betas: 1000, Schedule: "linear", Init: "base-rate"}, MinESSFraction: 0.1}, Samples: 500}}}
	},
	Final: func() []family.Configured {
		return []family.Configured{{Name: "exact", Settings: Exact.New()}, {Name: "mf-bound", Settings: MFBound.New()}, {Name: "ais", Settings: AIS.New()}}
	},
	Plugin: Plugin{},
}

func init() { kit.Register(Family) }

// Plugin is the dbm family's Plugin: it builds, trains (greedy
// pretraining, then joint PCD) and samples DBMs, and shows their filters.
type Plugin struct{}

// NewModel builds a DBM of the hidden layer sizes model.layers.
func (Plugin) NewModel(s family.Settings, visible int) (models.Model, error) {
	return dbn.NewDeep("dbm", s.(*Model).Layers, visible, models.NewDBM)
}

// Finish pairs the AIS and RAISE rows of each split into brackets and
// drops repeated warnings.
func (Plugin) Finish(_ models.Model, rows []report.Row, ests []family.Configured) []report.Row {
	return estim.FinishDeep(rows, ests)
}

// pretrainSchedule is the schedule of DBM pretraining: constant k and
// learning rate from train.pretrain, the momentum schedule of train.
type pretrainSchedule struct{ t *Train }

func (p pretrainSchedule) KAt(int) int                { return p.t.Pretrain.K }
func (p pretrainSchedule) LearningRateAt(int) float64 { return p.t.Pretrain.LearningRate }
func (p pretrainSchedule) MomentumAt(e int) float64   { return p.t.MomentumAt(e) }

func (Plugin) NewTrainer(a family.TrainerArgs) (family.Trainer, error) {
	m, err := family.As[*models.DBM](a.Model)
	if err != nil {
		return nil, err
	}
	t := a.Train.(*Train)
	init := a.ModelSettings.(*Model).Init
	pre := rbm.Options(&t.Layer, a.Workers)
	pre.Persistent = t.Pretrain.Method == "pcd"
	if !pre.Persistent {
		pre.Chains = 0
	}
	pre.Schedule = pretrainSchedule{t}
	tr, err := train.NewDBMTrainer(m, train.DBMOptions{
		Pretrain:       []train.RBMOptions{pre},
		PretrainEpochs: t.Pretrain.Epochs,
		BatchSize:      t.BatchSize,
		Chains:         t.Chains,
		MFIters:        t.MeanFieldIters,
		WeightDecay:    t.WeightDecay,
		Shuffle:        t.Shuffle,
		Schedule:       t.Layer,
		Epochs:         t.Epochs,
		InitStd:        init.InitWeightStd,
		BaseRateVBias:  init.BaseRateVBias(),
		Workers:        a.Workers,
	}, a.Seed)
	if err != nil {
		return nil, err
	}
	return tr, nil
}

// SampleInits are the chain starts Sample accepts.
func (Plugin) SampleInits() []string { return SampleInits }

// Sandwich runs ais and raise from one start at growing K until their
// bracket closes (estim.SandwichDef).
var Sandwich = estim.SandwichDef(AIS, RAISE,
	AISSettings{AIS: estim.AIS{Runs: 100, MinESSFraction: 0.1}, Samples: 500}, estim.SandwichRAISE())
