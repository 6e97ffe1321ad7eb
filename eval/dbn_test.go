package eval

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/logz-ml/logz/inference"
	"github.com/logz-ml/logz/internal/nmath"
	"github.com/logz-ml/logz/models"
)

func testDBN(wScale, bScale float64, seed uint64, sizes ...int) *models.DBN {
	d := &models.DBN{}
	for l := 0; l+1 < len(sizes); l++ {
		d.Layers = append(d.Layers, testRBM(sizes[l], sizes[l+1], wScale, bScale, seed+uint64(l)))
	}
	return d
}

// allVisible returns every binary vector of length D (index = bit pattern).
func allVisible(D int) rowSet {
	var out rowSet
	for s := range 1 << D {
		v := make([]uint8, D)
		for i := range v {
			v[i] = uint8(s >> i & 1)
		}
		out = append(out, v)
	}
	return out
}

func setBits(x []float64, s int) {
	for i := range x {
		x[i] = float64(s >> i & 1)
	}
}

func logBern(x, logit float64) float64 {
	if x == 1 {
		return math.Log(nmath.Sigmoid(logit))
	}
	return math.Log(nmath.Sigmoid(-logit))
}

// bruteDBN computes, from the definitions and by summing over every joint
// state (h1, …, hL) — independently of the estimators' enumeration — for
// each visible state v: log p(v), and the exact variational bound
// Σ_x Q(x|v)[log p*(v,x) − log Q(x|v)] − log Z_top with x = (h1…h_{L−1}).
func bruteDBN(d *models.DBN) (logp, elbo []float64) {
	L := len(d.Layers)
	sizes := d.Sizes()
	top := d.Layers[L-1]
	x := make([][]float64, L+1)
	for l := range x {
		x[l] = make([]float64, sizes[l])
	}
	// E_top(x_{L−1}, x_L) = −x_{L−1}ᵀ W x_L − aᵀx_{L−1} − bᵀx_L.
	negE := func() float64 {
		e := 0.0
		for i := range top.NVis {
			e += top.VBias[i] * x[L-1][i]
			for j := range top.NHid {
				e += x[L-1][i] * top.W[i*top.NHid+j] * x[L][j]
			}
		}
		for j := range top.NHid {
			e += top.HBias[j] * x[L][j]
		}
		return e
	}
	var zTerms []float64
	for s := range 1 << (sizes[L-1] + sizes[L]) {
		setBits(x[L-1], s)
		setBits(x[L], s>>sizes[L-1])
		zTerms = append(zTerms, negE())
	}
	logZ := nmath.LogSumExp(zTerms)
	// log p(x_l | x_{l+1}) and log Q(x_{l+1} | x_l) from the formulas.
	gen := func(l int) float64 {
		r := d.Layers[l]
		s := 0.0
		for i := range r.NVis {
			z := r.VBias[i]
			for j := range r.NHid {
				z += r.W[i*r.NHid+j] * x[l+1][j]
			}
			s += logBern(x[l][i], z)
		}
		return s
	}
	rec := func(l int) float64 {
		r := d.Layers[l]
		s := 0.0
		for j := range r.NHid {
			u := r.HBias[j]
			for i := range r.NVis {
				u += r.W[i*r.NHid+j] * x[l][i]
			}
			s += logBern(x[l+1][j], u)
		}
		return s
	}
	nx := 0 // units of h1…h_{L−1}
	for _, n := range sizes[1:L] {
		nx += n
	}
	for v := range 1 << sizes[0] {
		setBits(x[0], v)
		var all []float64
		bound := 0.0
		for s := range 1 << nx {
			off := 0
			for l := 1; l < L; l++ {
				setBits(x[l], s>>off)
				off += sizes[l]
			}
			dir := 0.0
			for l := 0; l < L-1; l++ {
				dir += gen(l)
			}
			var tops []float64
			for t := range 1 << sizes[L] {
				setBits(x[L], t)
				tops = append(tops, dir+negE())
				all = append(all, dir+negE())
			}
			lj := nmath.LogSumExp(tops)
			lq := 0.0
			for l := 0; l < L-1; l++ {
				lq += rec(l)
			}
			bound += math.Exp(lq) * (lj - lq)
		}
		logp = append(logp, nmath.LogSumExp(all)-logZ)
		elbo = append(elbo, bound-logZ)
	}
	return logp, elbo
}

