package sbn

import "github.com/logz-ml/logz/internal/kernel"

// The float32 engine's products with the latent states as dense products.
// A latent layer's states are about half on, so that a sum of its selected
// rows reads about half of the matrix per row of states, one row at a time
// (package rowsum, bound by the cache's bandwidth), where a GEMM of all
// the rows at once (kernel.GemmCols32x6) reads each strip of the matrix
// once per six rows and adds the zeros too, at the fused multiply–adds'
// rate: for the generative activations h_{l+1}·W_{l+1}ᵀ (l < L) of every
// row r = k·S + s, and for ∂W_l = δ_{l−1}ᵀ·h_l. Each entry is a fused chain
// over the rows (or units) in order, which is not the row sums' order (four
// rows per pass), so the float32 numbers differ from the row sums' in
// their last bits; the float64 engine keeps its row sums. The products
// with the examples' x (about 13% on in MNIST: R_1ᵀx, ∂R_1) and those of
// the recognition layers above the first and of the autoregressive S_l
// and T_l stay row sums.

// gemmUnits is the number of units (rows of ∂W_lᵀ) per ∂W_l item: eight
// 6-row tiles, the δ block of colBlock columns staying in cache for them.
// gemmCols is the number of columns of h_{l+1}·W_{l+1}ᵀ per item.
const gemmUnits, gemmCols = 48, 64

// gemmJobs adds the items of ∂W_l (units by gemmUnits, columns of W_l's
// rows by colBlock) to the gradient phase and those of the activations
// h_l·W_lᵀ of layer l−1 to the phase gemmA.
func (f *isEngine[F]) gemmJobs(l int) {
	m, k := f.sizes[l-1], f.sizes[l]
	for lo := 0; lo < k; lo += gemmUnits {
		for c0 := 0; c0 < m; c0 += colBlock {
			f.grads = append(f.grads, isJob{kind: jobGemmW, l: l, lo: lo, hi: min(lo+gemmUnits, k), c0: c0, c1: min(c0+colBlock, m)})
		}
	}
	for c0 := 0; c0 < m; c0 += gemmCols {
		f.gemmA = append(f.gemmA, isJob{kind: jobGemmA, l: l - 1, c0: c0, c1: min(c0+gemmCols, m)})
	}
}

// gemmAItem sets columns c0…c1−1 of f.a[l] (rows r < R) to h_{l+1}·W_{l+1}ᵀ.
func (f *isEngine[F]) gemmAItem(_ *isWorker[F], item int) {
	j := f.gemmA[item]
	R := f.nb * f.S
	m, k := f.sizes[j.l], f.sizes[j.l+1]
	f.kern.gemm(kernel.GemmSet, 1, R, j.c0, j.c1, k, f.h[j.l+1], k, f.wt[j.l+1], m, f.a[j.l], m)
}

// gemmWItem writes ∂W_l[i, u] = −scale·Σ_r h_{l,r,u} δ_{l−1,r,i} for the
// item's units u and entries i: the block h_lᵀ (units × R) times the δ
// rows' columns c0…c1−1.
func (f *isEngine[F]) gemmWItem(w *isWorker[F], j isJob) {
	R := f.nb * f.S
	l, nu, nc := j.l, j.hi-j.lo, j.c1-j.c0
	m, k := f.sizes[l-1], f.sizes[l]
	ht, gw := w.ht[:nu*R], w.gw[:nu*nc]
	f.kern.transpose(ht, R, f.h[l][j.lo:], k, R, nu)
	f.kern.gemm(kernel.GemmSet, 1, nu, 0, nc, R, ht, R, f.a[l-1][j.c0:], m, gw, nc)
	// Row i of ∂W_l holds the item's units side by side: transposed, each
	// is one contiguous run of ∂W_lᵀ's block.
	gt := w.gt[:nc*nu]
	f.kern.transpose(gt, nu, gw, nc, nu, nc)
	g := f.t.grad[f.offW[l]:]
	for i := j.c0; i < j.c1; i++ {
		f.kern.widen(g[i*k+j.lo:i*k+j.hi], gt[(i-j.c0)*nu:(i-j.c0+1)*nu], -f.scale)
	}
}
