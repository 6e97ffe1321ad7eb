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
		checkIsingStats(t, g, m, tr)
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

// TestPlantedIsingFerro: the ising-ferro grid has every coupling equal to
// weight_scale and fields ±FerroField, and its exact samples match its
// expected statistics within 4 standard errors (at J = 0.4, near the
// ordering of a 5×5 grid).
func TestPlantedIsingFerro(t *testing.T) {
	spec := PlantedSpec{Model: PlantedIsingFerro, Rows: 5, Cols: 5, Train: 2000, Test: 10, Seed: 2, WeightScale: 0.4}
	m := PlantedIsing(spec)
	signs := 0
	for _, h := range m.Fields {
		if math.Abs(h) != FerroField {
			t.Fatalf("field %v, want ±%v", h, FerroField)
		}
		if h > 0 {
			signs++
		}
	}
	if signs == 0 || signs == len(m.Fields) {
		t.Errorf("all %d fields of one sign", len(m.Fields))
	}
	for _, J := range append(append([]float64(nil), m.CouplingH...), m.CouplingV...) {
		if J != 0.4 {
			t.Fatalf("coupling %v, want 0.4", J)
		}
	}
	tr, err := Planted(spec, "train")
	if err != nil {
		t.Fatal(err)
	}
	if tr.D != 25 {
		t.Fatalf("%d units", tr.D)
	}
	checkIsingStats(t, "ising-ferro", m, tr)
}

// checkIsingStats checks that the mean sufficient statistics T(x) of the
// examples of set match m's exact expected statistics within 4 standard
// errors.
func checkIsingStats(t *testing.T, label string, m *models.Ising, set *Set) {
	t.Helper()
	_, want, err := m.ExpectedStats()
	if err != nil {
		t.Fatal(err)
	}
	P := len(want)
	sum, sum2, one := make([]float64, P), make([]float64, P), make([]float64, P)
	for n := range set.N {
		clear(one)
		m.AddStats(one, set.Row(n), 1)
		for k, v := range one {
			sum[k] += v
			sum2[k] += v * v
		}
	}
	N := float64(set.N)
	for k := range want {
		mean := sum[k] / N
		se := math.Sqrt(math.Max(sum2[k]/N-mean*mean, 1e-12) / (N - 1))
		if math.Abs(mean-want[k]) > 4*se {
			t.Errorf("%s: mean T_%d %.4f, exact %.4f (SE %.4f)", label, k, mean, want[k], se)
		}
	}
}