// mildDBN is a 6-4-3 DBN whose Q is a fair proposal — the top RBM is the
// transpose of the first layer's (for which Q would be the exact posterior)
// plus N(0, 0.5²) noise on every parameter — so that importance weights have
// a moderate variance: the unbiasedness tests need standard errors that can
// be trusted, and random DBNs give heavy-tailed weights.
var mildDBN = func() *models.DBN {
	d := transposedStack(testRBM(6, 4, 1.2, 0.8, 23))
	r := testRBM(4, 6, 0.5, 0.5, 24)
	top := models.NewRBM(4, 3)
	for i := range 4 {
		for j := range 3 {
			top.W[i*3+j] = d.Layers[1].W[i*6+j] + r.W[i*6+j]
		}
		top.VBias[i] = d.Layers[1].VBias[i] + r.VBias[i]
	}
	for j := range 3 {
		top.HBias[j] = d.Layers[1].HBias[j] + r.HBias[j]
	}
	d.Layers[1] = top
	return d
}()

var tinyDBNs = []struct {
	name string
	d    *models.DBN
}{
	{"6-4-3", testDBN(1.2, 0.8, 11, 6, 4, 3)},
	{"4-3-3-2", testDBN(1.2, 0.8, 31, 4, 3, 3, 2)},
}

// TestDBNExactAgainstBruteForce: DBNExact's log p(v) and bound equal the
// brute-force sums over every (h1, …, hL) for every v; p(v) sums to one; the
// bound is below log p(v) for every v.
func TestDBNExactAgainstBruteForce(t *testing.T) {
	for _, c := range tinyDBNs {
		logp, elbo := bruteDBN(c.d)
		xs := allVisible(c.d.NumVisible())
		for _, workers := range []int{1, 3} {
			r, err := DBNExact{Workers: workers}.LogProb(c.d, xs)
			if err != nil {
				t.Fatal(err)
			}
			for n := range xs {
				if math.Abs(r.LogP[n]-logp[n]) > 1e-10 || math.Abs(r.ELBO[n]-elbo[n]) > 1e-10 {
					t.Fatalf("%s v=%v: log p %v (brute %v), bound %v (brute %v)", c.name, xs[n], r.LogP[n], logp[n], r.ELBO[n], elbo[n])
				}
				if r.ELBO[n] >= r.LogP[n] {
					t.Errorf("%s v=%v: bound %v ≥ log p %v", c.name, xs[n], r.ELBO[n], r.LogP[n])
				}
				if math.Abs(r.LogF[n]-r.LogZ-r.LogP[n]) > 1e-12 {
					t.Errorf("LogF − LogZ ≠ LogP")
				}
			}
			if s := nmath.LogSumExp(r.LogP); math.Abs(s) > 1e-10 {
				t.Errorf("%s: Σ_v p(v) = e^%v", c.name, s)
			}
		}
	}
}

