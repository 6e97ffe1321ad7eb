//go:build !amd64 || purego

package kernel

var binAVX2 = false

func binTable(t []float32, b []float32, ldb, nc int) { binTableGo(t, b, ldb, nc) }

func binSum(t []float32, codes []int32, nc int, c []float32, ldc int, add bool) {
	binSumGo(t, codes, nc, c, ldc, add)
}

func binCodesRow(g []int32, a []float32) int { return 0 }

func binCodesT(g []int32, a []float32, lda, K int) int { return 0 }
