package eval

import (
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/logz-ml/logz/inference"
	"github.com/logz-ml/logz/internal/kernel"
	"github.com/logz-ml/logz/internal/nmath"
	"github.com/logz-ml/logz/models"
)

func exactLogZ(t *testing.T, m *models.RBM) float64 {
	t.Helper()
	lz, err := Exact{}.LogZ(m)
	if err != nil {
		t.Fatal(err)
	}
	return lz
}

// checkMeanWeight asserts that the mean AIS weight, normalised by the exact
// ratio, is 1 within 4 standard errors (estimated from the weights), and
// that the standard error is small enough for the test to detect a 10% bias.
func checkMeanWeight(t *testing.T, name string, r AISResult, exactLogRatio float64) {
	t.Helper()
	st := nmath.Summarise(r.LogW)
	mean := math.Exp(st.LogMean - exactLogRatio)
	se := math.Exp(st.LogStdErr - exactLogRatio)
	t.Logf("%s: mean w/(Z_B/Z_A) = %.4f ± %.4f (ESS %.0f of %d)", name, mean, se, r.ESS, r.Runs)
	if se > 0.025 {
		t.Errorf("%s: standard error %.3g too large for a meaningful test", name, se)
	}
	if math.Abs(mean-1) > 4*se {
		t.Errorf("%s: mean normalised weight %.5f differs from 1 by more than 4 SE (%.3g)", name, mean, se)
	}
}

// precisions are the arithmetic of the RBM chains, each tested for
// unbiasedness.
var precisions = []kernel.Precision{kernel.Float64, kernel.Float32}

// TestAISUnbiased checks E[w] = Z/Z_0 for K = 2, 10 and 100 on a 5×4 RBM,
// from the data-base-rate and the uniform starts, in both precisions.
func TestAISUnbiased(t *testing.T) {
	m := testRBM(5, 4, 1.6, 0.8, 41)
	lz := exactLogZ(t, m)
	bases := map[string][]float64{"base-rate": marginalLogOdds(m), "uniform": nil}
	for _, prec := range precisions {
		for _, name := range []string{"base-rate", "uniform"} {
			for _, K := range []int{2, 10, 100} {
				runs := 40000
				if K == 100 {
					runs = 5000 // SE ≤ 0.004 here; a dropped last step or a transition at the previous β fails by ≥ 5 SE
				}
				r, err := AIS{Runs: runs, Betas: inference.LinearSchedule(K), BaseVBias: bases[name], Seed: uint64(K), Precision: prec}.LogZ(m)
				if err != nil {
					t.Fatal(err)
				}
				checkMeanWeight(t, string(prec)+"/"+name+"/K="+strconv.Itoa(K), r, lz-r.LogZBase)
			}
		}
	}
}

// marginalLogOdds returns log(p_i/(1−p_i)) for p_i = p(v_i = 1) under a tiny
// model, by enumeration: the ideal "data base rate".
func marginalLogOdds(m *models.RBM) []float64 {
	D := m.NVis
	v := make([]float64, D)
	logf := make([]float64, 1<<D)
	for s := range logf {
		for i := range v {
			v[i] = float64(s >> i & 1)
		}
		logf[s] = m.LogUnnorm(v, nil)
	}
	lz := nmath.LogSumExp(logf)
	out := make([]float64, D)
	for i := range D {
		p := 0.0
		for s, l := range logf {
			if s>>i&1 == 1 {
				p += math.Exp(l - lz)
			}
		}
		out[i] = nmath.Logit(p)
	}
	return out
}

