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
// "ising" or "ising-ferro" (after WithDefaults): a Rows×Cols grid with
// spins pm1 (s = 2x − 1). For "ising", fields h_i uniform in [−1, 1] and
// couplings J_ij uniform in [−s, s], s = WeightScale (mixed signs, a spin
// glass, strongly correlated as s grows past ≈ 0.5); for "ising-ferro",
// every coupling J_ij = s and fields h_i = ±FerroField with random signs
// (a ferromagnet whose ± symmetry the fields barely break: on a large
// square lattice it orders at s ≈ 0.44, on a 5×5 grid the crossover is
// smoothed around there). Drawn from rand.NewPCG(Seed, stream) in the
// order fields, horizontal couplings (row-major), vertical couplings
// (row-major).
func PlantedIsing(spec PlantedSpec) *models.Ising {
	p := spec.WithDefaults()
	rng := rand.New(rand.NewPCG(p.Seed, PlantedParamStream))
	m := models.NewIsing(p.Rows, p.Cols, models.SpinsPM1)
	ferro := p.Model == PlantedIsingFerro
	for i := range m.Fields {
		if ferro {
			m.Fields[i] = FerroField
			if rng.IntN(2) == 0 {
				m.Fields[i] = -FerroField
			}
			continue
		}
		m.Fields[i] = 2*rng.Float64() - 1
	}
	for _, J := range [][]float64{m.CouplingH, m.CouplingV} {
		for i := range J {
			if ferro {
				J[i] = p.WeightScale
				continue
			}
			J[i] = p.WeightScale * (2*rng.Float64() - 1)
		}
	}
	return m
}

// PlantedIsingFerro names the planted ferromagnetic Ising grid.
const PlantedIsingFerro = "ising-ferro"

// FerroField is the size of the fields of the planted ising-ferro grid.
const FerroField = 0.01

// IsPlantedGrid reports whether a planted model is an Ising grid (its
// units are Rows·Cols).
func IsPlantedGrid(model string) bool { return model == "ising" || model == PlantedIsingFerro }

// sampleIsingSpec is the PlantedSampler of models "ising" and "ising-ferro".
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
