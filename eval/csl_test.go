package eval

import (
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/logz-ml/logz/data"
	"github.com/logz-ml/logz/internal/nmath"
	"github.com/logz-ml/logz/models"
	"github.com/logz-ml/logz/models/modeltest"
)

// cslRows is an data.Examples backed by a slice of rows.
type cslRows [][]uint8

func (r cslRows) Len() int          { return len(r) }
func (r cslRows) Row(n int) []uint8 { return r[n] }

// cslTestRBM has weights N(0, w²) and biases N(0, b²) from the stream
// (seed, 7).
func cslTestRBM(d, h int, w, b float64, seed uint64) *models.RBM {
	return modeltest.RandomRBM(d, h, w, b, rand.New(rand.NewPCG(seed, 7)))
}

// allStates returns the 2^d binary vectors, state s having bit i = unit i.
func allStates(d int) cslRows {
	r := make(cslRows, 1<<d)
	for s := range r {
		r[s] = make([]uint8, d)
		for i := range d {
			r[s][i] = uint8(s >> i & 1)
		}
	}
	return r
}

// exactLogP returns log p(v) for every visible state of a tiny RBM by
// brute-force enumeration (log Z = logsumexp of log f over all v).
func exactLogP(m *models.RBM) []float64 {
	vs := allStates(m.NVis)
	lf := make([]float64, len(vs))
	scratch := make([]float64, m.NHid)
	for s, v := range vs {
		lf[s] = m.LogUnnorm(toF64(v), scratch)
	}
	lz := nmath.LogSumExp(lf)
	for s := range lf {
		lf[s] -= lz
	}
	return lf
}

func toF64(x []uint8) []float64 {
	f := make([]float64, len(x))
	for i, b := range x {
		f[i] = float64(b)
	}
	return f
}

// condTable returns P[a*2^k + s] = p(s | a) for a factorised layer with
// pre-activations pre(a) (a ranges over 2^len(cond) states, s over 2^k).
func condTable(na, k int, pre func(a int, dst []float64)) []float64 {
	P := make([]float64, na<<k)
	x := make([]float64, k)
	for a := range na {
		pre(a, x)
		for s := range 1 << k {
			p := 1.0
			for i, xi := range x {
				if s>>i&1 == 1 {
					p *= nmath.Sigmoid(xi)
				} else {
					p *= nmath.Sigmoid(-xi)
				}
			}
			P[a<<k+s] = p
		}
	}
	return P
}

// exactCSLMean returns, for every visible state x, the exact expectation of
// the CSL estimate p̂(x) = (1/S) Σ_s p(x|h_s) for chains started from
// v ~ Bernoulli(σ(bias)) (bias nil: uniform), run burnIn steps and then
// collecting steps hidden states: E[p̂(x)] = (1/steps) Σ_t Σ_h P_t(h) p(x|h),
// with P_t the exact law of the t-th collected h (a 2^D × 2^H Markov chain
// computation). It depends on neither the number of chains nor the seed.
func exactCSLMean(m *models.RBM, bias []float64, burnIn, steps int) []float64 {
	D, H := m.NVis, m.NHid
	nv, nh := 1<<D, 1<<H
	pHV := condTable(nv, H, func(v int, dst []float64) {
		vv := make([]float64, D)
		for i := range D {
			vv[i] = float64(v >> i & 1)
		}
		m.HiddenPreact(dst, vv)
	})
	pVH := condTable(nh, D, func(h int, dst []float64) {
		hh := make([]float64, H)
		for j := range H {
			hh[j] = float64(h >> j & 1)
		}
		m.VisiblePreact(dst, hh)
	})
	pv := make([]float64, nv)
	for v := range nv {
		p := 1.0
		for i := range D {
			q := 0.5
			if bias != nil {
				q = nmath.Sigmoid(bias[i])
			}
			if v>>i&1 == 0 {
				q = 1 - q
			}
			p *= q
		}
		pv[v] = p
	}
	ph := make([]float64, nh)
	toH := func() {
		clear(ph)
		for v, p := range pv {
			for h := range nh {
				ph[h] += p * pHV[v*nh+h]
			}
		}
	}
	toV := func() {
		clear(pv)
		for h, p := range ph {
			for v := range nv {
				pv[v] += p * pVH[h*nv+v]
			}
		}
	}
	for range burnIn {
		toH()
		toV()
	}
	e := make([]float64, nv)
	for range steps {
		toH()
		for h, p := range ph {
			for x := range nv {
				e[x] += p * pVH[h*nv+x]
			}
		}
		toV()
	}
	for x := range e {
		e[x] = math.Log(e[x] / float64(steps))
	}
	return e
}

