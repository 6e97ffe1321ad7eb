package inference

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/logz-ml/logz/internal/kernel"
	"github.com/logz-ml/logz/internal/nmath"
	"github.com/logz-ml/logz/models"
	"github.com/logz-ml/logz/models/modeltest"
)

// randRBM is a d×h RBM with N(0, wScale²) weights and N(0, bScale²) biases
// from the stream (seed, 7).
func randRBM(d, h int, wScale, bScale float64, seed uint64) *models.RBM {
	return modeltest.RandomRBM(d, h, wScale, bScale, rand.New(rand.NewPCG(seed, 7)))
}

// bruteLogF is log Σ_{h_A,h_B} exp(−(1−β)E_A(v,h_A) − βE_B(v,h_B)) − c(β),
// c(β) = ((1−β)H_B + βH_A) log 2, by enumerating both hidden layers.
func bruteLogF(a, b *models.RBM, v []uint8, beta float64) float64 {
	vf := make([]float64, len(v))
	for i, x := range v {
		vf[i] = float64(x)
	}
	side := func(m *models.RBM, t float64) float64 {
		h := make([]float64, m.NHid)
		var terms []float64
		for s := range 1 << m.NHid {
			for j := range h {
				h[j] = float64(s >> j & 1)
			}
			terms = append(terms, -t*m.Energy(vf, h))
		}
		return nmath.LogSumExp(terms)
	}
	return side(a, 1-beta) + side(b, beta) - ((1-beta)*float64(b.NHid)+beta*float64(a.NHid))*math.Ln2
}

// enumSampler draws v exactly from p_A for a tiny model A by enumerating v.
type enumSampler struct {
	m   *models.RBM
	cdf []float64
}

func newEnumSampler(m *models.RBM) (*enumSampler, float64) {
	D := m.NVis
	logf := make([]float64, 1<<D)
	v := make([]float64, D)
	for s := range logf {
		for i := range v {
			v[i] = float64(s >> i & 1)
		}
		logf[s] = m.LogUnnorm(v, nil)
	}
	lz := nmath.LogSumExp(logf)
	cdf := make([]float64, len(logf))
	acc := 0.0
	for s, l := range logf {
		acc += math.Exp(l - lz)
		cdf[s] = acc
	}
	return &enumSampler{m: m, cdf: cdf}, lz
}

func (e *enumSampler) SampleVisible(v []uint8, rng *rand.Rand) {
	u := rng.Float64() * e.cdf[len(e.cdf)-1]
	s := 0
	for s < len(e.cdf)-1 && e.cdf[s] <= u {
		s++
	}
	for i := range v {
		v[i] = uint8(s >> i & 1)
	}
}

type pathCase struct {
	name string
	a, b *models.RBM
	path *RBMPath
}

