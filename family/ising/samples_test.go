package ising

import (
	"math/rand/v2"
	"testing"

	"github.com/logz-ml/logz/family/familytest"
	"github.com/logz-ml/logz/family/kit"
	"github.com/logz-ml/logz/models"
)

// TestSampleMatchesTheModel: Gibbs chains of a 2×2 Ising model (both spin
// conventions) from both starts reach p(x) by enumeration (states and the
// conditionals σ(Δ_i)); the samples do not depend on the workers.
// Mutation checked: no sweeps, and means σ(h_i) without the couplings,
// both fail.
func TestSampleMatchesTheModel(t *testing.T) {
	for _, sp := range []models.Spins{models.Spins01, models.SpinsPM1} {
		m := models.NewIsing(2, 2, sp)
		rng := rand.New(rand.NewPCG(2, 1))
		for i := range m.Params() {
			m.Params()[i] = rng.NormFloat64()
		}
		p := familytest.Marginal([]int{4}, func(xs [][]float64) float64 {
			x := make([]uint8, 4)
			for i, v := range xs[0] {
				x[i] = uint8(v)
			}
			return m.LogUnnorm(x)
		})
		data := familytest.Rows{{1, 1, 1, 1}, {0, 0, 0, 0}}
		draw := func(n int, init string, mean bool, workers int) ([]float64, error) {
			d, err := Plugin{}.Sample(m, kit.SampleOptions{N: n, Steps: 30, Init: init, Mean: mean, Data: data, Seed: 5, Workers: workers})
			if err != nil {
				return nil, err
			}
			return d.X, nil
		}
		familytest.CheckSampler(t, draw, 4, p, SampleInits, 4000)
	}
}
