package eval

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"sync/atomic"

	"github.com/logz-ml/logz/data"
	"github.com/logz-ml/logz/inference"
	"github.com/logz-ml/logz/internal/kernel"
	"github.com/logz-ml/logz/internal/nmath"
	"github.com/logz-ml/logz/internal/workgroup"
	"github.com/logz-ml/logz/models"
)

// CSL is the conservative sampling-based log-likelihood estimator of Bengio,
// Yao & Cho (2013, "Bounding the test log-likelihood of generative models")
// for RBMs. It runs Chains independent block-Gibbs chains of the model
// (v → h ~ p(h|v) → v ~ p(v|h)), discards the first BurnIn steps of each,
// collects the next Steps hidden states h_s of every chain (S = Chains·Steps
// states in all) and estimates, for every test example x,
//
//	log p̂(x) = log (1/S) Σ_s p(x | h_s),
//
//	log p(x|h) = Σ_i [x_i log σ(y_i) + (1−x_i) log σ(−y_i)] = xᵀy − Σ_i softplus(y_i),
//
// with y = a + W h, all in log space (a running logsumexp over s). If the
// h_s were exact draws from p(h), p̂(x) would be an unbiased estimate of
// p(x) = Σ_h p(h) p(x|h); from a Gibbs chain it is asymptotically unbiased
// as the chain mixes. By Jensen's inequality E[log p̂] ≤ log E[p̂], so the
// estimate is conservative on average: tens of nats below log p(x) is usual
// for a real model (RAISE paper, Table 1), because p(x|h) is dominated by the
// rare h that explain x well. In the RAISE paper (footnote 4) the number of
// chains and steps matched the total Gibbs steps of AIS/RAISE.
//
// Cost: about Chains·(BurnIn+Steps) Gibbs steps plus S·N·min(ones, zeros)
// additions for N examples. Per state the visible pre-activation y (already
// needed for the next Gibbs step), Σ_i y_i and Σ_i softplus(y_i) are kept, so
// log p(x|h_s) = Σ_{i: x_i=1} y_i − Σ_i softplus(y_i): a sum of the selected
// entries (or Σ_i y_i minus the entries at the zeros of x, if fewer). States
// are evaluated eight at a time (y stored unit-major, eight states per row),
// so each selected index feeds eight independent sums. The chain updates its
// pre-activations from the units that flipped (rows of W or Wᵀ), recomputing
// them from scratch every 50 updates or whenever that is cheaper.
//
// Chain c draws all its random numbers from rand.New(rand.NewPCG(Seed, c)).
// The chains are split into a fixed number of groups (independent of Workers),
// each group keeps its own per-example accumulators and the groups are
// combined in order, so results are bit-identical whatever Workers or
// GOMAXPROCS. Parallelism is over groups: at most min(Chains, 64) goroutines.
type CSL struct {
	// Chains is the number of independent chains; 0 means 100.
	Chains int
	// Steps is the number of hidden states collected per chain; 0 means 1000.
	Steps int
	// BurnIn is the number of Gibbs steps run and discarded before collecting;
	// 0 means none.
	BurnIn int
	// Init is how each chain's first visible state is drawn: "base-rate"
	// (v_i ~ Bernoulli(σ(BaseVBias_i)), the data base rate), "uniform"
	// (v_i ~ Bernoulli(1/2)), or "" (base-rate if BaseVBias is set, else
	// uniform). BaseVBias is ignored by "uniform".
	Init string
	// BaseVBias are the log-odds of the starting distribution for "base-rate"
	// (the smoothed log-odds of the data's pixel means, as for AIS).
	BaseVBias []float64
	Seed      uint64
	// Workers is the number of goroutines; 0 means GOMAXPROCS. Results do not
	// depend on it.
	Workers int
	// Progress, if set, is called from the worker goroutines with the number
	// of Gibbs steps done so far and the total, once per chain. It must be
	// cheap and safe for concurrent use.
	Progress func(done, total int64)
	// Units, if set, shares the chain groups (see Estimate) among the
	// shards of a sharded evaluation (see Units).
	Units Units

	// onState (testing) is called with every collected hidden state.
	onState func(chain int, h []uint8)
}

