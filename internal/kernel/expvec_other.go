//go:build !amd64 || purego

package kernel

var expvecAVX2 = false

func sigmoidBernAsm(dst, a []float64) int { return 0 }

func expAsm(dst, x []float64) int { return 0 }

func sigPairAsm(s, t, a []float64) int { return 0 }

func sigmoidAsm(dst, x []float64) int { return 0 }
