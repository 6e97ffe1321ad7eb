package sbn

import (
	"github.com/logz-ml/logz/internal/kernel"
)

// The gradient of a chunk's kept Gibbs states, batched.
//
// A chunk of K examples keeps S states each: M = K·S joint states, state
// m = k·S + s. The one-state path (forward, then addGrad) sums, for every
// state, the rows of W_lᵀ its binary layer above selects, and adds its δ
// to the gradient rows of the units at 1: each state streams most of W
// and of the gradient through the caches. Here every layer's activations
// of all M states are summed at once and every gradient row takes the δ
// of all the states that select it (internal/seqsum, which keeps a tile
// of the matrix in L1 across them). Every accumulator — an activation, a
// log p, a gradient entry — still sees the same operations in the same
// order as along the one-state path, state after state, so the results
// are its bits.

// gradBatch holds the buffers of addGradBatch.
type gradBatch struct {
	act   [][]float64 // per layer: M × n_l activations, then σ, then the weighted δ
	lp    []float64   // M: log p(h) of each state
	on    [][]int32   // per layer: the units at 1 of every state, one after another
	span  [][]int32   // per layer: state m's units at 1 are on[l][span[2m]:span[2m+1]]
	sel   [][]int32   // per layer l ≥ 1: for each unit j, the states at 1 there, in order
	sspan [][]int32   // per layer l ≥ 1: unit j's states are sel[l][sspan[2j]:sspan[2j+1]]
	count []int32
	loff  []int   // per layer l ≥ 1: its offset in a flat latent state
	cur   []int32 // M: the cursors of addLowerAll and addLowerGrad
}

func (n *Net) newGradBatch(M int) *gradBatch {
	b := &gradBatch{lp: make([]float64, M), cur: make([]int32, M)}
	widest := 0
	for _, k := range n.Sizes {
		b.act = append(b.act, make([]float64, M*k))
		b.on = append(b.on, make([]int32, 0, M*k))
		b.span = append(b.span, make([]int32, 2*M))
		b.sel = append(b.sel, make([]int32, M*k))
		b.sspan = append(b.sspan, make([]int32, 2*k))
		widest = max(widest, k)
	}
	b.count = make([]int32, widest)
	b.loff = make([]int, len(n.Sizes))
	for l := 2; l < len(n.Sizes); l++ {
		b.loff[l] = b.loff[l-1] + n.Sizes[l-1]
	}
	return b
}

// addGradBatch adds w·∇_θ log p(h) of the M = K·S joint states of a chunk
// to g (its W blocks transposed, as addGrad) and, with wantLP, leaves
// log p(h) of state m in b.lp[m]: state m = k·S + s has h_0 = xs[k·n_0 :
// (k+1)·n_0] and its latent layers, layer 1 first, in kept[m·H : (m+1)·H].
// wt[l] is W_lᵀ. The results are the bits of forward and addGrad applied
// to each state in turn (see the top of the file). With sig0 (M × n_0, and
// wantLP false) the visible layer's σ(a) of state m are taken from
// sig0[m·n_0:] instead of being summed (the Gibbs chains keep
// them).
func (n *Net) addGradBatch(b *gradBatch, xs []float64, K, S int, kept []float64, wt [][]float64, w float64, g *Net, wantLP bool, sig0 []float64) {
	L := n.Layers()
	M := K * S
	H := b.loff[L] + n.Sizes[L]
	// state returns layer l of state m.
	state := func(l, m int) []float64 {
		k := n.Sizes[l]
		if l == 0 {
			return xs[(m/S)*k : (m/S+1)*k]
		}
		o := m*H + b.loff[l]
		return kept[o : o+k]
	}
	// The units at 1 of every state and layer, and for l ≥ 1 the states
	// at 1 of every unit, in order.
	for l := 0; l <= L; l++ {
		on := b.on[l][:0]
		for m := range M {
			b.span[l][2*m] = int32(len(on))
			for i, x := range state(l, m) {
				if x != 0 {
					on = append(on, int32(i))
				}
			}
			b.span[l][2*m+1] = int32(len(on))
		}
		b.on[l] = on
		if l == 0 {
			continue
		}
		k := n.Sizes[l]
		cnt := b.count[:k]
		clear(cnt)
		for _, i := range on {
			cnt[i]++
		}
		o := int32(0)
		for j := range k {
			b.sspan[l][2*j], b.sspan[l][2*j+1] = o, o
			o += cnt[j]
		}
		for m := range M {
			for _, i := range on[b.span[l][2*m]:b.span[l][2*m+1]] {
				e := &b.sspan[l][2*i+1]
				b.sel[l][*e] = int32(m)
				*e++
			}
		}
	}
	// forward: a_l = b_l + Σ_{j on} W_{l+1}ᵀ rows (+ S_l h_l), σ(a_l), log p.
	lp := b.lp[:M]
	clear(lp)
	for l := 0; l <= L; l++ {
		k := n.Sizes[l]
		A := b.act[l][:M*k]
		if l == 0 && sig0 != nil && !wantLP {
			copy(A, sig0[:M*k])
			continue
		}
		for m := range M {
			copy(A[m*k:(m+1)*k], n.B[l])
		}
		if l < L {
			kernel.AddSelected(A, k, wt[l+1], k, k, b.on[l+1], b.span[l+1][:2*M])
		}
		if n.S != nil {
			addLowerAll(A, n.S[l], k, M, group(l, S), b.on[l], b.span[l], b.cur)
		}
		if !wantLP {
			// σ alone (the bits of bernTerm's), four at a time.
			kernel.SigmoidBern(A, A)
			continue
		}
		for m := range M {
			a, h := A[m*k:(m+1)*k], state(l, m)
			lpm := lp[m]
			for i := range k {
				t, sig := bernTerm(h[i], a[i])
				lpm += t
				a[i] = sig
			}
			lp[m] = lpm
		}
	}
	// addGrad: δ = w·(h − σ(a)) into b_l, the W_{l+1}ᵀ rows of the units at
	// 1 above, and S_l.
	for l := 0; l <= L; l++ {
		k := n.Sizes[l]
		A := b.act[l][:M*k]
		gb := g.B[l][:k]
		for m := range M {
			d, h := A[m*k:(m+1)*k], state(l, m)
			for i := range d {
				x := w * (h[i] - d[i])
				d[i] = x
				gb[i] += x
			}
		}
		if l < L {
			kernel.AddSelected(g.W[l+1], k, A, k, k, b.sel[l+1], b.sspan[l+1][:2*n.Sizes[l+1]])
		}
		if g.S != nil {
			addLowerGrad(g.S[l], A, k, M, group(l, S), b.on[l], b.span[l], b.cur)
		}
	}
}

// group returns how many consecutive states share layer l's units at 1:
// the S states of an example share its visible layer (the data), and
// every latent layer is a state's own.
func group(l, S int) int {
	if l == 0 {
		return S
	}
	return 1
}
