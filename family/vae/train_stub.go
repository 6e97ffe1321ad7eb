package vae

// This file is a placeholder until the trainer lands; delete on merge.
// The VAE trainer (train/vae.go and family/vae/train.go, written in the
// h-vae-train worktree) defines these four names for real; they exist here
// only so that this branch compiles and configs with a train: section
// parse.

import (
	"errors"

	"github.com/logz-ml/logz/family"
)

// Train is the train: section (placeholder until the trainer lands; delete
// on merge).
type Train struct {
	Method        string  `yaml:"method" want:"nvil"`
	Epochs        int     `yaml:"epochs" want:"a positive integer"`
	BatchSize     int     `yaml:"batch_size" want:"a positive integer"`
	LearningRate  float64 `yaml:"learning_rate" want:"a positive number"`
	PriorTraining string  `yaml:"prior_training" want:"chi2"`
}

// Check reports bad train settings (placeholder until the trainer lands;
// delete on merge).
func (t *Train) Check(p family.Problems) {
	p.Enum("method", t.Method, []string{"nvil"})
	p.Check("epochs", t.Epochs >= 1, "a positive integer", t.Epochs)
	p.Check("batch_size", t.BatchSize >= 1, "a positive integer", t.BatchSize)
	p.Check("learning_rate", t.LearningRate > 0, "a positive number", t.LearningRate)
}

// DefaultTrain is a placeholder until the trainer lands; delete on merge.
func DefaultTrain() Train {
	return Train{Method: "nvil", Epochs: 10, BatchSize: 100, LearningRate: 1e-3, PriorTraining: "chi2"}
}

// Trainers is a placeholder until the trainer lands; delete on merge.
var Trainers = []family.TrainerInfo{{Method: "nvil", Doc: "NVIL (placeholder until the trainer lands)"}}

// newTrainer is a placeholder until the trainer lands; delete on merge.
func newTrainer(family.TrainerArgs) (family.Trainer, error) {
	return nil, errors.New("vae: the trainer has not landed on this branch (placeholder until the trainer lands; delete on merge)")
}
