package sbn

import (
	"math"

	"github.com/logz-ml/logz/internal/kernel"
)

// columns8 lists, for each of the jobUnits = 8 units lo … lo+7 of the
// binary row-major mat (rows of k entries), the rows among
// the first R where the unit is at 1, in increasing order, into cols[i]
// (each with room for R): what the gradient items' row sums select. Every
// row is written at the end of each unit's list, which advances by the
// unit's bit (bit, without a comparison): no branch on the states, and
// the eight counts stay in registers.
func columns8[F kernel.Float](mat []F, k, lo, R int, cols [][]int32) {
	c0, c1, c2, c3 := cols[0][:R], cols[1][:R], cols[2][:R], cols[3][:R]
	c4, c5, c6, c7 := cols[4][:R], cols[5][:R], cols[6][:R], cols[7][:R]
	var n0, n1, n2, n3, n4, n5, n6, n7 int
	for r := range R {
		h := mat[r*k+lo : r*k+lo+8 : r*k+lo+8]
		v := int32(r)
		c0[n0], c1[n1], c2[n2], c3[n3] = v, v, v, v
		c4[n4], c5[n5], c6[n6], c7[n7] = v, v, v, v
		n0 += bit(h[0])
		n1 += bit(h[1])
		n2 += bit(h[2])
		n3 += bit(h[3])
		n4 += bit(h[4])
		n5 += bit(h[5])
		n6 += bit(h[6])
		n7 += bit(h[7])
	}
	cols[0], cols[1], cols[2], cols[3] = c0[:n0], c1[:n1], c2[:n2], c3[:n3]
	cols[4], cols[5], cols[6], cols[7] = c4[:n4], c5[:n5], c6[:n6], c7[:n7]
}

// bit is 1 if v != 0 and 0 if v == 0 (±0), from v's bits without a
// branch: the magnitude's bits b are nonzero exactly when b | −b has its
// top bit set.
func bit[F kernel.Float](v F) int {
	b := math.Float64bits(float64(v)) &^ (1 << 63)
	return int((b | -b) >> 63)
}
