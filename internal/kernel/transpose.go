// Package transpose copies a block of a row-major matrix into another
// matrix transposed, dst[j·ldd + i] = src[i·lds + j], for the RBM trainer's
// copy of Wᵀ. On amd64 with AVX2 the whole 8×8 (float32) or 4×4 (float64)
// tiles are transposed in registers; the edges are copied in Go. It only
// copies values, so every build gives the same bits.
package kernel

// Transpose32 sets dst[j·ldd + i] = src[i·lds + j] for i < r, j < c.
func Transpose32(dst []float32, ldd int, src []float32, lds, r, c int) {
	check(len(dst), ldd, len(src), lds, r, c)
	r8, c8 := tiles32(dst, ldd, src, lds, r, c)
	edges(dst, ldd, src, lds, r, c, r8, c8)
}

// Transpose64 sets dst[j·ldd + i] = src[i·lds + j] for i < r, j < c.
func Transpose64(dst []float64, ldd int, src []float64, lds, r, c int) {
	check(len(dst), ldd, len(src), lds, r, c)
	r4, c4 := tiles64(dst, ldd, src, lds, r, c)
	edges(dst, ldd, src, lds, r, c, r4, c4)
}

// check panics, as indexing would, unless the block fits both matrices
// (the assembly reads and writes without bounds checks).
func check(nd, ldd, ns, lds, r, c int) {
	if r == 0 || c == 0 {
		return
	}
	if r < 0 || c < 0 || lds < c || ldd < r || (r-1)*lds+c > ns || (c-1)*ldd+r > nd {
		panic("transpose: block outside the matrices")
	}
}

// edges copies the entries outside the tiled part [0,rt)×[0,ct).
func edges[F float32 | float64](dst []F, ldd int, src []F, lds, r, c, rt, ct int) {
	for i := range r {
		j0 := ct
		if i >= rt {
			j0 = 0
		}
		row := src[i*lds : i*lds+c]
		for j := j0; j < c; j++ {
			dst[j*ldd+i] = row[j]
		}
	}
}
