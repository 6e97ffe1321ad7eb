//go:build amd64 && !purego

package rowsum

import "golang.org/x/sys/cpu"

// useAVX2 selects the assembly pass; the tests switch it off to compare.
var useAVX2 = cpu.X86.HasAVX2

// add4AVX2 sets dst[j] = dst[j] + ((r0[j]+r1[j]) + (r2[j]+r3[j])) for
// j < n (n a multiple of 4), four lanes at a time: the same operations in
// the same order as the Go loop, so the same bits. sub4AVX2 subtracts.
//
//go:noescape
func add4AVX2(dst, r0, r1, r2, r3 *float64, n int)

//go:noescape
func sub4AVX2(dst, r0, r1, r2, r3 *float64, n int)

// add4F32AVX2 and sub4F32AVX2 are add4AVX2 and sub4AVX2 for float32, eight
// lanes at a time (n a multiple of 8).
//
//go:noescape
func add4F32AVX2(dst, r0, r1, r2, r3 *float32, n int)

//go:noescape
func sub4F32AVX2(dst, r0, r1, r2, r3 *float32, n int)

// pass4 applies four rows to dst[:n4] with AVX2 if available and returns
// how many leading entries it did (0 or n4).
func pass4(sub bool, dst, r0, r1, r2, r3 []float64) int {
	n4 := len(dst) &^ 3
	if !useAVX2 || n4 == 0 {
		return 0
	}
	_, _, _, _ = r0[n4-1], r1[n4-1], r2[n4-1], r3[n4-1]
	if sub {
		sub4AVX2(&dst[0], &r0[0], &r1[0], &r2[0], &r3[0], n4)
	} else {
		add4AVX2(&dst[0], &r0[0], &r1[0], &r2[0], &r3[0], n4)
	}
	return n4
}

// pass4f32 is pass4 for float32: dst[:n8], n8 a multiple of 8.
func pass4f32(sub bool, dst, r0, r1, r2, r3 []float32) int {
	n8 := len(dst) &^ 7
	if !useAVX2 || n8 == 0 {
		return 0
	}
	_, _, _, _ = r0[n8-1], r1[n8-1], r2[n8-1], r3[n8-1]
	if sub {
		sub4F32AVX2(&dst[0], &r0[0], &r1[0], &r2[0], &r3[0], n8)
	} else {
		add4F32AVX2(&dst[0], &r0[0], &r1[0], &r2[0], &r3[0], n8)
	}
	return n8
}
