package ising

import (
	"github.com/logz-ml/logz/family"
	"github.com/logz-ml/logz/models"
	"github.com/logz-ml/logz/train"
)

// Options returns the trainer's options of the train: section.
func (t *Train) Options() train.IsingOptions {
	return train.IsingOptions{
		Method: t.Method, BatchSize: t.BatchSize, SGD: t.Optimizer == "sgd", LearningRate: t.LearningRate,
		Chains: t.Chains, Sweeps: t.Sweeps,
		QSteps: t.QSteps, QSamples: t.QSamples, QComponents: t.QComponents, QLearningRate: t.QLearningRate, Linearise: t.Linearise,
		Epochs: t.Epochs,
	}
}

func (Plugin) NewTrainer(a family.TrainerArgs) (family.Trainer, error) {
	m, err := family.As[*models.Ising](a.Model)
	if err != nil {
		return nil, err
	}
	t, err := train.NewIsingTrainer(m, a.Train.(*Train).Options(), a.Seed, a.Workers)
	if err != nil {
		return nil, err
	}
	if a.ModelSettings.(*Model).Init == "base-rate" && len(a.BaseRate) == m.NumVisible() {
		t.InitBaseRate(a.BaseRate)
	}

	return t, nil
}
