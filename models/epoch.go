package models

import "errors"

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

// ErrDiverged is wrapped by the error a trainer returns when a parameter
// becomes NaN or ±Inf (or beyond MaxAbsParam).
var ErrDiverged = errors.New("training diverged")
