package inference

import (
	"math"
	"math/rand/v2"

	"github.com/logz-ml/logz/internal/kernel"
)

// two32 is 2^32: a 32-bit uniform integer k stands for u = k·2^{−32} ∈ [0,1).
const two32 = 4294967296.0

// bernoulliBit returns 1 with probability σ(x) given e = e^{−|x|} and a
// 32-bit uniform integer k (u = k·2^{−32} ∈ [0,1)), without a division or a
// branch. With A = [u(1+e) < 1], P(A) = 1/(1+e) = σ(|x|); for x ≥ 0 the draw
// is A, for x < 0 it is not-A, since 1 − σ(|x|) = σ(x). Both sides are scaled
// by 2^32, which leaves k exact; only k(1+e) is rounded (relative error
// 2^{−53}, far below the 2^{−32} resolution of u). The sign comes from the
// sign bit, so x = −0 gives not-A with P = 1/2 = σ(0), as it should.
func bernoulliBit(k uint64, x, e float64) uint8 {
	a := b2u(float64(int64(k))*(1+e) < two32) // k < 2^32: a signed conversion is exact and cheaper
	return a ^ uint8(math.Float64bits(x)>>63)
}

// sampleUnits draws s_j ~ Bernoulli(σ(x_j)) for every j, given e_j = e^{−|x_j|}
// (only the sign of pre is used; pre may be the pre-activation before scaling
// by a β > 0). It appends the units that turned on to up and those that turned
// off to down (they are reallocated unless their spare capacity is at least len(s)), and returns the
// lists and the change in the number of ones. Each Uint64 of rng provides two
// 32-bit uniforms, for units j and j+1. The loop has no data-dependent branch.
//
// In float32 the draw compares with the same float64 arithmetic, e
// converted exactly.
func sampleUnits[F kernel.Float](s []uint8, pre, e []F, rng *rand.Rand, up, down []int32) ([]int32, []int32, int) {
	n := len(s)
	pre, e = pre[:n], e[:n]
	nu, nd := len(up), len(down)
	nu0, nd0 := nu, nd
	if cap(up)-nu < n {
		up = append(make([]int32, 0, nu+n), up...)
	}
	if cap(down)-nd < n {
		down = append(make([]int32, 0, nd+n), down...)
	}
	up, down = up[:cap(up)], down[:cap(down)]
	j := 0
	for ; j+2 <= n; j += 2 {
		r := rng.Uint64()
		b0 := bernoulliBit(r&0xffffffff, float64(pre[j]), float64(e[j]))
		b1 := bernoulliBit(r>>32, float64(pre[j+1]), float64(e[j+1]))
		f0, f1 := b0^s[j], b1^s[j+1]
		s[j], s[j+1] = b0, b1
		up[nu] = int32(j)
		nu += int(f0 & b0)
		down[nd] = int32(j)
		nd += int(f0 &^ b0)
		up[nu] = int32(j + 1)
		nu += int(f1 & b1)
		down[nd] = int32(j + 1)
		nd += int(f1 &^ b1)
	}
	if j < n {
		b0 := bernoulliBit(rng.Uint64()&0xffffffff, float64(pre[j]), float64(e[j]))
		f0 := b0 ^ s[j]
		s[j] = b0
		if f0 == 1 {
			if b0 == 1 {
				up[nu] = int32(j)
				nu++
			} else {
				down[nd] = int32(j)
				nd++
			}
		}
	}
	return up[:nu], down[:nd], (nu - nu0) - (nd - nd0)
}

