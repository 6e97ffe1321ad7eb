package data

import (
	"math/rand/v2"

	"github.com/logz-ml/logz/internal/seeds"
	"github.com/logz-ml/logz/models"
)

// PlantedIsingBurnIn is the number of Gibbs sweeps, from a uniformly random
// start, behind each example of a planted Ising model too large for the
// exact sampler (models.IsingSampler: (D+1)·2^min(rows, cols) messages at
// most models.MaxIsingTable).
const PlantedIsingBurnIn = 1000

// PlantedIsing returns the generating Ising model of a spec with Model
// "ising" (after WithDefaults): a Rows×Cols grid with spins pm1
// (s = 2x − 1), fields h_i uniform in [−1, 1] and couplings J_ij uniform
// in [−s, s], s = WeightScale (the coupling factor c of Kuleshov & Ermon
// 2017, §5.1: mixed signs, a spin glass, strongly correlated as s grows
// past ≈ 0.5), drawn from rand.NewPCG(Seed, stream) in the order fields,
// horizontal couplings (row-major), vertical couplings (row-major).
func PlantedIsing(spec PlantedSpec) *models.Ising {
	p := spec.WithDefaults()
	rng := rand.New(rand.NewPCG(p.Seed, PlantedParamStream))
	m := models.NewIsing(p.Rows, p.Cols, models.SpinsPM1)
	for i := range m.Fields {
		m.Fields[i] = 2*rng.Float64() - 1
	}
	for _, J := range [][]float64{m.CouplingH, m.CouplingV} {
		for i := range J {
			J[i] = p.WeightScale * (2*rng.Float64() - 1)
		}
	}
	return m
}

// sampleIsingSpec is the PlantedSampler of model "ising".
func sampleIsingSpec(p PlantedSpec, n int, rng *rand.Rand, stream uint64) (*Set, error) {
	return sampleIsing(PlantedIsing(p), n, rng, p.Seed, stream), nil
}

// sampleIsing draws n examples of m. When the exact sampler fits
// (models.IsingSampler, always for ≤ 25 sites) each example is an exact
// draw consuming D+1 uniforms of rng; otherwise example k is the state of
// its own Gibbs chain after PlantedIsingBurnIn sweeps from a uniform
// start, with the generator seeds.Derive(seed, stream, k) — so in both
// cases the first n examples of a larger split are those of a smaller one.
func sampleIsing(m *models.Ising, n int, rng *rand.Rand, seed, stream uint64) *Set {
	D := m.NumVisible()
	out := &Set{N: n, D: D, X: make([]uint8, n*D)}
	if s, err := models.NewIsingSampler(m); err == nil {
		for k := range n {
			s.Sample(out.X[k*D:(k+1)*D], rng)
		}
		return out
	}
	gibbsIsing(m, out, seed, stream)
	return out
}

// gibbsIsing fills out with the states of independent Gibbs chains (see
// sampleIsing).
func gibbsIsing(m *models.Ising, out *Set, seed, stream uint64) {
	D := out.D
	for k := range out.N {
		r := rand.New(rand.NewPCG(seeds.Derive(seed, stream, uint64(k)), 0))
		x := out.X[k*D : (k+1)*D]
		for i := range x {
			x[i] = uint8(r.IntN(2))
		}
		for range PlantedIsingBurnIn {
			m.GibbsSweep(x, 1, nil, r)
		}
	}
}
