package sbn

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/logz-ml/logz/internal/nmath"
	"github.com/logz-ml/logz/models"
)

// Net is a sigmoid belief net; see the package doc. Slices are indexed by
// layer: W[l] is W_l (n_{l−1}×n_l, row-major; W[0] is nil), B[l] is b_l
// (l = 0 … L), S[l] is S_l (n_l×n_l row-major, strictly lower triangular),
// with S nil for a plain SBN.
type Net struct {
	Sizes []int
	W     [][]float64
	B     [][]float64
	S     [][]float64
	// Rec is the recognition network, nil when there is none.
	Rec *Recognition
	// Posterior says which posterior estimate of θ this net is, when a
	// trainer made it ("the last posterior sample" or "the mean of the
	// last N posterior samples"); "" for a net read from a file. It is
	// not saved.
	Posterior string
}

// Recognition is Q(h_l | h_{l−1}) = σ(C[l] + R[l]ᵀ h_{l−1} + T[l] h_l) for
// l = 1 … L: R[l] is n_{l−1}×n_l (the generative W_l's shape), C[l] has n_l
// entries, T nil or T[l] n_l×n_l strictly lower triangular. Index 0 is nil.
type Recognition struct {
	R [][]float64
	C [][]float64
	T [][]float64
}

// New returns a net with zero parameters and layer sizes n_0 … n_L
// (autoregressive when ar), without a recognition network.
func New(sizes []int, ar bool) *Net {
	L := len(sizes) - 1
	n := &Net{Sizes: append([]int(nil), sizes...), W: make([][]float64, L+1), B: make([][]float64, L+1)}
	for l := 0; l <= L; l++ {
		n.B[l] = make([]float64, sizes[l])
		if l > 0 {
			n.W[l] = make([]float64, sizes[l-1]*sizes[l])
		}
	}
	if ar {
		n.S = make([][]float64, L+1)
		for l := range n.S {
			n.S[l] = make([]float64, sizes[l]*sizes[l])
		}
	}
	return n
}

// NewRecognition returns a zero recognition network for n (autoregressive
// when ar).
func NewRecognition(sizes []int, ar bool) *Recognition {
	L := len(sizes) - 1
	r := &Recognition{R: make([][]float64, L+1), C: make([][]float64, L+1)}
	if ar {
		r.T = make([][]float64, L+1)
	}
	for l := 1; l <= L; l++ {
		r.R[l] = make([]float64, sizes[l-1]*sizes[l])
		r.C[l] = make([]float64, sizes[l])
		if ar {
			r.T[l] = make([]float64, sizes[l]*sizes[l])
		}
	}
	return r
}

// Layers is L, the number of latent layers.
func (n *Net) Layers() int { return len(n.Sizes) - 1 }

// AR reports whether the net is autoregressive.
func (n *Net) AR() bool { return n.S != nil }

// TypeName is "arsbn" for an autoregressive net, else "sbn".
func (n *Net) TypeName() string {
	if n.AR() {
		return "arsbn"
	}
	return "sbn"
}

// NumVisible is n_0.
func (n *Net) NumVisible() int { return n.Sizes[0] }

// Label names the net with its sizes, e.g. "sbn 784-200-200".
func (n *Net) Label() string {
	s := make([]string, len(n.Sizes))
	for i, v := range n.Sizes {
		s[i] = fmt.Sprint(v)
	}
	return n.TypeName() + " " + strings.Join(s, "-")
}

// Validate checks shapes, strict lower triangularity and that every
// parameter is finite and within models.MaxAbsParam.
func (n *Net) Validate() error {
	L := n.Layers()
	if L < 1 {
		return fmt.Errorf("%s: needs at least one latent layer, got sizes %v", n.TypeName(), n.Sizes)
	}
	for l, s := range n.Sizes {
		if s < 1 || s > models.MaxUnits {
			return fmt.Errorf("%s: layer %d has %d units; expected 1 … %d", n.TypeName(), l, s, models.MaxUnits)
		}
	}
	if len(n.W) != L+1 || len(n.B) != L+1 || (n.S != nil && len(n.S) != L+1) {
		return fmt.Errorf("%s: %d layers of sizes but %d W, %d b", n.TypeName(), L+1, len(n.W)-1, len(n.B))
	}
	check := func(name string, x []float64, rows, cols int) error {
		if len(x) != rows*cols {
			return fmt.Errorf("%s: %s has %d values, expected %d×%d", n.TypeName(), name, len(x), rows, cols)
		}
		if rows == 1 {
			cols = 0
		}
		return models.CheckValues(name, x, cols)
	}
	for l := 0; l <= L; l++ {
		if err := check(fmt.Sprintf("gen_b%d", l), n.B[l], 1, n.Sizes[l]); err != nil {
			return err
		}
		if l > 0 {
			if err := check(fmt.Sprintf("gen_W%d", l), n.W[l], n.Sizes[l-1], n.Sizes[l]); err != nil {
				return err
			}
		}
		if n.S != nil {
			if err := checkTriangular(fmt.Sprintf("gen_S%d", l), n.S[l], n.Sizes[l], check); err != nil {
				return fmt.Errorf("%s: %w", n.TypeName(), err)
			}
		}
	}
	if r := n.Rec; r != nil {
		if len(r.R) != L+1 || len(r.C) != L+1 || (r.T != nil && len(r.T) != L+1) {
			return fmt.Errorf("%s: the recognition network has %d layers, the net %d", n.TypeName(), len(r.R)-1, L)
		}
		for l := 1; l <= L; l++ {
			if err := check(fmt.Sprintf("rec_W%d", l), r.R[l], n.Sizes[l-1], n.Sizes[l]); err != nil {
				return err
			}
			if err := check(fmt.Sprintf("rec_c%d", l), r.C[l], 1, n.Sizes[l]); err != nil {
				return err
			}
			if r.T != nil {
				if err := checkTriangular(fmt.Sprintf("rec_S%d", l), r.T[l], n.Sizes[l], check); err != nil {
					return fmt.Errorf("%s: %w", n.TypeName(), err)
				}
			}
		}
	}
	return nil
}

