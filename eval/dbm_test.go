package eval

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/logz-ml/logz/inference"
	"github.com/logz-ml/logz/internal/nmath"
	"github.com/logz-ml/logz/models"
	"github.com/logz-ml/logz/models/modeltest"
)

// randomDBM is a DBM with N(0, wScale²) weights and N(0, bScale²) biases
// from the stream (seed, 99).
func randomDBM(t *testing.T, seed uint64, wScale, bScale float64, sizes ...int) *models.DBM {
	t.Helper()
	d, err := modeltest.RandomDBM(wScale, bScale, rand.New(rand.NewPCG(seed, 99)), sizes...)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// bruteDBM sums e^{−E} over every joint state: it returns log Z and, for
// every visible configuration (bits of the index), log f(v).
func bruteDBM(d *models.DBM) (logZ float64, logF []float64) {
	L := d.NumLayers()
	D := d.Sizes[0]
	nh := 0
	for _, n := range d.Sizes[1:] {
		nh += n
	}
	xs := make([][]float64, L+1)
	for l := range xs {
		xs[l] = make([]float64, d.Sizes[l])
	}
	logF = make([]float64, 1<<D)
	terms := make([]float64, 1<<nh)
	for vs := 0; vs < 1<<D; vs++ {
		for i := range xs[0] {
			xs[0][i] = float64((vs >> i) & 1)
		}
		for hs := 0; hs < 1<<nh; hs++ {
			bit := 0
			for l := 1; l <= L; l++ {
				for j := range xs[l] {
					xs[l][j] = float64((hs >> bit) & 1)
					bit++
				}
			}
			terms[hs] = -d.Energy(xs)
		}
		logF[vs] = nmath.LogSumExp(terms)
	}
	return nmath.LogSumExp(logF), logF
}

func bitsVec(s, n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = float64((s >> i) & 1)
	}
	return v
}

func TestDBMExactMatchesBruteForce(t *testing.T) {
	for _, sizes := range [][]int{{6, 4, 3}, {3, 2, 3, 2}, {2, 2, 2, 2, 2}} {
		d := randomDBM(t, 1, 1.0, 0.5, sizes...)
		wantZ, wantF := bruteDBM(d)
		for parity := 0; parity < 2; parity++ {
			if got := dbmEnumerate(d, nil, parity); math.Abs(got-wantZ) > 1e-9 {
				t.Errorf("sizes %v parity %d: log Z = %.12f, brute force %.12f", sizes, parity, got, wantZ)
			}
			for s := range wantF {
				if got := dbmEnumerate(d, bitsVec(s, sizes[0]), parity); math.Abs(got-wantF[s]) > 1e-9 {
					t.Fatalf("sizes %v parity %d v=%d: log f = %.12f, brute force %.12f", sizes, parity, s, got, wantF[s])
				}
			}
		}
		var e DBMExact
		gotZ, err := e.LogZ(d)
		if err != nil || math.Abs(gotZ-wantZ) > 1e-9 {
			t.Errorf("sizes %v: DBMExact.LogZ = %v, %v; want %v", sizes, gotZ, err, wantZ)
		}
		last := len(wantF) - 1
		got, err := e.LogUnnorm(d, bitsVec(last, sizes[0]))
		if err != nil || math.Abs(got-wantF[last]) > 1e-9 {
			t.Errorf("sizes %v: DBMExact.LogUnnorm = %v, %v; want %v", sizes, got, err, wantF[last])
		}
	}
}

type rowsForTest [][]uint8

func (r rowsForTest) Len() int          { return len(r) }
func (r rowsForTest) Row(n int) []uint8 { return r[n] }

