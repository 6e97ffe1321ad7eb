package sbn

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/mathext"

	"github.com/logz-ml/logz/data"
	"github.com/logz-ml/logz/internal/kernel"
	"github.com/logz-ml/logz/internal/nmath"
	"github.com/logz-ml/logz/internal/seeds"
	"github.com/logz-ml/logz/internal/workgroup"
	"github.com/logz-ml/logz/models"
)

// Mean-field variational Bayes with Pólya-Gamma augmentation for a plain
// SBN (Gan, Henao, Carlson & Carin 2015, "Learning deep sigmoid belief
// networks with data augmentation", AISTATS, §3.2), the "SBN (VB)"
// baseline of Du, Zhu & Zhang's Table 2: method "pg-vb". The mean-field
// counterpart of the Gibbs sampler of pg_train.go, in its notation.
//
// The bound. Every conditional of the net is a logistic term: for a unit j
// with value v ∈ {0, 1} and activation ψ = w̃_j·h̃ (h̃ = [h_l; 1] the
// parents plus a constant, w̃_j = [w_j; b_j]; the top layer's units have
// ψ = b_{L,j}, h̃ = [1]),
//
//	log σ(ψ)^v σ(−ψ)^{1−v} = (v − ½)ψ − log 2 − log cosh(ψ/2)
//	                       ≥ (v − ½)ψ − log 2 − log cosh(c/2) − ½ E_PG(1,c)[ω] (ψ² − c²)
//
// for every c ≥ 0 (log cosh(√s/2) is concave in s = ψ², its derivative at
// s = c² is E[ω]/2 = tanh(c/2)/(4c)), with equality at c = |ψ|. This
// Jaakkola–Jordan bound is exactly E_q[log p(v, ω | ψ) − log q(ω)] for
// q(ω) = PG(1, c) (PSW 2013: p(v, ω | ψ) = ½ e^{(v−½)ψ − ωψ²/2} PG(ω; 1, 0)),
// so the PG-augmented bound of the whole model is, with the factorised
//
//	q = Π_n Π_{l,k} Bern(h_{n,l,k}; m_{n,l,k}) · Π_n Π_{l,j} PG(ω_nj; 1, c_nj)
//	    · Π_{l,j} N(w̃_j; μ_j, Σ_j) · Π_i Gamma(τ_i; α, β_i),
//
//	L = Σ_n Σ_{l,j} [(E v_nj − ½) E ψ_nj − log 2 − log cosh(c_nj/2) − ½ ω̄_nj (E ψ²_nj − c²_nj)]
//	  + Σ_n H(q(h_n)) + E log p(θ | τ) + E log p(τ) + H(q(θ)) + H(q(τ)),
//
// ω̄ = E[ω] = tanh(c/2)/(2c) (pgMean, ¼ at c = 0). Under the factorised q
// (h̃ independent of w̃, the units of h̃ independent, h̃² = h̃):
//
//	E ψ = μ·m̃,   E[h̃ h̃ᵀ] = M = m̃ m̃ᵀ + diag(m̃ ⊙ (1 − m̃)),
//	E ψ² = tr((Σ + μμᵀ) M) = (μ·m̃)² + Σ_a μ_a² m_a(1 − m_a) + tr(Σ M)
//
// (m̃ = [m; 1]). Each block of the coordinate ascent below maximises L over
// its factor exactly, so no block decreases it:
//
//   - q(ω): c_nj = √(E ψ²_nj) (the bound's quadratic term then vanishes);
//   - q(h): L is linear in one m_k given the rest (E ψ² has no m_k² term:
//     h_k² = h_k), so m_k = σ(η_k) with η_k = ∂L/∂m_k without the
//     entropy: for unit k of layer l, with ā_j = μ_j·m̃ the mean activations
//     of the units j below (v_j their values: x or m_{l−1}) and
//     G = Σ_j ω̄_j Σ_j,
//     η_k = E ψ_k^{above} + Σ_j (v_j − ½ − ω̄_j ā_j) μ_jk − (G m̃)_k
//     − (½ − m_k)(G_kk + Σ_j ω̄_j μ_jk²),
//     E ψ_k^{above} the mean activation of unit k from layer l + 1 (or its
//     prior bias); η_k does not depend on m_k. Units are updated one at a
//     time, layer 1 first, ā and G m̃ kept current;
//   - q(w̃_j): Σ_j⁻¹ = Σ_n ω̄_nj M_n + diag(E τ_j), μ_j = Σ_j Σ_n (E v_nj − ½) m̃_n
//     (the top biases alike with M = [1]);
//   - q(τ) (Student-t prior σ, ν as the scale mixture θ | τ ~ N(0, 1/τ),
//     τ ~ Gamma(ν/2, rate νσ²/2), as pg-gibbs): Gamma(α = (ν+1)/2,
//     β_i = νσ²/2 + E θ_i²/2), E τ = α/β, E log τ = ψ(α) − log β; a
//     Gaussian prior keeps τ = 1/σ².
//
// One epoch streams the training set in blocks of vbBlock examples: for
// each block q(ω) of every layer (from the current q(h), q(θ)), then its
// q(h) (layer by layer), then the block's sums Σ_n ω̄ M_n and
// Σ_n (E v − ½) m̃_n; after the last block every row's q(w̃), then q(τ).
// The epoch's signal is L per example (nats) at the state the epoch
// started from (the previous epoch's result, for c optimal: the bound is
// evaluated where each block's c is set), so no extra pass is needed.
//
// With binary m (a point q(h)) and Σ = 0 the bound is log p(x, h | μ)
// exactly (c = |ψ|); in general it is at most log p(x | μ) averaged over
// q(θ), minus KL terms (tests: pg_vb_test.go).
//
// The products: with D = n_l + 1 and P = D(D+1)/2 (a symmetric matrix
// packed by rows, pgPacked), tr(Σ_j M_n) for a block is Σ (R×P) · Mᵀ
// (P×K, off-diagonal entries doubled), G_n is ω̄ (K×R) · Σ (R×P) and the
// precisions' sums ω̄ᵀ (R×K) · M (K×P): three products of 2·N·R·P flops
// per epoch and layer (kernel.GemmCols6, fixed order: the bits do not
// depend on the workers), the bulk of the work. Everything is float64.
//
// Start: μ the net as initialised, Σ_j = σ²I, E τ = 1/σ², and m drawn
// once from the prior (binary; keyed (seed, keyVBInit, n)), so the units
// start distinct.
const keyVBInit = 111

