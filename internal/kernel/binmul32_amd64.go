//go:build amd64 && !purego

package kernel

import "golang.org/x/sys/cpu"

// binAVX2 selects the assembly kernels; the tests switch it off to compare.
var binAVX2 = cpu.X86.HasAVX2

// binTableAVX2 is binTableGo (b's row stride ldb in bytes).
//
//go:noescape
func binTableAVX2(t *float32, b *float32, ldb, nc int)

// binSumAVX2 is binSumGo (c's row stride ldc in bytes; add 0 or 1).
//
//go:noescape
func binSumAVX2(t *float32, codes *int32, nc int, c *float32, ldc, add int)

func binTable(t []float32, b []float32, ldb, nc int) {
	if !binAVX2 {
		binTableGo(t, b, ldb, nc)
		return
	}
	_ = t[nc*128-1]
	_ = b[(4*nc-1)*ldb+7]
	binTableAVX2(&t[0], &b[0], 4*ldb, nc)
}

func binSum(t []float32, codes []int32, nc int, c []float32, ldc int, add bool) {
	if !binAVX2 {
		binSumGo(t, codes, nc, c, ldc, add)
		return
	}
	_ = t[nc*128-1]
	_ = codes[8*nc-1]
	_ = c[7*ldc+7]
	a := 0
	if add {
		a = 1
	}
	binSumAVX2(&t[0], &codes[0], nc, &c[0], 4*ldc, a)
}

// binCodesRowAVX2 writes the codes of n8 pairs of chunks (eight entries of
// a each) at g, 8 int32 apart.
//
//go:noescape
func binCodesRowAVX2(dst *int32, a *float32, n8 int)

// binCodesTAVX2 writes the eight rows' codes of nc whole chunks of a
// transposed matrix (row stride lda bytes) at g, eight per chunk.
//
//go:noescape
func binCodesTAVX2(dst *int32, a *float32, lda, nc int)

// binCodesRow writes the codes of the whole pairs of chunks of a's row
// (entries 8j…8j+7) and returns how many entries it did.
func binCodesRow(g []int32, a []float32) int {
	n8 := len(a) / 8
	if !binAVX2 || n8 == 0 {
		return 0
	}
	_ = g[(2*n8-1)*8]
	binCodesRowAVX2(&g[0], &a[0], n8)
	return 8 * n8
}

// binCodesT writes the codes of the whole chunks of eight rows given
// transposed (K rows of a, stride lda) and returns how many chunks it did.
func binCodesT(g []int32, a []float32, lda, K int) int {
	nc := K / 4
	if !binAVX2 || nc == 0 {
		return 0
	}
	_ = g[8*nc-1]
	_ = a[(4*nc-1)*lda+7]
	binCodesTAVX2(&g[0], &a[0], 4*lda, nc)
	return nc
}
