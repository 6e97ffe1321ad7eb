//go:build amd64 && !purego

package kernel

import "golang.org/x/sys/cpu"

// gemmAVX2 selects the assembly kernel; the tests switch it off to compare
// with the portable kernel.
var gemmAVX2 = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// kern4x8AVX2 is kernGeneric(4, 8, …) with AVX2 and FMA: eight 4-lane
// accumulators, one broadcast of a_{rp} per row and two loads of b_p per p.
//
//go:noescape
func kern4x8AVX2(k int, a *float64, lda int, b *float64, ldb int, t *[32]float64)

func kern4x8(k int, a []float64, lda int, b []float64, ldb int, t *[32]float64) {
	if !gemmAVX2 || k == 0 {
		kern4x4(k, a, lda, b, ldb, t, 0)
		kern4x4(k, a, lda, b[4:], ldb, t, 4)
		return
	}
	_ = a[3*lda+k-1]
	_ = b[(k-1)*ldb+7]
	kern4x8AVX2(k, &a[0], lda, &b[0], ldb, t)
}
