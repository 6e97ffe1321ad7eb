// Package rowsum holds the kernel shared by the trainers and the annealing
// chains: sums of the rows of a row-major matrix selected by a binary state
// (V·W for binary V is a sum of selected rows of W), four rows per pass over
// the destination so that it is loaded and stored once per four rows. On
// amd64 with AVX2 the four-row pass runs four float64 (eight float32)
// entries at a time in assembly with the same additions in the same order,
// so the results are the same bits (build tag purego: Go only).
package rowsum

import "fmt"

// AddRows adds the rows idx of the row-major matrix w (row length len(dst))
// to dst, four rows per pass over dst: dst_j += (r0_j + r1_j) + (r2_j + r3_j),
// then the remaining rows one at a time.
func AddRows(dst, w []float64, idx []int32) { rows(dst, w, idx, false, kern64) }

// SubRows subtracts the rows idx of w from dst (the passes of AddRows with −).
func SubRows(dst, w []float64, idx []int32) { rows(dst, w, idx, true, kern64) }

// AddRows32 is AddRows in float32 (every addition rounded to float32).
func AddRows32(dst, w []float32, idx []int32) { rows(dst, w, idx, false, kern32) }

// SubRows32 is SubRows in float32.
func SubRows32(dst, w []float32, idx []int32) { rows(dst, w, idx, true, kern32) }

// rows adds (sub: subtracts) the rows idx of w to dst. kern does the
// leading entries of dst for every row in assembly and returns how many;
// the loop here does the rest, with the same operations per entry.
func rows[F float32 | float64](dst, w []F, idx []int32, sub bool, kern func(sub bool, dst, w []F, idx []int32) int) {
	n := len(dst)
	j0 := kern(sub, dst, w, idx)
	if j0 == n {
		return
	}
	d := dst[j0:]
	k := 0
	for ; k+4 <= len(idx); k += 4 {
		o0, o1, o2, o3 := int(idx[k])*n+j0, int(idx[k+1])*n+j0, int(idx[k+2])*n+j0, int(idx[k+3])*n+j0
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
		o := int(idx[k])*n + j0
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

// checkRows panics, as indexing would, if a row of idx is outside the
// len(w)/n rows of w, before the assembly reads them.
func checkRows(idx []int32, nw, n int) {
	rows := nw / n
	for _, r := range idx {
		if uint(r) >= uint(rows) {
			panic(fmt.Sprintf("rowsum: row %d out of range [0,%d)", r, rows))
		}
	}
}