// CSLResult holds the per-example CSL estimates and their summary.
type CSLResult struct {
	// LogP[n] = log((1/S) Σ_s p(x_n|h_s)), the estimate of log p(x_n).
	LogP []float64
	// Mean is the mean of LogP over the examples with its standard error:
	// the spread over examples combined with the Monte Carlo error of the
	// chains, which every example shares (ChainSE). CSL's own bias is not
	// in it.
	Mean MeanStat
	// ChainSE is the Monte Carlo standard error of Mean.Mean from the
	// chains alone (a jackknife over the chain groups, cslJackknifeVar); an
	// estimate that extends LogP to more examples carries it too. 0 with
	// one chain, where it cannot be estimated.
	ChainSE float64
	// ESS[n] = (Σ_s p(x_n|h_s))² / Σ_s p(x_n|h_s)², the number of hidden
	// states that effectively carry the estimate for example n, in [1, S].
	ESS []float64
	// MedianESS is the median of ESS over the examples.
	MedianESS float64
	// Samples is S = Chains·Steps, the number of hidden states used.
	Samples               int
	Chains, Steps, BurnIn int
	// Warnings say when the numbers should not be trusted.
	Warnings []string
}

// MaxCSLStates bounds chains × steps, the hidden states whose p(v|h) CSL
// averages for every example.
const MaxCSLStates = math.MaxInt32

const (
	// cslProgressEvery is the number of Gibbs steps of a chain between two
	// reports of its progress (so that a long burn-in moves the bar).
	cslProgressEvery = 4096
	cslDefaultChains = 100
	cslDefaultSteps  = 1000
	// cslMaxGroups fixes the number of chain groups (each with its own
	// accumulators), and so the largest useful number of goroutines.
	cslMaxGroups = 64
	// cslBlock is the number of states evaluated together.
	cslBlock = 8
	// cslRecompute is the number of incremental updates of a pre-activation
	// vector between recomputations from scratch (to stop rounding drift).
	cslRecompute = 50
	// cslMinESS: below this per-example ESS a warning is given.
	cslMinESS = 10
)

// Estimate runs the chains and returns log p̂(x) for every example of x.
// Errors name the offending field or example.
func (c CSL) Estimate(m *models.RBM, x data.Examples) (CSLResult, error) {
	if err := c.check(m); err != nil {
		return CSLResult{}, err
	}
	data, err := newCSLData(x, m.NVis)
	if err != nil {
		return CSLResult{}, err
	}
	chains, steps := c.Chains, c.Steps
	if chains == 0 {
		chains = cslDefaultChains
	}
	if steps == 0 {
		steps = cslDefaultSteps
	}
	if steps > MaxCSLStates/chains {
		return CSLResult{}, fmt.Errorf("CSL: chains × steps = %d × %d is more than the limit of %d hidden states (eval.MaxCSLStates)", chains, steps, MaxCSLStates)
	}
	initBias, err := c.initBias(m.NVis)
	if err != nil {
		return CSLResult{}, err
	}
	mod := newCSLModel(m)
	N := data.n
	G := min(chains, cslMaxGroups)
	acc := make([]cslAcc, G)
	total := int64(chains) * int64(c.BurnIn+steps)
	var next, done atomic.Int64
	var wg workgroup.Group
	for range max(1, min(c.workers(), G)) {
		wg.Go(func() {
			ch := newCSLChain(mod)
			ev := newCSLEval(mod.D)
			for {
				g := int(next.Add(1) - 1)
				if g >= G {
					return
				}
				if !Mine(c.Units, g) {
					continue
				}
				a := &acc[g]
				a.init(N)
				lo, hi := g*chains/G, (g+1)*chains/G
				// Progress is told after every chain and every
				// cslProgressEvery steps within one.
				pending := 0 // steps not yet reported
				report := func() {
					if c.Progress != nil && pending > 0 {
						c.Progress(done.Add(int64(pending)), total)
					}
					pending = 0
				}
				tick := func() {
					if pending++; pending == cslProgressEvery {
						report()
					}
				}
				for k := lo; k < hi; k++ {
					rng := rand.New(rand.NewPCG(c.Seed, uint64(k)))
					ch.start(initBias, rng)
					for range c.BurnIn {
						ch.hiddenStep(rng)
						ch.syncY()
						ch.visibleStep(rng)
						tick()
					}
					for range steps {
						ch.hiddenStep(rng)
						if c.onState != nil {
							c.onState(k, ch.h)
						}
						ch.syncY()
						ch.visibleStep(rng)
						if ev.add(ch.y, ch.ey) {
							ev.flush(data, a)
						}
						tick()
					}
					report()
				}
				ev.flush(data, a)
			}
		})
	}
	wg.Wait()
	if err := completeGroups(c.Units, acc, N); err != nil {
		return CSLResult{}, err
	}
	return summariseCSL(acc, N, chains, steps, c.BurnIn), nil
}

