package kernel

// Widen32 sets dst_i = a·float64(src_i) for i < len(src): float32 sums
// written, scaled, into a float64 gradient (the widening is exact, the
// product rounded once; a = 1 copies exactly). On amd64 with AVX2 it runs
// four entries at a time with the same operations (the same bits; build
// tag purego: Go only).
func Widen32(dst []float64, src []float32, a float64) {
	dst = dst[:len(src)]
	for i := widen32(dst, src, a); i < len(src); i++ {
		dst[i] = a * float64(src[i])
	}
}