// checkMeanOfPHat checks, for every example, that the mean of p̂ over
// independent runs (logLists[x] holds log p̂(x) of each run) equals the exact
// expectation within z standard errors of that mean, all in log space. It
// returns, over the examples, the largest |log E − other[x]| measured in
// half-widths of the interval, showing whether the test could tell the
// expectation apart from other.
func checkMeanOfPHat(t *testing.T, logLists [][]float64, logE, other []float64, z float64) float64 {
	t.Helper()
	power := 0.0
	for x, l := range logLists {
		st := nmath.Summarise(l)
		half := st.LogStdErr + math.Log(z)
		lo, hi := nmath.LogSubExp(st.LogMean, half), nmath.LogAddExp(st.LogMean, half)
		if math.IsNaN(lo) {
			lo = math.Inf(-1)
		}
		if !(logE[x] >= lo && logE[x] <= hi) {
			t.Errorf("x=%d: mean p̂ = e^%.6f ± e^%.3f (%.1f SE: [%.6f, %.6f] in log), exact E[p̂] = e^%.6f",
				x, st.LogMean, st.LogStdErr, z, lo, hi, logE[x])
		}
		// distance of other[x] from log E in units of the relative half-width
		relHalf := math.Exp(half - st.LogMean)
		power = max(power, math.Abs(math.Expm1(other[x]-logE[x]))/relHalf)
	}
	return power
}

// TestCSLUnbiasedForItsChain: for any number of steps, burn-in and start, the
// mean of p̂(x) over independent runs equals the exact expectation under the
// chain's own law (computed by propagating the 2^6-state distribution), for
// every one of the 64 visible states, within 4.5 standard errors. With one
// burn-in step the chain is far from p, so the test also shows (power) that
// it would notice a sampler with a different law, e.g. exact draws from p(h).
func TestCSLUnbiasedForItsChain(t *testing.T) {
	m := cslTestRBM(6, 4, 1.5, 0.5, 11)
	exact := exactLogP(m)
	xs := allStates(6)
	for _, tc := range []struct {
		name string
		init string
		bias []float64
		burn int
	}{
		{"base-rate", "base-rate", []float64{-1.5, 1, -0.5, 2, 0, -2}, 1},
		{"uniform", "uniform", nil, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const runs = 6000
			logLists := make([][]float64, len(xs))
			for r := range runs {
				res, err := CSL{Chains: 2, Steps: 3, BurnIn: tc.burn, Init: tc.init, BaseVBias: tc.bias, Seed: uint64(r), Workers: 1}.Estimate(m, xs)
				if err != nil {
					t.Fatal(err)
				}
				for x, l := range res.LogP {
					logLists[x] = append(logLists[x], l)
				}
			}
			logE := exactCSLMean(m, tc.bias, tc.burn, 3)
			power := checkMeanOfPHat(t, logLists, logE, exact, 4.5)
			t.Logf("power: the chain's E[p̂] differs from p(x) by up to %.1f interval half-widths", power)
			if power < 4 {
				t.Errorf("the chain's expectation is within %.2f interval half-widths of p(x) for every x: the test cannot tell the chain from exact sampling", power)
			}
		})
	}
}

