package sbn

import (
	"math"
	"math/rand/v2"

	"github.com/logz-ml/logz/internal/kernel"
	"github.com/logz-ml/logz/internal/nmath"
)

// Gradients of log p(x, h) and log Q(h | x) for binary states.
//
// Every Bernoulli term is h_i·a_i − softplus(a_i), whose derivative with
// respect to the activation a_i is h_i − σ(a_i). The activation of unit i of
// layer l is
//
//	a_{l,i} = b_{l,i} + Σ_j W_{l+1}[i,j] h_{l+1,j} + Σ_{k<i} S_l[i,k] h_{l,k}
//
// so, with δ_{l,i} = h_{l,i} − σ(a_{l,i}),
//
//	∂ log p(h)/∂b_{l,i}      = δ_{l,i}
//	∂ log p(h)/∂W_{l+1}[i,j] = δ_{l,i} h_{l+1,j}
//	∂ log p(h)/∂S_l[i,k]     = δ_{l,i} h_{l,k}   (k < i; 0 on and above the diagonal)
//
// and likewise for the recognition network, q_{l,j} = c_{l,j} +
// Σ_i R_l[i,j] h_{l−1,i} + Σ_{k<j} T_l[j,k] h_{l,k}, ε_{l,j} = h_{l,j} − σ(q_{l,j}):
//
//	∂ log Q/∂c_{l,j} = ε_{l,j},  ∂ log Q/∂R_l[i,j] = h_{l−1,i} ε_{l,j},  ∂ log Q/∂T_l[j,k] = ε_{l,j} h_{l,k} (k < j).
//
// The states are binary, so the products with h are sums over the units
// that are on: GradScratch keeps their indices.

// GradScratch holds one goroutine's buffers for the gradient and sampling
// work of a net: per-layer σ(activations) and the indices of the units at 1.
type GradScratch struct {
	p  [][]float64 // σ(a_l) of the generative net, l = 0 … L
	pq [][]float64 // σ(q_l) of the recognition net, l = 1 … L (pq[0] unused)
	on [][]int32   // indices of the units at 1, per layer
	wt [][]float64 // W_lᵀ and a transposed gradient, for AddGradLogJoint
	gt *Net
}

// NewGradScratch returns buffers for n.
func (n *Net) NewGradScratch() *GradScratch {
	g := &GradScratch{}
	g.p, g.pq, g.on = layerBufs(n.Sizes), layerBufs(n.Sizes), make([][]int32, len(n.Sizes))
	for l, s := range n.Sizes {
		g.on[l] = make([]int32, 0, s)
	}
	return g
}

func layerBufs(sizes []int) [][]float64 {
	b := make([][]float64, len(sizes))
	for l, s := range sizes {
		b[l] = make([]float64, s)
	}
	return b
}

// onUnits returns the indices of the units of h at 1, reusing on.
func onUnits(h []float64, on []int32) []int32 {
	on = on[:0]
	for i, x := range h {
		if x != 0 {
			on = append(on, int32(i))
		}
	}
	return on
}

// bernTerm returns x·a − softplus(a) and σ(a) with one exp.
func bernTerm(x, a float64) (lp, sig float64) {
	e := math.Exp(-math.Abs(a))
	r := 1 / (1 + e)
	sp := math.Log1p(e)
	if a > 0 {
		sp += a
		sig = r
	} else {
		sig = e * r
	}
	return x*a - sp, sig
}

// The hot paths work with W_lᵀ (n_l × n_{l−1}, row j holding unit j's
// outgoing weights): a binary parent at 1 adds a contiguous row to the
// children's activations, and its gradient row receives the children's δ,
// both streaming through memory instead of gathering one entry per row.

// forward computes, for the joint state h (h[0] = x) whose on-lists are in
// on, σ(a_l) into p for every layer and returns log p(h); wt[l] is W_lᵀ.
func (n *Net) forward(h, p [][]float64, on [][]int32, wt [][]float64) float64 {
	L := n.Layers()
	lp := 0.0
	for l := 0; l <= L; l++ {
		k := n.Sizes[l]
		a := p[l][:k]
		copy(a, n.B[l])
		if l < L {
			kernel.AddRows(a, wt[l+1], on[l+1])
		}
		var s []float64
		if n.S != nil {
			s = n.S[l]
		}
		onl, hl := on[l], h[l]
		for i := range k {
			ai := a[i]
			if s != nil {
				row := s[i*k : i*k+i]
				for _, j := range onl {
					if int(j) >= i {
						break
					}
					ai += row[j]
				}
			}
			t, sig := bernTerm(hl[i], ai)
			lp += t
			a[i] = sig
		}
	}
	return lp
}

// addGrad adds wt·∇_θ log p(h) into g, from σ(a) in p (see forward). g's
// W blocks hold the transposed gradient: g.W[l][j·n_{l−1} + i] is
// ∂/∂W_l[i,j]; its B and S are as in a net.
func (n *Net) addGrad(h, p [][]float64, on [][]int32, wt float64, g *Net) {
	L := n.Layers()
	for l := 0; l <= L; l++ {
		k := n.Sizes[l]
		gb, pl, hl := g.B[l][:k], p[l][:k], h[l][:k]
		// gb += wt·δ; p[l] becomes wt·δ for the rows below.
		for i := range pl {
			d := wt * (hl[i] - pl[i])
			pl[i] = d
			gb[i] += d
		}
		if l < L {
			gw := g.W[l+1]
			for _, j := range on[l+1] {
				row := gw[int(j)*k : (int(j)+1)*k]
				for i := range row {
					row[i] += pl[i]
				}
			}
		}
		if g.S != nil {
			gs, onl := g.S[l], on[l]
			for i := range k {
				row := gs[i*k : i*k+i]
				d := pl[i]
				for _, j := range onl {
					if int(j) >= i {
						break
					}
					row[j] += d
				}
			}
		}
	}
}

