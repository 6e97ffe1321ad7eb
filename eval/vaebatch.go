package eval

import (
	"math"
	"math/rand/v2"

	"github.com/logz-ml/logz/internal/kernel"
	"github.com/logz-ml/logz/internal/nmath"
	"github.com/logz-ml/logz/models"
)

// vaeISBatch is how many proposals of a work item are drawn before the
// decoder runs on them together (matrix–matrix products, kernel.GemmCols).
const vaeISBatch = 100

// vaeBatchModel is a VAE's decoder (and RBM prior) laid out for batched
// products: per layer l the matrix [b_l; W_l] ((n_{l−1}+1)×n_l, the bias
// row first), multiplied by rows [1, u] of the layer's input. Each entry is
// then gemm's fused chain b_j, then + u_i·w_ij in the order of i, as
// mlp.Net.ForwardBinary and LogPrior sum them: with 0/1 inputs (the
// latents z: the decoder's first layer and the prior's hidden
// pre-activations) every product is exact, so those sums are bit-identical
// to the per-proposal path; a hidden layer's real inputs u = tanh(·) make
// each term one rounding (fused) instead of two (mlp's y + u·w), a
// difference of at most a few units in the last place of the logits
// (docs/methods.md#vae-is-batched).
type vaeBatchModel struct {
	m     *models.VAE
	sizes []int       // decoder sizes Z, h_1, …, X
	aug   [][]float64 // per decoder layer, [b; W]
	prior []float64   // RBM prior: [c; W] ((Z+1)×H, hidden bias first); nil for a Bernoulli prior
	// ber is the Bernoulli prior's table (when there is no RBM prior).
	ber bernTable
}

// bernTable holds, for independent Bernoullis with logits a, the
// probabilities σ(a_i) and softplus(−a_i), softplus(a_i), so that drawing
// and scoring need no exp or log; each value is the one
// models.SampleBernoulliLogits and models.BernoulliLogProb compute, and
// they are combined in the same order, so the results are bit-identical.
type bernTable struct{ p, sp1, sp0 []float64 }

func newBernTable(n int) bernTable {
	return bernTable{p: make([]float64, n), sp1: make([]float64, n), sp0: make([]float64, n)}
}

// set fills the table for logits a (len(a) = the table's length).
func (t bernTable) set(a []float64) {
	for i, ai := range a {
		t.p[i], t.sp1[i], t.sp0[i] = nmath.Sigmoid(ai), nmath.Softplus(-ai), nmath.Softplus(ai)
	}
}

// sample is models.SampleBernoulliLogits: x_i ~ Bernoulli(σ(a_i)), one
// rng.Float64() per unit in order, and returns log q(x).
func (t bernTable) sample(x []uint8, rng *rand.Rand) float64 {
	lq := 0.0
	for i, p := range t.p {
		if rng.Float64() < p {
			x[i] = 1
			lq -= t.sp1[i]
		} else {
			x[i] = 0
			lq -= t.sp0[i]
		}
	}
	return lq
}

// logProb is models.BernoulliLogProb(x, a).
func (t bernTable) logProb(x []uint8) float64 {
	lp := 0.0
	for i, b := range x[:len(t.sp1)] {
		if b != 0 {
			lp -= t.sp1[i]
		} else {
			lp -= t.sp0[i]
		}
	}
	return lp
}

// newVAEBatchModel copies m's decoder (and prior) into the augmented
// layout; m must not change while the result is in use.
func newVAEBatchModel(m *models.VAE) *vaeBatchModel {
	bm := &vaeBatchModel{m: m, sizes: m.DecSizes}
	for l := range len(m.DecSizes) - 1 {
		bm.aug = append(bm.aug, withBiasRow(m.Dec.B[l], m.Dec.W[l]))
	}
	if r := m.Prior; r != nil {
		bm.prior = withBiasRow(r.HBias, r.W)
	} else {
		bm.ber = newBernTable(len(m.PriorLogits))
		bm.ber.set(m.PriorLogits)
	}
	return bm
}

// withBiasRow returns [b; w]: b followed by the rows of w (each len(b) long).
func withBiasRow(b, w []float64) []float64 {
	out := make([]float64, 0, len(b)+len(w))
	return append(append(out, b...), w...)
}

