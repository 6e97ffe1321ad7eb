package data

import (
	"bytes"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/logz-ml/logz/internal/nmath"
	"github.com/logz-ml/logz/models"
	"gonum.org/v1/gonum/stat/distuv"
)

// bruteLogP returns log p(v) for every v ∈ {0,1}^D (v = bits of the index)
// by summing e^{−E(v,h)} over every (v,h): no free-energy formula involved.
func bruteLogP(m *models.RBM) []float64 {
	D, H := m.NVis, m.NHid
	v := make([]float64, D)
	h := make([]float64, H)
	logf := make([]float64, 1<<D)
	terms := make([]float64, 1<<H)
	for a := range logf {
		for i := range v {
			v[i] = float64(a >> i & 1)
		}
		for b := range terms {
			for j := range h {
				h[j] = float64(b >> j & 1)
			}
			terms[b] = -m.Energy(v, h)
		}
		logf[a] = nmath.LogSumExp(terms)
	}
	logZ := nmath.LogSumExp(logf)
	for a := range logf {
		logf[a] -= logZ
	}
	return logf
}

func stateOf(r []uint8) int {
	k := 0
	for i, x := range r {
		k |= int(x) << i
	}
	return k
}

// chiSquare returns the goodness-of-fit statistic of the sample against the
// probabilities exp(logp), pooling cells whose expected count is below 5,
// and its p-value.
func chiSquare(s *Set, logp []float64) (x2 float64, dof int, pval float64) {
	counts := make([]float64, len(logp))
	for n := range s.N {
		counts[stateOf(s.Row(n))]++
	}
	N := float64(s.N)
	var poolO, poolE float64
	cells := 0
	for k, lp := range logp {
		e := N * math.Exp(lp)
		if e < 5 {
			poolO += counts[k]
			poolE += e
			continue
		}
		x2 += (counts[k] - e) * (counts[k] - e) / e
		cells++
	}
	if poolE > 0 {
		x2 += (poolO - poolE) * (poolO - poolE) / poolE
		cells++
	}
	dof = cells - 1
	return x2, dof, distuv.ChiSquared{K: float64(dof)}.Survival(x2)
}

// The reject level of the goodness-of-fit tests: about a 5σ event.
const rejectP = 1e-6

func TestExactSampleMatchesBruteForce(t *testing.T) {
	// Hidden ≤ visible enumerates h; visible < hidden enumerates v.
	for _, sp := range []PlantedSpec{{Visible: 6, Hidden: 3, Seed: 11}, {Visible: 3, Hidden: 5, Seed: 12}, {Visible: 7, Hidden: 4, Seed: 13, WeightScale: 1}} {
		m := PlantedRBM(sp)
		logp := bruteLogP(m)
		const n = 20000
		s, err := ExactSample(m, n, rand.New(rand.NewPCG(sp.Seed, 99)))
		if err != nil {
			t.Fatal(err)
		}
		if s.N != n || s.D != sp.Visible {
			t.Fatalf("got %d×%d", s.N, s.D)
		}
		x2, dof, p := chiSquare(s, logp)
		t.Logf("%d×%d: χ² = %.1f on %d dof, p = %.3g", sp.Visible, sp.Hidden, x2, dof, p)
		if p < rejectP {
			t.Errorf("%d×%d: samples do not follow p(v): χ² = %.1f on %d dof, p = %.3g", sp.Visible, sp.Hidden, x2, dof, p)
		}
		// Mean of −log p(v) over the samples estimates the entropy.
		var sum, sum2 float64
		for k := range s.N {
			l := -logp[stateOf(s.Row(k))]
			sum += l
			sum2 += l * l
		}
		mean := sum / n
		se := math.Sqrt((sum2/n - mean*mean) / n)
		ent := 0.0
		for _, lp := range logp {
			ent -= math.Exp(lp) * lp
		}
		if math.Abs(mean-ent) > 5*se {
			t.Errorf("%d×%d: mean −log p(v) = %.4f ± %.4f, entropy %.4f", sp.Visible, sp.Hidden, mean, se, ent)
		}

		// Power check: the same test rejects samples from a slightly
		// different model, so the acceptance above means something.
		wrong := m.Clone()
		wrong.VBias[0] += 0.3
		ws, _ := ExactSample(wrong, n, rand.New(rand.NewPCG(sp.Seed, 99)))
		x2, dof, p = chiSquare(ws, logp)
		t.Logf("  shifted model: χ² = %.1f on %d dof, p = %.3g", x2, dof, p)
		if p >= rejectP {
			t.Errorf("%d×%d: a model with a_0 shifted by 0.3 passed: χ² = %.1f on %d dof, p = %.3g", sp.Visible, sp.Hidden, x2, dof, p)
		}
	}
}