// TestCSLConservativeAndConverges: on a tiny RBM, log p̂ is below the exact
// log p(x) on average (beyond noise) with few states, its error shrinks
// roughly like 1/√S as S = Chains·Steps grows from 10 to 1,000 to 100,000,
// and for long burnt-in chains the mean of p̂ matches the exact expectation,
// which the exact chain computation shows equals p(x) to within 1e-6.
func TestCSLConservativeAndConverges(t *testing.T) {
	m := cslTestRBM(6, 4, 2, 0.5, 5)
	exact := exactLogP(m)
	xs := allStates(6)
	const burn = 50
	logE := exactCSLMean(m, nil, burn, 1)
	for x := range logE {
		if d := math.Abs(logE[x] - exact[x]); d > 1e-6 {
			t.Fatalf("x=%d: after %d burn-in steps the chain's law still differs from p: |log E[p̂] − log p| = %g; pick a faster-mixing model", x, burn, d)
		}
	}
	type cfg struct{ chains, steps, runs int }
	cfgs := []cfg{{1, 10, 400}, {10, 100, 40}, {100, 1000, 6}}
	meanAbs := make([]float64, len(cfgs))
	for k, c := range cfgs {
		var errs []float64 // per run: mean over x of (log p̂ − log p)
		absSum := 0.0
		logLists := make([][]float64, len(xs))
		for r := range c.runs {
			res, err := CSL{Chains: c.chains, Steps: c.steps, BurnIn: burn, Seed: uint64(1000*k + r)}.Estimate(m, xs)
			if err != nil {
				t.Fatal(err)
			}
			e := 0.0
			for x, l := range res.LogP {
				e += l - exact[x]
				absSum += math.Abs(l - exact[x])
				logLists[x] = append(logLists[x], l)
			}
			errs = append(errs, e/float64(len(xs)))
		}
		meanAbs[k] = absSum / float64(c.runs*len(xs))
		mu, se := cslMeanSE(errs)
		t.Logf("S = %6d: mean error %.5f ± %.5f nats, mean |error| %.5f", c.chains*c.steps, mu, se, meanAbs[k])
		if k == 0 && !(mu < -4.5*se) {
			t.Errorf("S = 10: mean error %.4f ± %.4f is not below zero by 4.5 SE: CSL should be conservative on average", mu, se)
		}
		if k == len(cfgs)-1 {
			checkMeanOfPHat(t, logLists, logE, exact, 4.5)
		}
	}
	for k := 1; k < len(cfgs); k++ {
		if !(meanAbs[k-1] > 3*meanAbs[k]) {
			t.Errorf("mean |error| %.5f at S = %d is not 3× that at S = %d (%.5f); with 100× more states it should shrink about 10×",
				meanAbs[k-1], cfgs[k-1].chains*cfgs[k-1].steps, cfgs[k].chains*cfgs[k].steps, meanAbs[k])
		}
	}
}

func cslMeanSE(x []float64) (mean, se float64) {
	n := float64(len(x))
	for _, v := range x {
		mean += v
	}
	mean /= n
	ss := 0.0
	for _, v := range x {
		ss += (v - mean) * (v - mean)
	}
	return mean, math.Sqrt(ss / (n - 1) / n)
}

// cslLogCond returns log p(x|h) = Σ_i [x_i log σ(y_i) + (1−x_i) log σ(−y_i)]
// from y = a + W h, directly.
func cslLogCond(x []uint8, y []float64) float64 {
	l := 0.0
	for i, v := range y {
		if x[i] == 1 {
			l += nmath.LogSigmoid(v)
		} else {
			l += nmath.LogSigmoid(-v)
		}
	}
	return l
}

