//go:build amd64 && !purego

package kernel

// fmaPeak32AVX2 runs n rounds of twelve independent 8-lane float32 fused
// multiply–adds on registers only (192 flops a round).
//
//go:noescape
func fmaPeak32AVX2(n int)

// fmaPeak32 runs fmaPeak32AVX2 if the CPU has AVX2 and FMA and reports
// whether it did.
func fmaPeak32(n int) bool {
	if !gemmAVX2 {
		return false
	}
	fmaPeak32AVX2(n)
	return true
}