// completeGroups hands the accumulators of the chain groups (3N numbers
// each) to units (see Units).
func completeGroups(units Units, acc []cslAcc, N int) error {
	if units == nil {
		return nil
	}
	vals := make([]float64, len(acc)*3*N)
	for g := range acc {
		if acc[g].mx == nil {
			continue // not this process's group
		}
		v := vals[g*3*N:]
		copy(v[:N], acc[g].mx)
		copy(v[N:2*N], acc[g].sum)
		copy(v[2*N:3*N], acc[g].sq)
	}
	if err := units.Complete(len(acc), 3*N, vals); err != nil {
		return fmt.Errorf("CSL: %w", err)
	}
	for g := range acc {
		v := vals[g*3*N:]
		acc[g] = cslAcc{mx: v[:N:N], sum: v[N : 2*N : 2*N], sq: v[2*N : 3*N : 3*N]}
	}
	return nil
}

func (c CSL) check(m *models.RBM) error {
	if m == nil {
		return errors.New("CSL: nil model")
	}
	if err := m.Validate(); err != nil {
		return fmt.Errorf("CSL: %w", err)
	}
	if c.Chains < 0 {
		return fmt.Errorf("CSL: Chains = %d; want a positive number of chains (0 means %d)", c.Chains, cslDefaultChains)
	}
	if c.Steps < 0 {
		return fmt.Errorf("CSL: Steps = %d; want a positive number of collected states per chain (0 means %d)", c.Steps, cslDefaultSteps)
	}
	if c.BurnIn < 0 {
		return fmt.Errorf("CSL: BurnIn = %d; want ≥ 0 discarded Gibbs steps", c.BurnIn)
	}
	if c.Workers < 0 {
		return fmt.Errorf("CSL: Workers = %d; want ≥ 0 (0 means GOMAXPROCS)", c.Workers)
	}
	return nil
}

func (c CSL) workers() int { return orMaxProcs(c.Workers) }

// initBias returns the log-odds of the starting distribution (nil: uniform).
func (c CSL) initBias(D int) ([]float64, error) {
	switch c.Init {
	case "uniform":
		return nil, nil
	case "":
		if c.BaseVBias == nil {
			return nil, nil
		}
	case "base-rate":
		if c.BaseVBias == nil {
			return nil, errors.New(`CSL: Init "base-rate" needs BaseVBias (the smoothed log-odds of the data's pixel means)`)
		}
	default:
		return nil, fmt.Errorf(`CSL: Init = %q; want "base-rate" or "uniform"`, c.Init)
	}
	if len(c.BaseVBias) != D {
		return nil, fmt.Errorf("CSL: BaseVBias has length %d, want %d (the model's visible units)", len(c.BaseVBias), D)
	}
	for i, b := range c.BaseVBias {
		if math.IsNaN(b) || math.IsInf(b, 0) {
			return nil, fmt.Errorf("CSL: BaseVBias[%d] is %v; it must be finite (smooth the base rates away from 0 and 1)", i, b)
		}
	}
	return c.BaseVBias, nil
}

