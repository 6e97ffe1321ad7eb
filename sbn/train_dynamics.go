package sbn

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/logz-ml/logz/internal/optim"
)

// The parameter dynamics of the trainer, on flat vectors θ (the free
// generative parameters: every b_l and W_l, and the strictly lower
// triangle of every S_l, so the upper triangle and diagonal of S are never
// touched).
//
// Parameterisation (docs/methods.md#sg-mcmc-scaling; Du, Zhu & Zhang 2015, eq. 4 and App. C).
// The potential energy is U(θ) = −log p_0(θ) − Σ_{n=1}^N log p(x_n | θ),
// estimated on a minibatch B_t with latent samples as
//
//	∇Ũ(θ) = −∇ log p_0(θ) − (N/|B_t|) Σ_{n∈B_t} Σ_s w_{n,s} ∇ log p(x_n, h_{n,s} | θ)
//
// (the likelihood part scaled by N/|B_t|, never the prior). The paper's
// learning rate λ multiplies the per-data gradient ∇Ũ/N, so the step on
// ∇Ũ itself is η = λ/N, and the injected noise is scaled by the same η
// (targeting the posterior at temperature 1):
//
//	sghmc (Chen, Fox & Guestrin 2014, with v = η·momentum, α = η·friction):
//	    v ← (1 − α) v − η ∇Ũ(θ) + N(0, 2(α − β̂) η),   θ ← θ + v
//	  α is Friction (the paper's momentum decay ξ, 0.1 or 0.05), β̂ ∈ [0, α]
//	  the estimate of the minibatch gradient noise (GradNoise; 0 by default:
//	  β̂ > α is refused, as in the reference SGHMC).
//	sgnht (SG Nosé–Hoover thermostat, Ding et al. 2014, in the same units;
//	  what the official DSGHMC code runs), with D free parameters:
//	    v ← (1 − ξ) v − η ∇Ũ(θ) + N(0, 2 η A)
//	    ξ ← ξ + (Σ_i v_i²/D − η)
//	    θ ← θ + v
//	  A is NoiseA (0.1, "momentum decay" in the code), ξ starts at A; the
//	  thermostat ξ rises when the kinetic energy exceeds its target
//	  (E v² = η) and so absorbs unknown gradient noise.
//	sgld (stochastic gradient Langevin dynamics, Welling & Teh 2011), with
//	  ε = η = λ/N:
//	    θ ← θ − (ε/2) ∇Ũ(θ) + N(0, ε)
//	  i.e. θ + (ε/2)·(the estimate of ∇ log posterior) plus noise of
//	  variance ε; no momentum, no state beyond θ. On U = θ²/(2s²) the
//	  discretised chain's stationary variance is s²/(1 − ε/(4s²)).
//	adam (Kingma & Ba 2015; no injected noise: a maximum-likelihood or MAP
//	  point estimate; the rws, wake-sleep and nvil methods run it on their
//	  own gradients): on g = ∇Ũ/N,
//	    m ← β₁m + (1−β₁)g,  s ← β₂s + (1−β₂)g²,  θ ← θ − λ m̂/(√ŝ + ε)
//	  with β₁ = 0.9, β₂ = 0.999, ε = 10⁻⁸ and m̂, ŝ bias-corrected.
type dynamics struct {
	method  string
	lr      float64 // λ
	eta     float64 // λ/N
	alpha   float64 // SGHMC friction
	betaHat float64 // SGHMC gradient-noise estimate
	a       float64 // SGNHT noise A
	v       []float64
	xi      float64
	adam    optim.Adam
	n       float64 // N
}

func newDynamics(method string, lr, friction, gradNoise, noiseA float64, N, size int) (*dynamics, error) {
	d := &dynamics{method: method, lr: lr, eta: lr / float64(N), alpha: friction, betaHat: gradNoise, a: noiseA, n: float64(N)}
	if optimiser[method] {
		d.method = "adam"
	}
	switch d.method {
	case "sghmc":
		if !(friction > 0 && friction <= 1) {
			return nil, fmt.Errorf("sghmc: friction α = %v must lie in (0, 1]", friction)
		}
		if !(gradNoise >= 0 && gradNoise <= friction) {
			return nil, fmt.Errorf("sghmc: the gradient-noise estimate β̂ = %v must lie in [0, α = %v] (β̂ > α would need negative injected noise)", gradNoise, friction)
		}
		d.v = make([]float64, size)
	case "sgnht":
		if !(noiseA > 0) || math.IsInf(noiseA, 0) {
			return nil, fmt.Errorf("sgnht: noise A = %v must be a positive number", noiseA)
		}
		d.v = make([]float64, size)
		d.xi = noiseA
	case "sgld":
	case "adam":
		d.adam = optim.NewAdam(lr, size)
	default:
		return nil, fmt.Errorf("method %q: expected %s", method, methodList)
	}
	if !(lr > 0) || math.IsInf(lr, 0) {
		return nil, fmt.Errorf("%s: learning rate %v must be a positive number", method, lr)
	}
	return d, nil
}

// step moves theta given gradU = ∇Ũ(θ), drawing the injected noise from rng
// (one range covering θ).
func (d *dynamics) step(theta, gradU []float64, rng *rand.Rand) {
	d.begin()
	d.finish(theta, d.stepRange(theta, gradU, rng, 0, len(theta)))
}

// begin starts a step taken in ranges (stepRange): Adam's step count.
func (d *dynamics) begin() {
	if d.method == "adam" {
		d.adam.T++
	}
}

