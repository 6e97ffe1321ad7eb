package sbn

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sync/atomic"

	"github.com/logz-ml/logz/internal/nmath"
	"github.com/logz-ml/logz/internal/seeds"
	"github.com/logz-ml/logz/internal/shard"
)

// BDMC is bidirectional Monte Carlo (Grosse, Ghahramani & Adams 2015) on
// data simulated from the net itself, which brackets log p(x) from both
// sides. For each of Examples exact joint samples (x, z*) ~ p(x, z):
//
//   - forward AIS on x, as [AIS] (z_0 uniform, β_k = k/K upwards): the
//     weights have E[w] = p(x), so log p̂_lo = log mean_m w_m has
//     E[log p̂_lo] ≤ log p(x), a stochastic lower bound;
//
//   - reverse AIS from the exact posterior sample z* (which is the state a
//     chain on p_K(z) = p(z | x) would be in), along β_k = (K−k)/K
//     downwards with the same transitions in reverse order: the log weight
//     r = Σ_k [log f_{β_k}(z) − log f_{β_{k−1}}(z)] (each before the
//     transition at β_k) is forward AIS on the reversed path, so
//     E[e^r] = Z_0 / Z_K = 2^{−D} / p(x). Hence
//
//     log p̂_up = −D log 2 − log mean_m e^{r_m}
//
//     and, by Jensen, E[log mean_m e^{r_m}] ≤ log(2^{−D}/p(x)), i.e.
//     E[log p̂_up] ≥ log p(x): a stochastic upper bound.
//
// All reverse chains of one example start from the same z* (the standard
// BDMC with one exact posterior sample). As K grows both bounds approach
// log p(x), and the gap between them bounds the error of forward AIS on
// data like these.
type BDMC struct {
	Chains, Betas, Examples int
	Seed                    uint64
	// Sweeps is the number of Gibbs sweeps per temperature (0 means 1).
	Sweeps int
	// Progress, if set, is called from the worker goroutines with the
	// number of chains finished so far (forward and reverse) and the total
	// (Examples × Chains × 2).
	Progress func(done, total int64)
	// Units, if set, shares the simulated examples' chains among the
	// shards of a sharded evaluation (unit n: its forward and reverse
	// chains; every process simulates all the data, which is cheap; see
	// shard.Units).
	Units shard.Units
}

// BDMCData is the simulated data: Len() examples of D values each, an
// data.Examples so that callers can also run exact or IS on it.
type BDMCData struct {
	D int
	X []uint8 // row-major, Len() × D
}

// Len is the number of examples.
func (d BDMCData) Len() int { return len(d.X) / d.D }

// Row is example n.
func (d BDMCData) Row(n int) []uint8 { return d.X[n*d.D : (n+1)*d.D : (n+1)*d.D] }

// BDMCResult holds the per-example bounds and the simulated data.
type BDMCResult struct {
	Data BDMCData
	// Latents[n] is the exact posterior sample z* = (h_1, …, h_L) of
	// example n (Latents[n][l−1] is h_l).
	Latents [][][]float64
	Lower   []float64 // forward AIS, log mean_m w_m
	Upper   []float64 // reverse AIS, −D log 2 − log mean_m e^{r_m}
	// ForwardLogWeights[n][m] is log w of forward chain m (log Z_0
	// included); ReverseLogWeights[n][m] is r of reverse chain m.
	ForwardLogWeights, ReverseLogWeights [][]float64
	MeanLower, MeanUpper                 float64
}