// plantedStats enumerates all visible states of m: entropy, multi-information
// (Σ_i H(v_i) − H(v)), largest p(v), mean number of units on and the number
// of strict local maxima of p(v) under single-unit flips holding > 10⁻³.
func plantedStats(m *models.RBM) (ent, multiInfo, pmax, ones float64, modes int) {
	D := m.NVis
	lp := make([]float64, 1<<D)
	v := make([]float64, D)
	scratch := make([]float64, m.NHid)
	for k := range lp {
		for i := range v {
			v[i] = float64(k >> i & 1)
		}
		lp[k] = m.LogUnnorm(v, scratch)
	}
	logZ := nmath.LogSumExp(lp)
	marg := make([]float64, D)
	for k, l := range lp {
		p := math.Exp(l - logZ)
		ent -= p * (l - logZ)
		pmax = max(pmax, p)
		for i := range D {
			if k>>i&1 == 1 {
				marg[i] += p
				ones += p
			}
		}
	}
	multiInfo = -ent
	for _, q := range marg {
		multiInfo -= q*math.Log(q) + (1-q)*math.Log1p(-q)
	}
	for k, l := range lp {
		local := math.Exp(l-logZ) > 1e-3
		for i := 0; i < D && local; i++ {
			local = lp[k^(1<<i)] < l
		}
		if local {
			modes++
		}
	}
	return
}

// The default planted distribution must be worth learning: sparse,
// multi-modal and far from the independent-unit model.
func TestDefaultPlantedIsInteresting(t *testing.T) {
	m := PlantedRBM(PlantedSpec{})
	if err := m.Validate(); err != nil {
		t.Fatal(err)
	}
	if m.NVis != 20 || m.NHid != 8 {
		t.Fatalf("default sizes %d×%d", m.NVis, m.NHid)
	}
	ent, mi, pmax, ones, modes := plantedStats(m)
	t.Logf("entropy %.3f nats (uniform %.3f), multi-information %.3f, max p(v) %.4f, mean units on %.2f, %d modes",
		ent, 20*math.Ln2, mi, pmax, ones, modes)
	if mi < 3 {
		t.Errorf("multi-information %.2f nats: the units are nearly independent", mi)
	}
	if pmax > 0.2 {
		t.Errorf("max p(v) = %.3f: one image dominates", pmax)
	}
	if modes < 5 {
		t.Errorf("%d modes: not multi-modal", modes)
	}
	if ones < 3 || ones > 10 {
		t.Errorf("%.2f of 20 units on: not sparse-ish", ones)
	}
	if ent > 0.75*20*math.Ln2 {
		t.Errorf("entropy %.2f is near uniform", ent)
	}
}

func TestPlantedSplits(t *testing.T) {
	spec := PlantedSpec{Train: 300, Valid: 50, Test: 100, Seed: 4}
	train, err := Planted(spec, "train")
	if err != nil {
		t.Fatal(err)
	}
	if train.N != 300 || train.D != 20 || train.Name != "planted:train" {
		t.Fatalf("train %q %d×%d", train.Name, train.N, train.D)
	}
	if err := train.Validate(); err != nil {
		t.Fatal(err)
	}
	// Changing another split's size leaves train alone; a smaller train is a prefix.
	other := spec
	other.Test, other.Valid, other.Train = 7, 3, 120
	train2, _ := Planted(other, "train")
	if !bytes.Equal(train2.X, train.X[:120*20]) {
		t.Error("train examples depend on the other splits' sizes or are not a prefix")
	}
	// Same spec ⇒ same data; the splits and seeds differ.
	again, _ := Planted(spec, "train")
	if !bytes.Equal(again.X, train.X) {
		t.Error("same spec, different data")
	}
	test, _ := Planted(spec, "test")
	valid, _ := Planted(spec, "valid")
	if test.N != 100 || valid.N != 50 || bytes.Equal(test.X, train.X[:100*20]) || bytes.Equal(valid.X, test.X[:50*20]) {
		t.Error("splits are not independent draws")
	}
	reseeded := spec
	reseeded.Seed = 5
	t5, _ := Planted(reseeded, "train")
	if bytes.Equal(t5.X, train.X) {
		t.Error("another seed gave the same data")
	}
	// Defaults.
	def, err := Planted(PlantedSpec{}, "valid")
	if err != nil || def.N != 500 || def.D != 20 {
		t.Errorf("default valid: %v %v", def, err)
	}
}

