package kernel

import (
	"sync"
	"unsafe"
)

// GemmCols6 is GemmCols (the same bits: every entry the same fused chain
// over p in order) computed in tiles of 6×8 where the rows allow, with
// each panel of B copied into a contiguous buffer first: twelve
// accumulators instead of eight hide the fused multiply–add latency, and
// the kernel reads B row after row instead of one memory page per step
// when B's rows are far apart (the mean-field VB trainer's packed
// covariances: 20,301 entries a row). Disjoint column ranges may be
// computed concurrently. It does not allocate (the buffers are pooled).
func GemmCols6(op GemmOp, alpha float64, m, j0, j1, k int, a []float64, lda int, b []float64, ldb int, c []float64, ldc int) {
	if !gemmAVX2 || k == 0 || m < 6 {
		GemmCols(op, alpha, m, j0, j1, k, a, lda, b, ldb, c, ldc)
		return
	}
	var tile [48]float64
	var pk *[]float64 // a panel buffer only where cols6 may pack
	var buf []float64
	if m >= gemmPackRows {
		pk = panelPool.Get().(*[]float64)
		if n := panelCols(k, 8, 8) * k; len(*pk) < n {
			*pk = make([]float64, n)
		}
		buf = *pk
		defer panelPool.Put(pk)
	}
	cols6(op, alpha, m, j0, j1, k, a, lda, b, ldb, c, ldc, tile[:], 8, buf,
		func(a, b []float64, ldb int, c []float64, ldc int) { kern6x8Set(k, a, lda, b, ldb, c, ldc) },
		func(a, b []float64, ldb int) { kern6x8Set(k, a, lda, b, ldb, tile[:], 8) },
		func(m, j0, j1 int, a, c []float64) { GemmCols(op, alpha, m, j0, j1, k, a, lda, b, ldb, c, ldc) })
}

// panelPool holds GemmCols6's panel buffers.
var panelPool = sync.Pool{New: func() any { return new([]float64) }}

// panelCols is the width of the panels of B that cols6 runs on each tile
// of A: about gemmPanelBytes of k rows, a whole number of w-column strips.
func panelCols(k, w, size int) int { return w * max(1, gemmPanelBytes/(k*w*size)) }

// gemmPackRows is the fewest rows of 6-row tiles for which cols6 packs B.
const gemmPackRows = 48

// gemmPanelBytes is the size of a panel of B: a quarter of a 1 MB level-2
// cache.
const gemmPanelBytes = 256 << 10

// GemmCols32x6 is GemmCols32 (the same bits: every entry the same float32
// fused chain over p in order) computed in tiles of 6×16 where the rows
// allow: twelve accumulators instead of eight hide more of the fused
// multiply–add latency and load each 16-column strip of B a third fewer
// times, for the VAE trainer's batched layers (100 rows, or 16 per
// gradient job). Disjoint column ranges may be computed concurrently. It
// does not allocate.
func GemmCols32x6(op GemmOp, alpha float32, m, j0, j1, k int, a []float32, lda int, b []float32, ldb int, c []float32, ldc int) {
	if !gemmAVX2 || k == 0 || m < 6 {
		GemmCols32(op, alpha, m, j0, j1, k, a, lda, b, ldb, c, ldc)
		return
	}
	var tile [96]float32
	cols6(op, alpha, m, j0, j1, k, a, lda, b, ldb, c, ldc, tile[:], 16, nil,
		func(a, b []float32, ldb int, c []float32, ldc int) { kern6x16Set(k, a, lda, b, ldb, c, ldc) },
		func(a, b []float32, ldb int) { kern6x16Set(k, a, lda, b, ldb, tile[:], 16) },
		func(m, j0, j1 int, a, c []float32) { GemmCols32(op, alpha, m, j0, j1, k, a, lda, b, ldb, c, ldc) })
}

// cols6 is the loop of GemmCols6 and GemmCols32x6: panels of B of whole
// w-column strips, each panel's strips run on a 6-row tile of A while the
// tile is in cache (A is read from memory once per panel, not once per
// strip) by the 6×w kernel, which set writes straight into C (row stride
// ldc) when C = A·B and toTile into tile, then stored. With pk (at least
// k·panelCols(k, w, size of F) long) each panel is first copied into pk,
// strip after strip (k rows of w), so the kernel reads it contiguously;
// with pk nil, or fewer than gemmPackRows rows in 6-row tiles, it reads B
// in place (panels of one strip). Packing takes w = 8. The leftover rows
// and a partial last strip go to rest, the 4-row kernels (a remainder of
// 1 or 3 rows to their portable edge kernel: slow).
func cols6[F float32 | float64](op GemmOp, alpha F, m, j0, j1, k int, a []F, lda int, b []F, ldb int, c []F, ldc int,
	tile []F, w int, pk []F, set func(a, b []F, ldb int, c []F, ldc int), toTile func(a, b []F, ldb int), rest func(m, j0, j1 int, a, c []F)) {
	if m == 0 || j1 <= j0 {
		return
	}
	_ = a[(m-1)*lda+k-1]
	_ = b[(k-1)*ldb+j1-1]
	_ = c[(m-1)*ldc+j1-1]
	// The rows in 6-row tiles; the rest in 4-row tiles, so a remainder of
	// 2 takes 8 rows there (4+4) rather than leaving 2 rows to the
	// portable edge kernel.
	m6 := m - m%6
	if m%6 == 2 && m >= 8 {
		m6 -= 6
	}
	jf := j0 + (j1-j0)/w*w // the end of the full strips
	if m6 < gemmPackRows || w != 8 {
		pk = nil // too few tiles to repay the copy
	}
	pw := w
	if pk != nil {
		var f F
		pw = panelCols(k, w, int(unsafe.Sizeof(f)))
	}
	for jp := j0; jp < jf && m6 > 0; jp += pw {
		je := min(jp+pw, jf)
		bp, lp, step := b[jp:], ldb, w // the panel, its row stride, its strips' step
		// Packed row by row: each row's piece of the panel is contiguous in B.
		if pk != nil {
			ns := (je - jp) / w
			for p := range k {
				src := b[p*ldb+jp : p*ldb+je]
				for s := range ns {
					*(*[8]F)(pk[(s*k+p)*8:]) = *(*[8]F)(src[s*8:])
				}
			}
			bp, lp, step = pk, w, k*w
		}
		for i := 0; i < m6; i += 6 {
			for s := range (je - jp) / w {
				j := jp + s*w
				if op == GemmSet && alpha == 1 { // α·s = s: the kernel writes C
					set(a[i*lda:], bp[s*step:], lp, c[i*ldc+j:], ldc)
					continue
				}
				toTile(a[i*lda:], bp[s*step:], lp)
				store(op, alpha, tile, w, 6, w, c[i*ldc+j:], ldc)
			}
		}
	}
	if m6 < m {
		rest(m-m6, j0, jf, a[m6*lda:], c[m6*ldc:])
	}
	if jf < j1 {
		rest(m, jf, j1, a, c)
	}
}