func checkTriangular(name string, s []float64, k int, check func(string, []float64, int, int) error) error {
	if err := check(name, s, k, k); err != nil {
		return err
	}
	for i := range k {
		for j := i; j < k; j++ {
			if s[i*k+j] != 0 {
				return fmt.Errorf("%s[%d,%d] is %g; it must be strictly lower triangular (unit i depends only on units j < i)", name, i, j, s[i*k+j])
			}
		}
	}
	return nil
}

// Scratch holds the buffers of one goroutine's log-probability and
// sampling work on a net; reuse it so that hot loops do not allocate.
type Scratch struct {
	a []float64
}

// NewScratch returns buffers for n.
func (n *Net) NewScratch() *Scratch {
	m := 0
	for _, s := range n.Sizes {
		m = max(m, s)
	}
	return &Scratch{a: make([]float64, m)}
}

// inputs writes into a (length n_l) the part of layer l's activations that
// comes from above: b_l + W_{l+1} h_{l+1} (just b_l for the top layer),
// with the generative parameters scaled by scale (1 for the net itself;
// the AIS path uses scale = β).
func (n *Net) inputs(l int, above []float64, scale float64, a []float64) {
	copy(a, n.B[l])
	if l < n.Layers() {
		w, cols := n.W[l+1], n.Sizes[l+1]
		for i := range a {
			row := w[i*cols : (i+1)*cols]
			s := 0.0
			for j, h := range above {
				if h != 0 {
					s += h * row[j]
				}
			}
			a[i] += s
		}
	}
	if scale != 1 {
		for i := range a {
			a[i] *= scale
		}
	}
}

// LayerLogProb is log p(h_l | h_{l+1}) (log p(h_L) for l = L), with the
// generative parameters scaled by scale; above is ignored for the top.
func (n *Net) LayerLogProb(l int, h, above []float64, scale float64, sc *Scratch) float64 {
	k := n.Sizes[l]
	a := sc.a[:k]
	n.inputs(l, above, scale, a)
	lp := 0.0
	var s []float64
	if n.S != nil {
		s = n.S[l]
	}
	for i := range k {
		ai := a[i] + scale*lowerDot(s, k, i, h)
		lp += h[i]*ai - nmath.Softplus(ai)
	}
	return lp
}

// LogJoint is log p(h_0, …, h_L) with h[0] = x, every generative parameter
// scaled by scale (1: the net's own joint).
func (n *Net) LogJoint(h [][]float64, scale float64, sc *Scratch) float64 {
	lp := 0.0
	L := n.Layers()
	for l := 0; l <= L; l++ {
		var above []float64
		if l < L {
			above = h[l+1]
		}
		lp += n.LayerLogProb(l, h[l], above, scale, sc)
	}
	return lp
}

// SampleLayer draws h_l from p(h_l | h_{l+1}) in raster order (unit i after
// units j < i) and returns the log-probability of the draw, accumulated as
// it is drawn.
func (n *Net) SampleLayer(l int, h, above []float64, rng *rand.Rand, sc *Scratch) float64 {
	return n.sampleLayer(l, h, above, nil, rng, sc)
}

// SampleLayerProbs is SampleLayer that also sets probs[i] to the
// probability p(h_{l,i} = 1 | h_{l+1}, h_{l,<i}) unit i was drawn with
// (without within-layer weights, p(h_{l,i} = 1 | h_{l+1})).
func (n *Net) SampleLayerProbs(l int, h, above, probs []float64, rng *rand.Rand, sc *Scratch) float64 {
	return n.sampleLayer(l, h, above, probs, rng, sc)
}

func (n *Net) sampleLayer(l int, h, above, probs []float64, rng *rand.Rand, sc *Scratch) float64 {
	k := n.Sizes[l]
	a := sc.a[:k]
	n.inputs(l, above, 1, a)
	lp := 0.0
	var s []float64
	if n.S != nil {
		s = n.S[l]
	}
	for i := range k {
		ai := a[i] + lowerDot(s, k, i, h)
		if probs != nil {
			probs[i] = nmath.Sigmoid(ai)
		}
		if rng.Float64() < nmath.Sigmoid(ai) {
			h[i] = 1
		} else {
			h[i] = 0
		}
		lp += h[i]*ai - nmath.Softplus(ai)
	}
	return lp
}