// keyMFELBO keys MeanFieldELBO's draws: (seed, keyMFELBO, example).
const keyMFELBO = 112

// vbBlock is the number of examples of a block: the precisions' sums
// (R×P, 127 MB for a 784-200 layer, far beyond the caches) are read and
// written once per block, so larger blocks spend less of the epoch on that
// traffic (512 against 128: 15% less CPU per epoch of 784-200 on MNIST-like
// data; the block's three K×P buffers are 83 MB each). vbChunk is the inner
// dimension of the trace product's pieces (a 32-row piece of Σ and the
// block's Mᵀ piece stay in cache).
const (
	vbBlock = 512
	vbChunk = 256
	vbRows  = 32
	vbCols  = 512
)

// VBTrainer fits the mean-field q of a plain SBN by the coordinate ascent
// above. The net it holds is the posterior mean μ.
type VBTrainer struct {
	net     *Net
	opt     TrainOptions
	n, ep   int
	onBatch func(int)
	prior   Prior

	latent int
	off    []int     // off[l]: the first flat latent index of layer l (l ≥ 1)
	m      []float64 // N × latent: the means of q(h)
	sig    [][]float64
	logdet [][]float64 // log det Σ_j
	topVar []float64   // the variances of q(b_L)
	rate   *Net        // the rates β of q(τ) (Student-t), in the net's layout
	fac    [][]float64 // 1 on the diagonal, 2 off it, in packed order

	workers int
	wg      workgroup.Group
	ws      []*vbWorker

	// point: q(θ) is the point μ (Σ = 0, never updated): the products
	// with Σ are skipped and Σ, the sums and the packed M are not held
	point bool

	lam, lin      [][]float64 // layer l: R×P and R×D sums of the pass
	topLin, topOm []float64
	topC          []float64
	wt, wt2       [][]float64 // layer l: [μ columns; b] (D×R) and the weights' squares (k×R)

	cb, om, act [][]float64 // layer l: K×R
	omT, vT     []float64   // R×K
	mt, mv      []float64   // K×D m̃, K×k m(1−m)
	mk, mkT, g  []float64   // K×P, P×K, K×P
	tT          []float64   // R×K: tr(Σ_j M_n)
	ex          []float64   // the block's examples' bound
}

type vbWorker struct {
	gf, u, r, s2 []float64
	h            [][]float64
	sc           *Scratch
	one          rand.PCG
	rng          *rand.Rand
	sym, inv     *mat.SymDense
	chol         mat.Cholesky
	rhs, mu      *mat.VecDense
}

// vbDims returns layer l's rows R = n_{l−1}, units k = n_l, D = k + 1 and
// P = D(D+1)/2, the size of a packed D×D symmetric matrix.
func vbDims(n *Net, l int) (R, k, D, P int) {
	R, k = n.Sizes[l-1], n.Sizes[l]
	D = k + 1
	return R, k, D, D * (D + 1) / 2
}

// pgPacked is the index of entry (a, b), a ≤ b, of a symmetric D×D
// matrix packed by rows of its upper triangle.
func pgPacked(D, a, b int) int { return a*D - a*(a-1)/2 + b - a }

// NewVBTrainer prepares mean-field VB for n (a plain SBN) on a training
// set of N examples. Of the options it uses Prior, PriorSigma, PriorNu,
// Seed, Workers and Epochs; Precision must be float64.
func NewVBTrainer(n *Net, N int, opt TrainOptions) (*VBTrainer, error) {
	return newVB(n, N, opt, false)
}

