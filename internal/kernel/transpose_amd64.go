//go:build amd64 && !purego

package kernel

import "golang.org/x/sys/cpu"

// transposeAVX2 selects the assembly kernels; the tests switch it off to compare.
var transposeAVX2 = cpu.X86.HasAVX2

// tile8x8AVX2 transposes the r×c block (multiples of 8) of src (row stride
// lds bytes) into dst (row stride ldd bytes), 8×8 tiles in registers.
//
//go:noescape
func tile8x8AVX2(dst *float32, ldd int, src *float32, lds, r, c int)

// tile4x4AVX2 is tile8x8AVX2 for float64, 4×4 tiles (r, c multiples of 4).
//
//go:noescape
func tile4x4AVX2(dst *float64, ldd int, src *float64, lds, r, c int)

// tiles32 transposes the largest block of whole 8×8 tiles and returns its
// size.
func tiles32(dst []float32, ldd int, src []float32, lds, r, c int) (int, int) {
	r8, c8 := r&^7, c&^7
	if !transposeAVX2 || r8 == 0 || c8 == 0 {
		return 0, 0
	}
	tile8x8AVX2(&dst[0], 4*ldd, &src[0], 4*lds, r8, c8)
	return r8, c8
}

// tiles64 is tiles32 for float64 and 4×4 tiles.
func tiles64(dst []float64, ldd int, src []float64, lds, r, c int) (int, int) {
	r4, c4 := r&^3, c&^3
	if !transposeAVX2 || r4 == 0 || c4 == 0 {
		return 0, 0
	}
	tile4x4AVX2(&dst[0], 8*ldd, &src[0], 8*lds, r4, c4)
	return r4, c4
}
