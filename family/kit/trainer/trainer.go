// Package trainer is the runner's trainer contract: the Trainer a
// family's Plugin builds (a trainer.Builder) and what it is built from
// (Args).
package trainer

import (
	"github.com/logz-ml/logz/data"
	"github.com/logz-ml/logz/family"
	"github.com/logz-ml/logz/models"
	"github.com/logz-ml/logz/train"
)

// EpochSummary is what the runner reports of a training epoch; the
// trainers of package train (and sbn) return it themselves.
type EpochSummary = train.EpochSummary

// Trainer is the runner's view of a model trainer.
type Trainer interface {
	TrainEpoch(x data.Examples) (EpochSummary, error)
	Checkpoint(experiment string) (*models.Checkpoint, error)
	Resume(c *models.Checkpoint) error
	// Completed and Total count epochs, all layers and phases included.
	Completed() int
	Total() int
	// Current is the model to evaluate now (for a DBN: the stack so far).
	Current() models.Model
	SetOnBatch(f func(int))
}

// Args is what a family's NewTrainer gets.
type Args struct {
	// Model is the model to train, from the family's NewModel.
	Model models.Model
	// ModelSettings and Train are the experiment's model: and train:
	// sections (the family's own structs).
	ModelSettings, Train family.Settings
	// Data is the training set; BaseRate its smoothed log-odds per unit.
	Data     *data.Set
	BaseRate []float64
	// Seed seeds every random draw of training.
	Seed uint64
	// Workers is the number of goroutines; results do not depend on it.
	Workers int
}
