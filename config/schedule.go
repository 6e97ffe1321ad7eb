package config

import (
	"github.com/logz-ml/logz/internal/seeds"
)

// Due reports whether the EveryEpoch estimators run after the 1-based epoch
// e: when Every > 0 divides e.
func (ev Evaluate) Due(epoch int) bool {
	return ev.Every > 0 && epoch%ev.Every == 0
}

// binarizeLabel is the DeriveSeed label of the file-level binarisation seed.
const binarizeLabel = 1 << 40

// DeriveSeed derives a child seed from a parent seed and a path of labels
// (e.g. an experiment's index, or a stage, epoch and estimator index) by
// chained SplitMix64 mixing; see seeds.Derive.
func DeriveSeed(parent uint64, labels ...uint64) uint64 { return seeds.Derive(parent, labels...) }