// TestDBNBoundBelowExactAndConverges: with many draws the Monte Carlo bound
// converges to the exact bound (within 4 of its own standard errors) and lies
// below the exact log p(v); over all v, the mean bound estimates the exact
// mean bound and is below the mean exact log p(v).
func TestDBNBoundBelowExactAndConverges(t *testing.T) {
	for _, c := range tinyDBNs {
		xs := allVisible(c.d.NumVisible())
		ex, err := DBNExact{}.LogProb(c.d, xs)
		if err != nil {
			t.Fatal(err)
		}
		z, err := ExactTopLogZ(c.d, Exact{})
		if err != nil {
			t.Fatal(err)
		}
		sub := rowSet{xs[0], xs[5], xs[len(xs)-1], xs[len(xs)/2+1]}
		idx := []int{0, 5, len(xs) - 1, len(xs)/2 + 1}
		r, err := DBNBound{Samples: 10000, Seed: 1}.LogProb(c.d, z, sub)
		if err != nil {
			t.Fatal(err)
		}
		for k, n := range idx {
			se := r.MCSE[k]
			if !(se > 0 && se < 0.05) {
				t.Fatalf("%s v=%v: MCSE %v", c.name, xs[n], se)
			}
			if d := r.Bound[k] - ex.ELBO[n]; math.Abs(d) > 4*se {
				t.Errorf("%s v=%v: bound %.4f ± %.4f, exact bound %.4f", c.name, xs[n], r.Bound[k], se, ex.ELBO[n])
			}
			if r.Bound[k] > ex.LogP[n]+4*se {
				t.Errorf("%s v=%v: bound %.4f ± %.4f above log p %.4f", c.name, xs[n], r.Bound[k], se, ex.LogP[n])
			}
			t.Logf("%s v=%v: log p %.4f  exact bound %.4f  MC bound %.4f ± %.4f", c.name, xs[n], ex.LogP[n], ex.ELBO[n], r.Bound[k], se)
		}
		if r.Error != r.Mean.SE || r.LogZ.SE != 0 {
			t.Errorf("exact log Z: Error %v should equal the across-example SE %v", r.Error, r.Mean.SE)
		}
		def, err := DBNBound{Seed: 2}.LogProb(c.d, z, xs)
		if err != nil {
			t.Fatal(err)
		}
		if def.Samples != 5 || len(def.Bound) != len(xs) {
			t.Errorf("default samples %d, %d bounds", def.Samples, len(def.Bound))
		}
		all, err := DBNBound{Samples: 200, Seed: 2}.LogProb(c.d, z, xs)
		if err != nil {
			t.Fatal(err)
		}
		if gap := ex.Mean.Mean - all.Mean.Mean; gap < 4*all.MeanMCSE {
			t.Errorf("%s: mean bound %.4f ± %.4f not below mean log p %.4f", c.name, all.Mean.Mean, all.MeanMCSE, ex.Mean.Mean)
		}
		// The MC mean bound estimates the exact mean bound.
		if d := all.Mean.Mean - ex.MeanELBO.Mean; math.Abs(d) > 4*all.MeanMCSE {
			t.Errorf("%s: mean bound %.4f ± %.4f, exact %.4f", c.name, all.Mean.Mean, all.MeanMCSE, ex.MeanELBO.Mean)
		}
	}
}

// TestDBNISUnbiasedAndConverges: a single IS weight is unbiased for f(v)
// (mean of w/f(v) is 1 within 4 SE), its log is below log f(v) on average
// (Jensen), and with 20,000 proposals log p̂ is within 4 SE of log p(v).
func TestDBNISUnbiasedAndConverges(t *testing.T) {
	for _, c := range []struct {
		name string
		d    *models.DBN
	}{{"mild 6-4-3", mildDBN}, tinyDBNs[1]} {
		xs := allVisible(c.d.NumVisible())
		ex, err := DBNExact{}.LogProb(c.d, xs)
		if err != nil {
			t.Fatal(err)
		}
		z, _ := ExactTopLogZ(c.d, Exact{})
		for _, n := range []int{0, 7, len(xs) - 2} {
			const reps = 20000
			r, err := DBNIS{Samples: 1, Seed: uint64(n)}.LogProb(c.d, z, repeated{xs[n], reps})
			if err != nil {
				t.Fatal(err)
			}
			ratios := make([]float64, reps)
			for k, lf := range r.LogF {
				ratios[k] = math.Exp(lf - ex.LogF[n])
			}
			m, se := meanSE(ratios)
			if se > 0.025 {
				t.Errorf("%s v=%v: SE %.3g too large to detect a 10%% bias", c.name, xs[n], se)
			}
			if math.Abs(m-1) > 4*se {
				t.Errorf("%s v=%v: mean IS weight / f(v) = %.4f ± %.4f", c.name, xs[n], m, se)
			}
			ml, sl := meanSE(r.LogF)
			if ex.LogF[n]-ml < 4*sl {
				t.Errorf("%s v=%v: E[log w] = %.4f ± %.4f not below log f = %.4f", c.name, xs[n], ml, sl, ex.LogF[n])
			}
		}
		big, err := DBNIS{Samples: 20000, Seed: 9}.LogProb(c.d, z, rowSet{xs[3], xs[len(xs)-1]})
		if err != nil {
			t.Fatal(err)
		}
		for k, n := range []int{3, len(xs) - 1} {
			se := big.LogFSE[k]
			if !(se > 0 && se < 0.02) {
				t.Fatalf("%s: SE %v", c.name, se)
			}
			if d := big.LogP[k] - ex.LogP[n]; math.Abs(d) > 4*se {
				t.Errorf("%s v=%v: IS log p %.4f ± %.4f, exact %.4f", c.name, xs[n], big.LogP[k], se, ex.LogP[n])
			}
		}
	}
}