// TestCSLMatchesDirectSum replays the collected hidden states (through the
// test hook) and recomputes log (1/S) Σ_s p(x|h_s) and the ESS directly, for
// examples with few ones and with few zeros (both evaluation paths), a
// number of states that does not fill the last block of eight, and every
// chain group.
func TestCSLMatchesDirectSum(t *testing.T) {
	const D, H = 40, 25
	m := cslTestRBM(D, H, 0.4, 1, 3)
	rng := rand.New(rand.NewPCG(9, 9))
	var xs cslRows
	for _, p := range []float64{0.02, 0.1, 0.5, 0.9, 0.98, 0.3, 0.7} {
		for range 3 {
			row := make([]uint8, D)
			for i := range row {
				if rng.Float64() < p {
					row[i] = 1
				}
			}
			xs = append(xs, row)
		}
	}
	const chains, steps = 70, 13
	states := make([][][]uint8, chains)
	c := CSL{Chains: chains, Steps: steps, BurnIn: 3, Seed: 4, Workers: 2}
	c.onState = func(k int, h []uint8) { states[k] = append(states[k], slices.Clone(h)) }
	res, err := c.Estimate(m, xs)
	if err != nil {
		t.Fatal(err)
	}
	var all [][]uint8
	for k := range states {
		if len(states[k]) != steps {
			t.Fatalf("chain %d collected %d states, want %d", k, len(states[k]), steps)
		}
		all = append(all, states[k]...)
	}
	if res.Samples != chains*steps {
		t.Fatalf("Samples = %d, want %d", res.Samples, chains*steps)
	}
	y := make([]float64, D)
	terms := make([]float64, len(all))
	sq := make([]float64, len(all))
	var sum, sum2 float64
	logCond := make([][]float64, len(xs)) // [n][s]: log p(x_n|h_s)
	for n, x := range xs {
		for s, h := range all {
			m.VisiblePreact(y, toF64(h))
			terms[s] = cslLogCond(x, y)
			sq[s] = 2 * terms[s]
		}
		logCond[n] = slices.Clone(terms)
		want := nmath.LogMeanExp(terms)
		if d := math.Abs(res.LogP[n] - want); d > 1e-9*math.Max(1, math.Abs(want)) {
			t.Errorf("example %d: LogP = %.12f, direct sum %.12f", n, res.LogP[n], want)
		}
		ess := math.Exp(2*nmath.LogSumExp(terms) - nmath.LogSumExp(sq))
		if math.Abs(res.ESS[n]-ess) > 1e-9*ess {
			t.Errorf("example %d: ESS = %.9g, direct %.9g", n, res.ESS[n], ess)
		}
		sum += want
		sum2 += want * want
	}
	// The chain error, directly: the jackknife over the 64 chain groups
	// (group g holds chains g·70/64 … (g+1)·70/64 − 1), each θ_g the mean
	// over examples of log p̂ from every state outside group g.
	const G = cslMaxGroups
	theta := make([]float64, G)
	for g := range G {
		lo, hi := g*chains/G, (g+1)*chains/G
		for n := range xs {
			kept := slices.Concat(logCond[n][:lo*steps], logCond[n][hi*steps:])
			theta[g] += nmath.LogMeanExp(kept) / float64(len(xs))
		}
	}
	// cslMeanSE's se² is Σ(θ_g − θ̄)²/(G(G−1)), so the jackknife variance
	// (G−1)/G Σ (θ_g − θ̄)² is se²·(G−1)².
	_, tse := cslMeanSE(theta)
	chainSE := tse * (G - 1)
	if math.Abs(res.ChainSE-chainSE) > 1e-9*chainSE {
		t.Errorf("ChainSE = %.12g, direct jackknife %.12g", res.ChainSE, chainSE)
	}
	ms := meanStat(sum, sum2, len(xs))
	ms.SE = math.Hypot(ms.SE, chainSE)
	if math.Abs(res.Mean.Mean-ms.Mean) > 1e-9*math.Abs(ms.Mean) || math.Abs(res.Mean.SE-ms.SE) > 1e-9*ms.SE || res.Mean.N != len(xs) {
		t.Errorf("Mean = %+v, want %+v", res.Mean, ms)
	}
}

// TestCSLWeightlessModelIsExact: with W = 0, p(x|h) = p(x) for every h, so
// p̂(x) = p(x) exactly, whatever the chains do, and every state counts (ESS = S).
func TestCSLWeightlessModelIsExact(t *testing.T) {
	m := cslTestRBM(5, 3, 0, 1.5, 8)
	exact := exactLogP(m)
	res, err := CSL{Chains: 3, Steps: 7, Seed: 1}.Estimate(m, allStates(5))
	if err != nil {
		t.Fatal(err)
	}
	for x, l := range res.LogP {
		if math.Abs(l-exact[x]) > 1e-12 {
			t.Errorf("x=%d: log p̂ = %.15f, exact %.15f", x, l, exact[x])
		}
		if math.Abs(res.ESS[x]-21) > 1e-9 {
			t.Errorf("x=%d: ESS = %g, want 21", x, res.ESS[x])
		}
	}
	if len(res.Warnings) != 0 {
		t.Errorf("unexpected warnings %q", res.Warnings)
	}
}

// TestCSLWarnsOnFewEffectiveStates: with strong weights and few states, a
// handful of hidden states carry each estimate and the result says so.
func TestCSLWarnsOnFewEffectiveStates(t *testing.T) {
	m := cslTestRBM(30, 20, 3, 1, 2)
	x := make([]uint8, 30)
	for i := range x {
		x[i] = uint8(i % 3 % 2)
	}
	res, err := CSL{Chains: 4, Steps: 10, Seed: 1}.Estimate(m, cslRows{x})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "ESS") {
		t.Errorf("ESS = %v; warnings %q, want one about the ESS", res.ESS, res.Warnings)
	}
}

