package kernel

// Weigh32 sets p_i = w·(h_i − p_i) for every i (in float32: the difference
// rounded, then the product) and, with e non-nil, adds the new p_i to e_i:
// the weighted residuals of a self-normalised importance sampler, δ = w̃
// (h − σ(a)), and their running sum over an example's proposals. On amd64
// with AVX2 it runs eight entries at a time with the same operations (the
// same bits; build tag purego: Go only).
func Weigh32(p, h, e []float32, w float32) {
	h = h[:len(p)]
	if e != nil {
		e = e[:len(p)]
	}
	j := weigh32(p, h, e, w)
	if e == nil {
		for i := j; i < len(p); i++ {
			p[i] = w * (h[i] - p[i])
		}
		return
	}
	for i := j; i < len(p); i++ {
		v := w * (h[i] - p[i])
		p[i] = v
		e[i] += v
	}
}
