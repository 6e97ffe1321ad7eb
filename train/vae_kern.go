package train

import (
	"math"
	"unsafe"

	"github.com/logz-ml/logz/internal/kernel"
	"github.com/logz-ml/logz/internal/nmath"
)

// The VAE engine's kernels in either precision: float32 goes to the
// packages' float32 kernels (kernel.GemmCols32, kernel.AddRowsStride32, package
// logistic, kernel.Transpose32), float64 to kernel.GemmCols, kernel.AddRows,
// kernel.Transpose64 and the float64 loops below, which compute σ, tanh and
// the Bernoulli log-likelihood as the per-example float64 nets did
// (nmath.Sigmoid, math.Tanh, nmath.Softplus). The choice is by F's size,
// a constant of each instantiation.

func is32[F kernel.Float]() bool { return unsafe.Sizeof(F(0)) == 4 }

// as32 and as64 view a []F as the []float32 or []float64 it is.
func as32[F kernel.Float](s []F) []float32 {
	return unsafe.Slice((*float32)(unsafe.Pointer(unsafe.SliceData(s))), len(s))
}
func as64[F kernel.Float](s []F) []float64 {
	return unsafe.Slice((*float64)(unsafe.Pointer(unsafe.SliceData(s))), len(s))
}

// colsF is kernel.GemmCols32x6 (GemmCols32 in 6-row tiles, the same bits) or
// kernel.GemmCols.
func colsF[F kernel.Float](m, j0, j1, k int, a []F, lda int, b []F, ldb int, c []F, ldc int) {
	if is32[F]() {
		kernel.GemmCols32x6(kernel.GemmSet, 1, m, j0, j1, k, as32(a), lda, as32(b), ldb, as32(c), ldc)
		return
	}
	kernel.GemmCols(kernel.GemmSet, 1, m, j0, j1, k, as64(a), lda, as64(b), ldb, as64(c), ldc)
}

// addRowsF adds the rows idx of w (row r at r·stride) to dst. In float64
// it writes dst's padding too (up to stride, adding 0): dst must be a row
// whose entries up to stride are its own.
func addRowsF[F kernel.Float](dst, w []F, stride int, idx []int32) {
	if is32[F]() {
		kernel.AddRowsStride32(as32(dst), as32(w), stride, idx)
		return
	}
	if cap(dst) >= stride {
		// kernel.AddRows takes the row stride from len(dst): widen dst over
		// the padding, whose columns of w are 0 (adding 0 changes nothing).
		// Every caller's dst is a row with its own padding up to stride,
		// which no other job touches.
		kernel.AddRows(as64(dst[:stride]), as64(w), idx)
		return
	}
	d := as64(dst)
	w64 := as64(w)
	for _, r := range idx {
		row := w64[int(r)*stride : int(r)*stride+len(d)]
		for q, x := range row {
			d[q] += x
		}
	}
}

// transposeF sets dst[j·ldd + i] = src[i·lds + j] for i < r, j < c.
func transposeF[F kernel.Float](dst []F, ldd int, src []F, lds, r, c int) {
	if is32[F]() {
		kernel.Transpose32(as32(dst), ldd, as32(src), lds, r, c)
		return
	}
	kernel.Transpose64(as64(dst), ldd, as64(src), lds, r, c)
}

// sigmoidF sets p_j = σ(x_j) (p may alias x).
func sigmoidF[F kernel.Float](p, x []F) {
	if is32[F]() {
		kernel.Sigmoid32(as32(p), as32(x))
		return
	}
	p = p[:len(x)]
	for j, v := range as64(x) {
		p[j] = F(nmath.Sigmoid(v))
	}
}

// logLikF sets p_j = σ(a_j) and returns Σ_j x_j a_j − softplus(a_j) for the
// binary x (p may alias a, not x).
func logLikF[F kernel.Float](p, a, x []F) float64 {
	if is32[F]() {
		return kernel.LogLik32(as32(p), as32(a), as32(x))
	}
	p, x = p[:len(a)], x[:len(a)]
	ll := 0.0
	for j, v := range as64(a) {
		if x[j] != 0 {
			ll -= nmath.Softplus(-v)
		} else {
			ll -= nmath.Softplus(v)
		}
		p[j] = F(nmath.Sigmoid(v))
	}
	return ll
}

// tanhF sets a_j = tanh(a_j): in float32 2σ(2a_j) − 1 by package logistic,
// in float64 math.Tanh.
func tanhF[F kernel.Float](a []F) {
	if is32[F]() {
		tanh32(as32(a))
		return
	}
	for q, x := range as64(a) {
		a[q] = F(math.Tanh(x))
	}
}

// tanhGradF sets d_q = d_q·(1 − u_q²) (a delta through u = tanh): in
// float32 kernel.TanhGrad32 (the same operations, eight at a time).
func tanhGradF[F kernel.Float](d, u []F) {
	if is32[F]() {
		kernel.TanhGrad32(as32(d), as32(u))
		return
	}
	d = d[:len(u)]
	for q, x := range u {
		d[q] *= 1 - x*x
	}
}

// tanh32 sets a_j = tanh(a_j) = 2σ(2a_j) − 1.
func tanh32(a []float32) {
	for q, x := range a {
		a[q] = 2 * x
	}
	kernel.Sigmoid32(a, a)
	for q, x := range a {
		a[q] = 2*x - 1
	}
}
