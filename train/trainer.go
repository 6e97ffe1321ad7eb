package train

import (
	"fmt"
	"math/rand/v2"

	"github.com/logz-ml/logz/data"
	"github.com/logz-ml/logz/models"
)

// EpochSummary is what a trainer reports of a training epoch
// (models.EpochSummary).
type EpochSummary = models.EpochSummary

// RBMSettings are the settings of an RBM trainer (and of a DBN's or
// DBM's) on the epoch line: "k=1 lr=0.05 mom=0.50".
func RBMSettings(s EpochSummary) string {
	return fmt.Sprintf("k=%d lr=%.4g mom=%.2f", s.K, s.LearningRate, s.Momentum)
}

// epochs is the epoch bookkeeping every trainer embeds: the epochs
// completed and in all, and the hook called after every minibatch.
type epochs struct {
	done, total int
	onBatch     func(examples int)
}

// Completed is the number of completed epochs, all layers and phases
// counted.
func (e *epochs) Completed() int { return e.done }

// Total is the number of epochs of the whole training, from the options.
func (e *epochs) Total() int { return e.total }

// SetOnBatch sets the function called after every minibatch with its
// number of examples (for a progress display; nil: none).
func (e *epochs) SetOnBatch(f func(examples int)) { e.onBatch = f }

// run runs epoch Completed()+1 over the minibatches of perm (Minibatches
// with the batch hook) and counts it; an error of step or check is
// returned wrapping ErrDiverged, naming the epoch and minibatch.
func (e *epochs) run(perm []int, size int, step func(b int, idx []int) error, check func() error) error {
	b, err := Minibatches(perm, size, e.onBatch, step, check)
	if err != nil {
		return fmt.Errorf("%w at epoch %d, minibatch %d: %v", ErrDiverged, e.done+1, b, err)
	}
	e.done++
	return nil
}

// Order is data.Order: the order of an epoch's examples.
func Order(perm []int, n int, shuffle bool, rng *rand.Rand) []int {
	return data.Order(perm, n, shuffle, rng)
}

// Minibatches is data.Minibatches: the epoch loop.
func Minibatches(perm []int, size int, onBatch func(int), step func(b int, idx []int) error, check func() error) (int, error) {
	return data.Minibatches(perm, size, onBatch, step, check)
}