// newVB is NewVBTrainer, or with point the state of MeanFieldBound.
func newVB(n *Net, N int, opt TrainOptions, point bool) (*VBTrainer, error) {
	if err := n.Validate(); err != nil {
		return nil, err
	}
	if n.AR() {
		return nil, fmt.Errorf("sbn trainer: method pg-vb fits plain SBNs only (an arsbn's rows would need their own layer's earlier units as inputs)")
	}
	if N < 1 {
		return nil, fmt.Errorf("sbn trainer: the training set has %d examples", N)
	}
	if opt.Workers < 0 {
		return nil, fmt.Errorf("sbn trainer: workers %d must not be negative", opt.Workers)
	}
	if opt.Average > 1 {
		return nil, fmt.Errorf("sbn trainer: method pg-vb evaluates the posterior mean: average %d is not supported", opt.Average)
	}
	prec, err := kernel.Parse(string(opt.Precision), kernel.Float64)
	if err != nil {
		return nil, fmt.Errorf("sbn trainer: %w", err)
	}
	if prec != kernel.Float64 {
		return nil, fmt.Errorf("sbn trainer: method pg-vb runs in float64 only (got precision %s)", prec)
	}
	opt.Precision = prec
	t := &VBTrainer{net: n, opt: opt, n: N, prior: Prior{opt.Prior, opt.PriorSigma, opt.PriorNu}, point: point}
	if err := t.prior.Check(); err != nil {
		return nil, fmt.Errorf("sbn trainer: %w", err)
	}
	if t.prior.Kind == "none" {
		return nil, fmt.Errorf("sbn trainer: method pg-vb needs a proper prior (student-t or gaussian): a flat one leaves the row of a unit never on without a posterior")
	}
	L := n.Layers()
	t.off = make([]int, L+2)
	for l := 1; l <= L; l++ {
		t.off[l+1] = t.off[l] + n.Sizes[l]
	}
	t.latent = t.off[L+1]
	t.m = make([]float64, N*t.latent)
	s2 := t.prior.Sigma * t.prior.Sigma
	t.sig, t.logdet, t.fac = make([][]float64, L+1), make([][]float64, L+1), make([][]float64, L+1)
	t.lam, t.lin, t.wt, t.wt2 = make([][]float64, L+1), make([][]float64, L+1), make([][]float64, L+1), make([][]float64, L+1)
	t.cb, t.om, t.act = make([][]float64, L+1), make([][]float64, L+1), make([][]float64, L+1)
	maxR, maxD, maxP := 0, 0, 0
	for l := 1; l <= L; l++ {
		R, k, D, P := vbDims(n, l)
		maxR, maxD, maxP = max(maxR, R), max(maxD, D), max(maxP, P)
		t.wt[l], t.wt2[l] = make([]float64, D*R), make([]float64, k*R)
		t.cb[l], t.om[l], t.act[l] = make([]float64, vbBlock*R), make([]float64, vbBlock*R), make([]float64, vbBlock*R)
		if point {
			continue
		}
		t.sig[l], t.logdet[l], t.fac[l] = make([]float64, R*P), make([]float64, R), make([]float64, P)
		for a := range D {
			for b := a; b < D; b++ {
				t.fac[l][pgPacked(D, a, b)] = 2
			}
			t.fac[l][pgPacked(D, a, a)] = 1
		}
		for j := range R {
			for a := range D {
				t.sig[l][j*P+pgPacked(D, a, a)] = s2
			}
			t.logdet[l][j] = float64(D) * math.Log(s2)
		}
		t.lam[l], t.lin[l] = make([]float64, R*P), make([]float64, R*D)
	}
	kL := n.Sizes[L]
	t.topVar, t.topLin, t.topOm, t.topC = make([]float64, kL), make([]float64, kL), make([]float64, kL), make([]float64, kL)
	for k := range t.topVar {
		t.topVar[k] = s2
	}
	if t.prior.Kind == "student-t" {
		t.rate = New(n.Sizes, false)
		xs, _ := paramSlices(t.rate)
		for _, x := range xs {
			for i := range x {
				x[i] = t.tauShape() * s2 // E τ = 1/σ², the prior's mean
			}
		}
	}
	t.omT, t.vT = make([]float64, maxR*vbBlock), make([]float64, maxR*vbBlock)
	t.mt, t.mv = make([]float64, vbBlock*maxD), make([]float64, vbBlock*maxD)
	if !point {
		t.mk, t.mkT, t.g = make([]float64, vbBlock*maxP), make([]float64, vbBlock*maxP), make([]float64, vbBlock*maxP)
	}
	t.tT, t.ex = make([]float64, maxR*vbBlock), make([]float64, vbBlock)
	t.workers = opt.Workers
	if t.workers == 0 {
		t.workers = runtime.GOMAXPROCS(0)
	}
	for range t.workers {
		w := &vbWorker{gf: make([]float64, maxD*maxD), u: make([]float64, maxD), r: make([]float64, maxR), s2: make([]float64, maxD),
			h: n.States(), sc: n.NewScratch()}
		w.rng = rand.New(&w.one)
		t.ws = append(t.ws, w)
	}
	// m from one prior draw per example
	t.run((N+63)/64, func(w *vbWorker, task int) {
		for ex := task * 64; ex < min(N, (task+1)*64); ex++ {
			w.one.Seed(seeds.Derive(t.opt.Seed, keyVBInit, uint64(ex)), 0)
			n.samplePrior(w.h, w.rng, w.sc)
			for l := 1; l <= L; l++ {
				copy(t.m[ex*t.latent+t.off[l]:], w.h[l])
			}
		}
	})
	return t, nil
}

func (t *VBTrainer) run(tasks int, f func(w *vbWorker, i int)) {
	runTasks(&t.wg, t.ws[:t.workers], tasks, f)
}

// tauShape is α = (ν+1)/2 of q(τ) (Student-t).
func (t *VBTrainer) tauShape() float64 { return (t.prior.Nu + 1) / 2 }