// transpose writes wᵀ (w is r×c row-major) into t.
func transpose(w []float64, r, c int, t []float64) {
	for i := range r {
		for j, x := range w[i*c : (i+1)*c] {
			t[j*r+i] = x
		}
	}
}

// AddGradLogJoint adds wt·∇_θ log p(h) to g, a net of n's shape used as a
// gradient (its S strictly lower triangular like n's), and returns
// log p(h). h[0] is x; every state must be 0 or 1. See the comment at the
// top of grad.go for the formulas. Each call transposes W (O(|W|) on top
// of the gradient itself); the trainer amortises that over a minibatch.
func (n *Net) AddGradLogJoint(h [][]float64, wt float64, g *Net, gs *GradScratch) float64 {
	if gs.wt == nil {
		gs.wt, gs.gt = make([][]float64, len(n.Sizes)), New(n.Sizes, n.AR())
		for l := 1; l < len(n.Sizes); l++ {
			gs.wt[l] = make([]float64, len(n.W[l]))
		}
	}
	for l := 1; l < len(n.Sizes); l++ {
		transpose(n.W[l], n.Sizes[l-1], n.Sizes[l], gs.wt[l])
	}
	for l := range h {
		gs.on[l] = onUnits(h[l], gs.on[l])
	}
	zeroNet(gs.gt)
	lp := n.forward(h, gs.p, gs.on, gs.wt)
	n.addGrad(h, gs.p, gs.on, wt, gs.gt)
	for l := range g.B {
		axpy(g.B[l], gs.gt.B[l])
		if l > 0 {
			addTransposed(g.W[l], gs.gt.W[l], n.Sizes[l], n.Sizes[l-1])
		}
		if g.S != nil {
			axpy(g.S[l], gs.gt.S[l])
		}
	}
	return lp
}

// addTransposed adds tᵀ (t is r×c row-major) to a (c×r).
func addTransposed(a, t []float64, r, c int) {
	for j := range r {
		for i, x := range t[j*c : (j+1)*c] {
			a[i*r+j] += x
		}
	}
}

// forwardQ computes σ(q_l) into pq for l ≥ 1 and returns log Q(h_1…h_L | h_0);
// with rng non-nil it first draws h_l (l ≥ 1) from Q in raster order, filling
// on as it goes (on[0] must already list x's units).
func (n *Net) forwardQ(h, pq [][]float64, on [][]int32, rng *rand.Rand) float64 {
	r := n.Rec
	lq := 0.0
	for l := 1; l <= n.Layers(); l++ {
		k := n.Sizes[l]
		q := pq[l]
		copy(q, r.C[l])
		kernel.AddRows(q, r.R[l], on[l-1])
		var t []float64
		if r.T != nil {
			t = r.T[l]
		}
		hl := h[l]
		onl := on[l][:0]
		for j := range k {
			a := q[j]
			if t != nil {
				row := t[j*k : j*k+j]
				for _, m := range onl {
					a += row[m]
				}
			}
			if rng != nil {
				// Draw with the same σ as the density below.
				if rng.Float64() < nmath.Sigmoid(a) {
					hl[j] = 1
				} else {
					hl[j] = 0
				}
			}
			if hl[j] != 0 {
				onl = append(onl, int32(j))
			}
			tm, sig := bernTerm(hl[j], a)
			lq += tm
			q[j] = sig
		}
		on[l] = onl
	}
	return lq
}

// addGradQ adds wt·∇_φ log Q(h | x) into g from σ(q) in pq (see forwardQ).
func (n *Net) addGradQ(h, pq [][]float64, on [][]int32, wt float64, g *Recognition) {
	for l := 1; l <= n.Layers(); l++ {
		k := n.Sizes[l]
		gc, q, hl := g.C[l], pq[l], h[l]
		var gt []float64
		if g.T != nil {
			gt = g.T[l]
		}
		for j := range k {
			d := wt * (hl[j] - q[j])
			q[j] = d // pq now holds wt·ε for the R update below
			gc[j] += d
			if gt != nil {
				row := gt[j*k : j*k+j]
				for _, m := range on[l] {
					if int(m) >= j {
						break
					}
					row[m] += d
				}
			}
		}
		gw := g.R[l]
		for _, i := range on[l-1] {
			row := gw[int(i)*k : (int(i)+1)*k]
			for j, d := range q {
				row[j] += d
			}
		}
	}
}

// AddGradLogQ adds wt·∇_φ log Q(h_1…h_L | h_0) to g, a recognition network
// of n.Rec's shape, and returns log Q. See the top of grad.go.
func (n *Net) AddGradLogQ(h [][]float64, wt float64, g *Recognition, gs *GradScratch) float64 {
	for l := range h {
		gs.on[l] = onUnits(h[l], gs.on[l])
	}
	lq := n.forwardQ(h, gs.pq, gs.on, nil)
	n.addGradQ(h, gs.pq, gs.on, wt, g)
	return lq
}
