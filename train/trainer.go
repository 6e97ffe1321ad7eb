package train

import (
	"fmt"
	"math/rand/v2"
)

// EpochSummary is what a trainer reports of a training epoch (the runner
// prints it and records it as a row).
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

// Order returns perm (reused if large enough) set to 0…n−1 and, if
// shuffle, shuffled with rng: the order of an epoch's examples.
func Order(perm []int, n int, shuffle bool, rng *rand.Rand) []int {
	if cap(perm) < n {
		perm = make([]int, n)
	}
	perm = perm[:n]
	for i := range perm {
		perm[i] = i
	}
	if shuffle {
		rng.Shuffle(n, func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
	}
	return perm
}

// Minibatches is the epoch loop: for the consecutive minibatches of size
// examples of perm, it runs step (b counts minibatches from 0), then check
// (nil: none), then onBatch (nil: none) with the minibatch's size. It stops
// at the first error of step or check and returns it with the 1-based
// number of its minibatch.
func Minibatches(perm []int, size int, onBatch func(int), step func(b int, idx []int) error, check func() error) (int, error) {
	for b, start := 0, 0; start < len(perm); b, start = b+1, start+size {
		idx := perm[start:min(start+size, len(perm))]
		err := step(b, idx)
		if err == nil && check != nil {
			err = check()
		}
		if err != nil {
			return b + 1, err
		}
		if onBatch != nil {
			onBatch(len(idx))
		}
	}
	return 0, nil
}