// Methods are the trainer's methods (TrainOptions.Method), methodList
// them in words, and optimiser those whose θ moves by Adam (the dynamics
// "adam"): adam itself, rws (adam with the adaptive importance sampler
// under its own name), wake-sleep and nvil (ws.go, nvil.go). "pg-gibbs",
// Gan et al.'s batch Gibbs sampler, is PGTrainer's (pg_train.go), and
// "pg-vb", its mean-field counterpart, VBTrainer's (pg_vb.go), not
// Trainer's.
var (
	Methods    = []string{"sghmc", "sgnht", "sgld", "adam", "rws", "wake-sleep", "nvil", "pg-gibbs", "pg-vb"}
	methodList = "sghmc, sgnht, sgld, adam, rws, wake-sleep or nvil (pg-gibbs: NewPGTrainer; pg-vb: NewVBTrainer)"
	optimiser  = map[string]bool{"adam": true, "rws": true, "wake-sleep": true, "nvil": true}
)

// stepRange is step on theta[lo:hi] with its own noise stream rng, so that
// a partition of the parameters can be moved concurrently (the numbers
// then depend on the partition, not on the goroutines): after begin, the
// ranges, and for sgnht finish with the sum of the ranges' returns (their
// Σ v² in a fixed order). sghmc, sgld and adam move θ here; sgnht only v.
func (d *dynamics) stepRange(theta, gradU []float64, rng *rand.Rand, lo, hi int) (kin float64) {
	switch d.method {
	case "sghmc":
		keep, eta := 1-d.alpha, d.eta
		sd := math.Sqrt(2 * (d.alpha - d.betaHat) * eta)
		theta, v, gradU := theta[lo:hi], d.v[lo:hi], gradU[lo:hi]
		for i := range theta {
			v[i] = keep*v[i] - eta*gradU[i] + sd*rng.NormFloat64()
			theta[i] += v[i]
		}
	case "sgnht":
		keep, eta := 1-d.xi, d.eta
		sd := math.Sqrt(2 * eta * d.a)
		v, gradU := d.v[lo:hi], gradU[lo:hi]
		for i := range v {
			v[i] = keep*v[i] - eta*gradU[i] + sd*rng.NormFloat64()
			kin += v[i] * v[i]
		}
	case "sgld":
		half, sd := d.eta/2, math.Sqrt(d.eta)
		theta, gradU := theta[lo:hi], gradU[lo:hi]
		for i := range theta {
			theta[i] += -half*gradU[i] + sd*rng.NormFloat64()
		}
	case "adam":
		d.adam.StepRange(theta, gradU, 1/d.n, lo, hi)
	}
	return kin
}

// finish ends a step taken in ranges: sgnht's thermostat from kin = Σ v²
// and θ ← θ + v.
func (d *dynamics) finish(theta []float64, kin float64) {
	if d.method != "sgnht" {
		return
	}
	d.xi += kin/float64(len(theta)) - d.eta
	v := d.v[:len(theta)]
	for i := range theta {
		theta[i] += v[i]
	}
}

// adam holds the moment estimates of Adam.
// paramSlices lists the parameter slices of a net (as parameters or as a
// gradient) in the flat order: b_0 … b_L, W_1 … W_L, S_0 … S_L; tri[k] is
// the side of a strictly lower-triangular matrix (only its entries below
// the diagonal are free), 0 for a full slice.
func paramSlices(n *Net) (xs [][]float64, tri []int) {
	L := n.Layers()
	for l := 0; l <= L; l++ {
		xs, tri = append(xs, n.B[l]), append(tri, 0)
	}
	for l := 1; l <= L; l++ {
		xs, tri = append(xs, n.W[l]), append(tri, 0)
	}
	if n.S != nil {
		for l := 0; l <= L; l++ {
			xs, tri = append(xs, n.S[l]), append(tri, n.Sizes[l])
		}
	}
	return xs, tri
}

// recSlices is paramSlices for a recognition network: R_l, c_l and T_l
// (strictly lower triangle) for l = 1 … L.
func recSlices(r *Recognition, sizes []int) (xs [][]float64, tri []int) {
	for l := 1; l < len(sizes); l++ {
		xs, tri = append(xs, r.R[l], r.C[l]), append(tri, 0, 0)
	}
	if r.T != nil {
		for l := 1; l < len(sizes); l++ {
			xs, tri = append(xs, r.T[l]), append(tri, sizes[l])
		}
	}
	return xs, tri
}

// flatSize is the number of free parameters of the slices.
func flatSize(xs [][]float64, tri []int) int {
	n := 0
	for k, x := range xs {
		if tri[k] > 0 {
			n += tri[k] * (tri[k] - 1) / 2
		} else {
			n += len(x)
		}
	}
	return n
}

// gather copies the free entries of xs into dst in the flat order.
func gather(xs [][]float64, tri []int, dst []float64) {
	o := 0
	for k, x := range xs {
		if m := tri[k]; m > 0 {
			for i := 1; i < m; i++ {
				o += copy(dst[o:], x[i*m:i*m+i])
			}
			continue
		}
		o += copy(dst[o:], x)
	}
}

// scatter copies src into the free entries of xs (the inverse of gather).
func scatter(src []float64, xs [][]float64, tri []int) {
	o := 0
	for k, x := range xs {
		if m := tri[k]; m > 0 {
			for i := 1; i < m; i++ {
				o += copy(x[i*m:i*m+i], src[o:])
			}
			continue
		}
		o += copy(x, src[o:])
	}
}
