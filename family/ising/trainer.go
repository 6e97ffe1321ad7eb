package ising

import (
	"fmt"

	"github.com/logz-ml/logz/data"
	"github.com/logz-ml/logz/family/kit"
	"github.com/logz-ml/logz/models"
	"github.com/logz-ml/logz/train"
)

// Options returns the trainer's options of the train: section.
func (t *Train) Options() train.IsingOptions {
	return train.IsingOptions{
		Method: t.Method, BatchSize: t.BatchSize, SGD: t.Optimizer == "sgd", LearningRate: t.LearningRate,
		Chains: t.Chains, Sweeps: t.Sweeps,
		QSteps: t.QSteps, QSamples: t.QSamples, QComponents: t.QComponents, QLearningRate: t.QLearningRate, Linearise: t.Linearise,
	}
}

// adapter is the runner's view of a train.IsingTrainer with the train:
// section it was made from.
type adapter struct {
	t   *train.IsingTrainer
	opt Train
}

func (Plugin) NewTrainer(a kit.TrainerArgs) (kit.Trainer, error) {
	m := a.Model.(*models.Ising)
	opt := *a.Train.(*Train)
	t, err := train.NewIsingTrainer(m, opt.Options(), a.Seed, a.Workers)
	if err != nil {
		return nil, err
	}
	if a.ModelSettings.(*Model).Init == "base-rate" && len(a.BaseRate) == m.NumVisible() {
		t.InitBaseRate(a.BaseRate)
	}

	return adapter{t, opt}, nil
}

func (r adapter) TrainEpoch(x data.Examples) (kit.EpochSummary, error) {
	st, err := r.t.TrainEpoch(x)
	k := 0
	if r.opt.Method == "pcd" {
		k = r.opt.Sweeps
	}
	return kit.EpochSummary{Epoch: st.Epoch, K: k, LearningRate: r.opt.LearningRate, ReconError: st.Signal, Signal: st.Name}, err
}
func (r adapter) Checkpoint(e string) (*models.Checkpoint, error) { return r.t.Checkpoint(e) }
func (r adapter) Resume(c *models.Checkpoint) error               { return r.t.Resume(c) }
func (r adapter) Completed() int                                  { return r.t.Epoch() }
func (r adapter) Total() int                                      { return r.opt.Epochs }
func (r adapter) Current() models.Model                           { return r.t.M }
func (r adapter) SetOnBatch(f func(int))                          { r.t.OnBatch = f }

// EpochSettings are the epoch line's settings, named as the train: keys:
// the method, the optimizer and its learning rate, and pcd's chains and
// sweeps or chi2's proposal fitting.
func (r adapter) EpochSettings(kit.EpochSummary) string {
	o := r.opt
	s := fmt.Sprintf("%s %s lr=%.4g", o.Method, o.Optimizer, o.LearningRate)
	switch o.Method {
	case "pcd":
		s += fmt.Sprintf(" chains=%d sweeps=%d", o.Chains, o.Sweeps)
	case "chi2":
		s += fmt.Sprintf(" q_steps=%d q_samples=%d q_components=%d", o.QSteps, o.QSamples, o.QComponents)
	}
	return s
}
