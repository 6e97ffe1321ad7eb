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

// checkVAERows checks that every example has X values of 0 or 1, naming the
// first that does not.
func checkVAERows(m *models.VAE, x data.Examples) error {
	X := m.NumVisible()
	for n := range x.Len() {
		r := x.Row(n)
		if len(r) != X {
			return fmt.Errorf("vae: example %d has %d values, the model %d visible units", n, len(r), X)
		}
		for i, b := range r {
			if b > 1 {
				return fmt.Errorf("vae: example %d, unit %d is %d; expected 0/1 data", n, i, b)
			}
		}
	}
	return nil
}

// vaeLogAcc accumulates log weights lw: their log-sum-exp and effective
// sample size (nmath.LogWeights) and the plain sum Σ lw (for the ELBO).
type vaeLogAcc struct {
	w   nmath.LogWeights
	sum float64
}

func newVAELogAcc() vaeLogAcc { return vaeLogAcc{w: nmath.NewLogWeights()} }

func (a *vaeLogAcc) add(lw float64) {
	a.sum += lw
	a.w.Add(lw)
}

// merge adds b's weights to a's.
func (a *vaeLogAcc) merge(b vaeLogAcc) {
	a.sum += b.sum
	a.w.Merge(b.w)
}

// vaeISBlock is how many proposals one work item draws, from its own stream
// keyed (seed, example, block): a fixed size, so that nothing depends on
// GOMAXPROCS.
const vaeISBlock = 1000

// VAEWeights holds, per example, what K proposals z_k ~ q(z|x) give: the log
// importance weights
//
//	log w_k = log p(x|z_k) + log p̃(z_k) − log q(z_k|x)
//
// (for a model with auxiliary variables, proposals (a_k, z_k) ~ q(a|x)
// q(z|x,a) and log w_k = log p(x|z_k) + log p̃(z_k) + log p(a_k|x,z_k) −
// log q(a_k|x) − log q(z_k|x,a_k), whose mean weight is again unbiased for
// p̃(x): ∫ p(a|x,z) da = 1)
//
// summarised as log p̃̂(x) = logmeanexp_k log w_k = log((1/K) Σ_k w_k) (the
// MEAN weight: minus log K, docs/methods.md#is-bookkeeping; the logsumexp shifted by the
// maximum), ELBO = (1/K) Σ_k log w_k, and the effective sample size
// (Σ w)²/Σ w². Neither includes −log Z of an RBM prior.
type VAEWeights struct {
	LogMeanW, MeanLogW, ESS []float64
}

// VAEIS draws Samples proposals z ~ q(z|x) from a VAE's encoder for every
// example (with auxiliary variables: a ~ q(a|x) then z ~ q(z|x,a), ε
// before z in each proposal's stream); the proposals of example n, block b (of vaeISBlock) come from the
// generator keyed (Seed, n, b), so the result depends on Seed alone, not
// on GOMAXPROCS.
type VAEIS struct {
	Samples int // K proposals per example; at least 1
	Seed    uint64
	// Progress, if set, is called from the workers with the proposals drawn
	// so far and the total.
	Progress func(done, total int64)
	// Units, if set, shares the (example, block) items (unit n·blocks + b)
	// among the shards of a sharded evaluation (see Units; nil: all here).
	Units Units
}

