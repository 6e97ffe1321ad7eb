// Package mlp is a small dense multilayer perceptron for logz's neural
// proposals and, next, a VAE's encoder and decoder.
//
// A net with sizes n_0 … n_L has L layers; layer l maps u_{l−1} ∈ R^{n_{l−1}}
// to
//
//	z_l = u_{l−1} W_l + b_l,   u_l = tanh(z_l) for l < L,   y = z_L,
//
// with u_0 = x the input and W_l stored n_{l−1}×n_l row-major. The last
// layer is linear: the caller applies its own head (sigmoid logits, Gaussian
// mean and log-scale, ...). Backpropagation, given δ_L = ∂L/∂y, is
//
//	∂L/∂W_l = u_{l−1}ᵀ δ_l,   ∂L/∂b_l = δ_l,
//	δ_{l−1} = (δ_l W_lᵀ) ⊙ (1 − u_{l−1}²),   ∂L/∂x = δ_1 W_1ᵀ.
//
// A binary input x ∈ {0,1}^{n_0} makes the first product a sum of the rows
// of W_1 selected by x (and its gradient a sum of δ_1 over those rows),
// which for 784 sparse binary pixels is much cheaper than the dense product.
//
// All parameters live in ONE flat slice laid out W_1, b_1, W_2, b_2, …, so
// an optimiser updates it in place and a caller can pack several nets into
// one vector; W and B are views into it. Forward and Backward work in a
// caller-owned scratch slice (activations kept for backprop) and never
// allocate.
package mlp

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// Net is a dense tanh MLP with a linear last layer; see the package doc.
// Its parameters are views into the slice given to New.
type Net struct {
	sizes  []int
	params []float64
	// W[l] is W_{l+1} (sizes[l]×sizes[l+1], row-major); B[l] is b_{l+1}.
	W, B [][]float64
	// actOff[l] is the offset in the scratch of u_{l+1} (l < L−1) or of y
	// (l = L−1); deltaOff[l] that of δ_{l+1} for the hidden layers.
	actOff, deltaOff []int
	// pOff[l] is the offset of W[l] in params (B[l] follows it).
	pOff    []int
	scratch int
}

// NumParams is the length of the flat parameter vector of a net with these
// sizes: Σ_l (n_{l−1} + 1) n_l.
func NumParams(sizes []int) int {
	n := 0
	for l := 1; l < len(sizes); l++ {
		n += (sizes[l-1] + 1) * sizes[l]
	}
	return n
}

// New returns a net with sizes n_0 … n_L (at least one layer, every size
// positive) whose parameters are views into params, which must have length
// NumParams(sizes). The values in params are kept (use Init to draw them).
func New(sizes []int, params []float64) (*Net, error) {
	if len(sizes) < 2 {
		return nil, fmt.Errorf("mlp: %d sizes, want at least 2 (input and output)", len(sizes))
	}
	for i, s := range sizes {
		if s <= 0 {
			return nil, fmt.Errorf("mlp: size %d is %d, want > 0", i, s)
		}
	}
	if np := NumParams(sizes); len(params) != np {
		return nil, fmt.Errorf("mlp: %d parameters for sizes %v, want %d", len(params), sizes, np)
	}
	L := len(sizes) - 1
	n := &Net{sizes: append([]int(nil), sizes...), params: params,
		W: make([][]float64, L), B: make([][]float64, L),
		actOff: make([]int, L), deltaOff: make([]int, L), pOff: make([]int, L)}
	off := 0
	for l := 0; l < L; l++ {
		in, out := sizes[l], sizes[l+1]
		n.pOff[l] = off
		n.W[l] = params[off : off+in*out : off+in*out]
		off += in * out
		n.B[l] = params[off : off+out : off+out]
		off += out
	}
	s := 0
	for l := 0; l < L; l++ {
		n.actOff[l] = s
		s += sizes[l+1]
	}
	for l := 0; l < L-1; l++ {
		n.deltaOff[l] = s
		s += sizes[l+1]
	}
	n.scratch = s
	return n, nil
}

// MustNew is New for sizes and a parameter slice known to be valid; it
// panics on an error.
func MustNew(sizes []int, params []float64) *Net {
	n, err := New(sizes, params)
	if err != nil {
		panic(err)
	}
	return n
}

// Sizes returns n_0 … n_L (the caller must not change it).
func (n *Net) Sizes() []int { return n.sizes }

// In is n_0, the input size.
func (n *Net) In() int { return n.sizes[0] }

// Out is n_L, the output size.
func (n *Net) Out() int { return n.sizes[len(n.sizes)-1] }

// Params is the flat parameter vector given to New.
func (n *Net) Params() []float64 { return n.params }

// NumParams is len(Params()).
func (n *Net) NumParams() int { return len(n.params) }

// ScratchLen is the length of the scratch that Forward and Backward use:
// the outputs u_1 … u_{L−1}, y of every layer, then room for the deltas of
// the hidden layers.
func (n *Net) ScratchLen() int { return n.scratch }

