// Package seeds derives the seeds of logz's random streams from a parent seed
// and a path of labels, so every stream is keyed by what it is for.
package seeds

// Derive derives a child seed from a parent seed and a path of labels
// (e.g. an experiment's index, or a stage, epoch and estimator index) by
// chained SplitMix64 mixing. Different label paths give unrelated seeds; the
// result is never 0 (0 means "derive" in a config).
func Derive(parent uint64, labels ...uint64) uint64 {
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
