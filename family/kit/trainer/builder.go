package trainer

import (
	"github.com/logz-ml/logz/family"
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
