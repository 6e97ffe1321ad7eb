// Package dbn is the model family "dbn": deep belief networks trained
// greedily layer by layer as RBMs (Salakhutdinov & Murray 2008 §4.1), with
// exact, variational-bound, importance-sampling and RAISE estimators.
package dbn

import (
	"fmt"

	"github.com/logz-ml/logz/eval/report"
	"github.com/logz-ml/logz/family"
	"github.com/logz-ml/logz/family/kit"
	"github.com/logz-ml/logz/family/kit/estim"
	"github.com/logz-ml/logz/family/rbm"
	"github.com/logz-ml/logz/models"
	"github.com/logz-ml/logz/train"
)

// Model is the model: section of a dbn.
type Model struct {
	// Layers are the hidden layer sizes, bottom to top (at least two; the
	// top two layers form the top RBM).
	Layers   []int `yaml:"layers" want:"a list of positive integers"`
	rbm.Init `yaml:",inline"`
}

// Check reports bad model settings.
func (m *Model) Check(p family.Problems) {
	CheckLayers(p, "dbn", m.Layers)
	m.Init.Check(p)
}

// CheckLayers reports a list of hidden layer sizes with fewer than two
// entries or a non-positive one (shared with the dbm family).
func CheckLayers(p family.Problems, name string, layers []int) {
	if len(layers) < 2 {
		p.Errorf("layers", "a %s needs at least two hidden layer sizes (e.g. [500, 1000]), got %v", name, layers)
	}
	family.CheckLayerCount(p, "layers", layers)
	for i, n := range layers {
		p.Check(fmt.Sprintf("layers[%d]", i), n >= 1, "a positive integer", n)
		p.Check(fmt.Sprintf("layers[%d]", i), n <= models.MaxUnits, fmt.Sprintf("at most %d units per layer (models.MaxUnits)", models.MaxUnits), n)
	}
}

// LegacyModelKeys is the model: key of format-1 configs that deep models
// carried unused (hidden, the rbm's size), at its old default.
func LegacyModelKeys() map[string]any { return map[string]any{"hidden": 25} }

// Legacy accepts hidden: 25, which format-1 configs carried for every model.
func (*Model) Legacy() map[string]any { return LegacyModelKeys() }

// Train is the train: section of a dbn: the settings of every layer's RBM
// (train.epochs epochs per layer) and what the layers above the first
// train on.
type Train struct {
	rbm.Layer       `yaml:",inline"`
	family.Stopping `yaml:",inline"`
	// LayerData is what the layers above the first train on: "sampled"
	// (one draw from Q(h_l|h_{l−1}) per example, 2008 §4.1), "resampled" (a
	// fresh draw every epoch) or "mean-field" (the probabilities themselves).
	LayerData string `yaml:"layer_data" want:"sampled, resampled or mean-field"`
	// TransposeInit initialises each new layer with the transpose of the one
	// below (2008 §5.2), so the bound does not fall at stacking; it needs
	// layer l+1 to have as many units as layer l−1.
	TransposeInit bool `yaml:"transpose_init" want:"true or false"`
	// BottomFrom, when set, is the path of a trained rbm or dbn .npz whose
	// layers become this DBN's bottom layers, frozen: greedy training starts
	// on the layer above them, on data drawn through them (2008 §5.2:
	// DBN-CD25 is CD25(500) with a 2000-unit RBM trained on top). Their
	// sizes must match the first entries of model.layers. A relative path is
	// relative to the working directory, like the data paths.
	BottomFrom string `yaml:"bottom_from" want:"the path of a trained rbm or dbn .npz"`
}

// EpochCost is the relative cost of epoch e for the run's ETA: every
// trained layer runs Epochs epochs of CD-k or PCD-k, so epoch e is epoch
// (e − 1) mod Epochs + 1 of its layer and costs 1 + k there.
func (t *Train) EpochCost(epoch, _ int) float64 {
	if t.Epochs < 1 {
		return 1
	}
	return 1 + float64(t.KAt((epoch-1)%t.Epochs+1))
}

// StopFrom is the first epoch of the top layer: early stopping
// (train.early_stop) watches the whole stack only.
func (t *Train) StopFrom(total int) int { return total - t.Epochs + 1 }

// Check reports bad settings.
func (t *Train) Check(p family.Problems) {
	t.CheckStopping(p)
	t.Layer.Check(p)
	p.Enum("layer_data", t.LayerData, []string{"sampled", "resampled", "mean-field"})
	if t.BottomFrom != "" && family.ChecksInputFiles(p) {
		if _, err := LoadBottom(t.BottomFrom); err != nil {
			p.Errorf("bottom_from", "expected the path of a trained rbm or dbn .npz; %v", err)
		}
	}
}

