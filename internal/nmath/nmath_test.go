package nmath

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestSoftplusAgainstDirect(t *testing.T) {
	for _, x := range []float64{-50, -3, -1e-3, 0, 1e-3, 2, 30} {
		want := math.Log(1 + math.Exp(x))
		if got := Softplus(x); math.Abs(got-want) > 1e-12*math.Max(1, math.Abs(want)) {
			t.Errorf("Softplus(%g) = %g, want %g", x, got, want)
		}
	}
	if got := Softplus(1000); got != 1000 {
		t.Errorf("Softplus(1000) = %g, want 1000", got)
	}
	if got := Softplus(-1000); got != 0 || math.IsNaN(got) {
		t.Errorf("Softplus(-1000) = %g, want 0", got)
	}
	if got := LogSigmoid(-1000); got != -1000 {
		t.Errorf("LogSigmoid(-1000) = %g", got)
	}
	if s := Sigmoid(-800); s != 0 && !(s > 0) {
		t.Errorf("Sigmoid(-800) = %g", s)
	}
}

func TestLogSumExpAndStats(t *testing.T) {
	x := []float64{1000, 1000 + math.Log(3)}
	if got, want := LogSumExp(x), 1000+math.Log(4); math.Abs(got-want) > 1e-12 {
		t.Errorf("LogSumExp = %v, want %v", got, want)
	}
	w := []float64{1, 2, 3, 6}
	lw := make([]float64, len(w))
	for i, v := range w {
		lw[i] = math.Log(v) - 700 // far below float64's range once exponentiated
	}
	s := Summarise(lw)
	mean, sd := 3.0, math.Sqrt((4+1+0+9)/3.0)
	if math.Abs(s.LogMean-(math.Log(mean)-700)) > 1e-12 {
		t.Errorf("LogMean = %v", s.LogMean)
	}
	if math.Abs(s.LogStdErr-(math.Log(sd/2)-700)) > 1e-12 {
		t.Errorf("LogStdErr = %v want %v", s.LogStdErr, math.Log(sd/2)-700)
	}
	if want := 144.0 / 50; math.Abs(s.ESS-want) > 1e-12 {
		t.Errorf("ESS = %v want %v", s.ESS, want)
	}
	if got := LogSubExp(math.Log(5), math.Log(3)); math.Abs(got-math.Log(2)) > 1e-12 {
		t.Errorf("LogSubExp = %v", got)
	}
}

// TestLogWeightsMerge: weights accumulated in one pass, or in three parts
// merged, give the logsumexp and the ESS of the whole set; a zero weight
// adds nothing and a NaN propagates.
func TestLogWeightsMerge(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	lw := make([]float64, 2500)
	for i := range lw {
		lw[i] = 300 * rng.NormFloat64()
	}
	lw[7] = math.Inf(-1)
	all := NewLogWeights()
	parts := []LogWeights{NewLogWeights(), NewLogWeights(), NewLogWeights()}
	for i, v := range lw {
		all.Add(v)
		parts[i*3/len(lw)].Add(v)
	}
	merged := parts[0]
	merged.Merge(parts[1])
	merged.Merge(parts[2])
	want := Summarise(lw)
	for _, a := range []LogWeights{all, merged} {
		if got := a.LogSum() - math.Log(float64(len(lw))); math.Abs(got-want.LogMean) > 1e-9 {
			t.Errorf("log mean %g, want %g", got, want.LogMean)
		}
		if ess := a.ESS(); math.Abs(ess-want.ESS) > 1e-9 {
			t.Errorf("ESS %g, want %g", ess, want.ESS)
		}
	}
	nan := NewLogWeights()
	nan.Add(1)
	nan.Add(math.NaN())
	nan.Add(2)
	if !math.IsNaN(nan.LogSum()) {
		t.Errorf("a NaN weight gave %g", nan.LogSum())
	}
	if e := NewLogWeights(); !math.IsInf(e.LogSum(), -1) {
		t.Errorf("empty: %g, want -Inf", e.LogSum())
	}
}