// TestAISRatioUnbiased checks E[w] = Z_B/Z_A for two RBMs with different
// hidden sizes (2008 §3.2), with A enumerated over its hidden layer (5×3),
// over its visible layer (5×7), and weightless with hidden biases, in both
// precisions.
func TestAISRatioUnbiased(t *testing.T) {
	mB := testRBM(5, 4, 1.0, 0.8, 42)
	lzB := exactLogZ(t, mB)
	wl := models.NewRBM(5, 6)
	copy(wl.VBias, []float64{0.2, -1, 0.5, 0, -0.4})
	copy(wl.HBias, []float64{1, -0.5, 0, 2, -1, 0.3})
	for _, c := range []struct {
		name string
		mA   *models.RBM
	}{{"A=5×3", testRBM(5, 3, 0.8, 0.5, 43)}, {"A=5×7", testRBM(5, 7, 0.6, 0.5, 44)}, {"A weightless 5×6", wl}} {
		lzA := exactLogZ(t, c.mA)
		for _, prec := range precisions {
			for _, K := range []int{2, 10, 100} {
				runs := 40000
				if K == 100 {
					runs = 5000 // SE ≤ 0.004 here; a dropped last step or a transition at the previous β fails by ≥ 5 SE
				}
				r, err := AIS{Runs: runs, Betas: inference.LinearSchedule(K), Seed: 7, Precision: prec}.LogRatio(c.mA, mB)
				if err != nil {
					t.Fatal(err)
				}
				if math.Abs(r.LogZBase-lzA) > 1e-9 {
					t.Fatalf("%s: LogZBase %v, exact log Z_A %v", c.name, r.LogZBase, lzA)
				}
				checkMeanWeight(t, string(prec)+"/"+c.name+"/K="+strconv.Itoa(K), r, lzB-lzA)
			}
		}
	}
}

// TestAISConverges checks that with the 2008 schedule and 100 runs log Ẑ is
// within 0.05 nats of the exact log Z of a 20×10 RBM with strong weights,
// and that the ±3σ interval contains it.
func TestAISConverges(t *testing.T) {
	m := testRBM(20, 10, 0.7, 0.5, 45)
	lz := exactLogZ(t, m)
	base := make([]float64, 20)
	for i := range base {
		base[i] = -0.5
	}
	for _, c := range []struct {
		name  string
		betas []float64
		base  []float64
	}{{"2008/base-rate", inference.Schedule2008(), base}, {"linear10000/uniform", inference.LinearSchedule(10000), nil}} {
		r, err := AIS{Runs: 100, Betas: c.betas, BaseVBias: c.base, Seed: 1}.LogZ(m)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: log Ẑ = %.4f [%.4f, %.4f] (±3σ), exact %.4f, ESS %.1f, warnings %v", c.name, r.LogZ, r.LogZLo3, r.LogZHi3, lz, r.ESS, r.Warnings)
		if math.Abs(r.LogZ-lz) > 0.05 {
			t.Errorf("%s: log Ẑ = %.4f, exact %.4f", c.name, r.LogZ, lz)
		}
		if !(r.LogZLo3 <= lz && lz <= r.LogZHi3) {
			t.Errorf("%s: exact log Z %.4f outside the ±3σ interval [%.4f, %.4f]", c.name, lz, r.LogZLo3, r.LogZHi3)
		}
		if r.Steps != len(c.betas)-1 || r.Runs != 100 {
			t.Errorf("Steps %d Runs %d", r.Steps, r.Runs)
		}
	}
}

func TestAISDeterministic(t *testing.T) {
	m := testRBM(30, 12, 0.3, 0.5, 46)
	run := func(workers int) []float64 {
		r, err := AIS{Runs: 7, Betas: inference.PiecewiseSchedule(500), Seed: 99, Workers: workers}.LogZ(m)
		if err != nil {
			t.Fatal(err)
		}
		return r.LogW
	}
	ref := run(1)
	for _, w := range []int{2, 3, 16} {
		if got := run(w); !slices.Equal(got, ref) {
			t.Fatalf("Workers=%d: LogW %v differ from Workers=1 %v", w, got, ref)
		}
	}
	old := runtime.GOMAXPROCS(1)
	g1 := run(0)
	runtime.GOMAXPROCS(2)
	g2 := run(0)
	runtime.GOMAXPROCS(old)
	if !slices.Equal(g1, ref) || !slices.Equal(g2, ref) {
		t.Fatal("LogW depend on GOMAXPROCS")
	}
	r2, _ := AIS{Runs: 7, Betas: inference.PiecewiseSchedule(500), Seed: 100}.LogZ(m)
	if slices.Equal(r2.LogW, ref) {
		t.Fatal("a different seed gave the same weights")
	}
}