// summariseCSL combines the group accumulators in group order.
func summariseCSL(acc []cslAcc, N, chains, steps, burnIn int) CSLResult {
	S := chains * steps
	r := CSLResult{
		LogP: make([]float64, N), ESS: make([]float64, N),
		Samples: S, Chains: chains, Steps: steps, BurnIn: burnIn,
	}
	logS := math.Log(float64(S))
	var s, s2 float64
	for n := range N {
		M := math.Inf(-1)
		for g := range acc {
			M = max(M, acc[g].mx[n])
		}
		var sum, sq float64
		for g := range acc {
			a := &acc[g]
			if a.sum[n] == 0 {
				continue
			}
			e := math.Exp(a.mx[n] - M)
			sum += a.sum[n] * e
			sq += a.sq[n] * e * e
		}
		l := M + math.Log(sum) - logS
		r.LogP[n] = l
		r.ESS[n] = sum * sum / sq
		s += l
		s2 += l * l
	}
	r.Mean = meanStat(s, s2, N)
	// The chains are shared by every example, so the spread over examples
	// leaves out their Monte Carlo error; add it (the two are independent
	// sources of error in the mean).
	if len(acc) >= 2 {
		r.ChainSE = math.Sqrt(cslJackknifeVar(acc, N, chains, steps))
		r.Mean.SE = math.Hypot(r.Mean.SE, r.ChainSE)
	} else if N > 1 {
		r.Warnings = append(r.Warnings, "CSL: with one chain the standard error is the spread over examples only; it leaves out the chain's Monte Carlo error (use 2 or more chains)")
	}
	ess := append([]float64(nil), r.ESS...)
	sort.Float64s(ess)
	r.MedianESS = ess[N/2]
	if N%2 == 0 {
		r.MedianESS = (ess[N/2-1] + ess[N/2]) / 2
	}
	low := 0
	for _, e := range r.ESS {
		if e < cslMinESS {
			low++
		}
	}
	if low > 0 && S >= 2*cslMinESS {
		r.Warnings = append(r.Warnings, fmt.Sprintf(
			"CSL: for %d of %d examples fewer than %d of the %d hidden states carry the estimate (median ESS %.1f): those log p̂ are likely far below log p(x); use more chains or steps",
			low, N, cslMinESS, S, r.MedianESS))
	}
	return r
}

// cslJackknifeVar is the jackknife estimate of the variance, over the
// chains, of the mean over examples of log p̂(x_n). With G chain groups, L_gn
// = log Σ_{s in group g} p(x_n|h_s) and S_g states in group g, the estimate
// without group g is
//
//	θ_g = (1/N) Σ_n [ log Σ_{g'≠g} exp(L_g'n) − log(S − S_g) ],
//
// and the variance is (G−1)/G Σ_g (θ_g − θ̄)². The sums over g' ≠ g are
// prefix and suffix log-sum-exps, so no group's share is ever subtracted
// (one group often carries almost all of Σ_s p(x|h_s)). It needs G ≥ 2.
func cslJackknifeVar(acc []cslAcc, N, chains, steps int) float64 {
	G := len(acc)
	theta := make([]float64, G)
	pre := make([]float64, G+1) // pre[g] = log Σ_{g' < g} exp(L_g'n)
	groupLog := func(g, n int) float64 { return acc[g].mx[n] + math.Log(acc[g].sum[n]) }
	for n := range N {
		pre[0] = math.Inf(-1)
		for g := range G {
			pre[g+1] = nmath.LogAddExp(pre[g], groupLog(g, n))
		}
		suf := math.Inf(-1) // log Σ_{g' > g} exp(L_g'n)
		for g := G - 1; g >= 0; g-- {
			theta[g] += nmath.LogAddExp(pre[g], suf)
			suf = nmath.LogAddExp(suf, groupLog(g, n))
		}
	}
	S := float64(chains * steps)
	var mean float64
	for g := range theta {
		lo, hi := g*chains/G, (g+1)*chains/G
		theta[g] = theta[g]/float64(N) - math.Log(S-float64((hi-lo)*steps))
		mean += theta[g]
	}
	mean /= float64(G)
	var v float64
	for _, t := range theta {
		v += (t - mean) * (t - mean)
	}
	return v * float64(G-1) / float64(G)
}

// ---------------------------------------------------------------------------
// Examples.

// cslData holds, per example, the shorter of its list of ones and its list of
// zeros, as offsets i·cslBlock into the unit-major state block.
type cslData struct {
	n     int
	off   []int   // example n uses idx[off[n]:off[n+1]]
	idx   []int32 // i·cslBlock
	zeros []bool  // the list holds the zeros of x (else its ones)
}