// LoadBottom loads the layers of the rbm or dbn in path, bottom first.
func LoadBottom(path string) ([]*models.RBM, error) {
	c, err := family.LoadModelFile(path, " (train the model it names first)")
	if err != nil {
		return nil, err
	}
	switch m := c.Model.(type) {
	case *models.RBM:
		return []*models.RBM{m}, nil
	case *models.DBN:
		return m.Layers, nil
	}
	return nil, fmt.Errorf("%s holds a %s; the bottom layers of a dbn come from an rbm or a dbn", path, c.Model.TypeName())
}

// Legacy accepts the dbm keys format-1 configs carried for every model.
func (*Train) Legacy() map[string]any { return rbm.LegacyTrainKeys("layer_data", "transpose_init") }

// Family is the registered dbn family.
var Family = &family.Family{
	Name:  "dbn",
	Doc:   "deep belief network: a directed sigmoid stack under a top RBM; arrays W<l>, vbias<l>, hbias<l> per layer",
	Codec: models.DBNType,
	Model: func() family.Settings { return &Model{Init: rbm.DefaultInit()} },
	Train: func() family.Settings { return &Train{Layer: rbm.DefaultLayer(), LayerData: "sampled"} },
	Trainers: []family.TrainerInfo{
		{Method: "cd", Doc: "greedy layer-wise: each layer an RBM trained by CD-k for train.epochs epochs on the layer data below"},
		{Method: "pcd", Doc: "greedy layer-wise with PCD RBMs"},
	},
	Estimators: []*family.Estimator{Exact, Bound, AIS, RAISE, Sandwich},
	EveryEpoch: func() []family.Configured {
		return []family.Configured{{Name: "exact", Settings: Exact.New()}, {Name: "ais", Settings: CheapAIS()}}
	},
	Final: func() []family.Configured {
		return []family.Configured{{Name: "exact", Settings: Exact.New()}, {Name: "dbn-bound", Settings: Bound.New()}, {Name: "ais", Settings: AIS.New()}}
	},
	Plugin: Plugin{},
}

func init() { kit.Register(Family) }

// Plugin is the dbn family's Plugin: it builds, trains (greedily, layer by
// layer) and samples DBNs, and shows their filters.
type Plugin struct{}

// NewModel builds a DBN of the hidden layer sizes model.layers.
func (Plugin) NewModel(s family.Settings, visible int) (models.Model, error) {
	return NewDeep("dbn", s.(*Model).Layers, visible, models.NewDBN)
}

// NewDeep builds a deep model of kind with visible units under the hidden
// layer sizes layers (at least two) by build.
func NewDeep[M models.Model](kind string, layers []int, visible int, build func(sizes ...int) (M, error)) (models.Model, error) {
	if len(layers) < 2 {
		return nil, fmt.Errorf("%s: want at least two hidden layer sizes, got %v", kind, layers)
	}
	m, err := build(append([]int{visible}, layers...)...)
	if err != nil {
		return nil, fmt.Errorf("model.layers: %w", err)
	}
	return m, nil
}

// Finish pairs AIS and RAISE rows into brackets: as an RBM's while the
// stack is its first RBM, else as a deep model's.
func (Plugin) Finish(m models.Model, rows []report.Row, ests []family.Configured) []report.Row {
	if _, ok := m.(*models.RBM); ok {
		return rbm.Plugin{}.Finish(m, rows, ests) // the stack is still its first RBM
	}
	return estim.FinishDeep(rows, ests)
}

func (Plugin) NewTrainer(a family.TrainerArgs) (family.Trainer, error) {
	m, err := family.As[*models.DBN](a.Model)
	if err != nil {
		return nil, err
	}
	t := a.Train.(*Train)
	init := a.ModelSettings.(*Model).Init
	ld, err := train.ParseLayerData(t.LayerData)
	if err != nil {
		return nil, err
	}
	var frozen []*models.RBM
	if t.BottomFrom != "" {
		if frozen, err = LoadBottom(t.BottomFrom); err != nil {
			return nil, fmt.Errorf("train.bottom_from: %w", err)
		}
		if len(frozen) >= len(m.Layers) {
			return nil, fmt.Errorf("train.bottom_from: %s has %d layers, which leaves none of the dbn's %d to train", t.BottomFrom, len(frozen), len(m.Layers))
		}
		for l, r := range frozen {
			if d := m.Layers[l]; r.NVis != d.NVis || r.NHid != d.NHid {
				return nil, fmt.Errorf("train.bottom_from: layer %d of %s is %d×%d, but this dbn's layer %d is %d×%d (visible×hidden; check model.layers and the data)", l+1, t.BottomFrom, r.NVis, r.NHid, l+1, d.NVis, d.NHid)
			}
		}
	}
	tr, err := train.NewDBNTrainer(m, train.DBNOptions{
		Layers:        []train.RBMOptions{rbm.Options(&t.Layer, a.Workers)},
		Data:          ld,
		TransposeInit: t.TransposeInit,
		InitStd:       init.InitWeightStd,
		BaseRateVBias: init.BaseRateVBias(),
		Workers:       a.Workers,
		Frozen:        frozen,
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
