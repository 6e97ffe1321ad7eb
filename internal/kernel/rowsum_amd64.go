//go:build amd64 && !purego

package kernel

import "golang.org/x/sys/cpu"

// rowsumAVX2 selects the assembly kernels; the tests switch it off to compare.
var rowsumAVX2 = cpu.X86.HasAVX2

// addRowsAVX2 applies the m rows idx[:m] of w (row stride s bytes) to the
// first n bytes of dst (a multiple of 32), four lanes at a time, with the
// operations of the Go loop in the same order (same bits); subRowsAVX2
// subtracts. addRows32AVX2 and subRows32AVX2 do the same in float32, eight
// lanes at a time (rowsum_amd64.s).
//
//go:noescape
func addRowsAVX2(dst, w *float64, idx *int32, m, s, n int)

//go:noescape
func subRowsAVX2(dst, w *float64, idx *int32, m, s, n int)

//go:noescape
func addRows32AVX2(dst, w *float32, idx *int32, m, s, n int)

//go:noescape
func subRows32AVX2(dst, w *float32, idx *int32, m, s, n int)

// kern64 applies the rows to the leading multiple of 4 entries of dst with
// AVX2 if available and returns how many entries it did.
func kern64(sub bool, dst, w []float64, stride int, idx []int32) int {
	n := len(dst)
	nv := n &^ 3
	if !rowsumAVX2 || nv == 0 || len(idx) == 0 {
		return 0
	}
	checkRows(idx, len(w), stride, n)
	if sub {
		subRowsAVX2(&dst[0], &w[0], &idx[0], len(idx), 8*stride, 8*nv)
	} else {
		addRowsAVX2(&dst[0], &w[0], &idx[0], len(idx), 8*stride, 8*nv)
	}
	return nv
}

// kern32 is kern64 for float32, the leading multiple of 8 entries.
func kern32(sub bool, dst, w []float32, stride int, idx []int32) int {
	n := len(dst)
	nv := n &^ 7
	if !rowsumAVX2 || nv == 0 || len(idx) == 0 {
		return 0
	}
	checkRows(idx, len(w), stride, n)
	if sub {
		subRows32AVX2(&dst[0], &w[0], &idx[0], len(idx), 4*stride, 4*nv)
	} else {
		addRows32AVX2(&dst[0], &w[0], &idx[0], len(idx), 4*stride, 4*nv)
	}
	return nv
}