func TestPlantedSpecErrors(t *testing.T) {
	cases := []struct {
		spec  PlantedSpec
		split string
		want  string
	}{
		{PlantedSpec{Visible: -1}, "train", "planted: visible is -1"},
		{PlantedSpec{Test: -5}, "test", "planted: test is -5"},
		{PlantedSpec{WeightScale: math.NaN()}, "train", "weight_scale is NaN"},
		{PlantedSpec{WeightScale: -1}, "train", "weight_scale is -1"},
		{PlantedSpec{Visible: 30, Hidden: 25}, "train", "min(visible, hidden) is 25"},
		{PlantedSpec{}, "dev", `unknown split "dev"`},
		{PlantedSpec{Hidden: 2000000000}, "train", "planted: hidden is 2000000000; the limit is 100000 units (data.MaxPlantedUnits)"},
		{PlantedSpec{Visible: 2000000000, Hidden: 5}, "train", "planted: visible is 2000000000; the limit is 100000 units"},
		{PlantedSpec{Train: 1 << 40}, "valid", "planted: train is 1099511627776 examples of 20 units, more than the limit of 1073741824 values (data.MaxElements)"},
		{PlantedSpec{Visible: 1000, Hidden: 10, Test: 2000000}, "test", "planted: test is 2000000 examples of 1000 units, more than the limit"},
		// Settings whose planted rbm has parameters out of range (issue 25:
		// hbias[0] is -48751.5, W[0,0] is -Inf) name the setting.
		{PlantedSpec{Visible: 100000, Hidden: 8}, "train", "planted: visible × weight_scale is 100000 × 0.5 = 50000; the limit is 1000 (data.MaxPlantedScaledUnits"},
		{PlantedSpec{WeightScale: 1e308}, "test", "planted: weight_scale is 1e+308; the limit is 100 (data.MaxPlantedWeightScale"},
		{PlantedSpec{Model: "ising", WeightScale: 101}, "test", "planted: weight_scale is 101; the limit is 100"},
	}
	for _, c := range cases {
		_, err := Planted(c.spec, c.split)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v %s: got %v, want error containing %q", c.spec, c.split, err, c.want)
		}
	}
	if got := (PlantedSpec{Seed: 3}).WithDefaults(); got != (PlantedSpec{"rbm", 20, 8, 4, 5, 2000, 500, 1000, 3, 0.5}) {
		t.Errorf("WithDefaults: %+v", got)
	}
	if _, err := ExactSample(models.NewRBM(21, 22), 1, rand.New(rand.NewPCG(1, 1))); err == nil {
		t.Error("ExactSample of a 21×22 RBM: no error")
	}
	if _, err := ExactSample(models.NewRBM(2, 2), -1, rand.New(rand.NewPCG(1, 1))); err == nil {
		t.Error("ExactSample of -1 examples: no error")
	}
	// PlantedRBM is deterministic and its zero spec is the default.
	a, b := PlantedRBM(PlantedSpec{}), PlantedRBM(DefaultPlanted)
	for k := range a.W {
		if a.W[k] != b.W[k] {
			t.Fatal("PlantedRBM is not deterministic")
		}
	}
}

// TestPlantedModels: an unknown planted model is named with the known
// ones, and a model can be registered once.
func TestPlantedModels(t *testing.T) {
	if got := strings.Join(PlantedModels(), ","); got != "ising,ising-ferro,rbm" {
		t.Errorf("PlantedModels() = %s; want ising,ising-ferro,rbm (data's own)", got)
	}
	if _, err := Planted(PlantedSpec{Model: "dbm"}, "train"); err == nil || !strings.Contains(err.Error(), `planted: model is "dbm"; expected ising, ising-ferro or rbm`) {
		t.Errorf("bad model: %v", err)
	}
	defer func() {
		if recover() == nil {
			t.Error("RegisterPlanted(rbm) twice: no panic")
		}
	}()
	RegisterPlanted("rbm", sampleRBM)
}
