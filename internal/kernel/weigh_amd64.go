//go:build amd64 && !purego

package kernel

import "golang.org/x/sys/cpu"

// weighAVX2 selects the assembly kernel; the tests switch it off to compare.
var weighAVX2 = cpu.X86.HasAVX2

// weigh32AVX2 is Weigh32 on the first n entries (n a positive multiple of
// 8), e nil or not (weigh_amd64.s).
//
//go:noescape
func weigh32AVX2(p, h, e *float32, n int, w float32)

// weigh32 runs the kernel on the leading multiple of 8 entries and returns
// how many it did.
func weigh32(p, h, e []float32, w float32) int {
	n := len(p) &^ 7
	if !weighAVX2 || n == 0 {
		return 0
	}
	var ep *float32
	if e != nil {
		ep = &e[0]
	}
	weigh32AVX2(&p[0], &h[0], ep, n, w)
	return n
}
