package sbn

import (
	"math"
	"math/rand/v2"

	"github.com/logz-ml/logz/data"
)

// The planted data of model "sbn" (data.Planted with Model "sbn") is drawn
// from Planted's net.
func init() { data.RegisterPlanted("sbn", samplePlanted) }

// Planted returns the generating sigmoid belief net of a planted data spec
// with Model "sbn" (after WithDefaults): D visible units, one latent layer
// of H units. With s = WeightScale, k = max(1, round(D/4)), a random
// permutation π of the visible units and every z an independent N(0,1)
// draw from rand.NewPCG(Seed, data.PlantedParamStream):
//
//   - latent unit j owns the pattern P_j = {π[(⌊jD/H⌋ + t) mod D] : t < k};
//   - W_ij = s·(z_ij + 8·[i ∈ P_j]): h_j turns its pattern on;
//   - b0_i = −2 + 0.25·z_i: a visible unit no active pattern covers is
//     mostly off;
//   - b1_j = −1 + 0.5·z_j: each pattern is present with probability ≈ 0.27,
//     independently (the prior of an SBN factorises).
//
// So p(x) is a mixture of 2^H superpositions of overlapping patterns, and
// its exact log-likelihood is a sum over the 2^H latent states.
func Planted(spec data.PlantedSpec) *Net {
	p := spec.WithDefaults()
	D, H, s := p.Visible, p.Hidden, p.WeightScale
	rng := rand.New(rand.NewPCG(p.Seed, data.PlantedParamStream))
	n := New([]int{D, H}, false)
	k := max(1, int(math.Round(float64(D)/4)))
	perm := rng.Perm(D)
	for j := range H {
		start := j * D / H
		for t := range min(k, D) {
			n.W[1][perm[(start+t)%D]*H+j] = 8 * s
		}
	}
	for i := range D {
		for j := range H {
			n.W[1][i*H+j] += s * rng.NormFloat64()
		}
	}
	for i := range D {
		n.B[0][i] = -2 + 0.25*rng.NormFloat64()
	}
	for j := range H {
		n.B[1][j] = -1 + 0.5*rng.NormFloat64()
	}
	return n
}

// samplePlanted is the data.PlantedSampler of model "sbn": n examples
// drawn ancestrally from Planted(spec), each consuming the same number of
// uniforms (one per unit of every layer).
func samplePlanted(spec data.PlantedSpec, n int, rng *rand.Rand, _ uint64) (*data.Set, error) {
	net := Planted(spec)
	D := net.NumVisible()
	out := &data.Set{N: n, D: D, X: make([]uint8, n*D)}
	h := net.States()
	sc := net.NewScratch()
	for r := range n {
		net.Sample(h, rng, sc)
		for i, x := range h[0] {
			out.X[r*D+i] = uint8(x)
		}
	}
	return out, nil
}
