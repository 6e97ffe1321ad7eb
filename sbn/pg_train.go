package sbn

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"runtime"
	"sync/atomic"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/logz-ml/logz/data"
	"github.com/logz-ml/logz/internal/kernel"
	"github.com/logz-ml/logz/internal/nmath"
	"github.com/logz-ml/logz/internal/seeds"
	"github.com/logz-ml/logz/internal/workgroup"
	"github.com/logz-ml/logz/models"
)

// The batch Gibbs sampler of Gan, Henao, Carlson & Carin (2015), "Learning
// deep sigmoid belief networks with data augmentation" (AISTATS), the
// baseline "SBN (Gibbs)" of Du, Zhu & Zhang's Tables 2 and 3: method
// "pg-gibbs". One sweep (one "epoch") over the whole training set:
//
//  1. every example's latent units h_{l,k}, one at a time from their exact
//     conditional given x, the other units and θ (the single-site sampler
//     of sampler.go, gibbsChains, one sweep per example);
//  2. for every layer l and every unit j of the layer below (visible units
//     included), with h̃_n = [h_{l,n}; 1] and ψ_nj = w_j·h_{l,n} + b_j,
//     the Pólya-Gamma variables ω_nj ~ PG(1, ψ_nj) (pg.go), then the row
//     (w_j, b_j) ~ N(μ_j, Σ_j) with
//     Σ_j⁻¹ = Σ_n ω_nj h̃_n h̃_nᵀ + diag(τ_j),  μ_j = Σ_j Σ_n (v_nj − ½) h̃_n
//     (v the unit's values: x or h_{l−1}; PSW 2013, eq. 4–5);
//  3. the top layer's prior biases b_{L,k} alike, with h̃ = [1];
//  4. the prior precisions: a Student-t prior (σ, ν) is the scale mixture
//     θ | τ ~ N(0, 1/τ), τ ~ Gamma(ν/2, rate νσ²/2), so
//     τ | θ ~ Gamma((ν+1)/2, rate (νσ² + θ²)/2) for every parameter; a
//     Gaussian prior keeps τ = 1/σ².
//
// Binary h makes Σ_n ω_nj h̃_n h̃_nᵀ, for every j at once, a sum of selected
// rows: entry (a, b) of every unit's matrix is the sum of the rows ω_n·
// of the examples n whose units a and b are both on, so the pair sums are
// taken pair by pair over blocks of examples (kernel.AddRows: fixed order,
// the same bits whatever the number of workers), with work proportional to
// the pairs that are on rather than to n_l² (GEMM).
//
// Random streams: h of example n at sweep e keyed (seed, keyPGLatent, e,
// n); ω of unit j of layer l's block c of examples (seed, keyPGOmega, e,
// l, j, c); the row's normal draw (seed, keyPGRow, e, l, j); the top
// biases' (seed, keyPGTop, e, k); τ of parameter slice s (seed, keyPGTau,
// e, s). None depends on a worker.
const (
	keyPGLatent = 101
	keyPGOmega  = 102
	keyPGRow    = 103
	keyPGTop    = 104
	keyPGTau    = 105
)

// pgBlock is the number of examples whose ω and states are held at once
// (their ω rows, n_{l−1} × 8 bytes each, stay in cache while the pair sums
// select among them).
const pgBlock = 1024

// pgCols is the number of columns of a block's ω (units of the layer
// below) whose pair sums are taken in one pass: 1024 × 128 × 8 bytes, in
// a core's L2 cache.
const pgCols = 128

// PGTrainer draws the parameters of a plain SBN by the batch Gibbs sampler
// with Pólya-Gamma augmentation (see above). The net it holds is the
// current sample of θ; Current is a copy of it (Du, Zhu & Zhang evaluate
// one sample, the last).
type PGTrainer struct {
	net     *Net
	opt     TrainOptions
	n, ep   int
	onBatch func(int)
	prior   Prior

	latent, words int
	off           []int    // off[l]: the first flat latent index of layer l (l ≥ 1)
	h             []uint64 // N × words: the latent states, bit k of the flat latent index
	tau           *Net     // the prior precision of every parameter, in the net's layout
	tables        *gibbsTables

	workers int
	wg      workgroup.Group
	ws      []*pgWorker

	// one block of examples of one layer
	psi, omega, vm []float64 // pgBlock × rows
	masks          []uint64  // (n_l + 1) × pgBlock/64
	pairs, lin     []float64 // pair sums (D(D+1)/2 × rows) and Σ(v − ½)h̃ (D × rows)
	lps            []float64 // the signal's sums by block of 64 examples
}