// Init draws every W_l entry from N(0, 1/n_{l−1}) (LeCun normal: unit
// variance pre-activations for unit-variance inputs) and sets every bias
// to 0.
func (n *Net) Init(rng *rand.Rand) {
	for l, w := range n.W {
		sd := 1 / math.Sqrt(float64(n.sizes[l]))
		for i := range w {
			w[i] = sd * rng.NormFloat64()
		}
		clear(n.B[l])
	}
}

// Array is one named parameter array, a view into Params: W1 … WL
// (shape [n_{l−1}, n_l]) and b1 … bL (shape [n_l]).
type Array struct {
	Name  string
	Shape []int
	Data  []float64
}

// Arrays returns the parameter arrays W1, b1, …, WL, bL, each named with
// prefix (e.g. "enc_" gives enc_W1) and a view into Params, for checkpoints.
func (n *Net) Arrays(prefix string) []Array {
	a := make([]Array, 0, 2*len(n.W))
	for l := range n.W {
		a = append(a,
			Array{Name: fmt.Sprintf("%sW%d", prefix, l+1), Shape: []int{n.sizes[l], n.sizes[l+1]}, Data: n.W[l]},
			Array{Name: fmt.Sprintf("%sb%d", prefix, l+1), Shape: []int{n.sizes[l+1]}, Data: n.B[l]})
	}
	return a
}

// Forward computes y for the input x (len In()) into s (len ScratchLen()),
// keeping the activations there for Backward, and returns y, a view into s.
func (n *Net) Forward(s, x []float64) []float64 {
	in := x[:n.sizes[0]]
	out := s[n.actOff[0] : n.actOff[0]+n.sizes[1]]
	copy(out, n.B[0])
	w := n.W[0]
	m := len(out)
	for i, xi := range in {
		if xi != 0 {
			axpy(out, w[i*m:(i+1)*m], xi)
		}
	}
	return n.rest(s, out)
}

// Output returns the view of s that holds y after a forward pass.
func (n *Net) Output(s []float64) []float64 {
	o := n.actOff[len(n.actOff)-1]
	return s[o : o+n.Out()]
}

// ForwardBinary is Forward for a binary input x ∈ {0,1}^{n_0} (any non-zero
// byte counts as 1): the first layer is b_1 plus the rows of W_1 that x
// selects.
func (n *Net) ForwardBinary(s []float64, x []uint8) []float64 {
	in := x[:n.sizes[0]]
	out := s[n.actOff[0] : n.actOff[0]+n.sizes[1]]
	copy(out, n.B[0])
	w := n.W[0]
	m := len(out)
	for i, xi := range in {
		if xi != 0 {
			add(out, w[i*m:(i+1)*m])
		}
	}
	return n.rest(s, out)
}

// rest finishes a forward pass whose first pre-activation z_1 is in out.
func (n *Net) rest(s, out []float64) []float64 {
	for l := 1; l < len(n.W); l++ {
		u := out
		for i, z := range u {
			u[i] = math.Tanh(z)
		}
		m := n.sizes[l+1]
		out = s[n.actOff[l] : n.actOff[l]+m]
		copy(out, n.B[l])
		w := n.W[l]
		for i, ui := range u {
			axpy(out, w[i*m:(i+1)*m], ui)
		}
	}
	return out
}

// Backward adds to g (len NumParams(), laid out like Params) the gradient
// ∂L/∂θ given dy = ∂L/∂y, for the forward pass of x whose activations s
// holds, and, when dx is not nil, sets dx (len In()) to ∂L/∂x. It reads
// the activations without changing them (it may be called again on the
// same s) and uses the rest of s for the deltas.
func (n *Net) Backward(g, dx, s, x, dy []float64) {
	d := n.backHidden(g, s, dy)
	m := n.sizes[1]
	gw, gb := n.gradViews(g, 0)
	add(gb, d)
	for i, xi := range x[:n.sizes[0]] {
		if xi != 0 {
			axpy(gw[i*m:(i+1)*m], d, xi)
		}
	}
	if dx != nil {
		n.inputGrad(dx, d)
	}
}

// BackwardBinary is Backward for a binary input x (the forward pass of
// ForwardBinary): the W_1 gradient is δ_1 added to the rows x selects. When
// dx is not nil it gets ∂L/∂x as if x were continuous.
func (n *Net) BackwardBinary(g, dx, s []float64, x []uint8, dy []float64) {
	d := n.backHidden(g, s, dy)
	m := n.sizes[1]
	gw, gb := n.gradViews(g, 0)
	add(gb, d)
	for i, xi := range x[:n.sizes[0]] {
		if xi != 0 {
			add(gw[i*m:(i+1)*m], d)
		}
	}
	if dx != nil {
		n.inputGrad(dx, d)
	}
}

// gradViews returns the views of g that match W[l] and B[l].
func (n *Net) gradViews(g []float64, l int) (gw, gb []float64) {
	off := n.pOff[l]
	in, out := n.sizes[l], n.sizes[l+1]
	return g[off : off+in*out], g[off+in*out : off+in*out+out]
}

