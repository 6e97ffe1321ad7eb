package sbn

import (
	"fmt"
	"math"
	"math/bits"
	"sync/atomic"

	"github.com/logz-ml/logz/data"
)

// ExactLogProb returns log p(x_n) for every example by enumerating every
// latent state z = (h_1, …, h_L):
//
//	log p(x) = log Σ_z p(x, z) = log Σ_z p(h_L) Π_{l=1…L} p(h_{l−1} | h_l),   h_0 = x,
//
// which needs the whole joint for each z (the top prior and every layer,
// not only p(x | h_1)). The 2^H states, H = Σ_{l≥1} n_l, are visited in
// Gray-code order so that each differs from the last in one unit and the
// inputs it feeds are updated, not recomputed; the sum is a running
// logsumexp. An error names H and maxUnits when H > maxUnits. Examples are
// processed in parallel; progress, if set, is called from the worker
// goroutines with the states enumerated so far and the total
// (examples × 2^H).
func ExactLogProb(n *Net, x data.Examples, maxUnits int, progress func(done, total int64)) ([]float64, error) {
	if err := n.Validate(); err != nil {
		return nil, err
	}
	H := 0
	for _, s := range n.Sizes[1:] {
		H += s
	}
	if H > maxUnits || H > 62 {
		return nil, fmt.Errorf("exact log p(x) of %s: would enumerate 2^%d latent states; more than max_units = %d", n.Label(), H, maxUnits)
	}
	if err := estCheckRows(n, x); err != nil {
		return nil, err
	}
	N := x.Len()
	out := make([]float64, N)
	// unit k of the flat latent index is (layer[k], index[k]).
	layer, index := make([]int, H), make([]int, H)
	k := 0
	for l := 1; l < len(n.Sizes); l++ {
		for i := range n.Sizes[l] {
			layer[k], index[k] = l, i
			k++
		}
	}
	states := int64(1) << H
	total := int64(N) * states
	const report = 1 << 16
	var done atomic.Int64
	e := estPrepare(n)
	estForEach(N, func() func(int) {
		c := e.newChain()
		return func(ex int) {
			c.setVisible(x.Row(ex))
			for l := 1; l < len(c.h); l++ {
				clear(c.h[l])
			}
			c.recompute()
			m, s := c.logJoint(1), 1.0 // running logsumexp: log Σ = m + log s
			for g := int64(1); g < states; g++ {
				b := bits.TrailingZeros64(uint64(g))
				c.toggle(layer[b], index[b])
				if g%4096 == 0 {
					c.recompute()
				}
				lp := c.logJoint(1)
				if lp <= m {
					s += math.Exp(lp - m)
				} else {
					s = s*math.Exp(m-lp) + 1
					m = lp
				}
				if progress != nil && g%report == 0 {
					progress(done.Add(report), total)
				}
			}
			out[ex] = m + math.Log(s)
			if progress != nil {
				progress(done.Add(states-report*((states-1)/report)), total)
			}
		}
	})
	return out, nil
}