// pgWorker is one worker's scratch.
type pgWorker struct {
	lc    chainSet
	src   []rand.PCG
	rng   []*rand.Rand
	h     [][]float64
	sc    *Scratch
	idx   []int32
	on    []int32
	one   rand.PCG
	r     *rand.Rand
	sym   *mat.SymDense
	chol  mat.Cholesky
	u     mat.TriDense
	rhs   *mat.VecDense
	mu    *mat.VecDense
	z     []float64
	logpj float64
}

// NewPGTrainer prepares the batch Gibbs sampler for n (a plain SBN) on a
// training set of N examples. Of the options it uses Prior, PriorSigma,
// PriorNu, Seed, Workers, Epochs and Precision (the latent sweep's
// arithmetic, sampler.go; everything else float64).
func NewPGTrainer(n *Net, N int, opt TrainOptions) (*PGTrainer, error) {
	if err := n.Validate(); err != nil {
		return nil, err
	}
	if n.AR() {
		return nil, fmt.Errorf("sbn trainer: method pg-gibbs samples plain SBNs only (an arsbn's rows would need their own layer's earlier units as inputs)")
	}
	if N < 1 {
		return nil, fmt.Errorf("sbn trainer: the training set has %d examples", N)
	}
	if opt.Workers < 0 {
		return nil, fmt.Errorf("sbn trainer: workers %d must not be negative", opt.Workers)
	}
	if opt.Average > 1 {
		return nil, fmt.Errorf("sbn trainer: method pg-gibbs evaluates its last sample: average %d is not supported", opt.Average)
	}
	prec, err := kernel.Parse(string(opt.Precision), kernel.Float64)
	if err != nil {
		return nil, fmt.Errorf("sbn trainer: %w", err)
	}
	opt.Precision = prec
	t := &PGTrainer{net: n, opt: opt, n: N, prior: Prior{opt.Prior, opt.PriorSigma, opt.PriorNu}}
	if err := t.prior.Check(); err != nil {
		return nil, fmt.Errorf("sbn trainer: %w", err)
	}
	if t.prior.Kind == "none" {
		return nil, fmt.Errorf("sbn trainer: method pg-gibbs needs a proper prior (student-t or gaussian): a flat one leaves the row of a unit never on without a posterior")
	}
	L := n.Layers()
	t.off = make([]int, L+2)
	for l := 1; l <= L; l++ {
		t.off[l+1] = t.off[l] + n.Sizes[l]
	}
	t.latent = t.off[L+1]
	t.words = (t.latent + 63) / 64
	t.h = make([]uint64, N*t.words)
	t.tau = New(n.Sizes, false)
	xs, _ := paramSlices(t.tau)
	for _, x := range xs {
		for i := range x {
			x[i] = 1 / (t.prior.Sigma * t.prior.Sigma)
		}
	}
	t.tables = n.newGibbsTables(prec == kernel.Float32)
	t.workers = opt.Workers
	if t.workers == 0 {
		t.workers = runtime.GOMAXPROCS(0)
	}
	rows, pairs, D := 0, 0, 0
	for l := 1; l <= L; l++ {
		d := n.Sizes[l] + 1
		rows = max(rows, n.Sizes[l-1])
		D = max(D, d)
		pairs = max(pairs, d*(d+1)/2*n.Sizes[l-1])
	}
	t.psi, t.omega, t.vm = make([]float64, pgBlock*rows), make([]float64, pgBlock*rows), make([]float64, pgBlock*rows)
	t.masks = make([]uint64, D*pgBlock/64)
	t.pairs, t.lin = make([]float64, pairs), make([]float64, D*rows)
	for range t.workers {
		w := &pgWorker{src: make([]rand.PCG, gibbsLanes), rng: make([]*rand.Rand, gibbsLanes), h: n.States(), sc: n.NewScratch(),
			idx: make([]int32, pgBlock), on: make([]int32, 0, D),
			sym: mat.NewSymDense(D, nil), rhs: mat.NewVecDense(D, nil), mu: mat.NewVecDense(D, nil), z: make([]float64, D)}
		if prec == kernel.Float32 {
			w.lc = newGibbsChains[float32](n, gibbsLanes)
		} else {
			w.lc = newGibbsChains[float64](n, gibbsLanes)
		}
		for k := range w.rng {
			w.rng[k] = rand.New(&w.src[k])
		}
		w.r = rand.New(&w.one)
		t.ws = append(t.ws, w)
	}
	return t, nil
}