// TestCSLDeterministicAcrossWorkers: the same seed gives bit-identical
// results with any number of workers.
func TestCSLDeterministicAcrossWorkers(t *testing.T) {
	m := cslTestRBM(12, 9, 1, 1, 6)
	xs := allStates(12)[:200]
	var ref CSLResult
	for k, w := range []int{1, 2, 5} {
		res, err := CSL{Chains: 70, Steps: 9, BurnIn: 2, Init: "uniform", Seed: 42, Workers: w}.Estimate(m, xs)
		if err != nil {
			t.Fatal(err)
		}
		if k == 0 {
			ref = res
			continue
		}
		if !slices.Equal(res.LogP, ref.LogP) || !slices.Equal(res.ESS, ref.ESS) {
			t.Errorf("Workers = %d gives different results from Workers = 1", w)
		}
	}
	other, err := CSL{Chains: 70, Steps: 9, BurnIn: 2, Init: "uniform", Seed: 43}.Estimate(m, xs)
	if err != nil {
		t.Fatal(err)
	}
	if slices.Equal(other.LogP, ref.LogP) {
		t.Error("a different seed gives the same results")
	}
}

// TestCSLChainPreactivations: after every step the incrementally updated
// pre-activations equal those recomputed from the current state, and both
// the incremental and the full update paths are exercised.
func TestCSLChainPreactivations(t *testing.T) {
	for _, sc := range []struct{ w, b float64 }{{0.3, 3}, {1, 0.2}, {0.02, 0}} {
		m := cslTestRBM(60, 40, sc.w, sc.b, 12)
		mod := newCSLModel(m)
		ch := newCSLChain(mod)
		rng := rand.New(rand.NewPCG(3, 4))
		ch.start(nil, rng)
		x := make([]float64, 40)
		y := make([]float64, 60)
		for step := range 400 {
			ch.hiddenStep(rng)
			m.HiddenPreact(x, toF64(ch.v))
			for j := range x {
				if math.Abs(x[j]-ch.x[j]) > 1e-10 {
					t.Fatalf("w=%g step %d: x[%d] = %.15f, recomputed %.15f", sc.w, step, j, ch.x[j], x[j])
				}
			}
			ch.syncY()
			m.VisiblePreact(y, toF64(ch.h))
			for i := range y {
				if math.Abs(y[i]-ch.y[i]) > 1e-10 {
					t.Fatalf("w=%g step %d: y[%d] = %.15f, recomputed %.15f", sc.w, step, i, ch.y[i], y[i])
				}
				if e := math.Exp(-math.Abs(ch.y[i])); math.Abs(ch.ey[i]-e) > 2e-15*e {
					t.Fatalf("w=%g step %d: e^{−|y[%d]|} = %.17g, want %.17g", sc.w, step, i, ch.ey[i], e)
				}
			}
			ch.visibleStep(rng)
			on := 0
			for _, b := range ch.v {
				on += int(b)
			}
			if on != ch.vOn {
				t.Fatalf("step %d: vOn = %d, counted %d", step, ch.vOn, on)
			}
		}
		t.Logf("w=%g: %d incremental x updates, %d incremental y updates of 400", sc.w, ch.incX, ch.incY)
		if sc.b == 3 && (ch.incX == 0 || ch.incY == 0) {
			t.Errorf("strong biases: the incremental paths were never used (x %d, y %d)", ch.incX, ch.incY)
		}
	}
}

// TestCSLBernoulli: the start draw v_i ~ Bernoulli(σ(bias_i)) has the right
// frequencies (binomial tolerance, 5 SD).
func TestCSLBernoulli(t *testing.T) {
	bias := []float64{-3, -0.5, 0, 0.7, 4, -40, 40}
	m := models.NewRBM(len(bias), 1)
	ch := newCSLChain(newCSLModel(m))
	rng := rand.New(rand.NewPCG(1, 2))
	const R = 40000
	cnt := make([]int, len(bias))
	for range R {
		ch.start(bias, rng)
		for i, b := range ch.v {
			cnt[i] += int(b)
		}
	}
	for i, b := range bias {
		p := nmath.Sigmoid(b)
		sd := math.Sqrt(R * p * (1 - p))
		if math.Abs(float64(cnt[i])-R*p) > 5*sd+1e-9 {
			t.Errorf("bias %g: %d ones of %d, want %.1f ± %.1f", b, cnt[i], R, R*p, 5*sd)
		}
	}
}