// TestDBNRAISEUnbiased: the mean DBN RAISE weight equals p_ann(v) =
// Σ_{h1} p(v|h1) p_ann,top(h1), with p_ann,top summed over every path of the
// top RBM's annealing chain (annealedModelProb), for K = 1, 2, 3 and both
// starts, within 4 standard errors of the mean weight (which must be small
// enough to detect a 10% bias).
func TestDBNRAISEUnbiased(t *testing.T) {
	d := mildDBN
	top := d.Top()
	aA := []float64{-0.7, 0.3, -1.2, 0.5}
	const n = 40000
	h1 := make([]float64, 4)
	vf := make([]float64, 6)
	for _, start := range []struct {
		name string
		base []float64
	}{{"base-rate", aA}, {"uniform", nil}} {
		a0 := start.base
		if a0 == nil {
			a0 = make([]float64, 4)
		}
		for _, K := range []int{1, 2, 3} {
			betas := inference.LinearSchedule(K)
			pTop := annealedModelProb(top, a0, betas)
			for _, s := range []int{0b000000, 0b101101, 0b011010} {
				v := make([]uint8, 6)
				for i := range v {
					v[i] = uint8(s >> i & 1)
				}
				setBits(vf, s)
				pann := 0.0
				for hs := range 1 << 4 {
					setBits(h1, hs)
					pann += math.Exp(d.LogGenerative(0, vf, h1, nil)) * pTop[hs]
				}
				res, err := DBNRAISE{Samples: 1, Betas: betas, BaseVBias: start.base, Seed: uint64(100*K + s)}.LogProb(d, repeated{v, n})
				if err != nil {
					t.Fatal(err)
				}
				ratios := make([]float64, n)
				for k, lw := range res.LogP {
					ratios[k] = math.Exp(lw) / pann
				}
				mean, se := meanSE(ratios)
				if se > 0.025 {
					t.Errorf("%s K=%d v=%06b: SE %.3g too large to detect a 10%% bias", start.name, K, s, se)
				}
				if math.Abs(mean-1) > 4*se {
					t.Errorf("%s K=%d v=%06b: mean weight / p_ann = %.4f ± %.4f", start.name, K, s, mean, se)
				}
			}
		}
	}
}

// TestDBNRAISEConverges: with K = 1,000 the DBN RAISE estimate approaches the
// exact log p(v) of the 6-4-3 and 4-3-3-2 DBNs, from below or within noise.
func TestDBNRAISEConverges(t *testing.T) {
	for _, c := range tinyDBNs {
		xs := allVisible(c.d.NumVisible())
		ex, err := DBNExact{}.LogProb(c.d, xs)
		if err != nil {
			t.Fatal(err)
		}
		idx := []int{1, 6, len(xs) - 3}
		sub := rowSet{xs[idx[0]], xs[idx[1]], xs[idx[2]]}
		r, err := DBNRAISE{Samples: 100, Betas: inference.LinearSchedule(1000), Seed: 4}.LogProb(c.d, sub)
		if err != nil {
			t.Fatal(err)
		}
		if r.Steps != 1000 || len(r.LogW) != 300 {
			t.Fatalf("steps %d, %d weights", r.Steps, len(r.LogW))
		}
		for k, n := range idx {
			se := r.LogPSE[k]
			if d := ex.LogP[n] - r.LogP[k]; d < -4*se || d > 0.1+4*se {
				t.Errorf("%s v=%v: RAISE %.4f ± %.4f, exact %.4f", c.name, xs[n], r.LogP[k], se, ex.LogP[n])
			}
		}
	}
}