func newCSLData(x data.Examples, D int) (*cslData, error) {
	if x == nil || x.Len() == 0 {
		return nil, errors.New("CSL: no examples")
	}
	N := x.Len()
	d := &cslData{n: N, off: make([]int, N+1), zeros: make([]bool, N)}
	for n := range N {
		row := x.Row(n)
		if len(row) != D {
			return nil, fmt.Errorf("CSL: example %d has %d values, want %d (the model's visible units)", n, len(row), D)
		}
		ones := 0
		for i, b := range row {
			if b > 1 {
				return nil, fmt.Errorf("CSL: example %d, unit %d is %d; want 0 or 1", n, i, b)
			}
			ones += int(b)
		}
		want := uint8(1)
		if ones > D-ones {
			want, d.zeros[n] = 0, true
		}
		for i, b := range row {
			if b == want {
				d.idx = append(d.idx, int32(i*cslBlock))
			}
		}
		d.off[n+1] = len(d.idx)
	}
	return d, nil
}

// ---------------------------------------------------------------------------
// Accumulators.

// cslAcc is a running log Σ_s p(x_n|h_s) per example: Σ = e^{mx}·sum, and
// Σ_s p(x_n|h_s)² = e^{2mx}·sq (for the ESS).
type cslAcc struct {
	mx, sum, sq []float64
}

func (a *cslAcc) init(N int) {
	a.mx, a.sum, a.sq = make([]float64, N), make([]float64, N), make([]float64, N)
	for n := range a.mx {
		a.mx[n] = math.Inf(-1)
	}
}

// cslEval buffers up to cslBlock states and evaluates them against every
// example.
type cslEval struct {
	D   int
	nb  int       // states in the block
	yt  []float64 // D×cslBlock: yt[i*cslBlock+b] = y_i of state b
	tot [cslBlock]float64
	neg [cslBlock]float64 // −Σ_i softplus(y_i)
}

func newCSLEval(D int) *cslEval {
	return &cslEval{D: D, yt: make([]float64, D*cslBlock)}
}

// add stores a state given y and e_i = e^{−|y_i|}; it reports whether the
// block is full.
func (ev *cslEval) add(y, e []float64) bool {
	b := ev.nb
	yt := ev.yt
	y = y[:ev.D]
	e = e[:len(y)]
	var tot, pos, lg float64
	for lo := 0; lo < len(y); lo += 512 {
		hi := min(lo+512, len(y))
		p := 1.0 // Π (1+e_i), each factor in (1,2]: no overflow for 512 factors
		for i := lo; i < hi; i++ {
			v := y[i]
			yt[i*cslBlock+b] = v
			tot += v
			pos += max(v, 0)
			p *= 1 + e[i]
		}
		lg += math.Log(p)
	}
	ev.tot[b] = tot
	ev.neg[b] = -(pos + lg) // softplus(y) = max(y,0) + log(1+e^{−|y|})
	ev.nb++
	return ev.nb == cslBlock
}

// flush evaluates the buffered states against every example, updating a.
func (ev *cslEval) flush(d *cslData, a *cslAcc) {
	nb := ev.nb
	if nb == 0 {
		return
	}
	ev.nb = 0
	yt := ev.yt
	var t [cslBlock]float64
	for n := range d.n {
		s := gather8(yt, d.idx[d.off[n]:d.off[n+1]])
		if d.zeros[n] {
			for b := range cslBlock {
				t[b] = ev.tot[b] - s[b] + ev.neg[b]
			}
		} else {
			for b := range cslBlock {
				t[b] = s[b] + ev.neg[b]
			}
		}
		m := a.mx[n]
		tm := t[0]
		for b := 1; b < nb; b++ {
			tm = max(tm, t[b])
		}
		sum, sq := a.sum[n], a.sq[n]
		if tm > m {
			f := inference.Exp(m - tm) // 0 when m = −Inf
			sum *= f
			sq *= f * f
			m = tm
			a.mx[n] = m
		}
		for b := range nb {
			e := inference.Exp(t[b] - m)
			sum += e
			sq += e * e
		}
		a.sum[n], a.sq[n] = sum, sq
	}
}

// gather8 returns Σ_{o ∈ idx} yt[o+b] for b = 0…7.
func gather8(yt []float64, idx []int32) [cslBlock]float64 {
	var a0, a1, a2, a3, a4, a5, a6, a7 float64
	for _, o := range idx {
		r := (*[cslBlock]float64)(yt[o : o+cslBlock])
		a0 += r[0]
		a1 += r[1]
		a2 += r[2]
		a3 += r[3]
		a4 += r[4]
		a5 += r[5]
		a6 += r[6]
		a7 += r[7]
	}
	return [cslBlock]float64{a0, a1, a2, a3, a4, a5, a6, a7}
}

