package sbn

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sync/atomic"

	"github.com/logz-ml/logz/data"
	"github.com/logz-ml/logz/eval"
	"github.com/logz-ml/logz/internal/nmath"
	"github.com/logz-ml/logz/internal/seeds"
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
	// a sharded evaluation (unit ex·blocks + b; see eval.Units).
	Units eval.Units
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
			if !eval.Mine(is.Units, item) {
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
// eval.Units).
func completeAccs(units eval.Units, acc []nmath.LogWeights) error {
	if units == nil {
		return nil
	}
	m, s1, s2 := make([]float64, len(acc)), make([]float64, len(acc)), make([]float64, len(acc))
	for i, a := range acc {
		m[i], s1[i], s2[i] = a.M, a.S1, a.S2
	}
	if err := eval.CompleteColumns(units, m, s1, s2); err != nil {
		return err
	}
	for i := range acc {
		acc[i] = nmath.LogWeights{M: m[i], S1: s1[i], S2: s2[i]}
	}
	return nil
}

// importance draws m proposals h ~ Q(· | x) for the chain's visible state
// and accumulates log w = log p(x, h) − log Q(h | x). Q's first layer,
// which depends on x alone, is computed once for the m proposals (the
// arithmetic of SampleQ, so the same bits).
func (c *estChain) importance(m int, rng *rand.Rand) nmath.LogWeights {
	a := nmath.NewLogWeights()
	n := c.e.n
	n.newQFirst(&c.qFirst, c.h[0])
	for range m {
		lq := n.sampleQ(c.h, rng, c.scratch, &c.qFirst)
		c.recompute()
		a.Add(c.logJoint(1) - lq)
	}
	return a
}