// eTau is E τ of a parameter whose q(τ) has rate beta (Student-t), else
// 1/σ².
func (t *VBTrainer) eTau(beta float64) float64 {
	if t.rate == nil {
		return 1 / (t.prior.Sigma * t.prior.Sigma)
	}
	return t.tauShape() / beta
}

// eachParam calls f with every parameter's mean, variance and q(τ) rate
// (nil for a Gaussian prior): W_l's row j and b_{l−1,j}, then b_L.
func (t *VBTrainer) eachParam(f func(mu, v float64, rate *float64)) {
	n := t.net
	L := n.Layers()
	var none float64
	at := func(x []float64, i int) *float64 {
		if t.rate == nil {
			return &none
		}
		return &x[i]
	}
	for l := 1; l <= L; l++ {
		R, k, D, P := vbDims(n, l)
		for j := range R {
			s := t.sig[l][j*P:]
			for a := range k {
				var r []float64
				if t.rate != nil {
					r = t.rate.W[l]
				}
				f(n.W[l][j*k+a], s[pgPacked(D, a, a)], at(r, j*k+a))
			}
			var r []float64
			if t.rate != nil {
				r = t.rate.B[l-1]
			}
			f(n.B[l-1][j], s[pgPacked(D, k, k)], at(r, j))
		}
	}
	var r []float64
	if t.rate != nil {
		r = t.rate.B[L]
	}
	for k, b := range n.B[L] {
		f(b, t.topVar[k], at(r, k))
	}
}

// Completed is the number of completed epochs.
func (t *VBTrainer) Completed() int { return t.ep }

// Total is Epochs of the options.
func (t *VBTrainer) Total() int { return t.opt.Epochs }

// SetOnBatch sets the function called with the number of examples done,
// block by block.
func (t *VBTrainer) SetOnBatch(f func(int)) { t.onBatch = f }

// Net is the live net, the posterior mean μ.
func (t *VBTrainer) Net() *Net { return t.net }

// Current returns a copy of the posterior mean μ.
func (t *VBTrainer) Current() models.Model { return t.current() }

func (t *VBTrainer) current() *Net {
	c := t.net.clone()
	c.Posterior = "the mean of the mean-field posterior q(θ) (a plug-in estimate at the mean)"
	return c
}

// EpochSettings names the method on the epoch line.
func (t *VBTrainer) EpochSettings(models.EpochSummary) string {
	return fmt.Sprintf("pg-vb (one batch pass of mean-field updates) prior=%s", t.prior.Kind)
}

// TrainEpoch runs one pass of the coordinate ascent over x. The summary's
// ReconError is the bound L per example at the state the epoch started
// from (SignalELBO).
func (t *VBTrainer) TrainEpoch(x data.Examples) (models.EpochSummary, error) {
	N := x.Len()
	if err := checkBatchData(x, t.n, t.net.Sizes[0]); err != nil {
		return models.EpochSummary{}, err
	}
	e := t.ep + 1
	t.begin()
	bound := t.globalBound()
	for lo := 0; lo < N; lo += vbBlock {
		K := min(vbBlock, N-lo)
		bound += t.blockOmega(x, lo, K)
		t.blockLatent(x, lo, K)
		t.blockStats(x, lo, K)
		if t.onBatch != nil {
			t.onBatch(K)
		}
	}
	if err := t.updateRows(); err != nil {
		return models.EpochSummary{}, fmt.Errorf("sbn trainer: %w at epoch %d: %v", models.ErrDiverged, e, err)
	}
	t.updateTau()
	if err := t.net.Validate(); err != nil {
		return models.EpochSummary{}, fmt.Errorf("sbn trainer: %w at epoch %d: %v", models.ErrDiverged, e, err)
	}
	t.ep = e
	return models.EpochSummary{Epoch: e, K: 1, ReconError: bound / float64(N), Signal: SignalELBO}, nil
}

// begin prepares a pass: the tables of μ, the top biases' q(ω) and zero
// sums.
func (t *VBTrainer) begin() {
	n := t.net
	L := n.Layers()
	for l := 1; l <= L; l++ {
		R, k := n.Sizes[l-1], n.Sizes[l]
		wt, wt2 := t.wt[l], t.wt2[l]
		for j := range R {
			for a := range k {
				w := n.W[l][j*k+a]
				wt[a*R+j] = w
				wt2[a*R+j] = w * w
			}
			wt[k*R+j] = n.B[l-1][j]
		}
		if !t.point {
			clear(t.lam[l])
			clear(t.lin[l])
		}
	}
	clear(t.topLin)
	for k, b := range n.B[L] {
		t.topC[k] = math.Sqrt(b*b + t.topVar[k])
		t.topOm[k] = pgMean(t.topC[k])
	}
}