// run calls f(w, i) for i = 0 … tasks−1 on the workers (w: the worker's
// scratch, which results must not depend on).
func (t *PGTrainer) run(tasks int, f func(w *pgWorker, i int)) { runTasks(&t.wg, t.ws, tasks, f) }

// runTasks calls f(w, i) for i = 0 … tasks−1 on up to len(ws) goroutines,
// each with its own scratch w, taking the next task until none is left
// (the batch trainers' worker pool: results must not depend on w).
func runTasks[W any](g *workgroup.Group, ws []W, tasks int, f func(w W, i int)) {
	var next atomic.Int64
	work := func(w W) {
		for {
			i := int(next.Add(1)) - 1
			if i >= tasks {
				return
			}
			f(w, i)
		}
	}
	k := min(len(ws), tasks)
	if k <= 1 {
		work(ws[0])
		return
	}
	for _, w := range ws[:k] {
		g.Go(func() { work(w) })
	}
	g.Wait()
}

// Completed is the number of completed sweeps.
func (t *PGTrainer) Completed() int { return t.ep }

// Total is Epochs of the options.
func (t *PGTrainer) Total() int { return t.opt.Epochs }

// SetOnBatch sets the function called with the number of examples whose
// visible rows' ω are done, block by block.
func (t *PGTrainer) SetOnBatch(f func(int)) { t.onBatch = f }

// Net is the live net, the current sample of θ.
func (t *PGTrainer) Net() *Net { return t.net }

// Current returns a copy of the current sample of θ.
func (t *PGTrainer) Current() models.Model { return t.current() }

func (t *PGTrainer) current() *Net {
	c := t.net.clone()
	c.Posterior = "the last posterior sample of θ (a plug-in estimate at one sample)"
	return c
}

// EpochSettings names the method on the epoch line.
func (t *PGTrainer) EpochSettings(models.EpochSummary) string {
	return fmt.Sprintf("pg-gibbs (one batch sweep) prior=%s", t.prior.Kind)
}

// TrainEpoch runs one sweep of the sampler over x. The summary's
// ReconError is the mean over the examples of log p(x, h) at their new
// latent states and the θ they were drawn under (SignalLogJoint).
func (t *PGTrainer) TrainEpoch(x data.Examples) (models.EpochSummary, error) {
	N := x.Len()
	if err := checkBatchData(x, t.n, t.net.Sizes[0]); err != nil {
		return models.EpochSummary{}, err
	}
	e := t.ep + 1
	t.sweepLatent(x, e)
	signal := 0.0
	for l := 1; l <= t.net.Layers(); l++ {
		lp, err := t.sweepRows(x, e, l)
		if err != nil {
			return models.EpochSummary{}, fmt.Errorf("sbn trainer: %w at sweep %d, layer %d: %v", models.ErrDiverged, e, l, err)
		}
		signal += lp
	}
	signal += t.sweepTop(e)
	t.sweepTau(e)
	if err := t.net.Validate(); err != nil {
		return models.EpochSummary{}, fmt.Errorf("sbn trainer: %w at sweep %d: %v", models.ErrDiverged, e, err)
	}
	t.ep = e
	return models.EpochSummary{Epoch: e, K: 1, ReconError: signal / float64(N), Signal: SignalLogJoint}, nil
}

