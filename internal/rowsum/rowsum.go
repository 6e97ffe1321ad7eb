// Package rowsum holds the kernel shared by the trainers and the annealing
// chains: sums of the rows of a row-major matrix selected by a binary state
// (V·W for binary V is a sum of selected rows of W), four rows per pass over
// the destination so that it is loaded and stored once per four rows. On
// amd64 with AVX2 the four-row pass runs four float64 (eight float32)
// entries at a time in assembly with the same additions in the same order,
// so the results are the same bits (build tag purego: Go only).
package rowsum

// AddRows adds the rows idx of the row-major matrix w (row length len(dst))
// to dst, four rows per pass over dst: dst_j += (r0_j + r1_j) + (r2_j + r3_j).
func AddRows(dst, w []float64, idx []int32) { rows(dst, w, idx, false, pass4) }

// SubRows subtracts the rows idx of w from dst.
func SubRows(dst, w []float64, idx []int32) { rows(dst, w, idx, true, pass4) }

// AddRows32 is AddRows in float32 (every addition rounded to float32).
func AddRows32(dst, w []float32, idx []int32) { rows(dst, w, idx, false, pass4f32) }

// SubRows32 is SubRows in float32.
func SubRows32(dst, w []float32, idx []int32) { rows(dst, w, idx, true, pass4f32) }

// rows adds (sub: subtracts) the rows idx of w to dst; pass applies four
// rows to a leading part of dst in assembly and returns its length.
func rows[F float32 | float64](dst, w []F, idx []int32, sub bool, pass func(sub bool, dst, r0, r1, r2, r3 []F) int) {
	n := len(dst)
	k := 0
	for ; k+4 <= len(idx); k += 4 {
		o0, o1, o2, o3 := int(idx[k])*n, int(idx[k+1])*n, int(idx[k+2])*n, int(idx[k+3])*n
		r0, r1, r2, r3 := w[o0:o0+n], w[o1:o1+n], w[o2:o2+n], w[o3:o3+n]
		r0, r1, r2, r3 = r0[:len(dst)], r1[:len(dst)], r2[:len(dst)], r3[:len(dst)]
		j := pass(sub, dst, r0, r1, r2, r3)
		if sub {
			for ; j < len(dst); j++ {
				dst[j] -= (r0[j] + r1[j]) + (r2[j] + r3[j])
			}
		} else {
			for ; j < len(dst); j++ {
				dst[j] += (r0[j] + r1[j]) + (r2[j] + r3[j])
			}
		}
	}
	for ; k < len(idx); k++ {
		o := int(idx[k]) * n
		r := w[o : o+n]
		r = r[:len(dst)]
		if sub {
			for j := range dst {
				dst[j] -= r[j]
			}
		} else {
			for j := range dst {
				dst[j] += r[j]
			}
		}
	}
}
