package eval

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sync/atomic"

	"github.com/logz-ml/logz/data"
	"github.com/logz-ml/logz/internal/nmath"
	"github.com/logz-ml/logz/internal/seeds"
	"github.com/logz-ml/logz/internal/workgroup"
	"github.com/logz-ml/logz/models"
)

// mobChunk is the number of examples of one work item of MoBLogProbs.
const mobChunk = 64

// MoBLogProbs returns the exact log p(x_n) of every example of a mixture
// of Bernoullis (logsumexp over the components, models.MoBTables), on
// up to workers goroutines (≤ 0: GOMAXPROCS); each example's value is computed
// alone, so the result does not depend on workers. progress, if set, is
// told the examples done (cumulative) and the total.
func MoBLogProbs(m *models.MoB, x data.Examples, workers int, progress func(done, total int64)) ([]float64, error) {
	N := x.Len()
	out := make([]float64, N)
	if N == 0 {
		return out, nil
	}
	if d := len(x.Row(0)); d != m.D {
		return nil, fmt.Errorf("mob: examples have %d units, the model %d", d, m.D)
	}
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	tab := m.NewMoBTables()
	var done atomic.Int64
	chunks := (N + mobChunk - 1) / mobChunk
	workgroup.ForEach(chunks, workers, func() func(int) {
		a := make([]float64, m.K)
		on := make([]int32, 0, m.D)
		return func(c int) {
			hi := min(N, (c+1)*mobChunk)
			for n := c * mobChunk; n < hi; n++ {
				out[n], on = tab.LogProb(x.Row(n), a, on)
			}
			if progress != nil {
				progress(done.Add(int64(hi-c*mobChunk)), int64(N))
			}
		}
	})
	return out, nil
}

// keyMoBSample labels the generators of SampleMoB.
const keyMoBSample = 1

// SampleMoB draws n ancestral samples of a mixture of Bernoullis (n×D,
// row-major): sample i picks a component k with probability π_k, then
// x_d ~ Bernoulli(μ_kd), from the generator keyed by (seed, i) — so the
// samples do not depend on how many are drawn. With means it returns μ_k
// of the drawn component instead of x (E[x | k]).
func SampleMoB(m *models.MoB, n int, seed uint64, means bool) ([]float64, error) {
	if n < 1 {
		return nil, fmt.Errorf("mob samples: n is %d; want at least 1", n)
	}
	K, D := m.K, m.D
	cum := make([]float64, K) // cumulative π, the last one 1
	c := 0.0
	for k, lw := range m.LogMix() {
		c += math.Exp(lw)
		cum[k] = c
	}
	cum[K-1] = math.Inf(1)
	out := make([]float64, n*D)
	pcg := rand.NewPCG(0, 0)
	rng := rand.New(pcg)
	for i := range n {
		pcg.Seed(seeds.Derive(seed, keyMoBSample, uint64(i)), seeds.Derive(seed, keyMoBSample, uint64(i), 1))
		u, k := rng.Float64(), 0
		for u >= cum[k] {
			k++
		}
		row, eta := out[i*D:(i+1)*D], m.Logits[k*D:(k+1)*D]
		for d, e := range eta {
			mu := nmath.Sigmoid(e)
			switch {
			case means:
				row[d] = mu
			case rng.Float64() < mu:
				row[d] = 1
			}
		}
	}
	return out, nil
}