// checkBatchData refuses data of other than N examples of visible units
// for a batch trainer made for N.
func checkBatchData(x data.Examples, N, visible int) error {
	if x.Len() != N {
		return fmt.Errorf("sbn trainer: the data has %d examples, the trainer was made for N = %d", x.Len(), N)
	}
	if d := len(x.Row(0)); d != visible {
		return fmt.Errorf("sbn trainer: the data has %d units per example, the net %d visible units", d, visible)
	}
	return nil
}

// sweepLatent updates every example's latent units once (at the first
// sweep from a prior draw).
func (t *PGTrainer) sweepLatent(x data.Examples, e int) {
	n := t.net
	t.tables.refresh(n)
	tasks := (t.n + gibbsLanes - 1) / gibbsLanes
	t.run(tasks, func(w *pgWorker, task int) {
		lo, hi := task*gibbsLanes, min((task+1)*gibbsLanes, t.n)
		for k := range hi - lo {
			ex := lo + k
			w.src[k].Seed(seeds.Derive(t.opt.Seed, keyPGLatent, uint64(e), uint64(ex)), 0)
			for i, v := range x.Row(ex) {
				w.h[0][i] = float64(v)
			}
			if t.ep == 0 {
				n.samplePrior(w.h, w.rng[k], w.sc)
			} else {
				t.unpack(ex, w.h)
			}
			w.lc.load(k, w.h)
		}
		w.lc.refresh(hi-lo, t.tables)
		w.lc.sweep(t.tables, w.rng[:hi-lo])
		for k := range hi - lo {
			w.lc.latent(k, w.h)
			t.pack(lo+k, w.h)
		}
	})
}

// bit reports latent unit k (flat index) of example ex.
func (t *PGTrainer) bit(ex, k int) bool { return t.h[ex*t.words+k/64]>>(k%64)&1 != 0 }

func (t *PGTrainer) unpack(ex int, h [][]float64) {
	for l := 1; l < len(h); l++ {
		for i := range h[l] {
			h[l][i] = 0
			if t.bit(ex, t.off[l]+i) {
				h[l][i] = 1
			}
		}
	}
}

func (t *PGTrainer) pack(ex int, h [][]float64) {
	st := t.h[ex*t.words : (ex+1)*t.words]
	clear(st)
	for l := 1; l < len(h); l++ {
		for i, v := range h[l] {
			if v != 0 {
				k := t.off[l] + i
				st[k/64] |= 1 << (k % 64)
			}
		}
	}
}