func TestDBMExactLogProbAndErrors(t *testing.T) {
	d := randomDBM(t, 2, 1.0, 0.5, 6, 4, 3)
	wantZ, wantF := bruteDBM(d)
	x := rowsForTest{{1, 0, 1, 1, 0, 0}, {0, 0, 0, 0, 0, 1}}
	r, err := DBMExact{}.LogProb(d, x)
	if err != nil {
		t.Fatal(err)
	}
	for n, s := range []int{1 + 4 + 8, 32} {
		if math.Abs(r.LogP[n]-(wantF[s]-wantZ)) > 1e-9 {
			t.Errorf("example %d: log p = %v, want %v", n, r.LogP[n], wantF[s]-wantZ)
		}
	}
	// Sizes of the enumerated class: log Z enumerates min(6+3, 4) = 4 units,
	// log f(v) min(3, 4) = 3.
	if _, err := (DBMExact{MaxUnits: 3}).LogZ(d); err == nil || !strings.Contains(err.Error(), "MaxUnits") {
		t.Errorf("MaxUnits 3 for log Z: got %v", err)
	}
	if _, err := (DBMExact{MaxUnits: 3}).LogUnnorm(d, bitsVec(0, 6)); err != nil {
		t.Errorf("MaxUnits 3 for log f(v): %v", err)
	}
	if _, err := (DBMExact{MaxUnits: 2}).LogUnnorm(d, bitsVec(0, 6)); err == nil {
		t.Error("MaxUnits 2 for log f(v): want an error")
	}
	if _, err := (DBMExact{}).LogUnnorm(d, []float64{1, 0}); err == nil || !strings.Contains(err.Error(), "visible") {
		t.Errorf("short v: got %v", err)
	}
	if _, err := (DBMExact{}).LogProb(d, rowsForTest{{1, 0, 2, 0, 0, 0}}); err == nil || !strings.Contains(err.Error(), "example 0") {
		t.Errorf("non-binary example: got %v", err)
	}
}

func TestDBMMeanFieldBound(t *testing.T) {
	for _, sizes := range [][]int{{6, 4, 3}, {3, 3, 2, 2}} {
		d := randomDBM(t, 3, 1.5, 0.5, sizes...)
		_, wantF := bruteDBM(d)
		for s := range wantF {
			v := bitsVec(s, sizes[0])
			prev := math.Inf(-1)
			for _, it := range []int{1, 2, 5, 100} {
				fit, err := DBMMeanField{Iters: it, Tol: 1e-300}.Fit(d, v)
				if err != nil {
					t.Fatal(err)
				}
				if fit.Bound > wantF[s]+1e-9 {
					t.Fatalf("sizes %v v=%d iters %d: bound %v above log f(v) = %v", sizes, s, it, fit.Bound, wantF[s])
				}
				if fit.Bound < prev-1e-9 {
					t.Fatalf("sizes %v v=%d: bound fell from %v to %v at %d iterations", sizes, s, prev, fit.Bound, it)
				}
				prev = fit.Bound
			}
		}
	}
	// With W2 = 0 (L = 2) the posterior is p(h1|v) p(h2), a product of
	// Bernoullis, so the mean-field bound is exact.
	d := randomDBM(t, 4, 1.5, 0.8, 6, 4, 3)
	for i := range d.W[1] {
		d.W[1][i] = 0
	}
	_, wantF := bruteDBM(d)
	for s := range wantF {
		fit, err := DBMMeanField{}.Fit(d, bitsVec(s, 6))
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(fit.Bound-wantF[s]) > 1e-9 {
			t.Fatalf("W2 = 0, v=%d: bound %v, log f(v) %v (should be tight)", s, fit.Bound, wantF[s])
		}
	}
	if _, err := (DBMMeanField{Iters: -1}).Fit(d, bitsVec(0, 6)); err == nil {
		t.Error("Iters = -1: want an error")
	}
}

// withinSE checks that the mean weight e^{st.LogMean} equals e^{want} within
// k standard errors, comparing ratios so that nothing huge is exponentiated.
func withinSE(t *testing.T, what string, st nmath.LogStats, want, k float64) {
	t.Helper()
	r := math.Exp(st.LogMean - want)
	se := math.Exp(st.LogStdErr - want)
	if math.Abs(r-1) > k*se {
		t.Errorf("%s: mean weight / truth = %.5f, standard error %.5f: off by %.1f SE (> %.0f)", what, r, se, math.Abs(r-1)/se, k)
	}
}