func TestAISValidation(t *testing.T) {
	m := testRBM(5, 4, 1, 1, 1)
	cases := []struct {
		name string
		a    AIS
		want string
	}{
		{"not starting at 0", AIS{Betas: []float64{0.1, 0.5, 1}}, "β_0 = 0.1"},
		{"not ending at 1", AIS{Betas: []float64{0, 0.5, 0.9}}, "want 1"},
		{"not increasing", AIS{Betas: []float64{0, 0.5, 0.5, 1}}, "β_2"},
		{"too short", AIS{Betas: []float64{0}}, "at least 2"},
		{"negative runs", AIS{Runs: -3}, "Runs = -3"},
		{"base size", AIS{BaseVBias: []float64{1, 2}}, "length 2, want 5"},
		{"base NaN", AIS{BaseVBias: []float64{0, 0, math.NaN(), 0, 0}}, "[2]"},
	}
	for _, c := range cases {
		_, err := c.a.LogZ(m)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
	bad := m.Clone()
	bad.HBias[2] = math.Inf(1)
	if _, err := (AIS{}).LogZ(bad); err == nil || !strings.Contains(err.Error(), "hbias[2]") {
		t.Errorf("infinite hidden bias: error %v", err)
	}
	_, err := AIS{}.LogRatio(testRBM(784, 25, 0.01, 0.1, 1), testRBM(784, 30, 0.01, 0.1, 2))
	if err == nil || !strings.Contains(err.Error(), "25 units") {
		t.Errorf("large weighted A: error %v, want one naming its 25 units", err)
	}
	_, err = AIS{}.LogRatio(testRBM(6, 3, 1, 1, 1), m)
	if err == nil || !strings.Contains(err.Error(), "6 visible units") {
		t.Errorf("visible mismatch: error %v", err)
	}
}

func TestAISWarningsAndBars(t *testing.T) {
	lw := make([]float64, 100)
	for i := range lw {
		lw[i] = -40
	}
	lw[3] = 0
	r := summariseAIS(lw, 10, 5)
	if r.ESS > 1.01 || len(r.Warnings) != 2 || !strings.Contains(r.Warnings[0], "ESS 1.0 of 100 runs") || !math.IsInf(r.LogZLo3, -1) || !math.IsInf(r.LogZLo1, -1) {
		t.Errorf("dominated weights: ESS %v, Lo1 %v, Lo3 %v, warnings %q", r.ESS, r.LogZLo1, r.LogZLo3, r.Warnings)
	}
	for i := range lw {
		lw[i] = 0.01 * float64(i%5)
	}
	r = summariseAIS(lw, 10, 5)
	if len(r.Warnings) != 0 || !(r.LogZLo3 < r.LogZLo1 && r.LogZLo1 < r.LogZ && r.LogZ < r.LogZHi1 && r.LogZHi1 < r.LogZHi3) {
		t.Errorf("benign weights: %+v", r)
	}
	// log(Ẑ ± σ̂) from plain arithmetic on these moderate weights.
	var s, s2 float64
	for _, l := range lw {
		w := math.Exp(l)
		s += w
		s2 += w * w
	}
	mean := s / 100
	se := math.Sqrt((s2/100 - mean*mean) * 100 / 99 / 100)
	if math.Abs(r.LogZHi1-(10+math.Log(mean+se))) > 1e-12 || math.Abs(r.LogZLo3-(10+math.Log(mean-3*se))) > 1e-12 {
		t.Errorf("error bars %v %v, want %v %v", r.LogZHi1, r.LogZLo3, 10+math.Log(mean+se), 10+math.Log(mean-3*se))
	}
}

func TestAISProgress(t *testing.T) {
	var last, calls atomic.Int64
	m := testRBM(5, 4, 1, 1, 1)
	_, err := AIS{Runs: 3, Betas: inference.LinearSchedule(2500), Workers: 2, Progress: func(done, total int64) {
		calls.Add(1)
		if total != 7500 {
			t.Errorf("total %d", total)
		}
		for {
			old := last.Load()
			if done <= old || last.CompareAndSwap(old, done) {
				break
			}
		}
	}}.LogZ(m)
	if err != nil {
		t.Fatal(err)
	}
	if last.Load() != 7500 || calls.Load() < 3 {
		t.Fatalf("progress ended at %d after %d calls", last.Load(), calls.Load())
	}
}
