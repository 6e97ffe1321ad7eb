package trainer

import (
	"github.com/logz-ml/logz/family"
	"github.com/logz-ml/logz/models"
)

// Builder builds and trains a family's models: every family's Plugin is one.
type Builder interface {
	// NewModel builds a fresh model (family.Plugin).
	family.Plugin
	// NewTrainer builds the trainer of a model (from NewModel) and
	// initialises its parameters.
	NewTrainer(a Args) (Trainer, error)
}

// BuilderOf returns f's Builder (kit.Register made sure it has one).
func BuilderOf(f *family.Family) Builder { return f.Plugin.(Builder) }

// Reloader is a Plugin whose trainer evaluates a model its checkpoint does
// not hold as it is (an SBN's net carries which posterior estimate it is,
// which is not saved): Trained returns the model a finished training
// evaluates (its trainer's Current) from its checkpoint, without building
// a trainer. Without it, that model is the checkpoint's.
type Reloader interface {
	Trained(c *models.Checkpoint) (models.Model, error)
}

// Trained returns the model a finished training of family f evaluates,
// from its checkpoint c (see Reloader).
func Trained(f *family.Family, c *models.Checkpoint) (models.Model, error) {
	if r, ok := f.Plugin.(Reloader); ok {
		return r.Trained(c)
	}
	return c.Model, nil
}
