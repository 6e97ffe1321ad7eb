package experiment

import (
	"fmt"
	"strings"

	"github.com/logz-ml/logz/config"
	"github.com/logz-ml/logz/data"
	"github.com/logz-ml/logz/models"
	"github.com/logz-ml/logz/train"
)

// epochSummary is what the runner reports of a training epoch.
type epochSummary struct {
	Epoch        int // completed epochs, all layers counted
	Layer        int // 1-based layer (DBN), 0 for single-layer models
	K            int
	LearningRate float64
	Momentum     float64
	ReconError   float64
}

// trainer is the runner's view of a model trainer.
type trainer interface {
	TrainEpoch(x train.Data) (epochSummary, error)
	Checkpoint(experiment string) (*models.Checkpoint, error)
	Resume(c *models.Checkpoint) error
	Completed() int
	Total() int
	// Current is the model to evaluate now (for a DBN: the stack so far).
	Current() models.Model
	SetOnBatch(f func(int))
}

// modelLabel names a model with its sizes, e.g. "rbm 784-25", "dbn 784-500-2000".
func modelLabel(m models.Model) string {
	switch m := m.(type) {
	case *models.RBM:
		return fmt.Sprintf("rbm %d-%d", m.NVis, m.NHid)
	case *models.DBN:
		var s []string
		for _, n := range m.Sizes() {
			s = append(s, fmt.Sprint(n))
		}
		return "dbn " + strings.Join(s, "-")
	case *models.DBM:
		var s []string
		for _, n := range m.Sizes {
			s = append(s, fmt.Sprint(n))
		}
		return "dbm " + strings.Join(s, "-")
	}
	return m.TypeName()
}

func rbmOptions(t config.Train, workers int) train.RBMOptions {
	return train.RBMOptions{
		Persistent:  t.Method == "pcd",
		Chains:      t.Chains,
		BatchSize:   t.BatchSize,
		WeightDecay: t.WeightDecay,
		Shuffle:     t.Shuffle,
		Schedule:    t,
		Workers:     workers,
	}
}

// newTrainer builds the trainer of an experiment's model and initialises it.
func newTrainer(exp config.Experiment, m models.Model, trainSet *data.Set, baseRate []float64, workers int) (trainer, error) {
	seed := config.DeriveSeed(exp.Seed, 1)
	switch m := m.(type) {
	case *models.RBM:
		tr, err := train.NewRBMTrainer(m, rbmOptions(exp.Train, workers), seed)
		if err != nil {
			return nil, err
		}
		var vb []float64
		if exp.Model.InitVisibleBias == "base-rate" {
			vb = baseRate
		}
		tr.InitParams(exp.Model.InitWeightStd, vb)
		return &rbmTrainer{tr: tr, epochs: exp.Train.Epochs}, nil
	case *models.DBN:
		ld, err := train.ParseLayerData(exp.Train.LayerData)
		if err != nil {
			return nil, err
		}
		tr, err := train.NewDBNTrainer(m, train.DBNOptions{
			Layers:        []train.DBNLayerOptions{{RBM: rbmOptions(exp.Train, workers), Epochs: exp.Train.Epochs}},
			Data:          ld,
			TransposeInit: exp.Train.TransposeInit,
			InitStd:       exp.Model.InitWeightStd,
			BaseRateVBias: exp.Model.InitVisibleBias == "base-rate",
			Workers:       workers,
		}, seed)
		if err != nil {
			return nil, err
		}
		return &dbnTrainer{tr: tr}, nil
	case *models.DBM:
		t := exp.Train
		pre := rbmOptions(t, workers)
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
			Schedule:       t,
			Epochs:         t.Epochs,
			InitStd:        exp.Model.InitWeightStd,
			BaseRateVBias:  exp.Model.InitVisibleBias == "base-rate",
			Workers:        workers,
		}, seed)
		if err != nil {
			return nil, err
		}
		return &dbmTrainer{tr: tr}, nil
	}
	return nil, fmt.Errorf("model type %s cannot be trained", m.TypeName())
}

type rbmTrainer struct {
	tr     *train.RBMTrainer
	epochs int
}

func (r *rbmTrainer) TrainEpoch(x train.Data) (epochSummary, error) {
	st, err := r.tr.TrainEpoch(x)
	return epochSummary{Epoch: st.Epoch, K: st.K, LearningRate: st.LearningRate, Momentum: st.Momentum, ReconError: st.ReconError}, err
}
func (r *rbmTrainer) Checkpoint(e string) (*models.Checkpoint, error) { return r.tr.Checkpoint(e) }
func (r *rbmTrainer) Resume(c *models.Checkpoint) error               { return r.tr.Resume(c) }
func (r *rbmTrainer) Completed() int                                  { return r.tr.Epoch }
func (r *rbmTrainer) Total() int                                      { return r.epochs }
func (r *rbmTrainer) Current() models.Model                           { return r.tr.M }
func (r *rbmTrainer) SetOnBatch(f func(int))                          { r.tr.Opt.OnBatch = f }

type dbnTrainer struct{ tr *train.DBNTrainer }

func (d *dbnTrainer) TrainEpoch(x train.Data) (epochSummary, error) {
	st, err := d.tr.TrainEpoch(x)
	return epochSummary{Epoch: st.Epoch, Layer: st.Layer, K: st.K, LearningRate: st.LearningRate, Momentum: st.Momentum, ReconError: st.ReconError}, err
}
func (d *dbnTrainer) Checkpoint(e string) (*models.Checkpoint, error) { return d.tr.Checkpoint(e) }
func (d *dbnTrainer) Resume(c *models.Checkpoint) error               { return d.tr.Resume(c) }
func (d *dbnTrainer) Completed() int                                  { return d.tr.Epoch }
func (d *dbnTrainer) Total() int                                      { return d.tr.TotalEpochs() }
func (d *dbnTrainer) Current() models.Model                           { return d.tr.Stack() }
func (d *dbnTrainer) SetOnBatch(func(int))                            {}

// pretrainSchedule is the schedule of DBM pretraining: constant k and
// learning rate from train.pretrain, the momentum schedule of train.
type pretrainSchedule struct{ t config.Train }

func (p pretrainSchedule) KAt(int) int                { return p.t.Pretrain.K }
func (p pretrainSchedule) LearningRateAt(int) float64 { return p.t.Pretrain.LearningRate }
func (p pretrainSchedule) MomentumAt(e int) float64   { return p.t.MomentumAt(e) }

type dbmTrainer struct{ tr *train.DBMTrainer }

func (d *dbmTrainer) TrainEpoch(x train.Data) (epochSummary, error) {
	st, err := d.tr.TrainEpoch(x)
	return epochSummary{Epoch: st.Epoch, Layer: st.Layer, K: st.K, LearningRate: st.LearningRate, Momentum: st.Momentum, ReconError: st.ReconError}, err
}
func (d *dbmTrainer) Checkpoint(e string) (*models.Checkpoint, error) { return d.tr.Checkpoint(e) }
func (d *dbmTrainer) Resume(c *models.Checkpoint) error               { return d.tr.Resume(c) }
func (d *dbmTrainer) Completed() int                                  { return d.tr.Epoch }
func (d *dbmTrainer) Total() int                                      { return d.tr.TotalEpochs() }
func (d *dbmTrainer) Current() models.Model                           { return d.tr.Current() }
func (d *dbmTrainer) SetOnBatch(f func(int))                          { d.tr.Opt.OnBatch = f }