// globalBound is E log p(θ | τ) + E log p(τ) + H(q(θ)) + H(q(τ)).
func (t *VBTrainer) globalBound() float64 {
	n := t.net
	total := 0.0
	for l := 1; l <= n.Layers(); l++ {
		D := n.Sizes[l] + 1
		for _, ld := range t.logdet[l] {
			total += 0.5 * (float64(D)*math.Log(2*math.Pi*math.E) + ld)
		}
	}
	for _, v := range t.topVar {
		total += 0.5 * math.Log(2*math.Pi*math.E*v)
	}
	if t.rate == nil {
		s2 := t.prior.Sigma * t.prior.Sigma
		t.eachParam(func(mu, v float64, _ *float64) {
			total += -0.5*math.Log(2*math.Pi*s2) - (mu*mu+v)/(2*s2)
		})
		return total
	}
	a0, b0 := t.prior.Nu/2, t.prior.Nu*t.prior.Sigma*t.prior.Sigma/2
	a := t.tauShape()
	lga0, _ := math.Lgamma(a0)
	lga, _ := math.Lgamma(a)
	dga := mathext.Digamma(a)
	t.eachParam(func(mu, v float64, rate *float64) {
		b := *rate
		et, elt := a/b, dga-math.Log(b)
		total += 0.5*elt - 0.5*math.Log(2*math.Pi) - 0.5*et*(mu*mu+v) // E log N(θ; 0, 1/τ)
		total += a0*math.Log(b0) - lga0 + (a0-1)*elt - b0*et          // E log Gamma(τ; a0, b0)
		total += a - math.Log(b) + lga + (1-a)*dga                    // H(Gamma(a, b))
	})
	return total
}

// vVals writes E v − ½ of layer l's units below (x or m_{l−1}) for example
// ex into dst.
func (t *VBTrainer) vVals(x data.Examples, l, ex int, dst []float64) {
	if l == 1 {
		for j, u := range x.Row(ex) {
			dst[j] = float64(u) - 0.5
		}
		return
	}
	m := t.m[ex*t.latent+t.off[l-1]:]
	for j := range dst {
		dst[j] = m[j] - 0.5
	}
}

// buildM writes the block's m̃ (K×D) and m(1 − m) (K×k) of layer l, and its
// packed E[h̃h̃ᵀ] (K×P, into t.mk; with mkT also transposed, P×K, the
// off-diagonal doubled).
func (t *VBTrainer) buildM(lo, K, l int, mkT bool) {
	_, k, D, P := vbDims(t.net, l)
	t.run(K, func(_ *vbWorker, i int) {
		m := t.m[(lo+i)*t.latent+t.off[l]:][:k]
		mt, mv := t.mt[i*D:(i+1)*D], t.mv[i*k:(i+1)*k]
		copy(mt, m)
		mt[k] = 1
		for a, v := range m {
			mv[a] = v * (1 - v)
		}
		if t.point {
			return
		}
		mk, p := t.mk[i*P:(i+1)*P], 0
		for a, ma := range mt {
			mk[p] = ma
			p++
			for _, mb := range mt[a+1:] {
				mk[p] = ma * mb
				p++
			}
		}
	})
	if !mkT || t.point {
		return
	}
	fac := t.fac[l]
	t.run((P+vbCols-1)/vbCols, func(_ *vbWorker, c int) {
		for p := c * vbCols; p < min(P, (c+1)*vbCols); p++ {
			row := t.mkT[p*K : (p+1)*K]
			for i := range row {
				row[i] = fac[p] * t.mk[i*P+p]
			}
		}
	})
}

// gemm computes C op A·B (m×k times k×n) on the workers, by strips of
// vbCols columns of C.
func (t *VBTrainer) gemm(op kernel.GemmOp, m, n, k int, a []float64, lda int, b []float64, ldb int, c []float64, ldc int) {
	t.run((n+vbCols-1)/vbCols, func(_ *vbWorker, s int) {
		kernel.GemmCols6(op, 1, m, s*vbCols, min(n, (s+1)*vbCols), k, a, lda, b, ldb, c, ldc)
	})
}

// blockOmega sets q(ω) of examples lo … lo+K−1 of every layer, c = √(E ψ²)
// (t.cb, ω̄ in t.om, the mean activations in t.act), and returns their part
// of the bound at those c (the quadratic terms vanish), q(h)'s entropy
// included.
func (t *VBTrainer) blockOmega(x data.Examples, lo, K int) float64 {
	n := t.net
	L := n.Layers()
	clear(t.ex[:K])
	for l := 1; l <= L; l++ {
		R, k, D, P := vbDims(n, l)
		t.buildM(lo, K, l, true)
		act, cb, om := t.act[l], t.cb[l], t.om[l]
		t.gemm(kernel.GemmSet, K, R, D, t.mt, D, t.wt[l], R, act, R)
		t.gemm(kernel.GemmSet, K, R, k, t.mv, k, t.wt2[l], R, cb, R)
		// tr(Σ_j M_n), R×K: pieces of vbRows rows of Σ, vbChunk at a time
		tT := t.tT[:R*K]
		t.run((R+vbRows-1)/vbRows, func(_ *vbWorker, s int) {
			if t.point {
				clear(tT[s*vbRows*K : min(R, (s+1)*vbRows)*K])
				return
			}
			j0, j1 := s*vbRows, min(R, (s+1)*vbRows)
			op := kernel.GemmSet
			for p0 := 0; p0 < P; p0 += vbChunk {
				kernel.GemmCols6(op, 1, j1-j0, 0, K, min(vbChunk, P-p0), t.sig[l][j0*P+p0:], P, t.mkT[p0*K:], K, tT[j0*K:], K)
				op = kernel.GemmAdd
			}
		})
		t.run(K, func(w *vbWorker, i int) {
			v := w.r[:R]
			t.vVals(x, l, lo+i, v)
			s := 0.0
			for j := range R {
				a := act[i*R+j]
				c := math.Sqrt(math.Max(0, a*a+cb[i*R+j]+tT[j*K+i]))
				cb[i*R+j] = c
				om[i*R+j] = pgMean(c)
				s += v[j]*a - math.Ln2 - logCosh(c/2)
			}
			t.ex[i] += s
		})
	}
	t.run(K, func(_ *vbWorker, i int) {
		m := t.m[(lo+i)*t.latent:][:t.latent]
		s := 0.0
		for k, b := range n.B[L] {
			c, v := t.topC[k], t.topVar[k]
			s += (m[t.off[L]+k]-0.5)*b - math.Ln2 - logCosh(c/2) - 0.5*t.topOm[k]*(b*b+v-c*c)
		}
		for _, p := range m {
			s += bernEntropy(p)
		}
		t.ex[i] += s
	})
	total := 0.0
	for _, s := range t.ex[:K] {
		total += s
	}
	return total
}