// sweepRows draws ω and then every row (w_j, b_j) of layer l's units
// below (W_l's rows and b_{l−1}). It returns Σ_n log p(h_{l−1,n} | h_{l,n})
// at the rows before their update (h_0 = x), from the activations ψ.
func (t *PGTrainer) sweepRows(x data.Examples, e, l int) (float64, error) {
	n := t.net
	rows, k := n.Sizes[l-1], n.Sizes[l]
	D := k + 1
	np := D * (D + 1) / 2
	pairs, lin := t.pairs[:np*rows], t.lin[:D*rows]
	clear(pairs)
	clear(lin)
	wt := t.tables.wt[l] // W_lᵀ: row a holds unit a's outgoing weights
	words := pgBlock / 64
	lps := t.lps[:0]
	for c, lo := 0, 0; lo < t.n; c, lo = c+1, lo+pgBlock {
		K := min(pgBlock, t.n-lo)
		psi, omega, vm := t.psi[:K*rows], t.omega[:K*rows], t.vm[:K*rows]
		// the block's states: masks of layer l's units, ψ and v − ½
		masks := t.masks[:D*words]
		clear(masks)
		for i := range K {
			for a := range k {
				if t.bit(lo+i, t.off[l]+a) {
					masks[a*words+i/64] |= 1 << (i % 64)
				}
			}
			masks[k*words+i/64] |= 1 << (i % 64)
		}
		at := len(lps)
		lps = append(lps, make([]float64, (K+63)/64)...)
		t.run((K+63)/64, func(w *pgWorker, g int) {
			lp := 0.0
			for i := g * 64; i < min(K, (g+1)*64); i++ {
				w.on = w.on[:0]
				for a := range k {
					if masks[a*words+i/64]>>(i%64)&1 != 0 {
						w.on = append(w.on, int32(a))
					}
				}
				p := psi[i*rows : (i+1)*rows]
				copy(p, n.B[l-1])
				kernel.AddRows(p, wt, w.on)
				v := vm[i*rows : (i+1)*rows]
				if l == 1 {
					for j, u := range x.Row(lo + i) {
						v[j] = float64(u) - 0.5
					}
				} else {
					for j := range v {
						v[j] = -0.5
						if t.bit(lo+i, t.off[l-1]+j) {
							v[j] = 0.5
						}
					}
				}
				for j, a := range p { // log σ(±a) = (v − ½)·a − softplus(a) + a/2 … with v ∈ {0, 1}: v·a − softplus(a)
					lp += (v[j]+0.5)*a - nmath.Softplus(a)
				}
			}
			lps[at+g] = lp
		})
		// ω_nj ~ PG(1, ψ_nj), a stream per (unit, block)
		t.run(rows, func(w *pgWorker, j int) {
			w.one.Seed(seeds.Derive(t.opt.Seed, keyPGOmega, uint64(e), uint64(l), uint64(j), uint64(c)), 0)
			for i := range K {
				omega[i*rows+j] = drawPG(w.r, psi[i*rows+j])
			}
		})
		// pair sums and Σ(v − ½)h̃: pgCols columns of ω at a time (in
		// cache while every pair selects among their rows), row a of the
		// pairs (a, b ≥ a) per task
		for j0 := 0; j0 < rows; j0 += pgCols {
			j1 := min(j0+pgCols, rows)
			t.run(D, func(w *pgWorker, a int) {
				ma := masks[a*words : (a+1)*words]
				w.idx = selected(w.idx[:0], ma, ma)
				kernel.AddRowsStride(lin[a*rows+j0:a*rows+j1], vm[j0:], rows, w.idx)
				base := a*D - a*(a-1)/2
				for b := a; b < D; b++ {
					w.idx = selected(w.idx[:0], ma, masks[b*words:(b+1)*words])
					p := base + b - a
					kernel.AddRowsStride(pairs[p*rows+j0:p*rows+j1], omega[j0:], rows, w.idx)
				}
			})
		}
		if l == 1 && t.onBatch != nil {
			t.onBatch(K)
		}
	}
	// the rows' Gaussian draws
	var bad atomic.Int64
	bad.Store(-1)
	t.run(rows, func(w *pgWorker, j int) {
		s := w.sym
		if s.SymmetricDim() != D {
			s = mat.NewSymDense(D, nil)
			w.sym, w.rhs, w.mu = s, mat.NewVecDense(D, nil), mat.NewVecDense(D, nil)
		}
		raw := s.RawSymmetric()
		for a := range D {
			base := a*D - a*(a-1)/2
			for b := a; b < D; b++ {
				raw.Data[a*raw.Stride+b] = pairs[(base+b-a)*rows+j]
			}
			w.rhs.SetVec(a, lin[a*rows+j])
		}
		for a := range k {
			raw.Data[a*raw.Stride+a] += t.tau.W[l][j*k+a]
		}
		raw.Data[k*raw.Stride+k] += t.tau.B[l-1][j]
		if !w.chol.Factorize(s) {
			bad.CompareAndSwap(-1, int64(j))
			return
		}
		if err := w.chol.SolveVecTo(w.mu, w.rhs); err != nil {
			bad.CompareAndSwap(-1, int64(j))
			return
		}
		if r, _ := w.u.Dims(); r != D && !w.u.IsEmpty() {
			w.u.Reset()
		}
		w.chol.UTo(&w.u)
		w.one.Seed(seeds.Derive(t.opt.Seed, keyPGRow, uint64(e), uint64(l), uint64(j)), 0)
		z := w.z[:D]
		for a := range z {
			z[a] = w.r.NormFloat64()
		}
		// Σ = (UᵀU)⁻¹: U⁻¹z has covariance Σ
		blas64.Trsv(blas.NoTrans, w.u.RawTriangular(), blas64.Vector{N: D, Inc: 1, Data: z})
		for a := range k {
			n.W[l][j*k+a] = w.mu.AtVec(a) + z[a]
		}
		n.B[l-1][j] = w.mu.AtVec(k) + z[k]
	})
	t.lps = lps
	total := 0.0
	for _, lp := range lps { // a fixed order
		total += lp
	}
	if j := bad.Load(); j >= 0 {
		return total, fmt.Errorf("the posterior precision of row %d is not positive definite", j)
	}
	return total, nil
}

