package kernel

// Round32 sets dst_i = float32(src_i) (round to nearest, ties to even, as
// Go's conversion) for i < len(src): a float64 master copy of parameters
// rounded to the float32 copy a float32 engine reads. On amd64 with AVX2 it
// converts four entries at a time (VCVTPD2PS, the same rounding: the same
// bits; build tag purego: Go only).
func Round32(dst []float32, src []float64) {
	dst = dst[:len(src)]
	for i := round32(dst, src); i < len(src); i++ {
		dst[i] = float32(src[i])
	}
}
