package data

import (
	"math"
	"testing"

	"github.com/logz-ml/logz/models"
)

// TestPlantedIsing: the planted ising splits come from PlantedIsing (the
// mean of T(x) over the examples matches its exact expected statistics
// within 4 standard errors, for the exact sampler and for the Gibbs
// chains of a grid too wide for it), prefixes of larger splits are the
// smaller splits, and the grid limits are errors.
func TestPlantedIsing(t *testing.T) {
	for _, gibbs := range []bool{false, true} {
		spec := PlantedSpec{Model: "ising", Rows: 5, Cols: 4, Train: 600, Test: 300, Seed: 4, WeightScale: 0.5}
		m := PlantedIsing(spec)
		tr, err := Planted(spec, "train")
		if err != nil {
			t.Fatal(err)
		}
		if tr.D != 20 || tr.N != spec.Train {
			t.Fatalf("%d×%d set", tr.N, tr.D)
		}
		g := "exact"
		if gibbs { // the sampler of grids too large for the exact one
			g = "gibbs"
			tr = &Set{N: 300, D: 20, X: make([]uint8, 300*20)}
			gibbsIsing(m, tr, 9, 1)
		}
		_, want, err := m.ExpectedStats()
		if err != nil {
			t.Fatal(err)
		}
		P := len(want)
		sum, sum2, one := make([]float64, P), make([]float64, P), make([]float64, P)
		for n := range tr.N {
			clear(one)
			m.AddStats(one, tr.Row(n), 1)
			for k, v := range one {
				sum[k] += v
				sum2[k] += v * v
			}
		}
		N := float64(tr.N)
		for k := range want {
			mean := sum[k] / N
			se := math.Sqrt(math.Max(sum2[k]/N-mean*mean, 1e-12) / (N - 1))
			if math.Abs(mean-want[k]) > 4*se {
				t.Errorf("%v: mean T_%d %.4f, exact %.4f (SE %.4f)", g, k, mean, want[k], se)
			}
		}
		small := spec
		small.Train = 10
		s, err := Planted(small, "train")
		if err != nil {
			t.Fatal(err)
		}
		for i, x := range s.X {
			if !gibbs && x != tr.X[i] {
				t.Fatalf("%v: the first 10 examples differ from those of the larger split", g)
			}
		}
	}
	if _, err := models.NewIsingSampler(PlantedIsing(PlantedSpec{Model: "ising", Rows: 300, Cols: 300})); err == nil {
		t.Error("a 300×300 grid fits the exact sampler's table")
	}
	if _, err := Planted(PlantedSpec{Model: "ising", Rows: 301, Cols: 2}, "train"); err == nil {
		t.Error("rows 301: no error")
	}
}