// selected writes the positions of the bits set in both a and b into dst.
func selected(dst []int32, a, b []uint64) []int32 {
	for w := range a {
		m := a[w] & b[w]
		for m != 0 {
			dst = append(dst, int32(w*64+bits.TrailingZeros64(m)))
			m &= m - 1
		}
	}
	return dst
}

// sweepTop draws the top layer's prior biases b_{L,k}: ω_n ~ PG(1, b_{L,k})
// for every example, then b ~ N(Σ_n(h_nk − ½)/λ, 1/λ), λ = Σ_n ω_n + τ.
// It returns Σ_n log p(h_{L,n}) at the biases before their update.
func (t *PGTrainer) sweepTop(e int) float64 {
	L := t.net.Layers()
	b := t.net.B[L]
	lp := make([]float64, len(b))
	t.run(len(b), func(w *pgWorker, k int) {
		w.one.Seed(seeds.Derive(t.opt.Seed, keyPGTop, uint64(e), uint64(k)), 0)
		sw, sv := 0.0, 0.0
		for ex := range t.n {
			sw += drawPG(w.r, b[k])
			sv -= 0.5
			if t.bit(ex, t.off[L]+k) {
				sv++
			}
		}
		lp[k] = (sv+0.5*float64(t.n))*b[k] - float64(t.n)*nmath.Softplus(b[k])
		lambda := sw + t.tau.B[L][k]
		b[k] = sv/lambda + w.r.NormFloat64()/math.Sqrt(lambda)
	})
	total := 0.0
	for _, v := range lp {
		total += v
	}
	return total
}

// sweepTau draws every parameter's prior precision τ | θ (Student-t);
// a Gaussian prior keeps τ = 1/σ².
func (t *PGTrainer) sweepTau(e int) {
	if t.prior.Kind != "student-t" {
		return
	}
	nu, s2 := t.prior.Nu, t.prior.Sigma*t.prior.Sigma
	theta, _ := paramSlices(t.net)
	tau, _ := paramSlices(t.tau)
	t.run(len(theta), func(w *pgWorker, s int) {
		w.one.Seed(seeds.Derive(t.opt.Seed, keyPGTau, uint64(e), uint64(s)), 0)
		for i, x := range theta[s] {
			tau[s][i] = drawGamma(w.r, (nu+1)/2) / ((nu*s2 + x*x) / 2)
		}
	})
}

// drawGamma returns a draw of Gamma(shape, rate 1) (Marsaglia & Tsang
// 2000; shape < 1 by Gamma(shape+1)·U^{1/shape}).
func drawGamma(rng *rand.Rand, shape float64) float64 {
	if shape < 1 {
		return drawGamma(rng, shape+1) * math.Pow(rng.Float64(), 1/shape)
	}
	d := shape - 1.0/3
	c := 1 / math.Sqrt(9*d)
	for {
		x := rng.NormFloat64()
		v := 1 + c*x
		if v <= 0 {
			continue
		}
		v = v * v * v
		u := rng.Float64()
		if u < 1-0.0331*x*x*x*x || math.Log(u) < 0.5*x*x+d*(1-v+math.Log(v)) {
			return d * v
		}
	}
}

