package sbn

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sync/atomic"

	"github.com/logz-ml/logz/data"
	"github.com/logz-ml/logz/internal/kernel"
	"github.com/logz-ml/logz/internal/nmath"
	"github.com/logz-ml/logz/internal/seeds"
	"github.com/logz-ml/logz/internal/shard"
)

// IS estimates log p(x) per example by importance sampling with the
// recognition network as the proposal (Du, Zhu & Zhang 2015, App. B.1,
// eq. 16):
//
//	p̂(x) = (1/S) Σ_{s=1…S} w_s,   w_s = p(x, h_s) / Q(h_s | x),   h_s ~ Q(· | x),
//
// an unbiased estimate of p(x) (E_Q[w] = Σ_h p(x, h)); its log is a
// stochastic lower bound of log p(x). In log space
// log p̂(x) = logsumexp_s(log w_s) − log S, the mean and not the sum
// (docs/methods.md#is-bookkeeping), with the logsumexp shifted by the running maximum. The
// joint p(x, h) includes the top prior and every layer.
type IS struct {
	Samples int // S, proposals per example
	Seed    uint64
	// Progress, if set, is called from the worker goroutines with the
	// samples drawn so far and the total (examples × Samples).
	Progress func(done, total int64)
	// Units, if set, shares the (example, block) items among the shards of
	// a sharded evaluation (unit ex·blocks + b; see shard.Units).
	Units shard.Units
}

// ISResult holds per-example importance-sampling estimates.
type ISResult struct {
	LogP []float64 // log p̂(x_n)
	// ESS[n] is (Σ_s w_s)² / Σ_s w_s², in [1, S].
	ESS    []float64
	MinESS float64 // the smallest ESS over the examples
}

// isBlock is how many samples one work item draws, with its own random
// stream keyed by (Seed, example, block): a fixed size, so that the
// result does not depend on GOMAXPROCS.
const isBlock = 1000

// LogProb runs importance sampling on every example, in parallel over
// blocks of samples. It needs the recognition network n.Rec.
func (is IS) LogProb(n *Net, x data.Examples) (ISResult, error) {
	if err := n.Validate(); err != nil {
		return ISResult{}, err
	}
	if n.Rec == nil {
		return ISResult{}, fmt.Errorf("IS: %s has no recognition network (rec_* arrays) to propose latent states; use AIS", n.Label())
	}
	if is.Samples < 1 {
		return ISResult{}, fmt.Errorf("IS: samples is %d; want at least 1", is.Samples)
	}
	if err := estCheckRows(n, x); err != nil {
		return ISResult{}, err
	}
	N := x.Len()
	blocks := (is.Samples + isBlock - 1) / isBlock
	acc := make([]nmath.LogWeights, N*blocks)
	e := estPrepare(n)
	var done atomic.Int64
	total := int64(N) * int64(is.Samples)
	estForEach(N*blocks, func() func(int) {
		c := e.newChain()
		rng, pcg := estRand()
		return func(item int) {
			if !shard.Mine(is.Units, item) {
				return
			}
			ex, b := item/blocks, item%blocks
			pcg.Seed(seeds.Derive(is.Seed, uint64(ex), uint64(b)), seeds.Derive(is.Seed, uint64(ex), uint64(b), 1))
			c.setVisible(x.Row(ex))
			m := min(isBlock, is.Samples-b*isBlock)
			acc[item] = c.importance(m, rng)
			if is.Progress != nil {
				is.Progress(done.Add(int64(m)), total)
			}
		}
	})
	if err := completeAccs(is.Units, acc); err != nil {
		return ISResult{}, fmt.Errorf("IS: %w", err)
	}
	r := ISResult{LogP: make([]float64, N), ESS: make([]float64, N), MinESS: math.Inf(1)}
	for ex := range N {
		a := acc[ex*blocks]
		for b := 1; b < blocks; b++ {
			a.Merge(acc[ex*blocks+b])
		}
		r.LogP[ex] = a.LogSum() - math.Log(float64(is.Samples))
		r.ESS[ex] = a.ESS()
		r.MinESS = min(r.MinESS, r.ESS[ex])
	}
	return r, nil
}

