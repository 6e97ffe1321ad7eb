// Package rowsum holds the kernel shared by the trainers and the annealing
// chains: sums of the rows of a row-major matrix selected by a binary state
// (V·W for binary V is a sum of selected rows of W), four rows per pass over
// the destination so that it is loaded and stored once per four rows. On
// amd64 with AVX2 the four-row pass runs four float64 (eight float32)
// entries at a time in assembly with the same additions in the same order,
// so the results are the same bits (build tag purego: Go only).
package kernel

import "fmt"

// AddRows adds the rows idx of the row-major matrix w (row length len(dst))
// to dst, four rows per pass over dst: dst_j += (r0_j + r1_j) + (r2_j + r3_j),
// then the remaining rows one at a time.
func AddRows(dst, w []float64, idx []int32) { rows(dst, w, len(dst), idx, false, kern64) }

// SubRows subtracts the rows idx of w from dst (the passes of AddRows with −).
func SubRows(dst, w []float64, idx []int32) { rows(dst, w, len(dst), idx, true, kern64) }

// AddRows32 is AddRows in float32 (every addition rounded to float32).
func AddRows32(dst, w []float32, idx []int32) { rows(dst, w, len(dst), idx, false, kern32) }

// SubRows32 is SubRows in float32.
func SubRows32(dst, w []float32, idx []int32) { rows(dst, w, len(dst), idx, true, kern32) }

// AddRowsStride32 is AddRows32 on rows that lie stride ≥ len(dst) entries
// apart in w: row r is w[r·stride : r·stride+len(dst)], a block of columns
// of a wider matrix (so that a sum over many rows can run block by block,
// each block's rows staying in cache).
func AddRowsStride32(dst, w []float32, stride int, idx []int32) {
	rows(dst, w, stride, idx, false, kern32)
}

// AddRowsStride is AddRowsStride32 in float64.
func AddRowsStride(dst, w []float64, stride int, idx []int32) {
	rows(dst, w, stride, idx, false, kern64)
}

// rows adds (sub: subtracts) the rows idx of w (row r at r·stride) to dst.
// kern does the leading entries of dst for every row in assembly and
// returns how many; the loop here does the rest, with the same operations
// per entry.
func rows[F float32 | float64](dst, w []F, stride int, idx []int32, sub bool, kern func(sub bool, dst, w []F, stride int, idx []int32) int) {
	n := len(dst)
	if stride < n {
		panic(fmt.Sprintf("rowsum: stride %d is less than the row length %d", stride, n))
	}
	j0 := kern(sub, dst, w, stride, idx)
	if j0 == n {
		return
	}
	d := dst[j0:]
	k := 0
	for ; k+4 <= len(idx); k += 4 {
		o0, o1, o2, o3 := int(idx[k])*stride+j0, int(idx[k+1])*stride+j0, int(idx[k+2])*stride+j0, int(idx[k+3])*stride+j0
		r0, r1, r2, r3 := w[o0:o0+len(d)], w[o1:o1+len(d)], w[o2:o2+len(d)], w[o3:o3+len(d)]
		if sub {
			for j := range d {
				d[j] -= (r0[j] + r1[j]) + (r2[j] + r3[j])
			}
		} else {
			for j := range d {
				d[j] += (r0[j] + r1[j]) + (r2[j] + r3[j])
			}
		}
	}
	for ; k < len(idx); k++ {
		o := int(idx[k])*stride + j0
		r := w[o : o+len(d)]
		if sub {
			for j := range d {
				d[j] -= r[j]
			}
		} else {
			for j := range d {
				d[j] += r[j]
			}
		}
	}
}

// checkRows panics, as indexing would, if a row of idx (n entries at
// r·stride) is not wholly inside the nw entries of w, before the assembly
// reads them.
func checkRows(idx []int32, nw, stride, n int) {
	rows := (nw-n)/stride + 1
	if nw < n {
		rows = 0
	}
	for _, r := range idx {
		if uint(r) >= uint(rows) {
			panic(fmt.Sprintf("rowsum: row %d out of range [0,%d)", r, rows))
		}
	}
}