// bernEntropy is −p log p − (1−p) log(1−p), 0 at p ∈ {0, 1}.
func bernEntropy(p float64) float64 {
	h := 0.0
	if p > 0 {
		h -= p * math.Log(p)
	}
	if p < 1 {
		h -= (1 - p) * math.Log1p(-p)
	}
	return h
}

// blockLatent updates q(h) of examples lo … lo+K−1, layer 1 first, unit by
// unit, at the block's q(ω) (blockOmega first), keeping the block's mean
// activations current.
func (t *VBTrainer) blockLatent(x data.Examples, lo, K int) {
	n := t.net
	L := n.Layers()
	for l := 1; l <= L; l++ {
		R, k, D, P := vbDims(n, l)
		var g []float64
		if !t.point {
			g = t.g[:K*P]
			t.gemm(kernel.GemmSet, K, P, R, t.om[l], R, t.sig[l], P, g, P)
		}
		wt, wt2 := t.wt[l], t.wt2[l]
		t.run(K, func(w *vbWorker, i int) {
			ex := lo + i
			m := t.m[ex*t.latent+t.off[l]:][:k]
			var up []float64 // E ψ from above
			if l < L {
				up = t.act[l+1][i*k : (i+1)*k]
			} else {
				up = n.B[L]
			}
			om, act := t.om[l][i*R:(i+1)*R], t.act[l][i*R:(i+1)*R]
			r := w.r[:R]
			t.vVals(x, l, ex, r)
			for j := range r {
				r[j] -= om[j] * act[j]
			}
			gf, u, s2 := w.gf[:D*D], w.u[:D], w.s2[:k]
			if t.point {
				clear(gf)
			} else {
				gp := g[i*P : (i+1)*P]
				for a := range D {
					for b := a; b < D; b++ {
						v := gp[pgPacked(D, a, b)]
						gf[a*D+b], gf[b*D+a] = v, v
					}
				}
			}
			for a := range D {
				s := gf[a*D+k]
				for b, mb := range m {
					s += gf[a*D+b] * mb
				}
				u[a] = s
			}
			for a := range k {
				s := 0.0
				for j, v := range wt2[a*R : (a+1)*R] {
					s += om[j] * v
				}
				s2[a] = s
			}
			for a := range k {
				col := wt[a*R : (a+1)*R]
				s1 := 0.0
				for j, v := range col {
					s1 += r[j] * v
				}
				eta := up[a] + s1 - u[a] - (0.5-m[a])*(gf[a*D+a]+s2[a])
				p := nmath.Sigmoid(eta)
				d := p - m[a]
				if d == 0 {
					continue
				}
				m[a] = p
				for j, v := range col {
					act[j] += v * d
					r[j] -= om[j] * v * d
				}
				for b := range D {
					u[b] += gf[b*D+a] * d
				}
			}
		})
	}
}

// blockStats adds the block's Σ_n ω̄_nj M_n and Σ_n (E v_nj − ½) m̃_n of
// every layer, and the top biases' Σ_n (m_n − ½), at the block's q(h) and
// q(ω).
func (t *VBTrainer) blockStats(x data.Examples, lo, K int) {
	n := t.net
	L := n.Layers()
	for l := 1; l <= L; l++ {
		R, _, D, P := vbDims(n, l)
		t.buildM(lo, K, l, false)
		om := t.om[l]
		omT, vT := t.omT[:R*K], t.vT[:R*K]
		t.run(K, func(w *vbWorker, i int) {
			v := w.r[:R]
			t.vVals(x, l, lo+i, v)
			for j := range R {
				omT[j*K+i] = om[i*R+j]
				vT[j*K+i] = v[j]
			}
		})
		t.gemm(kernel.GemmAdd, R, P, K, omT, K, t.mk, P, t.lam[l], P)
		t.gemm(kernel.GemmAdd, R, D, K, vT, K, t.mt, D, t.lin[l], D)
	}
	for i := range K {
		m := t.m[(lo+i)*t.latent+t.off[L]:]
		for k := range t.topLin {
			t.topLin[k] += m[k] - 0.5
		}
	}
}