// TestDBNTopAISAgainstExact: AIS on the top RBM (from the uniform start and
// from the base rate of Q over some data) brackets the exact log Z within
// ±3σ.
func TestDBNTopAISAgainstExact(t *testing.T) {
	d := testDBN(0.6, 0.5, 5, 10, 12, 8)
	ex, err := ExactTopLogZ(d, Exact{})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var xs rowSet
	for range 50 {
		x := make([]uint8, 10)
		for i := range x {
			if rng.Float64() < 0.3 {
				x[i] = 1
			}
		}
		xs = append(xs, x)
	}
	base, err := TopBaseRate(d, xs, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(base) != 12 {
		t.Fatalf("base rate has %d entries", len(base))
	}
	for _, b := range [][]float64{nil, base} {
		z, r, err := AISTopLogZ(d, AIS{Runs: 200, Betas: inference.LinearSchedule(1000), BaseVBias: b, Seed: 3})
		if err != nil {
			t.Fatal(err)
		}
		if !(z.Lo3 <= ex.LogZ && ex.LogZ <= z.Hi3) {
			t.Errorf("AIS log Z %.4f [%.4f, %.4f] does not bracket the exact %.4f", z.LogZ, z.Lo3, z.Hi3, ex.LogZ)
		}
		if !(z.SE > 0) || z.Exact || r.Runs != 200 {
			t.Errorf("SE %v exact %v runs %d", z.SE, z.Exact, r.Runs)
		}
		// The delta-method SE matches the ±1σ band to first order.
		if w := (r.LogZHi1 - r.LogZLo1) / 2; math.Abs(w-z.SE) > 0.1*z.SE+1e-12 {
			t.Errorf("SE %v vs half ±1σ band %v", z.SE, w)
		}
		t.Logf("top log Z: exact %.4f, AIS %.4f ± %.4f (base %v)", ex.LogZ, z.LogZ, z.SE, b != nil)
	}
}

// transposedStack returns the 2-layer DBN whose top RBM is the transpose of
// r (W2 = W1ᵀ, vbias2 = hbias1, hbias2 = vbias1): its p(v) is the RBM's and
// Q(h1|v) = p_RBM(h1|v) is its true posterior (2008 §4.1, §5.2).
func transposedStack(r *models.RBM) *models.DBN {
	top := models.NewRBM(r.NHid, r.NVis)
	for i := range r.NVis {
		for j := range r.NHid {
			top.W[j*r.NVis+i] = r.W[i*r.NHid+j]
		}
	}
	copy(top.VBias, r.HBias)
	copy(top.HBias, r.VBias)
	return &models.DBN{Layers: []*models.RBM{r.Clone(), top}}
}

// TestDBNTransposedStackIsTight: with W2 = W1ᵀ the DBN defines the RBM's p(v),
// Q is the exact posterior, so the bound equals log p_RBM(v) exactly, the IS
// weights have zero variance, and the Monte Carlo bound converges to it.
func TestDBNTransposedStackIsTight(t *testing.T) {
	r := testRBM(6, 4, 1.2, 0.8, 17)
	d := transposedStack(r)
	xs := allVisible(6)
	lz := exactLogZ(t, r)
	ex, err := DBNExact{}.LogProb(d, xs)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(ex.LogZ-lz) > 1e-10 {
		t.Errorf("Z_top %v, Z_RBM %v", ex.LogZ, lz)
	}
	z, _ := ExactTopLogZ(d, Exact{})
	is, err := DBNIS{Samples: 3, Seed: 1}.LogProb(d, z, xs)
	if err != nil {
		t.Fatal(err)
	}
	bound, err := DBNBound{Samples: 2000, Seed: 1}.LogProb(d, z, rowSet{xs[9], xs[50]})
	if err != nil {
		t.Fatal(err)
	}
	for n, x := range xs {
		want := r.LogUnnorm(toFloat(x), nil) - lz
		if math.Abs(ex.LogP[n]-want) > 1e-10 || math.Abs(ex.ELBO[n]-want) > 1e-10 {
			t.Errorf("v=%v: DBN log p %v, exact bound %v, RBM log p %v", x, ex.LogP[n], ex.ELBO[n], want)
		}
		if math.Abs(is.LogP[n]-want) > 1e-10 {
			t.Errorf("v=%v: IS %v, RBM %v (the weights should be constant)", x, is.LogP[n], want)
		}
	}
	for k, n := range []int{9, 50} {
		want := ex.LogP[n]
		if d := bound.Bound[k] - want; math.Abs(d) > 4*bound.MCSE[k] {
			t.Errorf("v=%v: MC bound %.4f ± %.4f, log p %.4f", xs[n], bound.Bound[k], bound.MCSE[k], want)
		}
	}
}

func TestDBNDeterministicAcrossWorkers(t *testing.T) {
	d := tinyDBNs[1].d
	xs := allVisible(4)
	z, _ := ExactTopLogZ(d, Exact{})
	var refB, refI, refR []float64
	for _, w := range []int{1, 2, 5} {
		b, err := DBNBound{Samples: 7, Seed: 3, Workers: w}.LogProb(d, z, xs)
		if err != nil {
			t.Fatal(err)
		}
		is, err := DBNIS{Samples: 9, Seed: 3, Workers: w}.LogProb(d, z, xs)
		if err != nil {
			t.Fatal(err)
		}
		r, err := DBNRAISE{Samples: 4, Betas: inference.LinearSchedule(20), Seed: 3, Workers: w}.LogProb(d, xs)
		if err != nil {
			t.Fatal(err)
		}
		if refB == nil {
			refB, refI, refR = b.Bound, is.LogP, r.LogW
			continue
		}
		for i := range refB {
			if b.Bound[i] != refB[i] || is.LogP[i] != refI[i] {
				t.Fatalf("workers=%d: example %d differs", w, i)
			}
		}
		for i := range refR {
			if r.LogW[i] != refR[i] {
				t.Fatalf("workers=%d: RAISE weight %d differs", w, i)
			}
		}
	}
}

func TestDBNEstimatorErrors(t *testing.T) {
	d := tinyDBNs[0].d
	z, _ := ExactTopLogZ(d, Exact{})
	good := rowSet{make([]uint8, 6)}
	short := rowSet{make([]uint8, 6), make([]uint8, 5)}
	bad := &models.DBN{Layers: []*models.RBM{models.NewRBM(6, 4), models.NewRBM(3, 2)}}
	check := func(name string, err error, want string) {
		t.Helper()
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err = %v, want %q", name, err, want)
		}
	}
	_, err := DBNBound{}.LogProb(d, z, short)
	check("short row", err, "example 1 has 5 units, the DBN 6 visible units")
	_, err = DBNIS{}.LogProb(d, TopLogZ{LogZ: math.NaN()}, good)
	check("NaN log Z", err, "log Z of the top RBM is NaN")
	_, err = DBNIS{Samples: -1}.LogProb(d, z, good)
	check("negative samples", err, "Samples = -1")
	_, err = DBNRAISE{}.LogProb(bad, good)
	check("bad model", err, "layer 2 has 3 visible units")
	_, err = DBNRAISE{Samples: 1, BaseVBias: []float64{1}}.LogProb(d, good)
	check("base length", err, "base visible biases have length 1, want 4")
	_, err = DBNExact{}.LogProb(d, rowSet{})
	check("no examples", err, "no examples")
	big := testDBN(0.1, 0.1, 1, 5, 12, 10, 3)
	_, err = DBNExact{}.LogProb(big, rowSet{make([]uint8, 5)})
	check("too big", err, "22 units together, more than MaxUnits = 20")
	_, err = ExactTopLogZ(nil, Exact{})
	check("nil", err, "nil model")
	r, err := DBNBound{Samples: 1}.LogProb(d, TopLogZ{LogZ: 1, SE: math.NaN()}, good)
	if err != nil || len(r.Warnings) != 2 || !math.IsNaN(r.MCSE[0]) {
		t.Errorf("M=1 with unknown SE: %v %q %v", err, r.Warnings, r.MCSE)
	}
}

