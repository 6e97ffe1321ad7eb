package config

import "math"

// clampEpoch maps epoch into [1, max(Epochs,1)]: epochs before the first
// use the first epoch's settings, epochs after the last the last's.
func (t Train) clampEpoch(epoch int) int {
	return max(1, min(epoch, max(t.Epochs, 1)))
}

// KAt returns the number of Gibbs steps k for a 1-based epoch e. With
// KEnd = 0 it is K. Otherwise k grows linearly over the E = Epochs epochs,
//
//	k(e) = K + round((KEnd − K)·(e − 1)/(E − 1)),
//
// rounding halves up, so k(1) = K and k(E) = KEnd exactly (k = K if E = 1).
// Epochs outside [1, E] are clamped into it.
func (t Train) KAt(epoch int) int {
	if t.KEnd == 0 || t.Epochs <= 1 {
		return t.K
	}
	e := t.clampEpoch(epoch)
	num := (t.KEnd - t.K) * (e - 1)
	den := t.Epochs - 1
	// round(num/den) with halves up = ⌊(2·num + den)/(2·den)⌋.
	x, y := 2*num+den, 2*den
	q := x / y
	if x%y != 0 && x < 0 {
		q-- // Go division truncates toward zero; we want the floor
	}
	return t.K + q
}

// LearningRateAt returns the learning rate ε(e) for a 1-based epoch e, with
// ε₀ = LearningRate and E = Epochs:
//
//	constant:     ε(e) = ε₀
//	linear:       ε(e) = (1 − t)·ε₀ + t·LREnd,  t = (e − 1)/(E − 1)  (t = 0 if E = 1)
//	exponential:  ε(e) = ε₀ · LRDecay^(e − 1)
//
// so ε(1) = ε₀ and, for linear, ε(E) = LREnd exactly. Epochs outside [1, E]
// are clamped into it.
func (t Train) LearningRateAt(epoch int) float64 {
	e := t.clampEpoch(epoch)
	switch t.LRSchedule {
	case "linear":
		if t.Epochs <= 1 {
			return t.LearningRate
		}
		s := float64(e-1) / float64(t.Epochs-1)
		return (1-s)*t.LearningRate + s*t.LREnd
	case "exponential":
		return t.LearningRate * math.Pow(t.LRDecay, float64(e-1))
	default:
		return t.LearningRate
	}
}

// MomentumAt returns the momentum μ(e) for a 1-based epoch e: Momentum for
// e < MomentumSwitchEpoch and FinalMomentum from it on.
func (t Train) MomentumAt(epoch int) float64 {
	if epoch < t.MomentumSwitchEpoch {
		return t.Momentum
	}
	return t.FinalMomentum
}

// CheckpointDue reports whether model.npz is written after the 1-based
// epoch e: when CheckpointEvery > 0 divides e, and always after the last.
func (t Train) CheckpointDue(epoch int) bool {
	return epoch == t.Epochs || (t.CheckpointEvery > 0 && epoch%t.CheckpointEvery == 0)
}

// Due reports whether the EveryEpoch estimators run after the 1-based epoch
// e: when Every > 0 divides e.
func (ev Evaluate) Due(epoch int) bool {
	return ev.Every > 0 && epoch%ev.Every == 0
}

// binarizeLabel is the DeriveSeed label of the file-level binarisation seed.
const binarizeLabel = 1 << 40

// DeriveSeed derives a child seed from a parent seed and a path of labels
// (e.g. an experiment's index, or a stage, epoch and estimator index) by
// chained SplitMix64 mixing. Different label paths give unrelated seeds; the
// result is never 0 (0 means "derive" in a config).
func DeriveSeed(parent uint64, labels ...uint64) uint64 {
	h := splitmix64(parent)
	for _, l := range labels {
		h = splitmix64(h ^ splitmix64(l^0x6a09e667f3bcc909))
	}
	if h == 0 {
		h = 1
	}
	return h
}

// splitmix64 is the SplitMix64 finaliser (Steele, Lea & Flood 2014), a
// bijection of uint64 with good avalanche.
func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}
