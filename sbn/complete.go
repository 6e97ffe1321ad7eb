package sbn

import (
	"fmt"

	"github.com/logz-ml/logz/data"
	"github.com/logz-ml/logz/internal/seeds"
)

// CompletionResult holds the missing-data completion of every example.
type CompletionResult struct {
	// ErrorRate is the mean over examples of ExampleError.
	ErrorRate float64
	// ExampleError[n] is the fraction of the lower-half pixels of example
	// n whose majority vote differs from the true pixel.
	ExampleError []float64
	// Completed[n] is example n with its lower half replaced by the vote.
	Completed [][]uint8
}

// Complete is the missing-data experiment of Du, Zhu & Zhang (2015,
// §4.2.2): each example is a rows×cols image in raster order; its first
// ⌊rows/2⌋ rows are observed and the rest (the lower half, U of them) are
// treated as missing. A Gibbs chain over (missing pixels, h_1, …, h_L) with
// the observed pixels clamped has stationary distribution
// p(missing, z | observed) ∝ p(x, z); it updates, in each sweep, every
// missing pixel (raster order) and then every latent unit (layer 1 … L,
// raster order), each from its exact single-site conditional (for a
// pixel: its own Bernoulli term and, in an autoregressive net, the terms of
// the pixels after it; for a latent unit see [AIS.LogProb] at β = 1). The
// chain starts with the missing pixels and the latents uniform, runs
// `sweeps` sweeps of burn-in, then takes `samples` reconstructions of the
// missing pixels, `sweeps` sweeps apart. The completion is the per-pixel
// majority vote (a tie, possible for an even number of samples, votes 0);
// the error of an example is the fraction of its U missing pixels where
// the vote differs from the truth. Examples run in parallel, each with a
// random stream keyed by (seed, example).
func Complete(n *Net, x data.Examples, rows, cols int, samples, sweeps int, seed uint64) (CompletionResult, error) {
	if err := n.Validate(); err != nil {
		return CompletionResult{}, err
	}
	D := n.NumVisible()
	if rows < 2 || cols < 1 || rows*cols != D {
		return CompletionResult{}, fmt.Errorf("completion: a %d×%d image does not fit the %d visible units of %s (need rows ≥ 2)", rows, cols, D, n.Label())
	}
	if samples < 1 || sweeps < 1 {
		return CompletionResult{}, fmt.Errorf("completion: samples %d and sweeps %d; want at least 1 of each", samples, sweeps)
	}
	if err := estCheckRows(n, x); err != nil {
		return CompletionResult{}, err
	}
	first := rows / 2 * cols // the first missing pixel
	missing := make([]int, D-first)
	for i := range missing {
		missing[i] = first + i
	}
	N := x.Len()
	r := CompletionResult{ExampleError: make([]float64, N), Completed: make([][]uint8, N)}
	e := estPrepare(n)
	estForEach(N, func() func(int) {
		c := e.newChain()
		rng, pcg := estRand()
		votes := make([]int, len(missing))
		return func(ex int) {
			pcg.Seed(seeds.Derive(seed, uint64(ex)), seeds.Derive(seed, uint64(ex), 1))
			row := x.Row(ex)
			c.setVisible(row)
			for _, i := range missing {
				c.h[0][i] = float64(rng.Uint64() & 1)
			}
			c.uniformLatents(rng)
			c.recompute()
			c.setBeta(1)
			clear(votes)
			run := func() {
				for range sweeps {
					c.sweep(missing, rng)
					if c.sinceRefresh++; c.sinceRefresh >= estRecompute {
						c.recompute()
						c.setBeta(1)
					}
				}
			}
			run()
			for range samples {
				run()
				for k, i := range missing {
					votes[k] += int(c.h[0][i])
				}
			}
			out := append([]uint8(nil), row...)
			wrong := 0
			for k, i := range missing {
				out[i] = 0
				if 2*votes[k] > samples {
					out[i] = 1
				}
				if out[i] != row[i] {
					wrong++
				}
			}
			r.Completed[ex] = out
			r.ExampleError[ex] = float64(wrong) / float64(len(missing))
		}
	})
	for ex, v := range r.ExampleError {
		r.ErrorRate += (v - r.ErrorRate) / float64(ex+1)
	}
	return r, nil
}