// benchDBN is a 784-500-2000 DBN: the first layer is benchModel's RBM (an
// MNIST-trained one with LOGZ_MNIST_DIR set, else the synthetic benchRBM), the
// top a synthetic 500×2000 RBM like benchRBM.
func benchDBN(b *testing.B) (*models.DBN, rowSet) {
	m, base := benchModel(b)
	rng := rand.New(rand.NewPCG(7, 7))
	top := models.NewRBM(500, 2000)
	for i := range top.W {
		top.W[i] = 0.05 * rng.NormFloat64()
	}
	for i := range top.VBias {
		top.VBias[i] = -1 + 0.5*rng.NormFloat64()
	}
	for j := range top.HBias {
		top.HBias[j] = -2 + 0.5*rng.NormFloat64()
	}
	return &models.DBN{Layers: []*models.RBM{m, top}}, benchExamples(b, 20, base)
}

// BenchmarkDBNIS784x500x2000: one op is IS with 500 proposals for each of 20
// examples on one goroutine; µs/sample is per proposal (draw h1 ~ Q, update
// the pre-activations of v and h2 from the flipped units, log weight).
func BenchmarkDBNIS784x500x2000(b *testing.B) {
	d, xs := benchDBN(b)
	z := TopLogZ{LogZ: 0, Exact: true}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := (DBNIS{Samples: 500, Workers: 1}).LogProb(d, z, xs); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*500*len(xs)), "µs/sample")
}