// updateRows sets every row's q(w̃_j) from the pass's sums and q(τ), and
// the top biases'.
func (t *VBTrainer) updateRows() error {
	n := t.net
	L := n.Layers()
	for l := 1; l <= L; l++ {
		R, k, D, P := vbDims(n, l)
		bad := make([]bool, R)
		t.run(R, func(w *vbWorker, j int) {
			if w.sym == nil || w.sym.SymmetricDim() != D {
				w.sym, w.inv = mat.NewSymDense(D, nil), mat.NewSymDense(D, nil)
				w.rhs, w.mu = mat.NewVecDense(D, nil), mat.NewVecDense(D, nil)
			}
			raw := w.sym.RawSymmetric()
			lam := t.lam[l][j*P : (j+1)*P]
			for a := range D {
				for b := a; b < D; b++ {
					raw.Data[a*raw.Stride+b] = lam[pgPacked(D, a, b)]
				}
				w.rhs.SetVec(a, t.lin[l][j*D+a])
			}
			for a := range k {
				beta := 0.0
				if t.rate != nil {
					beta = t.rate.W[l][j*k+a]
				}
				raw.Data[a*raw.Stride+a] += t.eTau(beta)
			}
			beta := 0.0
			if t.rate != nil {
				beta = t.rate.B[l-1][j]
			}
			raw.Data[k*raw.Stride+k] += t.eTau(beta)
			if !w.chol.Factorize(w.sym) || w.chol.SolveVecTo(w.mu, w.rhs) != nil || w.chol.InverseTo(w.inv) != nil {
				bad[j] = true
				return
			}
			for a := range k {
				n.W[l][j*k+a] = w.mu.AtVec(a)
			}
			n.B[l-1][j] = w.mu.AtVec(k)
			s := t.sig[l][j*P : (j+1)*P]
			for a := range D {
				for b := a; b < D; b++ {
					s[pgPacked(D, a, b)] = w.inv.At(a, b)
				}
			}
			t.logdet[l][j] = -w.chol.LogDet()
		})
		for j, b := range bad {
			if b {
				return fmt.Errorf("the posterior precision of row %d of layer %d is not positive definite", j, l)
			}
		}
	}
	for k := range n.B[L] {
		beta := 0.0
		if t.rate != nil {
			beta = t.rate.B[L][k]
		}
		lambda := float64(t.n)*t.topOm[k] + t.eTau(beta)
		n.B[L][k] = t.topLin[k] / lambda
		t.topVar[k] = 1 / lambda
	}
	return nil
}

// updateTau sets q(τ) of every parameter from q(θ) (Student-t).
func (t *VBTrainer) updateTau() {
	if t.rate == nil {
		return
	}
	b0 := t.prior.Nu * t.prior.Sigma * t.prior.Sigma / 2
	t.eachParam(func(mu, v float64, rate *float64) { *rate = b0 + (mu*mu+v)/2 })
}

func (t *VBTrainer) meta() pgMeta {
	return pgMeta{Format: 1, Epoch: t.ep, Label: t.net.Label(), N: t.n, Method: "pg-vb", Prior: t.prior.Kind, Seed: t.opt.Seed, Precision: t.opt.Precision}
}

// vbArrays lists the state's arrays beside θ: Σ and log det Σ of every
// row (layers in order, rows packed), the top biases' variances, the q(τ)
// rates (Student-t; paramSlices' flat order) and q(h)'s means.
func (t *VBTrainer) vbArrays() map[string][][]float64 {
	a := map[string][][]float64{
		"vb_sigma":   t.sig[1:],
		"vb_logdet":  t.logdet[1:],
		"vb_top_var": {t.topVar},
		"vb_m":       {t.m},
	}
	if t.rate != nil {
		xs, tri := paramSlices(t.rate)
		flat := make([]float64, flatSize(xs, tri))
		gather(xs, tri, flat)
		a["vb_rate"] = [][]float64{flat}
	}
	return a
}

// Checkpoint returns μ with the state: arrays theta (paramSlices' flat
// order) and those of vbArrays, concatenated; bytes trainer (JSON meta).
// Σ takes R·P values per layer (127 MB for 784-200) and q(h) N·Σ n_l
// (80 MB for 50,000 examples of 200 units).
func (t *VBTrainer) Checkpoint(experiment string) (*models.Checkpoint, error) {
	xs, tri := paramSlices(t.net)
	theta := make([]float64, flatSize(xs, tri))
	gather(xs, tri, theta)
	js, err := json.Marshal(t.meta())
	if err != nil {
		return nil, err
	}
	state := map[string]models.Array{"theta": {Name: "theta", Shape: []int{len(theta)}, Data: theta}}
	for name, parts := range t.vbArrays() {
		var flat []float64
		for _, p := range parts {
			flat = append(flat, p...)
		}
		state[name] = models.Array{Name: name, Shape: []int{len(flat)}, Data: flat}
	}
	return &models.Checkpoint{Model: t.current(), Meta: models.Meta{Experiment: experiment, Epoch: t.ep},
		State: state, Bytes: map[string][]byte{"trainer": js}}, nil
}

// Resume restores a state written by Checkpoint for the same net shape,
// N, seed, prior and precision.
func (t *VBTrainer) Resume(c *models.Checkpoint) error {
	var m pgMeta
	if err := json.Unmarshal(c.Bytes["trainer"], &m); err != nil {
		return fmt.Errorf("sbn trainer state: %w", err)
	}
	if err := checkPGMeta(m, t.meta()); err != nil {
		return err
	}
	xs, tri := paramSlices(t.net)
	th := c.State["theta"]
	if len(th.Data) != flatSize(xs, tri) {
		return fmt.Errorf("sbn trainer state: theta (%d values) missing or of another size", flatSize(xs, tri))
	}
	arrays := t.vbArrays()
	for name, parts := range arrays {
		size := 0
		for _, p := range parts {
			size += len(p)
		}
		if len(c.State[name].Data) != size {
			return fmt.Errorf("sbn trainer state: %s (%d values) missing or of another size", name, size)
		}
	}
	scatter(th.Data, xs, tri)
	for name, parts := range arrays {
		src := c.State[name].Data
		for _, p := range parts {
			src = src[copy(p, src):]
		}
	}
	if t.rate != nil {
		rs, rtri := paramSlices(t.rate)
		scatter(c.State["vb_rate"].Data, rs, rtri)
	}
	t.ep = m.Epoch
	return nil
}

