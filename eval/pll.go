package eval

import (
	"math"
	"sync/atomic"

	"github.com/logz-ml/logz/data"
	"github.com/logz-ml/logz/internal/kernel"
	"github.com/logz-ml/logz/internal/nmath"
	"github.com/logz-ml/logz/internal/workgroup"
	"github.com/logz-ml/logz/models"
)

// PLL computes the mean pseudo-log-likelihood of an RBM over examples,
//
//	PLL(v) = Σ_i log p(v_i | v_{−i}),
//
// the term of unit i being log σ(Δ_i) if v_i = 1 and log σ(−Δ_i)
// otherwise, with Δ_i = log f(v|v_i=1) − log f(v|v_i=0). Flipping v_i
// moves the hidden pre-activations x = b + Wᵀv by ±W_i (row i of W), and
// softplus(x_j ± w) − softplus(x_j) = log(σ(−x_j) + σ(x_j)·e^{±w}), so
//
//	Δ_i = a_i − log Π_j (σ(−x_j) + σ(x_j)·e^{−W_ij})   (v_i = 1),
//	Δ_i = a_i + log Π_j (σ(−x_j) + σ(x_j)·e^{+W_ij})   (v_i = 0):
//
// one σ pair per hidden unit and example, e^{±W} once per call, and per
// visible unit H multiply–adds and one log, instead of 2H softplus. Each
// factor lies between e^{−|W_ij|} and e^{|W_ij|}, so a row's product stays
// a normal float64 when Σ_j |W_ij| ≤ pllMaxRowSum; a row above it (or any
// |W_ij| above it) is summed as 2H softplus terms instead.
//
// The examples are split into fixed chunks of pllChunk by index, taken by
// Workers goroutines (0: GOMAXPROCS); each example's value depends only on
// the model and the example, and the mean and its standard error are summed
// in example order, so the result is the same bits whatever Workers or
// GOMAXPROCS.
type PLL struct {
	Workers int
	// Progress, if set, is called from the worker goroutines with the
	// cumulative number of examples done (of x.Len()) after each chunk.
	Progress func(done, total int64)
}

const (
	// pllChunk is the number of examples a worker takes at a time.
	pllChunk = 64
)

// pllMaxRowSum bounds Σ_j |W_ij| for the product of a row (e^600 ≈ 10^260,
// far from float64's overflow and underflow); a variable for the tests,
// which set it below 0 to sum every row term by term.
var pllMaxRowSum = 600.0

// PseudoLogLik returns the mean over examples of the pseudo-log-likelihood
// (see PLL) with every core. It costs O(D·H) per example: a cheap training
// signal, not a likelihood.
func PseudoLogLik(m *models.RBM, x data.Examples) MeanStat {
	return PLL{}.Mean(m, x)
}

// Mean returns the mean pseudo-log-likelihood of the examples x and its
// standard error over examples.
func (p PLL) Mean(m *models.RBM, x data.Examples) MeanStat {
	vals := p.PerExample(m, x)
	var s, s2 float64
	for _, v := range vals {
		s += v
		s2 += v * v
	}
	return meanStat(s, s2, len(vals))
}

// PerExample returns every example's pseudo-log-likelihood.
func (p PLL) PerExample(m *models.RBM, x data.Examples) []float64 {
	N, D, H := x.Len(), m.NVis, m.NHid
	out := make([]float64, N)
	if N == 0 {
		return out
	}
	// e^{±W} for the rows whose product stays in range; the others are
	// marked and summed term by term.
	ep, en := make([]float64, D*H), make([]float64, D*H)
	direct := make([]bool, D)
	for i := range D {
		row, sum := m.W[i*H:(i+1)*H], 0.0
		for _, w := range row {
			sum += math.Abs(w)
		}
		if !(sum <= pllMaxRowSum) {
			direct[i] = true
			continue
		}
		for j, w := range row {
			ep[i*H+j], en[i*H+j] = math.Exp(w), math.Exp(-w)
		}
	}
	chunks := (N + pllChunk - 1) / pllChunk
	var next, done atomic.Int64
	var wg workgroup.Group
	for range max(1, min(orMaxProcs(p.Workers), chunks)) {
		wg.Go(func() {
			k := newPLLKernel(m, ep, en, direct)
			for {
				c := int(next.Add(1) - 1)
				if c >= chunks {
					return
				}
				lo, hi := c*pllChunk, min(N, (c+1)*pllChunk)
				for n := lo; n < hi; n++ {
					out[n] = k.example(x.Row(n))
				}
				if p.Progress != nil {
					p.Progress(done.Add(int64(hi-lo)), int64(N))
				}
			}
		})
	}
	wg.Wait()
	return out
}

// pllKernel is one worker's scratch for PLL.
type pllKernel struct {
	m         *models.RBM
	ep, en    []float64
	direct    []bool
	v, pre    []float64
	sig, comp []float64 // σ(x_j), σ(−x_j)
}

func newPLLKernel(m *models.RBM, ep, en []float64, direct []bool) *pllKernel {
	H := m.NHid
	return &pllKernel{m: m, ep: ep, en: en, direct: direct, v: make([]float64, m.NVis),
		pre: make([]float64, H), sig: make([]float64, H), comp: make([]float64, H)}
}

// example returns the pseudo-log-likelihood of one example.
func (k *pllKernel) example(r []uint8) float64 {
	m, H := k.m, k.m.NHid
	for i, b := range r[:m.NVis] {
		k.v[i] = float64(b)
	}
	m.HiddenPreact(k.pre, k.v)
	kernel.SigPair(k.sig, k.comp, k.pre)
	sig, comp := k.sig[:H], k.comp[:H]
	pll := 0.0
	for i, vi := range k.v {
		if k.direct[i] {
			pll += pllTerm(m, i, vi, k.pre)
			continue
		}
		e := k.ep[i*H : (i+1)*H]
		if vi == 1 {
			e = k.en[i*H : (i+1)*H]
		}
		e = e[:H]
		// Four running products, for the multiplier's latency.
		p0, p1, p2, p3 := 1.0, 1.0, 1.0, 1.0
		j := 0
		for ; j+4 <= H; j += 4 {
			p0 *= comp[j] + sig[j]*e[j]
			p1 *= comp[j+1] + sig[j+1]*e[j+1]
			p2 *= comp[j+2] + sig[j+2]*e[j+2]
			p3 *= comp[j+3] + sig[j+3]*e[j+3]
		}
		for ; j < H; j++ {
			p0 *= comp[j] + sig[j]*e[j]
		}
		lp := math.Log((p0 * p1) * (p2 * p3))
		if vi == 1 {
			pll += nmath.LogSigmoid(m.VBias[i] - lp)
		} else {
			pll += nmath.LogSigmoid(-(m.VBias[i] + lp))
		}
	}
	return pll
}

// pllTerm is log p(v_i | v_{−i}) summed as 2H softplus terms from the
// hidden pre-activations pre of v: the direct formula, for rows whose
// product could leave float64's range.
func pllTerm(m *models.RBM, i int, vi float64, pre []float64) float64 {
	H := m.NHid
	row := m.W[i*H : (i+1)*H]
	d := m.VBias[i]
	if vi == 1 {
		for j, w := range row {
			d += nmath.Softplus(pre[j]) - nmath.Softplus(pre[j]-w)
		}
		return nmath.LogSigmoid(d)
	}
	for j, w := range row {
		d += nmath.Softplus(pre[j]+w) - nmath.Softplus(pre[j])
	}
	return nmath.LogSigmoid(-d)
}