// backHidden accumulates the gradients of layers L … 2 and returns δ_1
// (dy itself for a one-layer net).
func (n *Net) backHidden(g, s, dy []float64) []float64 {
	L := len(n.W)
	d := dy[:n.sizes[L]]
	for l := L - 1; l >= 1; l-- {
		// Layer l+1 (index l) maps u_l (in s at actOff[l−1]) to z_{l+1}.
		in, m := n.sizes[l], n.sizes[l+1]
		u := s[n.actOff[l-1] : n.actOff[l-1]+in]
		dPrev := s[n.deltaOff[l-1] : n.deltaOff[l-1]+in]
		gw, gb := n.gradViews(g, l)
		add(gb, d)
		w := n.W[l]
		for i, ui := range u {
			dPrev[i] = axpyDot(gw[i*m:(i+1)*m], w[i*m:(i+1)*m], d[:m], ui) * (1 - ui*ui)
		}
		d = dPrev
	}
	return d
}

// inputGrad sets dx = δ_1 W_1ᵀ.
func (n *Net) inputGrad(dx, d []float64) {
	m := n.sizes[1]
	w := n.W[0]
	for i := range dx[:n.sizes[0]] {
		dx[i] = dot(w[i*m:(i+1)*m], d)
	}
}

// axpy sets y += a·x (len(x) ≥ len(y)), unrolled by 4.
func axpy(y, x []float64, a float64) {
	x = x[:len(y)]
	i := 0
	for ; i+4 <= len(y); i += 4 {
		y0, y1, y2, y3 := y[i]+a*x[i], y[i+1]+a*x[i+1], y[i+2]+a*x[i+2], y[i+3]+a*x[i+3]
		y[i], y[i+1], y[i+2], y[i+3] = y0, y1, y2, y3
	}
	for ; i < len(y); i++ {
		y[i] += a * x[i]
	}
}

// axpyDot sets g += a·d and returns w·d in one pass (len(d) = len(g) =
// len(w)), unrolled by 4 with four partial sums.
func axpyDot(g, w, d []float64, a float64) float64 {
	w, g = w[:len(d)], g[:len(d)]
	var s0, s1, s2, s3 float64
	j := 0
	for ; j+4 <= len(d); j += 4 {
		d0, d1, d2, d3 := d[j], d[j+1], d[j+2], d[j+3]
		g[j] += a * d0
		g[j+1] += a * d1
		g[j+2] += a * d2
		g[j+3] += a * d3
		s0 += w[j] * d0
		s1 += w[j+1] * d1
		s2 += w[j+2] * d2
		s3 += w[j+3] * d3
	}
	for ; j < len(d); j++ {
		g[j] += a * d[j]
		s0 += w[j] * d[j]
	}
	return (s0 + s1) + (s2 + s3)
}

// add sets y += x (len(x) ≥ len(y)).
func add(y, x []float64) {
	x = x[:len(y)]
	for i := range y {
		y[i] += x[i]
	}
}

// dot returns Σ_i x_i y_i (len(y) ≥ len(x)).
func dot(x, y []float64) float64 {
	y = y[:len(x)]
	s := 0.0
	for i := range x {
		s += x[i] * y[i]
	}
	return s
}

// FirstBinary sets dst (len n_1) to the first layer's pre-activation for a
// binary input x, b_1 + Σ_{i: x_i ≠ 0} W_1[i,·], as ForwardBinary sums it.
// With ForwardPre it lets a caller add its own term to z_1 (an auxiliary
// input entering the first layer) and reuse the x part across passes.
func (n *Net) FirstBinary(dst []float64, x []uint8) {
	out := dst[:n.sizes[1]]
	copy(out, n.B[0])
	w := n.W[0]
	m := len(out)
	for i, xi := range x[:n.sizes[0]] {
		if xi != 0 {
			add(out, w[i*m:(i+1)*m])
		}
	}
}

// ForwardPre is a forward pass whose first pre-activation z_1 is given
// (len n_1, copied into s): the later layers as Forward, y returned as a
// view into s. For a one-layer net y = z_1.
func (n *Net) ForwardPre(s, pre []float64) []float64 {
	out := s[n.actOff[0] : n.actOff[0]+n.sizes[1]]
	copy(out, pre)
	return n.rest(s, out)
}

// BackwardPre adds to g the gradients of layers 2 … L given dy, for the
// forward pass whose activations s holds (ForwardPre or any Forward), and
// returns δ_1 = ∂L/∂z_1 (a view into s, or dy itself for a one-layer net),
// valid until the next backward pass on s. The first layer's gradient is
// left to the caller (FirstBackwardBinary).
func (n *Net) BackwardPre(g, s, dy []float64) []float64 {
	return n.backHidden(g, s, dy)
}

// FirstBackwardBinary adds the first layer's gradient for δ_1 = d and a
// binary input x to g: d to b_1's gradient and to the rows of W_1's that
// x selects.
func (n *Net) FirstBackwardBinary(g []float64, x []uint8, d []float64) {
	m := n.sizes[1]
	gw, gb := n.gradViews(g, 0)
	add(gb, d[:m])
	for i, xi := range x[:n.sizes[0]] {
		if xi != 0 {
			add(gw[i*m:(i+1)*m], d[:m])
		}
	}
}
