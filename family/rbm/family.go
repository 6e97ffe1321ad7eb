package rbm

import (
	"fmt"

	"github.com/logz-ml/logz/eval/report"
	"github.com/logz-ml/logz/family"
	"github.com/logz-ml/logz/family/kit"
	"github.com/logz-ml/logz/family/kit/estim"
	"github.com/logz-ml/logz/internal/kernel"
	"github.com/logz-ml/logz/models"
	"github.com/logz-ml/logz/train"
)

// Family is the registered rbm family.
var Family = &family.Family{
	Name:  "rbm",
	Doc:   "binary restricted Boltzmann machine, E(v,h) = −vᵀWh − aᵀv − bᵀh; arrays W (D×H), vbias (D), hbias (H)",
	Codec: models.RBMType,
	Model: func() family.Settings { return &Model{Hidden: 25, Init: DefaultInit()} },
	Train: func() family.Settings { t := DefaultTrain(); return &t },
	Trainers: []family.TrainerInfo{
		{Method: "cd", Doc: "contrastive divergence CD-k (k fixed, or growing linearly to k_end), SGD with momentum and L2 weight decay"},
		{Method: "pcd", Doc: "persistent contrastive divergence: chains persistent Gibbs chains, k sweeps per update"},
		{Method: "chi2", Doc: "χ² variational learning (Kuleshov & Ermon 2017): Adam on log p̃(data) − ½ log E_q[(p̃/q)²], q_steps fitter steps on a mixture q per θ step; tracks log Z each epoch"},
	},
	Estimators: []*family.Estimator{Exact, AIS, AISRatio, RAISE, Sandwich, CSL, Chi2, PLL, Recon},
	EveryEpoch: func() []family.Configured {
		ais := estim.AIS{Runs: 16, Anneal: estim.Anneal{Betas: 1000, Schedule: "linear", Init: "base-rate"}, MinESSFraction: 0.1}
		return []family.Configured{entry(Exact), {Name: "ais", Settings: &AISSettings{AIS: ais}}}
	},
	Final: func() []family.Configured {
		return []family.Configured{entry(Exact), entry(AIS), entry(PLL), entry(Recon)}
	},
	Plugin: Plugin{},
}

func init() { kit.Register(Family) }

// Plugin is the rbm family's Plugin: it builds, trains and samples RBMs.
type Plugin struct{}

// NewModel builds an RBM of model.hidden hidden units.
func (Plugin) NewModel(s family.Settings, visible int) (models.Model, error) {
	m := s.(*Model)
	if visible <= 0 || m.Hidden <= 0 {
		return nil, fmt.Errorf("rbm: sizes must be positive, got %d visible, %d hidden", visible, m.Hidden)
	}
	if err := models.CheckSizes("rbm", []int{visible, m.Hidden}); err != nil {
		return nil, fmt.Errorf("model.hidden: %w", err)
	}
	return models.NewRBM(visible, m.Hidden), nil
}

// SampleInits are the chain starts Sample accepts.
func (Plugin) SampleInits() []string { return SampleInits }

// Finish pairs AIS and RAISE rows into brackets and the χ² bound with an
// AIS log Z.
func (Plugin) Finish(_ models.Model, rows []report.Row, ests []family.Configured) []report.Row {
	estim.PairSandwich(rows, ests)
	estim.PairLogZ(rows)
	return rows
}

func entry(e *family.Estimator) family.Configured {
	return family.Configured{Name: e.Name, Settings: e.New()}
}

// Options turns train settings into the RBM trainer's options.
func Options(t *Layer, workers int) train.RBMOptions {
	return train.RBMOptions{
		Persistent:  t.Method == "pcd",
		Chains:      t.Chains,
		BatchSize:   t.BatchSize,
		WeightDecay: t.WeightDecay,
		Shuffle:     t.Shuffle,
		Schedule:    *t,
		Workers:     workers,
		Precision:   kernel.Precision(t.PrecisionInUse()),
		Epochs:      t.Epochs,
	}
}

// Chi2Options turns train settings into the χ² trainer's options.
func Chi2Options(t *Train, workers int) train.Chi2Options {
	c := t.Chi2Train
	return train.Chi2Options{
		BatchSize: t.BatchSize, WeightDecay: t.WeightDecay, Shuffle: t.Shuffle,
		Schedule: *t, Workers: workers,
		QSteps: c.QSteps, QSamples: c.QSamples, QComponents: c.QComponents,
		QLearningRate: c.QLearningRate, QDecay: c.QDecay, QInitStd: c.QInitStd,
		Linearise: c.Linearise, Epochs: t.Epochs,
	}
}

// NewTrainer builds the trainer of train.method and initialises the
// model's parameters.
func (Plugin) NewTrainer(a family.TrainerArgs) (family.Trainer, error) {
	m, err := family.As[*models.RBM](a.Model)
	if err != nil {
		return nil, err
	}
	t := a.Train.(*Train)
	init := a.ModelSettings.(*Model).Init
	var vb []float64
	if init.BaseRateVBias() {
		vb = a.BaseRate
	}
	if t.Method == "chi2" {
		tr, err := train.NewRBMChi2Trainer(m, Chi2Options(t, a.Workers), a.BaseRate, a.Seed)
		if err != nil {
			return nil, err
		}
		tr.InitParams(init.InitWeightStd, vb)
		return tr, nil
	}
	tr, err := train.NewRBMTrainer(m, Options(&t.Layer, a.Workers), a.Seed)
	if err != nil {
		return nil, err
	}
	tr.InitParams(init.InitWeightStd, vb)
	return tr, nil
}

// Sandwich runs ais and raise from one start at growing K until their
// bracket closes (estim.SandwichDef).
var Sandwich = estim.SandwichDef(AIS, RAISE,
	AISSettings{AIS: estim.AIS{Runs: 100, MinESSFraction: 0.1}}, estim.SandwichRAISE())