func TestDBMAISUnbiased(t *testing.T) {
	// The last case has wide odd layers, so that the chain's incremental
	// updates of the even layers' pre-activations are used too.
	// The "hidden" cases put base biases on the even hidden layers too.
	cases := []struct {
		sizes        []int
		base, hidden bool
		wScale       float64
	}{{[]int{6, 4, 3}, false, false, 0.7}, {[]int{6, 4, 3}, true, false, 0.7}, {[]int{3, 2, 3, 2}, false, false, 0.7}, {[]int{8, 30, 6}, true, false, 0.15},
		{[]int{6, 4, 3}, true, true, 0.7}, {[]int{3, 2, 3, 2}, false, true, 0.7}}
	for ci, c := range cases {
		d := randomDBM(t, 5+uint64(ci), c.wScale, 0.5, c.sizes...)
		logZ, err := DBMExact{}.LogZ(d)
		if err != nil {
			t.Fatal(err)
		}
		var base []float64
		if c.base {
			base = []float64{-1, 0.5, 0, 2, -0.3, 0.1, 0.7, -0.2}[:c.sizes[0]]
		}
		var hidden [][]float64
		if c.hidden {
			hidden = make([][]float64, len(c.sizes))
			for l := 2; l < len(c.sizes); l += 2 {
				hidden[l] = []float64{-0.6, 0.4, 0.2}[:c.sizes[l]]
			}
		}
		for _, K := range []int{2, 10} {
			a := AIS{Runs: 20000, Betas: inference.LinearSchedule(K), BaseVBias: base, Seed: uint64(17 + K), Workers: 2}
			r, err := DBMAISLogZ(d, a)
			if c.hidden {
				path, perr := inference.NewDBMPathBase(d, DBMBase(base, hidden))
				if perr != nil {
					t.Fatal(perr)
				}
				r, err = a.Run(path)
			}
			if err != nil {
				t.Fatal(err)
			}
			st := nmath.Summarise(r.LogW)
			what := fmt.Sprintf("case %d (sizes %v) K=%d", ci, c.sizes, K)
			withinSE(t, what, st, logZ-r.LogZBase, 4)
			if se := math.Exp(st.LogStdErr - st.LogMean); se > 0.0125 {
				t.Errorf("%s: relative SE %.3g too large to detect a 5%% bias", what, se)
			}
		}
	}
}

func TestDBMAISConverges(t *testing.T) {
	d := randomDBM(t, 8, 1.0, 0.5, 6, 4, 3)
	logZ, err := DBMExact{}.LogZ(d)
	if err != nil {
		t.Fatal(err)
	}
	sd := map[int]float64{}
	for _, K := range []int{1000, 16000} {
		a := AIS{Runs: 40, Betas: inference.PiecewiseSchedule(K), Seed: 3}
		r, err := DBMAISLogZ(d, a)
		if err != nil {
			t.Fatal(err)
		}
		withinSE(t, fmt.Sprintf("K=%d", K), nmath.Summarise(r.LogW), logZ-r.LogZBase, 4)
		var m, m2 float64
		for _, l := range r.LogW {
			m += l / float64(len(r.LogW))
			m2 += l * l / float64(len(r.LogW))
		}
		sd[K] = math.Sqrt(m2 - m*m)
		t.Logf("K=%d: log Ẑ = %.4f (±%.4f), exact %.4f, sd of log w %.4f", K, r.LogZ, r.LogZHi1-r.LogZ, logZ, sd[K])
	}
	// The variance of the log weights falls like 1/K (Neal 2001): 16× the
	// distributions give ¼ of the spread; allow up to ½.
	if sd[16000] > 0.5*sd[1000] || sd[16000] > 0.1 {
		t.Errorf("sd of log weights %v at K=1000, %v at K=16000: AIS does not converge", sd[1000], sd[16000])
	}
}

