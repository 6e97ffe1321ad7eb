package sbn

import "github.com/logz-ml/logz/internal/kernel"

// The float32 engine's products with the latent states, for all the
// minibatch's rows at once: the generative activations h_{l+1}·W_{l+1}ᵀ
// (l < L) of every row r = k·S + s, and ∂W_l = δ_{l−1}ᵀ·h_l. The latent
// states are binary and about half on, so that both are products of a
// binary matrix with a float32 one, computed by kernel.BinMul32 (four
// Russians: per four units, the 16 sums of their subsets of rows, then one
// addition of eight lanes per row and four units, where a GEMM takes four
// fused multiply–adds and a sum of selected rows reads half the matrix per
// row at the cache's bandwidth). The binary matrices enter as codes:
// codesA[l] those of h_l's rows (written as each row is drawn), codesW[l]
// those of h_lᵀ (units by rows of the minibatch; the items jobCodesW,
// before the activations). The float32 sums run in another order than the
// row sums' (four rows per pass), so the float32 numbers differ from
// theirs in their last bits; the float64 engine keeps its row sums. The
// products with the examples' x (about 13% on in MNIST: R_1ᵀx, ∂R_1) and
// those of the recognition layers above the first and of the
// autoregressive S_l and T_l stay row sums.

// binCols is the number of columns of W_l's rows per ∂W_l item (every
// unit) and of h_{l+1}·W_{l+1}ᵀ per activation item; codeUnits the number
// of units of h_lᵀ per codes item.
const binCols, codeUnits = 64, 8

// binJobs adds the items of ∂W_l (columns of W_l's rows by binCols) to the
// gradient phase, and those of h_lᵀ's codes and of the activations
// h_l·W_lᵀ of layer l−1 to the phase binA.
func (f *isEngine[F]) binJobs(l int) {
	m, k := f.sizes[l-1], f.sizes[l]
	for c0 := 0; c0 < m; c0 += binCols {
		f.grads = append(f.grads, isJob{kind: jobBinW, l: l, c0: c0, c1: min(c0+binCols, m)})
		f.binA = append(f.binA, isJob{kind: jobBinA, l: l - 1, c0: c0, c1: min(c0+binCols, m)})
	}
	for lo := 0; lo < k; lo += codeUnits {
		f.binA = append(f.binA, isJob{kind: jobCodesW, l: l, lo: lo, hi: min(lo+codeUnits, k)})
	}
}

// binAItem runs item item of the phase binA: the codes of units lo…hi−1
// of h_lᵀ (jobCodesW), or columns c0…c1−1 of f.a[l] (rows r < R) set to
// h_{l+1}·W_{l+1}ᵀ (jobBinA).
func (f *isEngine[F]) binAItem(w *isWorker[F], item int) {
	j := f.binA[item]
	R := f.nb * f.S
	if j.kind == jobCodesW {
		f.kern.codesT(f.codesW[j.l], j.lo, j.hi, R, f.h[j.l], f.sizes[j.l])
		return
	}
	m, k := f.sizes[j.l], f.sizes[j.l+1]
	f.kern.bin(kernel.GemmSet, R, j.c0, j.c1, k, f.codesA[j.l+1], f.wt[j.l+1], m, f.a[j.l], m, w.bin)
}

// binWItem writes ∂W_l[i, u] = −scale·Σ_r h_{l,r,u} δ_{l−1,r,i} for every
// unit u and the item's entries i: h_lᵀ (units × R) times the δ rows'
// columns c0…c1−1.
func (f *isEngine[F]) binWItem(w *isWorker[F], j isJob) {
	R := f.nb * f.S
	l, nc := j.l, j.c1-j.c0
	m, k := f.sizes[l-1], f.sizes[l]
	gw := w.gw[:k*nc]
	f.kern.bin(kernel.GemmSet, k, 0, nc, R, f.codesW[l], f.a[l-1][j.c0:], m, gw, nc, w.bin)
	// Row i of ∂W_l holds the units side by side: transposed, each is one
	// contiguous row of gt.
	gt := w.gt[:nc*k]
	f.kern.transpose(gt, k, gw, nc, k, nc)
	g := f.t.grad[f.offW[l]:]
	for i := j.c0; i < j.c1; i++ {
		f.kern.widen(g[i*k:(i+1)*k], gt[(i-j.c0)*k:(i-j.c0+1)*k], -f.scale)
	}
}