// MeanFieldBound returns, for every example of x, the mean-field bound on
// log p(x | θ) of the net n taken as a point (q(θ) = δ_μ: Σ = 0), q(h)
// factorised Bernoulli optimised per example: from m = ½, passes rounds of
// q(ω) then q(h) coordinate updates (blockOmega, blockLatent), each never
// lowering the bound, then the bound at the last q(h) with c optimal:
//
//	Σ_{l,j} [(E v_j − ½) ā_j − log 2 − log cosh(c_j/2)] + H(q(h)) ≤ log p(x | μ),
//
// c_j = √(E ψ_j²) (the Jaakkola–Jordan bound on each log σ). This is the
// test-time bound of pg-vb's model (its posterior mean); Gan et al.'s
// bounds also average over q(θ), which the net alone does not carry.
// Deterministic; workers goroutines (0: GOMAXPROCS), the same bits for
// any number.
func MeanFieldBound(n *Net, x data.Examples, passes, workers int) ([]float64, error) {
	jj, _, err := meanField(n, x, passes, workers)
	return jj, err
}

// meanField fits MeanFieldBound's q(h) to every example of x and returns
// the bounds and the trainer that holds the means of q(h) (t.m: example ex's
// layer l at ex·t.latent + t.off[l]).
func meanField(n *Net, x data.Examples, passes, workers int) ([]float64, *VBTrainer, error) {
	if passes < 0 {
		return nil, nil, fmt.Errorf("mean-field bound: passes %d must not be negative", passes)
	}
	N := x.Len()
	if N == 0 {
		return nil, nil, nil
	}
	if d := len(x.Row(0)); d != n.Sizes[0] {
		return nil, nil, fmt.Errorf("mean-field bound: the data has %d units per example, the net %d visible units", d, n.Sizes[0])
	}
	t, err := newVB(n, N, TrainOptions{Prior: "gaussian", PriorSigma: 1, Workers: workers, Precision: kernel.Float64}, true)
	if err != nil {
		return nil, nil, err
	}
	for i := range t.m {
		t.m[i] = 0.5
	}
	clear(t.topVar)
	t.begin()
	out := make([]float64, N)
	for lo := 0; lo < N; lo += vbBlock {
		K := min(vbBlock, N-lo)
		for range passes {
			t.blockOmega(x, lo, K)
			t.blockLatent(x, lo, K)
		}
		t.blockOmega(x, lo, K)
		copy(out[lo:], t.ex[:K])
	}
	return out, t, nil
}

// MeanFieldELBO returns, for every example of x, a Monte Carlo estimate of
// the evidence lower bound of the factorised q(h) = Π Bern(h_j; m_j) that
// MeanFieldBound fits (the same passes):
//
//	ELBO(q) = E_q[log p(x, h) − log q(h)] ≈ (1/S) Σ_s [log p(x, h_s) − log q(h_s)],   h_s ~ q,
//
// unbiased for ELBO(q) ≤ log p(x | μ). The Jaakkola–Jordan bound of
// MeanFieldBound bounds each E_q log σ from below, so it is at most
// ELBO(q) of the same q: this is the tighter bound of the two, without the
// quadratic's slack. The draws of x's example ex come from the stream
// keyed by (seed, ex): the same numbers for any workers (0: GOMAXPROCS).
func MeanFieldELBO(n *Net, x data.Examples, passes, samples int, seed uint64, workers int) ([]float64, error) {
	if samples < 1 {
		return nil, fmt.Errorf("mean-field ELBO: samples %d; want at least 1", samples)
	}
	if err := estCheckRows(n, x); err != nil {
		return nil, err
	}
	_, t, err := meanField(n, x, passes, workers)
	if err != nil || t == nil {
		return nil, err
	}
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	N := x.Len()
	out := make([]float64, N)
	e := estPrepare(n)
	workgroup.ForEach(N, workers, func() func(int) {
		c := e.newChain()
		rng, pcg := estRand()
		return func(ex int) {
			pcg.Seed(seeds.Derive(seed, keyMFELBO, uint64(ex)), 0)
			c.setVisible(x.Row(ex))
			m := t.m[ex*t.latent : (ex+1)*t.latent]
			sum := 0.0
			for range samples {
				lq := 0.0
				for l := 1; l < len(c.h); l++ {
					ml := m[t.off[l]:][:len(c.h[l])]
					for j, mj := range ml {
						if rng.Float64() < mj {
							c.h[l][j] = 1
							lq += math.Log(mj)
						} else {
							c.h[l][j] = 0
							lq += math.Log1p(-mj)
						}
					}
				}
				c.recompute()
				sum += c.logJoint(1) - lq
			}
			out[ex] = sum / float64(samples)
		}
	})
	return out, nil
}