// Weights returns the summaries of the log importance weights of every
// example of x.
func (o VAEIS) Weights(m *models.VAE, x data.Examples) (VAEWeights, error) {
	samples, seed, progress, units := o.Samples, o.Seed, o.Progress, o.Units
	if samples < 1 {
		return VAEWeights{}, fmt.Errorf("vae: samples is %d; want at least 1", samples)
	}
	if err := checkVAERows(m, x); err != nil {
		return VAEWeights{}, err
	}
	N := x.Len()
	blocks := (samples + vaeISBlock - 1) / vaeISBlock
	acc := make([]vaeLogAcc, N*blocks)
	Z := m.NumLatent()
	var done atomic.Int64
	total := int64(N) * int64(samples)
	bm := newVAEBatchModel(m)
	B := min(vaeISBatch, samples)
	workgroup.ForEach(N*blocks, runtime.GOMAXPROCS(0), func() func(int) {
		s := m.NewScratch()
		bs := bm.newScratch(B)
		q := newBernTable(Z)
		lq := make([]float64, B)
		lj := make([]float64, B)
		pcg := rand.NewPCG(0, 0)
		rng := rand.New(pcg)
		var ad *vaeAuxDraw
		if m.Aux != nil {
			ad = newVAEAuxDraw(m)
		}
		return func(item int) {
			if !Mine(units, item) {
				return
			}
			ex, b := item/blocks, item%blocks
			pcg.Seed(seeds.Derive(seed, uint64(ex), uint64(b)), seeds.Derive(seed, uint64(ex), uint64(b), 1))
			xr := x.Row(ex)
			if ad != nil {
				ad.begin(m, s, xr)
			} else {
				q.set(m.EncoderLogits(s, xr))
			}
			a := newVAELogAcc()
			k := min(vaeISBlock, samples-b*vaeISBlock)
			// The proposals in batches of B: the draws first, in the
			// order of the one-at-a-time loop (the decoder draws
			// nothing), then the decoder on the batch, then the weights
			// in proposal order.
			for k0 := 0; k0 < k; k0 += B {
				n := min(B, k-k0)
				for r := range n {
					if ad != nil {
						lq[r] = ad.draw(m, s, xr, bs.z[r*Z:(r+1)*Z], rng)
					} else {
						lq[r] = q.sample(bs.z[r*Z:(r+1)*Z], rng)
					}
					bs.setLatent(r, Z)
				}
				bm.logJoint(bs, n, xr, lj)
				for r := range n {
					a.add(lj[r] - lq[r])
				}
			}
			acc[item] = a
			if progress != nil {
				progress(done.Add(int64(k)), total)
			}
		}
	})
	if units != nil {
		cols := [4][]float64{}
		for k := range cols {
			cols[k] = make([]float64, len(acc))
		}
		for i, a := range acc {
			cols[0][i], cols[1][i], cols[2][i], cols[3][i] = a.w.M, a.w.S1, a.w.S2, a.sum
		}
		if err := CompleteColumns(units, cols[:]...); err != nil {
			return VAEWeights{}, fmt.Errorf("vae: %w", err)
		}
		for i := range acc {
			acc[i] = vaeLogAcc{w: nmath.LogWeights{M: cols[0][i], S1: cols[1][i], S2: cols[2][i]}, sum: cols[3][i]}
		}
	}
	w := VAEWeights{LogMeanW: make([]float64, N), MeanLogW: make([]float64, N), ESS: make([]float64, N)}
	logK := math.Log(float64(samples))
	for ex := range N {
		a := acc[ex*blocks]
		for b := 1; b < blocks; b++ {
			a.merge(acc[ex*blocks+b])
		}
		w.LogMeanW[ex] = a.w.LogSum() - logK
		w.MeanLogW[ex] = a.sum / float64(samples)
		w.ESS[ex] = a.w.ESS()
	}
	return w, nil
}

// vaeExactBlock is the number of latent states whose decoder outputs are
// computed together by VAEExactLogUnnorm.
const vaeExactBlock = 256

// vaeExactBatch is how many latent states of a block one worker decodes
// at once.
const vaeExactBatch = 32

