package kernel

// TanhGrad32 sets d_i = d_i·(1 − u_i·u_i) for i < len(u): a delta
// backpropagated through u = tanh(·), each of the three operations
// rounded to float32 (no fused multiply-add). On amd64 with AVX2 it runs
// eight entries at a time with the same operations (the same bits; build
// tag purego: Go only).
func TanhGrad32(d, u []float32) {
	d = d[:len(u)]
	for i := tanhGrad32(d, u); i < len(u); i++ {
		x := u[i]
		d[i] *= 1 - float32(x*x)
	}
}
