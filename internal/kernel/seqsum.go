// Package seqsum adds sums of selected rows to the rows of a matrix, one
// selected row after another: dst_m += w_{j₁}, then += w_{j₂}, … for the
// rows j of m's selection in order. Every entry sees the additions of the
// one-row-at-a-time loop in the same order, so the results are its bits
// (unlike internal/rowsum, which pairs rows). The work is tiled over the
// entries: a tile of 16 entries of every row of w stays in the L1 cache
// while all the rows of dst take their sums, so a product of many binary
// states with one matrix (or of one binary matrix with many vectors)
// streams w once. On amd64 with AVX2 the tiles run in assembly with the
// same additions (build tag purego: Go only).
package kernel

import "fmt"

// SeqTile is the number of entries of a full tile.
const SeqTile = 16

// AddSelected sets, for every row m < len(span)/2 of dst and i < n,
//
//	dst[m·ld + i] += w[j·ldw + i] for j in idx[span[2m]:span[2m+1]], in order;
//
// an entry j < 0 of idx subtracts row ^j instead (x − y, the bits of
// x + (−y)).
func AddSelected(dst []float64, ld int, w []float64, ldw int, n int, idx []int32, span []int32) {
	M := len(span) / 2
	if M == 0 || n == 0 {
		return
	}
	if ld < n || ldw < n {
		panic(fmt.Sprintf("seqsum: rows of %d entries with strides %d and %d", n, ld, ldw))
	}
	_ = dst[(M-1)*ld+n-1]
	rows := (len(w) - n) / ldw // the last row may be short of its stride
	for m := range M {
		for _, j := range idx[span[2*m]:span[2*m+1]] {
			if j < 0 {
				j = ^j
			}
			if int(j) > rows {
				panic(fmt.Sprintf("seqsum: row %d out of range [0,%d]", j, rows))
			}
		}
	}
	done := kern(dst, ld, w, ldw, n, idx, span)
	addGo(dst[done:], ld, w[done:], ldw, n-done, idx, span)
}

// addGo is AddSelected on the first n entries of each row, in Go.
func addGo(dst []float64, ld int, w []float64, ldw int, n int, idx []int32, span []int32) {
	if n == 0 {
		return
	}
	for m := range len(span) / 2 {
		d := dst[m*ld : m*ld+n]
		for _, j := range idx[span[2*m]:span[2*m+1]] {
			if j < 0 {
				r := w[int(^j)*ldw : int(^j)*ldw+n]
				for i := range d {
					d[i] -= r[i]
				}
				continue
			}
			r := w[int(j)*ldw : int(j)*ldw+n]
			for i := range d {
				d[i] += r[i]
			}
		}
	}
}