func TestCSLProgress(t *testing.T) {
	m := cslTestRBM(5, 3, 1, 1, 1)
	var last, calls atomic.Int64
	c := CSL{Chains: 6, Steps: 4, BurnIn: 3, Progress: func(done, total int64) {
		if total != 6*7 {
			t.Errorf("total = %d, want 42", total)
		}
		calls.Add(1)
		for {
			l := last.Load()
			if done <= l || last.CompareAndSwap(l, done) {
				break
			}
		}
	}}
	if _, err := c.Estimate(m, allStates(5)); err != nil {
		t.Fatal(err)
	}
	if last.Load() != 42 || calls.Load() != 6 {
		t.Errorf("last progress %d in %d calls, want 42 in 6", last.Load(), calls.Load())
	}
}

// TestCSLProgressWithinChain: a long chain (a burn-in of 10,000 steps)
// moves the bar while it runs, every cslProgressEvery steps, not only
// when it ends.
func TestCSLProgressWithinChain(t *testing.T) {
	m := cslTestRBM(3, 2, 1, 1, 1)
	var calls []int64
	c := CSL{Chains: 1, Steps: 10, BurnIn: 10000, Workers: 1, Progress: func(done, total int64) { calls = append(calls, done) }}
	if _, err := c.Estimate(m, allStates(3)); err != nil {
		t.Fatal(err)
	}
	want := []int64{cslProgressEvery, 2 * cslProgressEvery, 10010}
	if !slices.Equal(calls, want) {
		t.Errorf("progress %v, want %v", calls, want)
	}
}