// softplusDiff returns Σ_j [softplus(βn·x_j) − softplus(βp·x_j)] for
// βn, βp ≥ 0, given en_j = e^{−βn|x_j|} and ep_j = e^{−βp|x_j|}. With
// softplus(βx) = β·max(x,0) + log(1+e^{−β|x|}) this is
// (βn−βp)·Σ_j max(x_j,0) + log Π_j (1+en_j)/(1+ep_j); the products are taken
// in chunks of 512 factors (each factor in [1,2], so no overflow) with one
// log per chunk. The sums and products are float64 whatever F.
func softplusDiff[F kernel.Float](x, en, ep []F, bn, bp float64) float64 {
	n := len(x)
	en, ep = en[:n], ep[:n]
	pos := 0.0
	lr := 0.0
	for lo := 0; lo < n; lo += 512 {
		hi := min(lo+512, n)
		pn0, pp0, pn1, pp1 := 1.0, 1.0, 1.0, 1.0
		j := lo
		for ; j+2 <= hi; j += 2 {
			pos += float64(max(x[j], 0)) + float64(max(x[j+1], 0))
			pn0 *= 1 + float64(en[j])
			pp0 *= 1 + float64(ep[j])
			pn1 *= 1 + float64(en[j+1])
			pp1 *= 1 + float64(ep[j+1])
		}
		if j < hi {
			pos += float64(max(x[j], 0))
			pn0 *= 1 + float64(en[j])
			pp0 *= 1 + float64(ep[j])
		}
		lr += math.Log((pn0 * pn1) / (pp0 * pp1))
	}
	return (bn-bp)*pos + lr
}

// softplusSumScaled returns Σ_j softplus(β·x_j) for β ≥ 0 given e_j =
// e^{−β|x_j|}, summed in float64 whatever F.
func softplusSumScaled[F kernel.Float](x, e []F, beta float64) float64 {
	n := len(x)
	e = e[:n]
	pos := 0.0
	l := 0.0
	for lo := 0; lo < n; lo += 512 {
		hi := min(lo+512, n)
		p := 1.0
		for j := lo; j < hi; j++ {
			pos += float64(max(x[j], 0))
			p *= 1 + float64(e[j])
		}
		l += math.Log(p)
	}
	return beta*pos + l
}

// sampleThresholds draws s_i ~ Bernoulli(thr_i·2^{−32}) independently, given
// thr_i = p_i·2^32, two 32-bit uniforms per Uint64 of rng (unit i and i+1).
func sampleThresholds(s []uint8, thr []float64, rng *rand.Rand) {
	thr = thr[:len(s)]
	i := 0
	for ; i+2 <= len(s); i += 2 {
		r := rng.Uint64()
		s[i] = b2u(float64(int64(r&0xffffffff)) < thr[i])
		s[i+1] = b2u(float64(int64(r>>32)) < thr[i+1])
	}
	if i < len(s) {
		s[i] = b2u(float64(int64(rng.Uint64()&0xffffffff)) < thr[i])
	}
}

// sampleUniformBits sets every s_i to a fair coin flip, 64 per Uint64 of rng.
func sampleUniformBits(s []uint8, rng *rand.Rand) {
	for lo := 0; lo < len(s); lo += 64 {
		r := rng.Uint64()
		for i := lo; i < min(lo+64, len(s)); i++ {
			s[i] = uint8(r & 1)
			r >>= 1
		}
	}
}

// expNegAbsF is expNegAbs in the precision F: float64 (exp.go) or float32
// (kernel.ExpNegAbs32, β rounded to float32).
func expNegAbsF[F kernel.Float](dst, x []F, beta float64) {
	switch d := any(dst).(type) {
	case []float64:
		expNegAbs(d, any(x).([]float64), beta)
	case []float32:
		kernel.ExpNegAbs32(d, any(x).([]float32), float32(beta))
	}
}

// addRows and subRows are rowsum's AddRows and SubRows in the precision F.
func addRows[F kernel.Float](dst, w []F, idx []int32) {
	switch d := any(dst).(type) {
	case []float64:
		kernel.AddRows(d, any(w).([]float64), idx)
	case []float32:
		kernel.AddRows32(d, any(w).([]float32), idx)
	}
}

func subRows[F kernel.Float](dst, w []F, idx []int32) {
	switch d := any(dst).(type) {
	case []float64:
		kernel.SubRows(d, any(w).([]float64), idx)
	case []float32:
		kernel.SubRows32(d, any(w).([]float32), idx)
	}
}
