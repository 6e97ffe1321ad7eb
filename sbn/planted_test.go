package sbn

import (
	"hash/fnv"
	"math"
	"slices"
	"testing"

	"github.com/logz-ml/logz/data"
	"github.com/logz-ml/logz/internal/nmath"
)

// TestPlanted: the planted SBN's splits (data.Planted with Model "sbn")
// are exact ancestral samples — their empirical log-likelihood under the
// generating net matches its negative entropy estimate from fresh samples.
func TestPlanted(t *testing.T) {
	spec := data.PlantedSpec{Model: "sbn", Visible: 12, Hidden: 4, Train: 3000, Valid: 10, Test: 3000, Seed: 7}
	tr, err := data.Planted(spec, "train")
	if err != nil {
		t.Fatal(err)
	}
	te, _ := data.Planted(spec, "test")
	net := Planted(spec)
	// Exact log p(x) by summing the 2^4 latent states.
	logp := func(x []uint8) float64 {
		h := net.States()
		sc := net.NewScratch()
		for i, v := range x {
			h[0][i] = float64(v)
		}
		var lps []float64
		for code := range 1 << 4 {
			for j := range 4 {
				h[1][j] = float64(code >> j & 1)
			}
			lps = append(lps, net.LogJoint(h, 1, sc))
		}
		return nmath.LogSumExp(lps)
	}
	mean := func(s *data.Set) (float64, float64) {
		var sum, sq float64
		for r := range s.N {
			v := logp(s.X[r*s.D : (r+1)*s.D])
			sum += v
			sq += v * v
		}
		m := sum / float64(s.N)
		return m, math.Sqrt((sq/float64(s.N) - m*m) / float64(s.N))
	}
	m1, se1 := mean(tr)
	m2, se2 := mean(te)
	// Two independent samples of the same distribution: the mean
	// log-likelihoods agree within their combined error.
	if d := math.Abs(m1 - m2); d > 4*math.Hypot(se1, se2) {
		t.Errorf("train %.3f ± %.3f and test %.3f ± %.3f differ by %.3f", m1, se1, m2, se2, d)
	}
	// And the data is far from uniform (the patterns matter).
	if m1 > -0.7*12*math.Ln2 {
		t.Errorf("mean log p %.3f is close to uniform %.3f", m1, -12*math.Ln2)
	}
}

// TestPlantedPinned pins the planted SBN data: the FNV-1a hash of the
// three splits of two specs, as drawn before the generator moved from data
// to this package (same seeds, same draws).
func TestPlantedPinned(t *testing.T) {
	if !slices.Contains(data.PlantedModels(), "sbn") {
		t.Fatal(`package sbn did not register planted model "sbn"`)
	}
	for _, c := range []struct {
		spec data.PlantedSpec
		want uint64
	}{
		{data.PlantedSpec{Model: "sbn"}, 0x88d9bfd30a9b71ff},
		{data.PlantedSpec{Model: "sbn", Visible: 12, Hidden: 4, Train: 300, Valid: 10, Test: 300, Seed: 7, WeightScale: 0.7}, 0x788e36afaa52cd1d},
	} {
		h := fnv.New64a()
		for _, split := range []string{"train", "valid", "test"} {
			s, err := data.Planted(c.spec, split)
			if err != nil {
				t.Fatal(err)
			}
			h.Write(s.X)
		}
		if got := h.Sum64(); got != c.want {
			t.Errorf("%+v: hash %#x, want %#x", c.spec, got, c.want)
		}
	}
}