// ---------------------------------------------------------------------------
// The Gibbs chain.

// cslModel holds the RBM in the layouts the chain needs.
type cslModel struct {
	D, H   int
	w      []float64 // D×H: row i = W[i,:], x = b + Σ_{v_i=1} row i
	wt     []float64 // H×D: row j = W[:,j], y = a + Σ_{h_j=1} row j
	a, b   []float64
	colSum []float64 // Σ_i W[i,:], length H
	rowSum []float64 // Σ_j W[:,j], length D
}

func newCSLModel(m *models.RBM) *cslModel {
	D, H := m.NVis, m.NHid
	c := &cslModel{
		D: D, H: H, w: m.W, wt: make([]float64, H*D), a: m.VBias, b: m.HBias,
		colSum: make([]float64, H), rowSum: make([]float64, D),
	}
	for i := range D {
		for j := range H {
			w := m.W[i*H+j]
			c.wt[j*D+i] = w
			c.colSum[j] += w
			c.rowSum[i] += w
		}
	}
	return c
}

// cslChain is one block-Gibbs chain: v, h and the pre-activations
// x = b + Wᵀv and y = a + W h, kept up to date from the flipped units.
type cslChain struct {
	m          *cslModel
	v, h       []uint8
	vOn, hOn   int
	vUp, vDown []int32 // visible units flipped since x was synced
	hUp, hDown []int32 // hidden units flipped since y was synced
	x, ex      []float64
	y, ey      []float64
	idx        []int32
	xStale     bool
	yStale     bool
	sinceX     int
	sinceY     int
	// incX, incY count incremental updates (testing).
	incX, incY int
}

func newCSLChain(m *cslModel) *cslChain {
	D, H := m.D, m.H
	return &cslChain{
		m: m, v: make([]uint8, D), h: make([]uint8, H),
		vUp: make([]int32, D), vDown: make([]int32, D),
		hUp: make([]int32, H), hDown: make([]int32, H),
		x: make([]float64, H), ex: make([]float64, H),
		y: make([]float64, D), ey: make([]float64, D),
		idx: make([]int32, 0, max(D, H)),
	}
}

// start draws v_i ~ Bernoulli(σ(bias_i)) (bias nil: Bernoulli(1/2)) and
// marks the pre-activations stale.
func (c *cslChain) start(bias []float64, rng *rand.Rand) {
	v := c.v
	on := 0
	for i := range v {
		k := rng.Uint64() >> 32
		var b uint8
		if bias == nil {
			b = uint8(k >> 31)
		} else {
			e := inference.Exp(-math.Abs(bias[i]))
			b = bernoulli32(k, bias[i], e)
		}
		v[i] = b
		on += int(b)
	}
	c.vOn = on
	c.vUp, c.vDown = c.vUp[:0], c.vDown[:0]
	c.hUp, c.hDown = c.hUp[:0], c.hDown[:0]
	clear(c.h)
	c.hOn = 0
	c.xStale, c.yStale = true, true
}

// hiddenStep brings x up to date with v and draws h ~ p(h|v).
func (c *cslChain) hiddenStep(rng *rand.Rand) {
	m := c.m
	nf := len(c.vUp) + len(c.vDown)
	if c.xStale || c.sinceX >= cslRecompute || nf >= min(c.vOn, m.D-c.vOn) {
		c.idx = recomputeRowSum(c.x, m.b, m.colSum, m.w, c.v, c.vOn, c.idx)
		c.xStale, c.sinceX = false, 0
	} else if nf > 0 {
		kernel.AddRows(c.x, m.w, c.vUp)
		kernel.SubRows(c.x, m.w, c.vDown)
		c.sinceX++
		c.incX++
	}
	c.vUp, c.vDown = c.vUp[:0], c.vDown[:0]
	expNegAbsCSL(c.ex, c.x)
	var d int
	c.hUp, c.hDown, d = sampleCSL(c.h, c.x, c.ex, rng, c.hUp, c.hDown)
	c.hOn += d
}