// completeAccs hands the accumulators of the items to units (see
// shard.Units).
func completeAccs(units shard.Units, acc []nmath.LogWeights) error {
	if units == nil {
		return nil
	}
	m, s1, s2 := make([]float64, len(acc)), make([]float64, len(acc)), make([]float64, len(acc))
	for i, a := range acc {
		m[i], s1[i], s2[i] = a.M, a.S1, a.S2
	}
	if err := shard.CompleteColumns(units, m, s1, s2); err != nil {
		return err
	}
	for i := range acc {
		acc[i] = nmath.LogWeights{M: m[i], S1: s1[i], S2: s2[i]}
	}
	return nil
}

// isBatch is how many proposals importance scores together: their
// activations are summed from the rows of W_lᵀ in one pass over the
// matrix (seqsum's tiles), which then stays in the cache.
const isBatch = 32

// isBuffers holds a batch of proposals: h[l] and in[l] are isBatch rows of
// n_l entries (h[0] unused: every proposal shares x), with the lists of
// units that are on and the views vh, vin of one proposal's layers.
type isBuffers struct {
	h, in    [][]float64
	on, span []int32
	lq       []float64
	vh, vin  [][]float64
}

func (c *estChain) isBuffers() *isBuffers {
	if c.isb != nil {
		return c.isb
	}
	n := c.e.n
	L := n.Layers()
	b := &isBuffers{h: make([][]float64, L+1), in: make([][]float64, L+1),
		on: make([]int32, isBatch*c.e.maxN), span: make([]int32, 2*isBatch), lq: make([]float64, isBatch),
		vh: make([][]float64, L+1), vin: make([][]float64, L+1)}
	for l := 0; l <= L; l++ {
		b.in[l] = make([]float64, isBatch*n.Sizes[l])
		if l > 0 {
			b.h[l] = make([]float64, isBatch*n.Sizes[l])
		}
	}
	c.isb = b
	return b
}

// importance draws m proposals h ~ Q(· | x) for the chain's visible state
// and accumulates log w = log p(x, h) − log Q(h | x). Q's first layer,
// which depends on x alone, is computed once for the m proposals (the
// arithmetic of SampleQ, so the same bits). Proposals are drawn isBatch at
// a time, in order from rng, and scored together: each one's activations
// and log-joint are the bits recompute and logJoint(1) give it alone.
func (c *estChain) importance(m int, rng *rand.Rand) nmath.LogWeights {
	a := nmath.NewLogWeights()
	n := c.e.n
	L := n.Layers()
	n.newQFirst(&c.qFirst, c.h[0])
	b := c.isBuffers()
	for done := 0; done < m; {
		B := min(isBatch, m-done)
		for p := range B {
			b.lq[p] = n.sampleQ(c.h, rng, c.scratch, &c.qFirst)
			for l := 1; l <= L; l++ {
				k := n.Sizes[l]
				copy(b.h[l][p*k:(p+1)*k], c.h[l])
			}
		}
		for l := 0; l <= L; l++ {
			k := n.Sizes[l]
			in := b.in[l][:B*k]
			for p := range B {
				copy(in[p*k:(p+1)*k], n.B[l])
			}
			if l < L {
				// in_p += the rows of W_{l+1}ᵀ of proposal p's units that
				// are on, in order (recompute's additions).
				k1 := n.Sizes[l+1]
				on := b.on[:0]
				for p := range B {
					b.span[2*p] = int32(len(on))
					for j, hj := range b.h[l+1][p*k1 : (p+1)*k1] {
						if hj != 0 {
							on = append(on, int32(j))
						}
					}
					b.span[2*p+1] = int32(len(on))
				}
				kernel.AddSelected(in, k, c.e.wt[l+1], k, k, on, b.span[:2*B])
			}
			if c.e.st != nil {
				for p := range B {
					h := c.h[0]
					if l > 0 {
						h = b.h[l][p*k : (p+1)*k]
					}
					c.addWithin(l, in[p*k:(p+1)*k], h)
				}
			}
		}
		for p := range B {
			b.vh[0], b.vin[0] = c.h[0], b.in[0][p*n.Sizes[0]:(p+1)*n.Sizes[0]]
			for l := 1; l <= L; l++ {
				k := n.Sizes[l]
				b.vh[l], b.vin[l] = b.h[l][p*k:(p+1)*k], b.in[l][p*k:(p+1)*k]
			}
			a.Add(logJointOf(b.vin, b.vh, 1, c.ex) - b.lq[p])
		}
		done += B
	}
	return a
}