func TestDBMAISDeterministic(t *testing.T) {
	d := randomDBM(t, 9, 1.0, 0.5, 5, 3, 4)
	a := AIS{Runs: 7, Betas: inference.LinearSchedule(50), Seed: 11, Workers: 1}
	r1, err := DBMAISLogZ(d, a)
	if err != nil {
		t.Fatal(err)
	}
	a.Workers = 3
	r2, _ := DBMAISLogZ(d, a)
	for i := range r1.LogW {
		if r1.LogW[i] != r2.LogW[i] {
			t.Fatalf("run %d: log weight %v with 1 worker, %v with 3", i, r1.LogW[i], r2.LogW[i])
		}
	}
	if _, err := DBMAISLogZ(d, AIS{BaseVBias: []float64{1}}); err == nil || !strings.Contains(err.Error(), "visible") {
		t.Errorf("short base biases: got %v", err)
	}
}

func TestDBMISConverges(t *testing.T) {
	for ci, sizes := range [][]int{{6, 4, 3}, {3, 2, 3, 2}} {
		d := randomDBM(t, 12+uint64(ci), 1.2, 0.5, sizes...)
		_, wantF := bruteDBM(d)
		rng := rand.New(rand.NewPCG(21, uint64(ci)))
		for _, s := range []int{0, 5, len(wantF) - 1} {
			r, err := DBMIS{Samples: 5000, Floor: 0.05}.LogUnnorm(d, bitsVec(s, sizes[0]), rng)
			if err != nil {
				t.Fatal(err)
			}
			withinSE(t, "IS", r.Stats, wantF[s], 4)
			// Power: relative SE 0.002–0.019 with 5,000 proposals here.
			if se := math.Exp(r.Stats.LogStdErr - wantF[s]); se > 0.03 {
				t.Errorf("IS on state %d: relative standard error %.4f above 0.03", s, se)
			}
			if r.Bound > wantF[s]+1e-9 {
				t.Errorf("mean-field bound %v above log f(v) %v", r.Bound, wantF[s])
			}
		}
	}
	// W2 = 0: the mean-field proposal is the exact posterior of h2, so every
	// weight equals f(v).
	d := randomDBM(t, 14, 1.2, 0.5, 6, 4, 3)
	for i := range d.W[1] {
		d.W[1][i] = 0
	}
	_, wantF := bruteDBM(d)
	r, err := DBMIS{Samples: 20}.LogUnnorm(d, bitsVec(9, 6), rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(r.LogF-wantF[9]) > 1e-9 {
		t.Errorf("W2 = 0: IS log f = %v, exact %v", r.LogF, wantF[9])
	}
}

// TestDBMISBits checks LogUnnorm's batched scoring (evenScorer) against
// the per-proposal d.LogUnnormEven it replaces, bit for bit: the same
// proposals from the same stream, every log weight and log f equal, on
// DBMs of two, three and four layers (odd layers with and without a layer
// above), with and without Floor, for sample counts below, at and across
// the batch size.
func TestDBMISBits(t *testing.T) {
	for ci, sizes := range [][]int{{9, 7, 12}, {8, 6, 7, 5}, {7, 5, 6, 4, 5}} {
		d := randomDBM(t, 31+uint64(ci), 1.3, 0.7, sizes...)
		for _, S := range []int{1, evenBatch, 77} {
			for _, floor := range []float64{0, 0.05} {
				for _, st := range []int{0, 3, 1<<sizes[0] - 1} {
					v := bitsVec(st, sizes[0])
					is := DBMIS{Samples: S, Floor: floor}
					got, err := is.LogUnnorm(d, v, rand.New(rand.NewPCG(5, uint64(st))))
					if err != nil {
						t.Fatal(err)
					}
					want := refDBMIS(t, is, d, v, rand.New(rand.NewPCG(5, uint64(st))))
					if math.Float64bits(got.LogF) != math.Float64bits(want.LogF) || got.Stats != want.Stats {
						t.Errorf("sizes %v S %d floor %v v %d: log f %v (%+v), per-proposal %v (%+v)", sizes, S, floor, st, got.LogF, got.Stats, want.LogF, want.Stats)
					}
				}
			}
		}
	}
}

// refDBMIS is DBMIS.LogUnnorm with every proposal scored by
// d.LogUnnormEven, one at a time (the definition).
func refDBMIS(t *testing.T, s DBMIS, d *models.DBM, v []float64, rng *rand.Rand) DBMISResult {
	t.Helper()
	fit, err := s.MeanField.Fit(d, v)
	if err != nil {
		t.Fatal(err)
	}
	L := d.NumLayers()
	xs, zq := make([][]float64, L+1), make([][]float64, L+1)
	xs[0] = fit.Mu[0]
	for l := 2; l <= L; l += 2 {
		xs[l] = make([]float64, d.Sizes[l])
		zq[l] = append([]float64(nil), fit.Z[l]...)
		if s.Floor > 0 {
			c := nmath.Logit(1 - s.Floor)
			for j, z := range zq[l] {
				zq[l][j] = math.Max(-c, math.Min(c, z))
			}
		}
	}
	logw := make([]float64, s.Samples)
	for i := range logw {
		lq := 0.0
		for l := 2; l <= L; l += 2 {
			models.SampleBernoulli(xs[l], zq[l], rng)
			for j, z := range zq[l] {
				lq += xs[l][j]*z - nmath.Softplus(z)
			}
		}
		logw[i] = d.LogUnnormEven(xs, make([]float64, 20)) - lq
	}
	st := nmath.Summarise(logw)
	return DBMISResult{LogF: st.LogMean, Stats: st, Bound: fit.Bound}
}

// BenchmarkDBMIS times LogUnnorm's 500 proposals on one visible vector of
// the benchmark DBM (benchDBM), drawn from its visible biases alone.
func BenchmarkDBMIS(b *testing.B) {
	d, _ := benchDBM(b)
	rng := rand.New(rand.NewPCG(1, 3))
	v := make([]float64, 784)
	for i, a := range d.B[0] {
		if rng.Float64() < nmath.Sigmoid(a) {
			v[i] = 1
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := (DBMIS{}).LogUnnorm(d, v, rand.New(rand.NewPCG(2, 2))); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDBMMeanField times a 10-iteration mean-field fit on 784-500-1000.
func BenchmarkDBMMeanField(b *testing.B) {
	d, _ := models.NewDBM(784, 500, 1000)
	rng := rand.New(rand.NewPCG(1, 3))
	for _, w := range d.W {
		for i := range w {
			w[i] = 0.05 * rng.NormFloat64()
		}
	}
	v := make([]float64, 784)
	for i := range v {
		v[i] = float64(rng.IntN(2))
	}
	mf := DBMMeanField{Iters: 10, Tol: 1e-300}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := mf.Fit(d, v); err != nil {
			b.Fatal(err)
		}
	}
}

func TestDBMExampleDrivers(t *testing.T) {
	d := randomDBM(t, 15, 1.0, 0.5, 6, 4, 3)
	_, wantF := bruteDBM(d)
	x := rowsForTest{{1, 0, 1, 1, 0, 0}, {0, 0, 0, 0, 0, 1}, {1, 1, 1, 1, 1, 1}}
	idx := []int{1 + 4 + 8, 32, 63}
	bounds, ms, err := DBMMeanField{}.Bounds(d, x)
	if err != nil {
		t.Fatal(err)
	}
	mean := 0.0
	for n, s := range idx {
		one, _ := DBMMeanField{}.Fit(d, bitsVec(s, 6))
		if bounds[n] != one.Bound || bounds[n] > wantF[s]+1e-9 {
			t.Errorf("example %d: bound %v, single fit %v, log f %v", n, bounds[n], one.Bound, wantF[s])
		}
		mean += bounds[n] / 3
	}
	if math.Abs(ms.Mean-mean) > 1e-12 || ms.N != 3 {
		t.Errorf("mean bound %v (n=%d), want %v", ms.Mean, ms.N, mean)
	}
	is := DBMIS{Samples: 3000}
	r1, err := is.LogUnnormAll(d, x, 5, nil)
	if err != nil {
		t.Fatal(err)
	}
	r2, _ := is.LogUnnormAll(d, x, 5, nil)
	for n, s := range idx {
		if r1[n].LogF != r2[n].LogF {
			t.Errorf("example %d: not reproducible (%v vs %v)", n, r1[n].LogF, r2[n].LogF)
		}
		withinSE(t, fmt.Sprintf("IS example %d", n), r1[n].Stats, wantF[s], 4)
	}
	if _, err := is.LogUnnormAll(d, rowsForTest{{1, 0}}, 1, nil); err == nil || !strings.Contains(err.Error(), "example 0") {
		t.Errorf("short example: got %v", err)
	}
	// With units, only the examples this process owns are computed, each
	// as without units; the others are left zero.
	r3, err := is.LogUnnormAll(d, x, 5, oddUnits{})
	if err != nil {
		t.Fatal(err)
	}
	for n := range x {
		if want := map[bool]float64{true: r1[n].LogF, false: 0}[n%2 == 1]; r3[n].LogF != want {
			t.Errorf("example %d with odd units: %v, want %v", n, r3[n].LogF, want)
		}
	}
}

// oddUnits owns the odd units (a shard of a sharded evaluation).
type oddUnits struct{}

func (oddUnits) Mine(u int) bool                          { return u%2 == 1 }
func (oddUnits) Complete(n, width int, v []float64) error { return nil }

// TestDBMHiddenBaseRate checks the even hidden layers' base rates against
// the formula over the chosen examples (all, or evenly spaced when capped),
// that they do not depend on the number of workers, and the errors.
func TestDBMHiddenBaseRate(t *testing.T) {
	d := randomDBM(t, 3, 0.9, 0.5, 6, 4, 3, 2, 3)
	var x rowsForTest
	for s := range 7 {
		x = append(x, bitsRow(9*s+5, 6))
	}
	for _, c := range []struct {
		max  int
		want []int // the examples used
	}{{0, []int{0, 1, 2, 3, 4, 5, 6}}, {10, []int{0, 1, 2, 3, 4, 5, 6}}, {3, []int{0, 2, 4}}} {
		var ref [][]float64
		for _, workers := range []int{1, 3} {
			got, err := DBMHiddenBaseRate(d, x, c.max, workers)
			if err != nil {
				t.Fatal(err)
			}
			if got[0] != nil || got[1] != nil || got[3] != nil {
				t.Fatalf("max %d: base rates for v or odd layers: %v", c.max, got)
			}
			for _, l := range []int{2, 4} {
				sum := make([]float64, d.Sizes[l])
				for _, n := range c.want {
					f, err := DBMMeanField{}.Fit(d, bitsVec(9*n+5, 6))
					if err != nil {
						t.Fatal(err)
					}
					for j, mu := range f.Mu[l] {
						sum[j] += mu
					}
				}
				m := float64(len(c.want))
				for j, s := range sum {
					if want := math.Log((s + 1) / (m - s + 1)); math.Abs(got[l][j]-want) > 1e-12 {
						t.Errorf("max %d, layer %d unit %d: %v, want %v", c.max, l, j, got[l][j], want)
					}
				}
			}
			if ref != nil && !reflect.DeepEqual(ref, got) {
				t.Errorf("max %d: workers 1 and 3 differ", c.max)
			}
			ref = got
		}
	}
	if _, err := DBMHiddenBaseRate(d, rowsForTest{}, 0, 1); err == nil {
		t.Error("no examples: want an error")
	}
	if _, err := DBMHiddenBaseRate(d, rowsForTest{{1, 0}}, 0, 1); err == nil {
		t.Error("short example: want an error")
	}
}