// syncY brings y = a + W h up to date with h and sets ey = e^{−|y|}.
func (c *cslChain) syncY() {
	m := c.m
	nf := len(c.hUp) + len(c.hDown)
	if c.yStale || c.sinceY >= cslRecompute || nf >= min(c.hOn, m.H-c.hOn) {
		c.idx = recomputeRowSum(c.y, m.a, m.rowSum, m.wt, c.h, c.hOn, c.idx)
		c.yStale, c.sinceY = false, 0
	} else if nf > 0 {
		kernel.AddRows(c.y, m.wt, c.hUp)
		kernel.SubRows(c.y, m.wt, c.hDown)
		c.sinceY++
		c.incY++
	}
	c.hUp, c.hDown = c.hUp[:0], c.hDown[:0]
	expNegAbsCSL(c.ey, c.y)
}

// visibleStep draws v ~ p(v|h) from y (synced).
func (c *cslChain) visibleStep(rng *rand.Rand) {
	var d int
	c.vUp, c.vDown, d = sampleCSL(c.v, c.y, c.ey, rng, c.vUp, c.vDown)
	c.vOn += d
}

// recomputeRowSum sets dst = bias + Σ_{s_k=1} row k of w (rows of length
// len(dst)), summing the rows of the ones or, when fewer, subtracting the
// rows of the zeros from bias + all (all = Σ_k row k). It returns idx reused.
func recomputeRowSum(dst, bias, all, w []float64, s []uint8, on int, idx []int32) []int32 {
	fromOnes := on <= len(s)-on
	want := uint8(0)
	if fromOnes {
		want = 1
	}
	idx = idx[:0]
	for k, b := range s {
		if b == want {
			idx = append(idx, int32(k))
		}
	}
	if fromOnes {
		copy(dst, bias)
		kernel.AddRows(dst, w, idx)
	} else {
		bias, all = bias[:len(dst)], all[:len(dst)]
		for j := range dst {
			dst[j] = bias[j] + all[j]
		}
		kernel.SubRows(dst, w, idx)
	}
	return idx
}

// expNegAbsCSL sets e_j = e^{−|x_j|}.
func expNegAbsCSL(e, x []float64) {
	x = x[:len(e)]
	for j, v := range x {
		e[j] = inference.Exp(-math.Abs(v))
	}
}

// cslTwo32 is 2^32: a 32-bit uniform integer k stands for u = k·2^{−32}.
const cslTwo32 = 4294967296.0

// bernoulli32 returns 1 with probability σ(x), given e = e^{−|x|} and a
// uniform 32-bit k: with u = k/2^32, u < 1/(1+e) = σ(|x|) ⇔ k(1+e) < 2^32;
// for x < 0 the complement is taken, since σ(x) = 1 − σ(|x|).
func bernoulli32(k uint64, x, e float64) uint8 {
	var a uint8
	if float64(k)*(1+e) < cslTwo32 {
		a = 1
	}
	return a ^ uint8(math.Float64bits(x)>>63)
}

// sampleCSL draws s_j ~ Bernoulli(σ(pre_j)) given e_j = e^{−|pre_j|}, two
// units per 64-bit draw, and appends the units that turned on to up and off
// to down (both must have capacity ≥ len(s)). It returns them and the change
// in the number of ones.
func sampleCSL(s []uint8, pre, e []float64, rng *rand.Rand, up, down []int32) ([]int32, []int32, int) {
	n := len(s)
	pre, e = pre[:n], e[:n]
	up, down = up[:0], down[:0]
	d := 0
	j := 0
	for ; j+2 <= n; j += 2 {
		r := rng.Uint64()
		b0 := bernoulli32(r&0xffffffff, pre[j], e[j])
		b1 := bernoulli32(r>>32, pre[j+1], e[j+1])
		if b0 != s[j] {
			s[j] = b0
			if b0 == 1 {
				up = append(up, int32(j))
				d++
			} else {
				down = append(down, int32(j))
				d--
			}
		}
		if b1 != s[j+1] {
			s[j+1] = b1
			if b1 == 1 {
				up = append(up, int32(j+1))
				d++
			} else {
				down = append(down, int32(j+1))
				d--
			}
		}
	}
	if j < n {
		b0 := bernoulli32(rng.Uint64()&0xffffffff, pre[j], e[j])
		if b0 != s[j] {
			s[j] = b0
			if b0 == 1 {
				up = append(up, int32(j))
				d++
			} else {
				down = append(down, int32(j))
				d--
			}
		}
	}
	return up, down, d
}