// vaeBatchScratch is one worker's buffers for batches of up to rows
// proposals: the latents as bytes (z) and as rows [1, z] (zf), each hidden
// layer's rows [1, u], the logits and the prior's hidden pre-activations.
type vaeBatchScratch struct {
	z      []uint8
	zf     []float64
	hidden [][]float64
	logits []float64
	pre    []float64
}

func (bm *vaeBatchModel) newScratch(rows int) *vaeBatchScratch {
	Z, L := bm.sizes[0], len(bm.sizes)-1
	s := &vaeBatchScratch{z: make([]uint8, rows*Z), zf: make([]float64, rows*(Z+1)),
		logits: make([]float64, rows*bm.sizes[L])}
	for r := range rows {
		s.zf[r*(Z+1)] = 1
	}
	for l := 1; l < L; l++ {
		n := bm.sizes[l] + 1
		h := make([]float64, rows*n)
		for r := range rows {
			h[r*n] = 1
		}
		s.hidden = append(s.hidden, h)
	}
	if bm.m.Prior != nil {
		s.pre = make([]float64, rows*bm.m.Prior.NHid)
	}
	return s
}

// setLatent stores row r's latents z (from s.z) as the row [1, z] of zf.
func (s *vaeBatchScratch) setLatent(r, Z int) {
	row := s.zf[r*(Z+1)+1 : (r+1)*(Z+1)]
	for i, b := range s.z[r*Z : (r+1)*Z] {
		row[i] = float64(b)
	}
}

// logJoint sets out[r] = log p(x|z_r) + log p̃(z_r) for the first n rows
// of s (z and zf filled), the decoder run on them together. Every sum is
// taken in the order of the per-proposal m.LogLikelihood and m.LogPrior.
// It does not allocate.
func (bm *vaeBatchModel) logJoint(s *vaeBatchScratch, n int, x []uint8, out []float64) {
	bm.decode(s, n)
	X, Z := bm.sizes[len(bm.sizes)-1], bm.sizes[0]
	for r := range n {
		out[r] = models.BernoulliLogProb(x, s.logits[r*X:(r+1)*X]) + bm.logPrior(s, r, Z)
	}
}

// decode sets the decoder's logits (s.logits, n×X) and an RBM prior's
// hidden pre-activations (s.pre, n×H) of the first n rows of s.
func (bm *vaeBatchModel) decode(s *vaeBatchScratch, n int) {
	sz := bm.sizes
	L := len(sz) - 1
	in, k := s.zf, sz[0]+1
	for l := range L {
		w := sz[l+1]
		if l == L-1 {
			kernel.GemmCols(kernel.GemmSet, 1, n, 0, w, k, in, k, bm.aug[l], w, s.logits, w)
			break
		}
		h := s.hidden[l]
		kernel.GemmCols(kernel.GemmSet, 1, n, 0, w, k, in, k, bm.aug[l], w, h[1:], w+1)
		for r := range n {
			row := h[r*(w+1)+1 : (r+1)*(w+1)]
			for j, v := range row {
				row[j] = math.Tanh(v)
			}
		}
		in, k = h, w+1
	}
	if p := bm.m.Prior; p != nil {
		Z := sz[0]
		kernel.GemmCols(kernel.GemmSet, 1, n, 0, p.NHid, Z+1, s.zf, Z+1, bm.prior, p.NHid, s.pre, p.NHid)
	}
}

// logPrior is m.LogPrior of row r's latents, from the hidden
// pre-activations in s.pre for an RBM prior.
func (bm *vaeBatchModel) logPrior(s *vaeBatchScratch, r, Z int) float64 {
	z := s.z[r*Z : (r+1)*Z]
	p := bm.m.Prior
	if p == nil {
		return bm.ber.logProb(z)
	}
	H := p.NHid
	t := 0.0
	for i, zi := range z {
		if zi != 0 {
			t += p.VBias[i]
		}
	}
	for _, v := range s.pre[r*H : (r+1)*H] {
		t += nmath.Softplus(v)
	}
	return t
}
