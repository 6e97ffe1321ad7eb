//go:build amd64 && !purego

package kernel

import "golang.org/x/sys/cpu"

// seqsumAVX2 selects the assembly kernels; the tests switch it off to compare.
var seqsumAVX2 = cpu.X86.HasAVX2

// addTilesAVX2 runs AddSelected on entries [0, 16·tiles) of every row,
// then on entries [16·tiles, 16·tiles + 4·quads) four at a time; ld and
// ldw are strides in bytes, M the number of rows of dst (seqsum_amd64.s).
//
//go:noescape
func addTilesAVX2(dst *float64, ld int, w *float64, ldw int, tiles, quads int, idx *int32, span *int32, M int)

// kern applies the assembly to the leading multiple of 4 entries of each
// row and returns how many entries it did.
func kern(dst []float64, ld int, w []float64, ldw int, n int, idx []int32, span []int32) int {
	tiles, quads := n/SeqTile, n%SeqTile/4
	if !seqsumAVX2 || tiles+quads == 0 {
		return 0
	}
	var ip *int32
	if len(idx) > 0 {
		ip = &idx[0]
	}
	addTilesAVX2(&dst[0], 8*ld, &w[0], 8*ldw, tiles, quads, ip, &span[0], len(span)/2)
	return SeqTile*tiles + 4*quads
}