// Run simulates the data and runs both directions, the chains of each
// direction side by side in lanes (see aisLanes) in batches over the
// workers; the data of example n come from a stream
// keyed by (Seed, 0, n), forward chain m by (Seed, 1, n, m), reverse chain
// m by (Seed, 2, n, m).
func (b BDMC) Run(n *Net) (BDMCResult, error) {
	if err := n.Validate(); err != nil {
		return BDMCResult{}, err
	}
	if err := estCheckSchedule("BDMC", b.Chains, b.Betas, b.Sweeps); err != nil {
		return BDMCResult{}, err
	}
	if b.Examples < 1 {
		return BDMCResult{}, fmt.Errorf("BDMC: examples is %d; want at least 1", b.Examples)
	}
	sweeps := AIS{Sweeps: b.Sweeps}.sweeps()
	N, M, D := b.Examples, b.Chains, n.NumVisible()
	r := BDMCResult{
		Data:              BDMCData{D: D, X: make([]uint8, N*D)},
		Latents:           make([][][]float64, N),
		Lower:             make([]float64, N),
		Upper:             make([]float64, N),
		ForwardLogWeights: make([][]float64, N),
		ReverseLogWeights: make([][]float64, N),
	}
	e := estPrepare(n)
	estForEach(N, func() func(int) {
		c := e.newChain()
		rng, pcg := estRand()
		return func(ex int) {
			pcg.Seed(seeds.Derive(b.Seed, 0, uint64(ex)), seeds.Derive(b.Seed, 0, uint64(ex), 1))
			h := n.States()
			n.Sample(h, rng, c.scratch)
			for i, v := range h[0] {
				r.Data.X[ex*D+i] = uint8(v)
			}
			r.Latents[ex] = h[1:]
			r.ForwardLogWeights[ex] = make([]float64, M)
			r.ReverseLogWeights[ex] = make([]float64, M)
		}
	})
	var done atomic.Int64
	total := int64(N) * int64(M) * 2
	logZ0 := -float64(D) * math.Ln2
	var chains []aisLane
	for ex := range N {
		if shard.Mine(b.Units, ex) {
			for m := range M {
				chains = append(chains, aisLane{ex, m})
			}
		}
	}
	progress := func(k int) {
		if b.Progress != nil {
			b.Progress(done.Add(int64(k)), total)
		}
	}
	for _, dir := range []uint64{1, 2} {
		annealLanes(e, chains, b.Betas, sweeps, dir == 2,
			func(c *estChain, ln aisLane, pcg *rand.PCG, rng *rand.Rand) {
				pcg.Seed(seeds.Derive(b.Seed, dir, uint64(ln.ex), uint64(ln.m)), seeds.Derive(b.Seed, dir, uint64(ln.ex), uint64(ln.m), 1))
				c.setVisible(r.Data.Row(ln.ex))
				if dir == 1 {
					c.uniformLatents(rng)
				} else {
					for l, hl := range r.Latents[ln.ex] {
						copy(c.h[l+1], hl)
					}
				}
			},
			func(ln aisLane, lw float64) {
				if dir == 1 {
					r.ForwardLogWeights[ln.ex][ln.m] = logZ0 + lw
				} else {
					r.ReverseLogWeights[ln.ex][ln.m] = lw
				}
			}, progress)
	}
	if b.Units != nil {
		both := make([][]float64, N)
		for ex := range N {
			both[ex] = append(append(make([]float64, 0, 2*M), r.ForwardLogWeights[ex]...), r.ReverseLogWeights[ex]...)
		}
		if err := completeRows(b.Units, both); err != nil {
			return BDMCResult{}, fmt.Errorf("BDMC: %w", err)
		}
		for ex := range N {
			copy(r.ForwardLogWeights[ex], both[ex][:M])
			copy(r.ReverseLogWeights[ex], both[ex][M:])
		}
	}
	for ex := range N {
		r.Lower[ex] = nmath.LogMeanExp(r.ForwardLogWeights[ex])
		r.Upper[ex] = logZ0 - nmath.LogMeanExp(r.ReverseLogWeights[ex])
		r.MeanLower += (r.Lower[ex] - r.MeanLower) / float64(ex+1)
		r.MeanUpper += (r.Upper[ex] - r.MeanUpper) / float64(ex+1)
	}
	return r, nil
}