func pathCases(t *testing.T) []pathCase {
	t.Helper()
	b := randRBM(4, 3, 1.2, 1, 1)
	base := models.NewRBM(4, 3)
	base.VBias = []float64{-1, 0.5, 2, -0.3}
	baseRate, err := NewBaseRatePath(b, base.VBias)
	if err != nil {
		t.Fatal(err)
	}
	a := randRBM(4, 2, 1.0, 1, 2)
	sa, lza := newEnumSampler(a)
	ratio, err := NewRBMPath(a, b, sa, lza)
	if err != nil {
		t.Fatal(err)
	}
	wl := models.NewRBM(4, 5) // weightless A with non-zero hidden biases
	copy(wl.VBias, []float64{0.3, -0.2, 1, -2})
	copy(wl.HBias, []float64{0.5, -1, 2, 0, 0.1})
	weightless, err := NewRBMPath(wl, b, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	return []pathCase{
		{"base-rate", base, b, baseRate},
		{"ratio", a, b, ratio},
		{"weightless-A", wl, b, weightless},
	}
}

func TestLogUnnormAgainstBruteForce(t *testing.T) {
	for _, pc := range pathCases(t) {
		c := pc.path.NewRBMChain()
		v := make([]uint8, 4)
		for s := range 16 {
			for i := range v {
				v[i] = uint8(s >> i & 1)
			}
			c.SetVisible(v)
			for _, beta := range []float64{0, 0.1, 0.5, 0.93, 1} {
				got, want := c.LogUnnorm(beta), bruteLogF(pc.a, pc.b, v, beta)
				if math.Abs(got-want) > 1e-12 {
					t.Fatalf("%s: log f_%v(%v) = %.15g, brute force %.15g", pc.name, beta, v, got, want)
				}
			}
		}
		// log Z_0 = log Σ_v f_0(v).
		var terms []float64
		for s := range 16 {
			for i := range v {
				v[i] = uint8(s >> i & 1)
			}
			terms = append(terms, bruteLogF(pc.a, pc.b, v, 0))
		}
		if lz := nmath.LogSumExp(terms); math.Abs(lz-pc.path.LogZ0()) > 1e-12 {
			t.Fatalf("%s: LogZ0 = %v, brute force %v", pc.name, pc.path.LogZ0(), lz)
		}
	}
}

// TestStepWeightIsLogUnnormDifference checks the fused step against
// LogUnnorm evaluated before the transition, along a whole schedule.
func TestStepWeightIsLogUnnormDifference(t *testing.T) {
	for _, pc := range pathCases(t) {
		c := pc.path.NewRBMChain()
		rng := rand.New(rand.NewPCG(3, 4))
		c.SampleBase(rng)
		betas := LinearSchedule(40)
		for k := 1; k < len(betas); k++ {
			want := c.LogUnnorm(betas[k]) - c.LogUnnorm(betas[k-1])
			got := c.Step(betas[k-1], betas[k], rng)
			if math.Abs(got-want) > 1e-12 {
				t.Fatalf("%s step %d: %v, want %v", pc.name, k, got, want)
			}
		}
		// Reverse order (RAISE).
		for k := len(betas) - 1; k > 0; k-- {
			want := c.LogUnnorm(betas[k-1]) - c.LogUnnorm(betas[k])
			got := c.Step(betas[k], betas[k-1], rng)
			if math.Abs(got-want) > 1e-12 {
				t.Fatalf("%s reverse step %d: %v, want %v", pc.name, k, got, want)
			}
		}
	}
}

// TestTransitionLeavesPBetaInvariant runs the block-Gibbs transition at a
// fixed β for many sweeps and compares the visited frequencies of the 16
// visible states with p_β(v) ∝ f_β(v), within 5 standard errors (the
// standard error is inflated by an estimate of the integrated
// autocorrelation time from batch means).
func TestTransitionLeavesPBetaInvariant(t *testing.T) {
	for _, pc := range pathCases(t) {
		for _, beta := range []float64{0, 0.35, 1} {
			var logf [16]float64
			v := make([]uint8, 4)
			for s := range 16 {
				for i := range v {
					v[i] = uint8(s >> i & 1)
				}
				logf[s] = bruteLogF(pc.a, pc.b, v, beta)
			}
			lz := nmath.LogSumExp(logf[:])
			c := pc.path.NewRBMChain()
			rng := rand.New(rand.NewPCG(5, 6))
			c.SampleBase(rng)
			const batches, perBatch = 200, 1000
			var batchFreq [batches][16]float64
			for bi := range batches {
				for range perBatch {
					c.Transition(beta, rng)
					s := 0
					for i, x := range c.Visible() {
						s |= int(x) << i
					}
					batchFreq[bi][s]++
				}
			}
			for s := range 16 {
				p := math.Exp(logf[s] - lz)
				mean, m2 := 0.0, 0.0
				for bi := range batches {
					f := batchFreq[bi][s] / perBatch
					mean += f
					m2 += f * f
				}
				mean /= batches
				se := math.Sqrt(math.Max(m2/batches-mean*mean, 0) / (batches - 1))
				se = math.Max(se, math.Sqrt(p*(1-p)/(batches*perBatch)))
				if math.Abs(mean-p) > 5*se {
					t.Errorf("%s β=%v: state %04b visited %.5f, p_β = %.5f (SE %.2g)", pc.name, beta, s, mean, p, se)
				}
			}
		}
	}
}

// TestSampleBaseIsExact compares the base draws with p_A = p_0.
func TestSampleBaseIsExact(t *testing.T) {
	for _, pc := range pathCases(t) {
		var logf [16]float64
		v := make([]uint8, 4)
		for s := range 16 {
			for i := range v {
				v[i] = uint8(s >> i & 1)
			}
			logf[s] = bruteLogF(pc.a, pc.b, v, 0)
		}
		lz := nmath.LogSumExp(logf[:])
		c := pc.path.NewRBMChain()
		rng := rand.New(rand.NewPCG(8, 9))
		const n = 200000
		var freq [16]float64
		for range n {
			c.SampleBase(rng)
			s := 0
			for i, x := range c.Visible() {
				s |= int(x) << i
			}
			freq[s]++
		}
		for s := range 16 {
			p := math.Exp(logf[s] - lz)
			se := math.Sqrt(p * (1 - p) / n)
			if math.Abs(freq[s]/n-p) > 5*se {
				t.Errorf("%s: base state %04b frequency %.5f, p_0 = %.5f (SE %.2g)", pc.name, s, freq[s]/n, p, se)
			}
		}
	}
}

// TestIncrementalPreactsDoNotDrift runs a 100×80 chain for 3,000 steps with
// the periodic recomputation (and the switch to recomputing when cheaper)
// disabled and compares the incrementally updated
// pre-activations with a recomputation from scratch, in both precisions.
// The bound is a few thousand roundings of |x| ≲ 10: 1e-11 in float64,
// 1e-3 in float32 (2^{−24}·10·3,000·… ≈ 2e-3 for errors of one sign; they
// are of both signs).
func TestIncrementalPreactsDoNotDrift(t *testing.T) {
	t.Run("float64", func(t *testing.T) { testDrift[float64](t, 1e-11) })
	t.Run("float32", func(t *testing.T) { testDrift[float32](t, 1e-3) })
}

func testDrift[F kernel.Float](t *testing.T, tol float64) {
	m := randRBM(100, 80, 0.3, 1, 4)
	path, err := NewBaseRatePathIn(kernel.Of[F](), m, nil)
	if err != nil {
		t.Fatal(err)
	}
	pf := pathOf[F](path)
	pf.recompute = math.MaxInt
	pf.alwaysIncremental = true
	c := chainOf[F](path.NewRBMChain())
	rng := rand.New(rand.NewPCG(1, 1))
	c.SampleBase(rng)
	betas := LinearSchedule(3000)
	incremental := 0
	for k := 1; k < len(betas); k++ {
		before := c.sinceX
		c.Step(betas[k-1], betas[k], rng)
		if c.sinceX > before {
			incremental++
		}
	}
	c.syncX()
	if incremental < 2900 || c.sinceX < 2900 || c.sb.sinceY < 2900 {
		t.Fatalf("only %d incremental updates (%d since the last recomputation): the test does not exercise the incremental path", incremental, c.sinceX)
	}
	x := append([]F(nil), c.sb.x...)
	y := append([]F(nil), c.sb.y...)
	aBv := c.aBv
	c.fullX()
	c.sb.yStale = true
	c.syncY(&c.sb, &pf.lb)
	worst := 0.0
	for j := range x {
		worst = max(worst, math.Abs(float64(x[j]-c.sb.x[j])))
	}
	for i := range y {
		worst = max(worst, math.Abs(float64(y[i]-c.sb.y[i])))
	}
	worst = max(worst, math.Abs(aBv-c.aBv))
	t.Logf("max |incremental − recomputed| after %d steps: %.3g", len(betas)-1, worst)
	if worst > tol {
		t.Fatalf("pre-activations drifted by %.3g", worst)
	}
}

// TestBernoulliFrequencies checks the two-uniforms-per-Uint64 comparison
// against σ(x) for pre-activations of both signs, including extremes.
func TestBernoulliFrequencies(t *testing.T) {
	xs := []float64{-30, -8, -2.5, -0.7, -1e-3, 0, 1e-3, 0.4, 1.9, 6, 30}
	const n = 400000
	rng := rand.New(rand.NewPCG(11, 12))
	pre := make([]float64, len(xs))
	e := make([]float64, len(xs))
	s := make([]uint8, len(xs))
	copy(pre, xs)
	for _, beta := range []float64{1, 0.3} {
		expNegAbs(e, pre, beta)
		count := make([]float64, len(xs))
		for range n {
			sampleUnits(s, pre, e, rng, nil, nil)
			for j, b := range s {
				count[j] += float64(b)
			}
		}
		for j, x := range xs {
			p := nmath.Sigmoid(beta * x)
			se := math.Sqrt(math.Max(p*(1-p), 1e-12) / n)
			if f := count[j] / n; math.Abs(f-p) > 5*se+1e-9 {
				t.Errorf("β=%v x=%v: frequency %.6f, σ(βx) = %.6f (SE %.2g)", beta, x, f, p, se)
			}
		}
	}
}

func TestPathValidation(t *testing.T) {
	m := randRBM(4, 3, 1, 1, 1)
	if _, err := NewBaseRatePath(m, []float64{1, 2}); err == nil {
		t.Error("short base biases accepted")
	}
	if _, err := NewBaseRatePath(m, []float64{1, 2, math.Inf(1), 0}); err == nil {
		t.Error("infinite base bias accepted")
	}
	if _, err := NewRBMPath(randRBM(5, 3, 1, 1, 1), m, nil, 0); err == nil {
		t.Error("visible size mismatch accepted")
	}
	if _, err := NewRBMPath(randRBM(4, 2, 1, 1, 1), m, nil, 0); err == nil {
		t.Error("weighted A without a sampler accepted")
	}
}

// TestRAISEReverseUse checks the reverse (RAISE) use of the chain on a
// 3×2 RBM: starting from a data vector v, one Transition at β_K = 1 and the
// fused steps Step(β_k, β_{k−1}) for k = K…1 give weights
// w = f_K(v)/Z_0 · Π_k f_{k−1}(x_{k−1})/f_k(x_{k−1}) whose mean is p_ann(v),
// the probability of v under the forward annealing chain, computed here
// exactly from the 8×8 transition matrices.
func TestRAISEReverseUse(t *testing.T) {
	m := randRBM(3, 2, 1.5, 1, 21)
	base := []float64{0.4, -0.8, 1.1}
	path, err := NewBaseRatePath(m, base)
	if err != nil {
		t.Fatal(err)
	}
	betas := []float64{0, 0.3, 0.7, 1}
	K := len(betas) - 1
	const S = 8
	state := func(s int) []uint8 { return []uint8{uint8(s & 1), uint8(s >> 1 & 1), uint8(s >> 2 & 1)} }
	baseM := models.NewRBM(3, 2)
	copy(baseM.VBias, base)
	// T_β[s][s'] = Σ_h p_β(h|v_s) p_β(v_{s'}|h), with h the two hidden units of m.
	trans := func(beta float64) [S][S]float64 {
		var T [S][S]float64
		for s := range S {
			v := state(s)
			for hs := range 4 {
				ph := 1.0
				for j := range 2 {
					x := m.HBias[j]
					for i := range 3 {
						x += float64(v[i]) * m.W[i*2+j]
					}
					p := nmath.Sigmoid(beta * x)
					if hs>>j&1 == 0 {
						p = 1 - p
					}
					ph *= p
				}
				for s2 := range S {
					v2 := state(s2)
					pv := 1.0
					for i := range 3 {
						z := (1-beta)*base[i] + beta*m.VBias[i]
						for j := range 2 {
							z += beta * float64(hs>>j&1) * m.W[i*2+j]
						}
						p := nmath.Sigmoid(z)
						if v2[i] == 0 {
							p = 1 - p
						}
						pv *= p
					}
					T[s][s2] += ph * pv
				}
			}
		}
		return T
	}
	// p_0 and the forward chain: x_0 ~ p_0, x_k ~ T_{β_k}(·|x_{k−1}), k = 1…K.
	var dist [S]float64
	for s := range S {
		dist[s] = math.Exp(bruteLogF(baseM, m, state(s), 0) - path.LogZ0())
	}
	for k := 1; k <= K; k++ {
		T := trans(betas[k])
		var nd [S]float64
		for s := range S {
			for s2 := range S {
				nd[s2] += dist[s] * T[s][s2]
			}
		}
		dist = nd
	}
	c := path.NewRBMChain()
	rng := rand.New(rand.NewPCG(31, 32))
	for _, s := range []int{0, 5, 7} {
		v := state(s)
		const M = 200000
		logw := make([]float64, M)
		for r := range logw {
			c.SetVisible(v)
			lw := c.LogUnnorm(1) - path.LogZ0()
			c.Transition(1, rng)
			for k := K; k >= 1; k-- {
				lw += c.Step(betas[k], betas[k-1], rng)
			}
			logw[r] = lw
		}
		st := nmath.Summarise(logw)
		mean, se := math.Exp(st.LogMean), math.Exp(st.LogStdErr)
		t.Logf("v=%v: mean RAISE weight %.5f ± %.5f, p_ann(v) = %.5f", v, mean, se, dist[s])
		if se > 0.02*dist[s] || math.Abs(mean-dist[s]) > 4*se {
			t.Errorf("v=%v: mean RAISE weight %.5f ± %.5f, want p_ann(v) = %.5f", v, mean, se, dist[s])
		}
	}
}

// TestRBMPathFromStates: a chain on NewRBMPathFromStates(a, b), started by
// SetVisible, takes exactly the steps and weights of a chain on
// NewRBMPath(a, b, …) started at the same state with the same generator
// (weighted and weightless A); its LogZ0 is 0, SampleBase panics, and a
// visible-size mismatch is an error.
func TestRBMPathFromStates(t *testing.T) {
	for _, pc := range pathCases(t)[1:] {
		fs, err := NewRBMPathFromStates(pc.a, pc.b)
		if err != nil {
			t.Fatal(err)
		}
		if fs.LogZ0() != 0 {
			t.Errorf("%s: LogZ0 %v, want 0 (Z_A unknown)", pc.name, fs.LogZ0())
		}
		c1, c2 := pc.path.NewRBMChain(), fs.NewRBMChain()
		v := []uint8{1, 0, 1, 1}
		c1.SetVisible(v)
		c2.SetVisible(v)
		r1, r2 := rand.New(rand.NewPCG(9, 1)), rand.New(rand.NewPCG(9, 1))
		for k := 1; k <= 60; k++ {
			b0, b1 := float64(k-1)/60, float64(k)/60
			w1, w2 := c1.Step(b0, b1, r1), c2.Step(b0, b1, r2)
			if w1 != w2 || string(c1.Visible()) != string(c2.Visible()) {
				t.Fatalf("%s step %d: weight %v vs %v, v %v vs %v", pc.name, k, w1, w2, c1.Visible(), c2.Visible())
			}
		}
		func() {
			defer func() {
				if r := recover(); r == nil {
					t.Errorf("%s: SampleBase on a from-states path did not panic", pc.name)
				}
			}()
			c2.SampleBase(r2)
		}()
	}
	if _, err := NewRBMPathFromStates(randRBM(5, 3, 1, 1, 1), randRBM(4, 3, 1, 1, 2)); err == nil {
		t.Error("visible size mismatch accepted")
	}
}