// pgMeta is the non-array part of the sampler's state.
type pgMeta struct {
	Format    int              `json:"format"`
	Epoch     int              `json:"epoch"`
	Label     string           `json:"net"`
	N         int              `json:"n"`
	Method    string           `json:"method"`
	Prior     string           `json:"prior"`
	Seed      uint64           `json:"seed"`
	Precision kernel.Precision `json:"precision"`
}

func (t *PGTrainer) meta() pgMeta {
	return pgMeta{Format: 1, Epoch: t.ep, Label: t.net.Label(), N: t.n, Method: "pg-gibbs", Prior: t.prior.Kind, Seed: t.opt.Seed, Precision: t.opt.Precision}
}

// Checkpoint returns the current sample of θ with the sampler's state:
// arrays theta (paramSlices' flat order) and tau (the prior precisions,
// same order); bytes trainer (JSON meta) and pg_h, every example's latent
// states packed 64 to a little-endian word (N × ⌈Σ n_l/64⌉ × 8 bytes:
// 1.9 MB for MNIST's 60,000 examples and 200 units). The random streams
// are keyed by the sweep, so the sweep count is the generators' state.
func (t *PGTrainer) Checkpoint(experiment string) (*models.Checkpoint, error) {
	xs, tri := paramSlices(t.net)
	theta := make([]float64, flatSize(xs, tri))
	gather(xs, tri, theta)
	ts, _ := paramSlices(t.tau)
	tau := make([]float64, len(theta))
	gather(ts, tri, tau)
	js, err := json.Marshal(t.meta())
	if err != nil {
		return nil, err
	}
	hb := make([]byte, 8*len(t.h))
	for i, w := range t.h {
		binary.LittleEndian.PutUint64(hb[8*i:], w)
	}
	return &models.Checkpoint{Model: t.current(), Meta: models.Meta{Experiment: experiment, Epoch: t.ep},
		State: map[string]models.Array{
			"theta": {Name: "theta", Shape: []int{len(theta)}, Data: theta},
			"tau":   {Name: "tau", Shape: []int{len(tau)}, Data: tau},
		},
		Bytes: map[string][]byte{"trainer": js, "pg_h": hb}}, nil
}

// checkPGMeta refuses a state m of another method, net, N, seed, prior or
// precision than want.
func checkPGMeta(m, want pgMeta) error {
	if err := kernel.Check("sbn trainer state", m.Precision, want.Precision); err != nil {
		return err
	}
	if m.Method != want.Method || m.Label != want.Label || m.N != want.N || m.Seed != want.Seed || m.Prior != want.Prior {
		return fmt.Errorf("sbn trainer state is for %s of %s, N = %d, seed %d, prior %s; this trainer is %s of %s, N = %d, seed %d, prior %s",
			m.Method, m.Label, m.N, m.Seed, m.Prior, want.Method, want.Label, want.N, want.Seed, want.Prior)
	}
	return nil
}

// Resume restores a state written by Checkpoint for the same net shape,
// N, seed, prior and precision.
func (t *PGTrainer) Resume(c *models.Checkpoint) error {
	var m pgMeta
	if err := json.Unmarshal(c.Bytes["trainer"], &m); err != nil {
		return fmt.Errorf("sbn trainer state: %w", err)
	}
	if err := checkPGMeta(m, t.meta()); err != nil {
		return err
	}
	xs, tri := paramSlices(t.net)
	ts, _ := paramSlices(t.tau)
	P := flatSize(xs, tri)
	th, ta := c.State["theta"], c.State["tau"]
	hb := c.Bytes["pg_h"]
	if len(th.Data) != P || len(ta.Data) != P || len(hb) != 8*len(t.h) {
		return fmt.Errorf("sbn trainer state: theta, tau (%d values each) or pg_h (%d bytes) missing or of another size", P, 8*len(t.h))
	}
	scatter(th.Data, xs, tri)
	scatter(ta.Data, ts, tri)
	for i := range t.h {
		t.h[i] = binary.LittleEndian.Uint64(hb[8*i:])
	}
	t.ep = m.Epoch
	return nil
}