// Sample draws (h_0 = x, h_1, …, h_L) from the net top-down into h (one
// slice of n_l values per layer) and returns log p of the draw.
func (n *Net) Sample(h [][]float64, rng *rand.Rand, sc *Scratch) float64 {
	lp := 0.0
	L := n.Layers()
	for l := L; l >= 0; l-- {
		var above []float64
		if l < L {
			above = h[l+1]
		}
		lp += n.SampleLayer(l, h[l], above, rng, sc)
	}
	return lp
}

// States returns one zeroed slice per layer, for Sample and LogJoint.
func (n *Net) States() [][]float64 {
	h := make([][]float64, len(n.Sizes))
	for l, s := range n.Sizes {
		h[l] = make([]float64, s)
	}
	return h
}

// recInputs writes into a (length n_l) c_l + R_lᵀ h_{l−1}.
func (r *Recognition) recInputs(l int, below []float64, a []float64) {
	copy(a, r.C[l])
	k := len(a)
	w := r.R[l]
	for i, x := range below {
		if x == 0 {
			continue
		}
		row := w[i*k : (i+1)*k]
		for j := range a {
			a[j] += x * row[j]
		}
	}
}

// SampleQ draws h_1 … h_L from Q given h[0] = x, layer by layer bottom-up
// and in raster order within a layer, and returns log Q of the draw.
func (n *Net) SampleQ(h [][]float64, rng *rand.Rand, sc *Scratch) float64 {
	return n.sampleQ(h, rng, sc, nil)
}

// qFirst holds what Q(h_1 | x) draws from for one x, the same for every
// proposal: the inputs c_1 + R_1ᵀx and, without within-layer weights, σ
// and softplus of them.
type qFirst struct {
	a, sig, sp []float64
}

// newQFirst sets q to the first layer's inputs for x = h0 (σ and softplus
// too when the layer has no T).
func (n *Net) newQFirst(q *qFirst, h0 []float64) {
	k := n.Sizes[1]
	if q.a == nil {
		q.a, q.sig, q.sp = make([]float64, k), make([]float64, k), make([]float64, k)
	}
	n.Rec.recInputs(1, h0, q.a)
	if n.Rec.T != nil {
		return
	}
	for i, ai := range q.a {
		q.sig[i], q.sp[i] = nmath.Sigmoid(ai), nmath.Softplus(ai)
	}
}

// sampleQ is SampleQ, with the first layer's inputs (and σ, softplus)
// from first when it is not nil: the same values, so the same draws and
// log Q.
func (n *Net) sampleQ(h [][]float64, rng *rand.Rand, sc *Scratch, first *qFirst) float64 {
	r := n.Rec
	lq := 0.0
	for l := 1; l <= n.Layers(); l++ {
		k := n.Sizes[l]
		a := sc.a[:k]
		if l == 1 && first != nil {
			a = first.a
		} else {
			r.recInputs(l, h[l-1], a)
		}
		var t []float64
		if r.T != nil {
			t = r.T[l]
		}
		if l == 1 && first != nil && t == nil {
			for i, ai := range a {
				if rng.Float64() < first.sig[i] {
					h[1][i] = 1
				} else {
					h[1][i] = 0
				}
				lq += h[1][i]*ai - first.sp[i]
			}
			continue
		}
		for i := range k {
			ai := a[i] + lowerDot(t, k, i, h[l])
			if rng.Float64() < nmath.Sigmoid(ai) {
				h[l][i] = 1
			} else {
				h[l][i] = 0
			}
			lq += h[l][i]*ai - nmath.Softplus(ai)
		}
	}
	return lq
}

// LogQ is log Q(h_1, …, h_L | h_0).
func (n *Net) LogQ(h [][]float64, sc *Scratch) float64 {
	r := n.Rec
	lq := 0.0
	for l := 1; l <= n.Layers(); l++ {
		k := n.Sizes[l]
		a := sc.a[:k]
		r.recInputs(l, h[l-1], a)
		var t []float64
		if r.T != nil {
			t = r.T[l]
		}
		for i := range k {
			ai := a[i] + lowerDot(t, k, i, h[l])
			lq += h[l][i]*ai - nmath.Softplus(ai)
		}
	}
	return lq
}

// lowerDot is Σ_{j<i} s_ij h_j, the within-layer input of unit i from the
// units before it (s a k×k strictly lower-triangular matrix; 0 when s is
// nil, a layer without within-layer weights).
func lowerDot(s []float64, k, i int, h []float64) float64 {
	if s == nil {
		return 0
	}
	row := s[i*k : i*k+i]
	t := 0.0
	for j, hj := range h[:i] {
		if hj != 0 {
			t += hj * row[j]
		}
	}
	return t
}
