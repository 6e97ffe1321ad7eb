package kit

import (
	"fmt"

	"github.com/logz-ml/logz/data"
	"github.com/logz-ml/logz/family"
	"github.com/logz-ml/logz/models"
)

// EpochSummary is what the runner reports of a training epoch.
type EpochSummary struct {
	Epoch        int // completed epochs, all layers and phases counted
	Layer        int // 1-based layer of layer-wise training, 0 otherwise
	K            int
	LearningRate float64
	Momentum     float64
	ReconError   float64
	// Signal, when set, names what ReconError holds instead of the
	// reconstruction error (e.g. "is-bound" for a sigmoid belief net).
	Signal string
}

// RBMSettings are the settings of an RBM trainer (and of a DBN's or
// DBM's) on the epoch line: "k=1 lr=0.05 mom=0.50".
func RBMSettings(s EpochSummary) string {
	return fmt.Sprintf("k=%d lr=%.4g mom=%.2f", s.K, s.LearningRate, s.Momentum)
}

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

// TrainerArgs is what a family's NewTrainer gets.
type TrainerArgs struct {
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
