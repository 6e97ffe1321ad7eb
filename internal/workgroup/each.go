package workgroup

import (
	"math/rand/v2"

	"github.com/logz-ml/logz/internal/seeds"
)

// EachSample runs draw(i, rng) for the samples i = 0…n−1 on up to workers
// goroutines (≤ 0: 1), worker w taking i = w, w+workers, … (a fixed
// assignment, so that a test with 1 and 3 workers catches state left over
// from a worker's previous sample); newWorker gives each goroutine its own
// draw function (with its own scratch). rng is the generator of sample i,
// rand.NewPCG(seeds.Derive(seed, i), seeds.Derive(seed, i, 1)), so sample
// i depends on (seed, i) alone. draw must write only sample i's results.
func EachSample(n, workers int, seed uint64, newWorker func() func(i int, rng *rand.Rand)) {
	workers = max(1, min(workers, n))
	var wg Group
	for w := range workers {
		wg.Go(func() {
			draw := newWorker()
			var pcg rand.PCG
			rng := rand.New(&pcg)
			for i := w; i < n; i += workers {
				pcg.Seed(seeds.Derive(seed, uint64(i)), seeds.Derive(seed, uint64(i), 1))
				draw(i, rng)
			}
		})
	}
	wg.Wait()
}