func TestCSLValidation(t *testing.T) {
	m := cslTestRBM(4, 3, 1, 1, 1)
	bad := m.Clone()
	bad.W[5] = math.NaN()
	xs := allStates(4)
	for _, tc := range []struct {
		name string
		c    CSL
		m    *models.RBM
		x    data.Examples
		want string
	}{
		{"nil model", CSL{}, nil, xs, "nil model"},
		{"NaN weight", CSL{}, bad, xs, "W[1,2]"},
		{"chains", CSL{Chains: -1}, m, xs, "Chains = -1"},
		{"steps", CSL{Steps: -2}, m, xs, "Steps = -2"},
		{"burn-in", CSL{BurnIn: -3}, m, xs, "BurnIn = -3"},
		{"workers", CSL{Workers: -1}, m, xs, "Workers = -1"},
		{"chains × steps", CSL{Chains: 1 << 16, Steps: 1 << 16}, m, xs, "chains × steps = 65536 × 65536 is more than the limit of 2147483647 hidden states (eval.MaxCSLStates)"},
		{"init", CSL{Init: "data"}, m, xs, `Init = "data"`},
		{"base-rate without biases", CSL{Init: "base-rate"}, m, xs, "needs BaseVBias"},
		{"base length", CSL{BaseVBias: []float64{1, 2}}, m, xs, "length 2, want 4"},
		{"base NaN", CSL{Init: "base-rate", BaseVBias: []float64{0, 0, math.Inf(1), 0}}, m, xs, "BaseVBias[2]"},
		{"no examples", CSL{}, m, cslRows{}, "no examples"},
		{"row length", CSL{}, m, cslRows{{0, 1, 0, 1}, {1, 0, 1}}, "example 1 has 3 values, want 4"},
		{"row value", CSL{}, m, cslRows{{0, 1, 0, 1}, {1, 0, 2, 0}}, "example 1, unit 2 is 2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.c.Steps == 0 {
				tc.c.Steps = 2
			}
			if tc.c.Chains == 0 {
				tc.c.Chains = 2
			}
			_, err := tc.c.Estimate(tc.m, tc.x)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
	// "uniform" ignores BaseVBias, even a malformed one.
	if _, err := (CSL{Init: "uniform", BaseVBias: []float64{1}, Chains: 1, Steps: 1}).Estimate(m, xs); err != nil {
		t.Errorf("uniform start with unused BaseVBias: %v", err)
	}
}

// BenchmarkCSL784x500 is CSL on the 784×500 benchmark model (see
// benchModel): 100 chains × 100 steps (10,000 hidden states, no burn-in)
// evaluated on 100 examples — the first 100 MNIST test images if
// LOGZ_MNIST_DIR is set, else draws from the base rate.
func BenchmarkCSL784x500(b *testing.B) {
	m, base := benchModel(b)
	xs := make(cslRows, 100)
	if dir := mnistBenchDir(b); dir != "" {
		test, err := readIDXImages(filepath.Join(dir, "t10k-images-idx3-ubyte.gz"))
		if err != nil {
			b.Fatal(err)
		}
		copy(xs, test)
	} else {
		rng := rand.New(rand.NewPCG(5, 5))
		for n := range xs {
			xs[n] = make([]uint8, m.NVis)
			for i := range xs[n] {
				if rng.Float64() < nmath.Sigmoid(base[i]) {
					xs[n][i] = 1
				}
			}
		}
	}
	c := CSL{Chains: 100, Steps: 100, BaseVBias: base, Seed: 1}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Estimate(m, xs); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCSLEvalBlock784 is the evaluation kernel alone: one block of
// eight states against 100 MNIST-like examples (about 12% ones).
func BenchmarkCSLEvalBlock784(b *testing.B) {
	const D = 784
	rng := rand.New(rand.NewPCG(5, 6))
	xs := make(cslRows, 100)
	for n := range xs {
		xs[n] = make([]uint8, D)
		for i := range xs[n] {
			if rng.Float64() < 0.12 {
				xs[n][i] = 1
			}
		}
	}
	data, err := newCSLData(xs, D)
	if err != nil {
		b.Fatal(err)
	}
	ev := newCSLEval(D)
	y, e := make([]float64, D), make([]float64, D)
	for i := range y {
		y[i] = 3 * rng.NormFloat64()
		e[i] = math.Exp(-math.Abs(y[i]))
	}
	var a cslAcc
	a.init(len(xs))
	b.ReportAllocs()
	for b.Loop() {
		for !ev.add(y, e) {
		}
		ev.flush(data, &a)
	}
}

// TestCSLStandardErrorCoversChainNoise checks the Monte Carlo part of CSL's
// standard error. With the examples fixed, the mean of log p̂ varies from
// seed to seed only through the chains, which every example shares: its
// spread over many seeds must equal the reported ChainSE (the jackknife over
// chain groups), and on copies of one example, where the spread over
// examples is zero, Mean.SE must be that same chain error. With R = 200
// seeds the observed spread is known to about 1/√(2R) = 5%, and the RMS of
// 200 jackknife SEs (20 groups each) to about 1%, so [0.8, 1.25] is about
// four standard errors either side of 1.
func TestCSLStandardErrorCoversChainNoise(t *testing.T) {
	m := cslTestRBM(6, 4, 2, 0.5, 5)
	xs := allStates(6)
	same := make(cslRows, 32)
	for i := range same {
		same[i] = xs[37]
	}
	const R = 200
	for _, c := range []struct {
		name string
		x    cslRows
		se   func(CSLResult) float64
	}{
		{"all states, ChainSE", xs, func(r CSLResult) float64 { return r.ChainSE }},
		{"32 copies of one example, Mean.SE", same, func(r CSLResult) float64 { return r.Mean.SE }},
	} {
		means := make([]float64, R)
		var ms float64 // mean of SE²
		for r := range R {
			res, err := CSL{Chains: 20, Steps: 50, BurnIn: 20, Seed: uint64(500 + r)}.Estimate(m, c.x)
			if err != nil {
				t.Fatal(err)
			}
			means[r] = res.Mean.Mean
			ms += c.se(res) * c.se(res) / R
		}
		_, se := cslMeanSE(means)
		sd := se * math.Sqrt(R)
		ratio := math.Sqrt(ms) / sd
		t.Logf("%s: RMS reported SE %.4g, spread over %d seeds %.4g, ratio %.3f", c.name, math.Sqrt(ms), R, sd, ratio)
		if ratio < 0.8 || ratio > 1.25 {
			t.Errorf("%s: the reported SE (RMS %.4g) is %.3f× the spread of the estimate over %d seeds (%.4g); want 0.8–1.25", c.name, math.Sqrt(ms), ratio, R, sd)
		}
	}
}