// BenchmarkDBNBound784x500x2000: one op is the bound with M = 5 for each of
// 20 examples on one goroutine (the set-up, which transposes the weights,
// is included).
func BenchmarkDBNBound784x500x2000(b *testing.B) {
	d, xs := benchDBN(b)
	z := TopLogZ{LogZ: 0, Exact: true}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := (DBNBound{Samples: 5, Workers: 1}).LogProb(d, z, xs); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*5*len(xs)), "µs/sample")
}

// TestDBNWalkerMatchesModel: along 300 draws from Q on a 12-9-7-5-4 DBN, the
// incrementally updated log p*(v, x), log Q(x|v) and conditional entropies
// equal models.DBN's direct computations at every draw.
func TestDBNWalkerMatchesModel(t *testing.T) {
	d := testDBN(0.9, 0.7, 41, 12, 9, 7, 5, 4)
	w := newDBNWalker(newDBNPrep(d))
	rng := rand.New(rand.NewPCG(5, 5))
	v := make([]uint8, 12)
	for i := range v {
		v[i] = uint8(rng.IntN(2))
	}
	w.setVisible(v)
	vf := toFloat(v)
	hs := make([][]float64, 3)
	for s := range 300 {
		w.sample(rng)
		for l := range hs {
			hs[l] = toFloat(w.x[l+1])
		}
		lj := d.LogUnnormJoint(vf, hs, nil)
		lq, ent := 0.0, 0.0
		lower := vf
		for l := range hs {
			lq += d.LogRecognition(l, hs[l], lower, nil)
			pre := make([]float64, d.Layers[l].NHid)
			d.Layers[l].HiddenPreact(pre, lower)
			for _, u := range pre {
				p := nmath.Sigmoid(u)
				ent -= p*math.Log(p) + (1-p)*math.Log(1-p)
			}
			lower = hs[l]
		}
		if got := w.logDirected() + w.logTop(); math.Abs(got-lj) > 1e-9 {
			t.Fatalf("draw %d: log p* %v, direct %v", s, got, lj)
		}
		if got := w.logQ(); math.Abs(got-lq) > 1e-9 {
			t.Fatalf("draw %d: log Q %v, direct %v", s, got, lq)
		}
		if got := w.entropy(); math.Abs(got-ent) > 1e-9 {
			t.Fatalf("draw %d: entropy %v, direct %v", s, got, ent)
		}
	}
}