// VAEExactLogUnnorm returns, for every example, log p̃(x) = log Σ_z p(x|z) p̃(z)
// = logsumexp_z[log p(x|z) + log p̃(z)] over all 2^Z latent states (the
// logsumexp shifted by the running maximum); log p(x) is this minus log Z
// of the prior (0 for a Bernoulli prior). Latent states are visited in
// blocks: the decoder runs on batches of states (as in VAEIS), and each example accumulates
// its terms in the order of z, so the result does not depend on the number
// of goroutines. It refuses Z > maxUnits.
func VAEExactLogUnnorm(m *models.VAE, x data.Examples, maxUnits int, progress func(done, total int64)) ([]float64, error) {
	Z, X := m.NumLatent(), m.NumVisible()
	if Z > maxUnits {
		return nil, fmt.Errorf("vae: exact enumeration of %d latent units (2^%d states) is above max_units %d", Z, Z, maxUnits)
	}
	if err := checkVAERows(m, x); err != nil {
		return nil, err
	}
	N := x.Len()
	states := 1 << Z
	B := min(vaeExactBlock, states)
	// For the states of a block: the decoder logits ℓ(z), and
	// c(z) = log p̃(z) − Σ_i softplus(ℓ_i(z)), so that
	// log p(x|z) + log p̃(z) = c(z) + Σ_{i: x_i = 1} ℓ_i(z).
	logits := make([]float64, B*X)
	c := make([]float64, B)
	acc := make([]vaeLogAcc, N)
	for n := range acc {
		acc[n] = newVAELogAcc()
	}
	on := make([][]int32, N)
	for n := range N {
		for i, b := range x.Row(n) {
			if b != 0 {
				on[n] = append(on[n], int32(i))
			}
		}
	}
	workers := runtime.GOMAXPROCS(0)
	bm := newVAEBatchModel(m)
	E := min(vaeExactBatch, B)
	var done int64
	for start := 0; start < states; start += B {
		k := min(B, states-start)
		// The states of the block in batches of E, each decoded at once
		// (as VAEIS does; the same sums per state).
		workgroup.ForEach((k+E-1)/E, workers, func() func(int) {
			bs := bm.newScratch(E)
			return func(q int) {
				j0 := q * E
				n := min(E, k-j0)
				for r := range n {
					code := start + j0 + r
					for i, zr := 0, bs.z[r*Z:(r+1)*Z]; i < Z; i++ {
						zr[i] = uint8(code >> i & 1)
					}
					bs.setLatent(r, Z)
				}
				bm.decode(bs, n)
				for r := range n {
					l := bs.logits[r*X : (r+1)*X]
					j := j0 + r
					copy(logits[j*X:(j+1)*X], l)
					t := bm.logPrior(bs, r, Z)
					for _, v := range l {
						t -= nmath.Softplus(v)
					}
					c[j] = t
				}
			}
		})
		workgroup.ForEach(N, workers, func() func(int) {
			return func(n int) {
				a := &acc[n]
				for j := range k {
					row := logits[j*X : (j+1)*X]
					t := c[j]
					for _, i := range on[n] {
						t += row[i]
					}
					a.add(t)
				}
			}
		})
		done += int64(k) * int64(N)
		if progress != nil {
			progress(done, int64(states)*int64(N))
		}
	}
	out := make([]float64, N)
	for n, a := range acc {
		out[n] = a.w.LogSum()
	}
	return out, nil
}

// vaeAuxDraw draws the proposals of a model with auxiliary variables:
// a = μ_q(x) + σ_q(x) ⊙ ε, z ~ q(z|x,a).
type vaeAuxDraw struct {
	eps, a    []float64
	mu, logSg []float64 // q(a|x) of the current example (views into the scratch)
	pre       []float64 // the encoder's x part (view)
}

func newVAEAuxDraw(m *models.VAE) *vaeAuxDraw {
	return &vaeAuxDraw{eps: make([]float64, m.Aux.Dim), a: make([]float64, m.Aux.Dim)}
}

// begin computes q(a|x) and the encoder's x part of example x.
func (d *vaeAuxDraw) begin(m *models.VAE, s *models.VAEScratch, x []uint8) {
	d.mu, d.logSg = m.AuxQ(s, x)
	d.pre = m.AuxEncoderPre(s, x)
}

// draw draws a proposal (ε then z from rng) into z and returns
// log q(a|x) + log q(z|x,a) − log p(a|x,z), the part of −log w that is not
// the decoder's and the prior's.
func (d *vaeAuxDraw) draw(m *models.VAE, s *models.VAEScratch, x, z []uint8, rng *rand.Rand) float64 {
	lqa := models.SampleAux(d.a, d.eps, d.mu, d.logSg, rng)
	lqz := models.SampleBernoulliLogits(z, m.AuxEncoderLogits(s, d.pre, d.a), rng)
	pm, pls := m.AuxP(s, x, z)
	return lqa + lqz - models.GaussLogProb(d.a, pm, pls)
}
