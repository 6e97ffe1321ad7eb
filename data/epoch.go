package data

import "math/rand/v2"

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
