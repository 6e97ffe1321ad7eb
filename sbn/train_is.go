package sbn

import (
	"math"
	"math/rand/v2"
	"runtime"
	"sync/atomic"

	"github.com/logz-ml/logz/internal/kernel"
	"github.com/logz-ml/logz/internal/nmath"
	"github.com/logz-ml/logz/internal/seeds"
	"github.com/logz-ml/logz/internal/workgroup"
)

// isEngine is the trainer's adaptive importance sampler in precision F
// (TrainOptions.Precision; one engine for both, with the kernels of F,
// isKernels): L proposals h_s ~ Q(· | x) per example, self-normalised
// weights w̃_s ∝ p(x, h_s)/Q(h_s | x), both gradients, batched over the
// minibatch's examples × samples, with the sums in F and the log-weights
// in float64. The parameters θ and φ, the dynamics and Adam stay float64;
// before every step the parameters are copied (rounded, in float32) to F
// (W_lᵀ, S_lᵀ, T_lᵀ transposed, so that a binary unit at 1 adds one
// contiguous row: package rowsum). In float32 every log-likelihood takes
// one float32 exp per unit (kernel.LogLik32); in float64 it is bernTerm's.
// The uniforms of the draws are 24-bit in both.
//
// A dynamics step runs in parallel phases, each a list of items that
// write disjoint outputs, so that nothing depends on the number of workers:
//
//  1. refresh: the copies of the parameters in F, by blocks of rows;
//  2. examples: for example k of the minibatch (random stream keyed by
//     (seed, epoch, minibatch, step, example)), its S proposals
//     h_s ~ Q(· | x) and their rows r = k·S + s: log w_r =
//     log p(x, h_r) − log Q(h_r | x), then, with the self-normalised
//     weights w̃_r, the generative rows δ_{l,r} = w̃_r (h_{l,r} − σ(a_{l,r}))
//     and the recognition rows ε_{l,r} = w̃_r (h_{l,r} − σ(q_{l,r}))
//     (grad.go's formulas);
//  3. gradients: each parameter block sums the rows its binary factor
//     selects, ∂/∂W_l[i,j] = Σ_{r: h_{l,r,j} = 1} δ_{l−1,r,i} (a row sum
//     of the δ rows per latent unit j), likewise S, T and R (for R_1 the
//     S rows of an example share x, so their ε rows are summed first), and
//     writes its part of the trainer's flat gradients: grad = −(N/|B|) Σ
//     and gradPhi = Σ;
//  4. update: the prior's gradient, the dynamics step and Adam's step on
//     φ, by blocks of updBlock parameters, block b of θ with its own noise
//     stream keyed by (seed, epoch, minibatch, step, b).
//
// The copies are refreshed from the flat θ and φ; the net's own slices
// receive them at the end of the minibatch.
type isEngine[F kernel.Float] struct {
	sizes []int
	L, S  int
	ar    bool
	// the parameters in F: wt[l] = W_lᵀ (n_l × n_{l−1}),
	// st[l] = S_lᵀ, r[l] = R_l (n_{l−1} × n_l), tt[l] = T_lᵀ, b, c.
	wt, b, st, r, c, tt [][]F
	// The examples: x (BatchSize × n_0) and room for their on-lists.
	x    []F
	xon  []int32
	nxon []int32 // per example, the length of its on-list (made at a minibatch's first step)
	// Per row r = k·S + s (l ≥ 1): the states h[l] and their on-lists
	// on[l] (the first non[l][r] entries of row r); a[l] (l ≥ 0) σ of the
	// generative activations, then δ; q[l] σ of the recognition
	// activations, then ε; lw the log-weights.
	h, a, q [][]F
	on      [][]int32
	non     [][]int32
	lw      []float64
	e1      []F       // BatchSize × n_1: Σ_s ε_{1,k·S+s} per example
	xcols   [][]int32 // n_0 lists: the examples with x_i = 1 (made at a minibatch's first step)
	signal  []float64 // BatchSize: the example's IS bound at the last step
	zero    []F
	all     []int32 // 0, 1, 2, …: every row

	refresh, grads, updates []isJob
	kin                     []float64 // sgnht: Σ v² of each block of θ
	// Offsets of each block in the flat θ (b_l, W_l, S_l) and φ (R_l,
	// c_l, T_l) of paramSlices and recSlices.
	offB, offW, offS, offR, offC, offT []int

	kern isKernels[F]

	// The current step.
	t                 *Trainer
	idx               []int
	nb                int
	scale             float64
	epoch, batch, now int

	ws    []*isWorker[F]
	loops []func()
	fn    func(*isWorker[F], int)
	items int
	next  atomic.Int32
	wg    workgroup.Group
	// The helpers of a minibatch's phases (pooled while they run).
	pool   *workgroup.Pool
	pooled bool
	// The phases as func values, made once (a method value made per call
	// would allocate).
	doRefresh, doExample, doScore, doGrad, doUpdate, doBinA func(*isWorker[F], int)
	// dense: the products with the latent states are binary products of
	// all the rows at once (kern.bin set; train_is_dense.go): the examples'
	// phase is split around them (exampleItem, then the items binA, then
	// scoreItem); ∂W_l is one too (the items jobBinW). codesA[l] and
	// codesW[l] are the codes of h_l and h_lᵀ.
	dense          bool
	binA           []isJob
	codesA, codesW [][]int32
}

// isKernels are the kernels of precision F: sums of selected rows
// (package rowsum), the Bernoulli log-likelihood with σ of the logits
// (kernel.LogLik32 in float32, one float32 exp per unit; bernTerm in
// float64) and the transpose of a block.
type isKernels[F kernel.Float] struct {
	addRows       func(dst, w []F, idx []int32)
	addRowsStride func(dst, w []F, stride int, idx []int32)
	logLik        func(p, a, x []F) float64
	transpose     func(dst []F, ldd int, src []F, lds, r, c int)
	weigh         func(p, h, e []F, w F)
	round         func(dst []F, src []float64)
	widen         func(dst []float64, src []F, a float64)
	// bin, codes and codesT (float32 only; nil in float64, which keeps its row
	// sums) are kernel.BinMul32, BinCodes32 and BinCodesT32: the products with
	// the latent states, about half on, as binary products of all the
	// rows at once (train_is_dense.go).
	bin    func(op kernel.GemmOp, M, j0, j1, K int, codes []int32, b []F, ldb int, c []F, ldc int, scratch []F)
	codes  func(codes []int32, m, K int, a []F)
	codesT func(codes []int32, m0, m1, K int, a []F, lda int)
}

// kernelsOf returns the kernels of F.
func kernelsOf[F kernel.Float]() isKernels[F] {
	var k any
	switch kernel.Of[F]() {
	case kernel.Float32:
		k = isKernels[float32]{kernel.AddRows32, kernel.AddRowsStride32, kernel.LogLik32, kernel.Transpose32, kernel.Weigh32, kernel.Round32, kernel.Widen32, kernel.BinMul32, kernel.BinCodes32, kernel.BinCodesT32}
	default:
		k = isKernels[float64]{kernel.AddRows, kernel.AddRowsStride, logLik64, kernel.Transpose64, weigh[float64], convert[float64], widen64, nil, nil, nil}
	}
	return k.(isKernels[F])
}

// logLik64 is kernel.LogLik32 in float64: p_j = σ(a_j) and the sum of
// x_j a_j − softplus(a_j) (bernTerm's, added in order).
func logLik64(p, a, x []float64) float64 {
	p, x = p[:len(a)], x[:len(a)]
	lp := 0.0
	for j, aj := range a {
		t, sig := bernTerm(x[j], aj)
		lp += t
		p[j] = sig
	}
	return lp
}

// isJob is an item of the refresh or gradient phase: rows (units) lo…hi−1
// of a block of layer l (for ∂b_l, its entries c0…c1−1).
type isJob struct {
	kind   uint8
	l      int
	lo, hi int
	c0, c1 int
}

const (
	jobWR     = iota // refresh rows i of W_l (into W_lᵀ's columns) and of R_l (units i of layer l−1)
	jobSmall         // refresh the biases, S_lᵀ and T_lᵀ
	jobGradW         // ∂W_l for units j of layer l
	jobGradS         // ∂S_l for units k of layer l
	jobGradB         // ∂b_l
	jobGradR         // ∂R_l for units i of layer l−1
	jobGradC         // ∂c_l
	jobGradT         // ∂T_l for units k of layer l
	jobTheta         // the update of θ[lo:hi]
	jobPhi           // the update of φ[lo:hi]
	jobBinW          // ∂W_l for every unit of layer l, its columns c0…c1−1 (a binary product)
	jobBinA          // columns c0…c1−1 of the generative products h_{l+1}·W_{l+1}ᵀ (a binary product)
	jobCodesW        // the codes of units lo…hi−1 of h_lᵀ
)

// isWorker is one goroutine's scratch.
type isWorker[F kernel.Float] struct {
	src  rand.PCG
	rng  *rand.Rand
	act  []F
	qb   []F
	pq   []F
	sum  []F
	sumW []F       // jobUnits × max n_l
	conv []F       // refreshRows × max n_l
	cols [][]int32 // jobUnits lists of rows
	gw   []F       // max n_l × binCols: a block of ∂W_lᵀ
	gt   []F       // binCols × max n_l: gw transposed
	bin  []F       // kernel.BinMul32's scratch
}

// jobUnits is the number of units per gradient item and refreshRows the
// number of rows of W_l and R_l per refresh item. An item of ∂W_l sums the
// δ rows by blocks of colBlock columns (BatchSize × Samples rows of
// colBlock float32, 256 KB by default, stay in a core's L2 cache while the
// item's units select from them).
const jobUnits, refreshRows, colBlock = 8, 32, 128

// updBlock is the number of parameters per update item (a fixed number:
// the noise streams are keyed by block).
const updBlock = 4096

func newISEngine[F kernel.Float](t *Trainer) *isEngine[F] {
	n, o := t.net, t.opt
	L, S, B := n.Layers(), o.Samples, o.BatchSize
	rows := B * S
	f := &isEngine[F]{sizes: n.Sizes, L: L, S: S, ar: n.AR(), t: t, kern: kernelsOf[F]()}
	mk := func(m int) []F { return make([]F, m) }
	per := func() [][]F { return make([][]F, L+1) }
	f.wt, f.b, f.st, f.r, f.c, f.tt = per(), per(), per(), per(), per(), per()
	f.h, f.a, f.q = per(), per(), per()
	f.on, f.non = make([][]int32, L+1), make([][]int32, L+1)
	maxN := 0
	for l, k := range n.Sizes {
		maxN = max(maxN, k)
		f.b[l] = mk(k)
		f.a[l] = mk(rows * k)
		if f.ar {
			f.st[l] = mk(k * k)
		}
		if l == 0 {
			continue
		}
		f.wt[l], f.r[l], f.c[l] = mk(len(n.W[l])), mk(len(n.W[l])), mk(k)
		if f.ar {
			f.tt[l] = mk(k * k)
		}
		f.h[l], f.q[l] = mk(rows*k), mk(rows*k)
		f.on[l], f.non[l] = make([]int32, rows*k), make([]int32, rows)
	}
	f.x, f.xon, f.nxon = mk(B*n.Sizes[0]), make([]int32, B*n.Sizes[0]), make([]int32, B)
	f.lw, f.e1, f.signal = make([]float64, rows), mk(B*n.Sizes[1]), make([]float64, B)
	f.xcols = make([][]int32, n.Sizes[0])
	for i := range f.xcols {
		f.xcols[i] = make([]int32, 0, B)
	}
	f.zero = mk(maxN)
	f.all = make([]int32, max(rows, B))
	for i := range f.all {
		f.all[i] = int32(i)
	}
	f.offsets(n)
	units := func(kind uint8, l, m int, into *[]isJob) {
		for lo := 0; lo < m; lo += jobUnits {
			*into = append(*into, isJob{kind: kind, l: l, lo: lo, hi: min(lo+jobUnits, m)})
		}
	}
	for l := 1; l <= L; l++ {
		for lo := 0; lo < n.Sizes[l-1]; lo += refreshRows {
			f.refresh = append(f.refresh, isJob{kind: jobWR, l: l, lo: lo, hi: min(lo+refreshRows, n.Sizes[l-1])})
		}
	}
	f.refresh = append(f.refresh, isJob{kind: jobSmall})
	// The big items first, so that the last ones are short.
	f.dense = f.kern.bin != nil
	if f.dense {
		f.codesA, f.codesW = make([][]int32, L+1), make([][]int32, L+1)
		for l := 1; l <= L; l++ {
			f.codesA[l] = make([]int32, kernel.BinCodes32Len(rows, n.Sizes[l]))
			f.codesW[l] = make([]int32, kernel.BinCodes32Len(n.Sizes[l], rows))
		}
	}
	for l := 1; l <= L; l++ {
		if f.dense {
			f.binJobs(l)
			continue
		}
		units(jobGradW, l, n.Sizes[l], &f.grads)
	}
	for l := 0; l <= L; l++ {
		for c0 := 0; c0 < n.Sizes[l]; c0 += colBlock {
			f.grads = append(f.grads, isJob{kind: jobGradB, l: l, c0: c0, c1: min(c0+colBlock, n.Sizes[l])})
		}
		if f.ar {
			units(jobGradS, l, n.Sizes[l], &f.grads)
		}
	}
	for l := 1; l <= L; l++ {
		units(jobGradR, l, n.Sizes[l-1], &f.grads)
		f.grads = append(f.grads, isJob{kind: jobGradC, l: l})
		if f.ar {
			units(jobGradT, l, n.Sizes[l], &f.grads)
		}
	}
	for lo := 0; lo < len(t.theta); lo += updBlock {
		f.updates = append(f.updates, isJob{kind: jobTheta, lo: lo, hi: min(lo+updBlock, len(t.theta))})
	}
	f.kin = make([]float64, len(f.updates))
	for lo := 0; lo < len(t.phi); lo += updBlock {
		f.updates = append(f.updates, isJob{kind: jobPhi, lo: lo, hi: min(lo+updBlock, len(t.phi))})
	}
	f.doRefresh, f.doExample, f.doScore, f.doGrad, f.doUpdate, f.doBinA = f.refreshItem, f.exampleItem, f.scoreItem, f.gradItem, f.updateItem, f.binAItem
	return f
}

// offsets finds each block's place in the flat vectors (the order of
// paramSlices and recSlices).
func (f *isEngine[F]) offsets(n *Net) {
	L := n.Layers()
	f.offB, f.offW, f.offS = make([]int, L+1), make([]int, L+1), make([]int, L+1)
	f.offR, f.offC, f.offT = make([]int, L+1), make([]int, L+1), make([]int, L+1)
	o := 0
	for l := 0; l <= L; l++ {
		f.offB[l], o = o, o+n.Sizes[l]
	}
	for l := 1; l <= L; l++ {
		f.offW[l], o = o, o+len(n.W[l])
	}
	for l := 0; l <= L && f.ar; l++ {
		f.offS[l], o = o, o+n.Sizes[l]*(n.Sizes[l]-1)/2
	}
	o = 0
	for l := 1; l <= L; l++ {
		f.offR[l], o = o, o+len(n.W[l])
		f.offC[l], o = o, o+n.Sizes[l]
	}
	for l := 1; l <= L && f.ar; l++ {
		f.offT[l], o = o, o+n.Sizes[l]*(n.Sizes[l]-1)/2
	}
}

// parallel runs fn on items 0 … items−1 with the given number of
// goroutines (the caller is one of them): on the pool's helpers while one
// runs with workers − 1 of them (a minibatch), otherwise on goroutines
// started for this phase.
func (f *isEngine[F]) parallel(workers, items int, fn func(*isWorker[F], int)) {
	if p := f.pool; f.pooled && p.Helpers() == workers-1 {
		f.fn, f.items = fn, items
		f.next.Store(0)
		p.Phase(f.loops[0])
		return
	}
	workers = max(1, min(workers, items))
	f.grow(workers)
	f.fn, f.items = fn, items
	f.next.Store(0)
	for i := 1; i < workers; i++ {
		f.wg.Go(f.loops[i])
	}
	f.loops[0]()
	f.wg.Wait()
}

// grow makes the scratch and the item loops of workers goroutines.
func (f *isEngine[F]) grow(workers int) {
	for len(f.ws) < workers {
		n := f.t.net
		m := 0
		for _, k := range n.Sizes {
			m = max(m, k)
		}
		w := &isWorker[F]{act: make([]F, m), qb: make([]F, n.Sizes[1]), pq: make([]F, n.Sizes[1]),
			sum: make([]F, m), sumW: make([]F, jobUnits*m), conv: make([]F, refreshRows*m), cols: make([][]int32, jobUnits)}
		if f.dense {
			w.gw, w.gt, w.bin = make([]F, m*binCols), make([]F, m*binCols), make([]F, kernel.BinScratch32)
		}
		for i := range w.cols {
			w.cols[i] = make([]int32, 0, len(f.all))
		}
		w.rng = rand.New(&w.src)
		f.ws = append(f.ws, w)
		f.loops = append(f.loops, func() {
			for {
				k := int(f.next.Add(1)) - 1
				if k >= f.items {
					return
				}
				f.fn(w, k)
			}
		})
	}
}

// startPool starts a pool of workers − 1 helpers for a minibatch's phases
// (none for one worker, nor for more workers than GOMAXPROCS: a goroutine
// waiting busily would hold a processor another needs); stopPool stops it.
func (f *isEngine[F]) startPool(workers int) {
	if workers < 2 || workers > runtime.GOMAXPROCS(0) {
		return
	}
	f.grow(workers)
	if f.pool == nil || f.pool.Helpers() != workers-1 {
		f.pool = workgroup.NewPool(workers-1, func(i int) { f.loops[i+1]() })
	}
	f.pool.Start()
	f.pooled = true
}

func (f *isEngine[F]) stopPool() {
	if f.pooled {
		f.pooled = false
		f.pool.Close()
	}
}

// minibatch runs the steps of minibatch b of epoch on the examples idx
// (gradients scaled by scale = N/|B|) and returns the sum of its examples'
// signal at the last step.
func (f *isEngine[F]) minibatch(idx []int, scale float64, workers, epoch, b int) float64 {
	t := f.t
	f.epoch, f.batch = epoch, b
	f.startPool(workers)
	defer f.stopPool() // after a panic
	for step := range t.opt.Steps {
		t.cur.step = step
		f.gradients(idx, scale, workers)
		f.update(step, workers)
	}
	f.stopPool()
	scatter(t.theta, t.gen, t.genTri)
	scatter(t.phi, t.rec, t.recTri)
	return f.signalSum()
}

// gradients computes the gradients of one dynamics step on the examples
// idx into t.grad (−scale·Σ, without the prior) and t.gradPhi (Σ).
// At steps after the first (t.cur.step > 0) idx must be the minibatch's
// examples of step 0: x, its on-lists and its column lists are kept from
// there.
func (f *isEngine[F]) gradients(idx []int, scale float64, workers int) {
	f.idx, f.nb, f.scale = idx, len(idx), scale
	f.parallel(workers, len(f.refresh), f.doRefresh)
	f.parallel(workers, len(idx), f.doExample)
	if f.dense {
		f.parallel(workers, len(f.binA), f.doBinA)
	}
	f.parallel(workers, len(idx), f.doScore)
	f.parallel(workers, len(f.grads), f.doGrad)
}

// update takes the step's dynamics step on θ (with the prior) and Adam's
// step on φ (an ascent on J(φ): a descent on −(1/|B|) gradPhi).
func (f *isEngine[F]) update(step, workers int) {
	t := f.t
	f.now = step
	t.dyn.begin()
	t.recAdam.T++
	f.parallel(workers, len(f.updates), f.doUpdate)
	kin := 0.0
	for _, k := range f.kin {
		kin += k
	}
	t.dyn.finish(t.theta, kin)
}

func (f *isEngine[F]) updateItem(w *isWorker[F], item int) {
	t := f.t
	j := f.updates[item]
	if j.kind == jobPhi {
		t.recAdam.StepRange(t.phi, t.gradPhi, -1/float64(f.nb), j.lo, j.hi)
		return
	}
	seed := seeds.Derive(t.opt.Seed, keyNoise, uint64(f.epoch), uint64(f.batch), uint64(f.now), uint64(item))
	if t.dyn.method == "sghmc" && t.prior.Kind == "student-t" {
		sghmcStudentT(t.dyn, t.prior, t.theta, t.grad, seed, 0, j.lo, j.hi)
		f.kin[item] = 0
		return
	}
	w.src.Seed(seed, 0)
	t.prior.AddGradU(t.theta[j.lo:j.hi], t.grad[j.lo:j.hi])
	f.kin[item] = t.dyn.stepRange(t.theta, t.grad, w.rng, j.lo, j.hi)
}

// signalSum is the sum over the minibatch's examples of the IS bound at
// the last step.
func (f *isEngine[F]) signalSum() float64 {
	s := 0.0
	for _, v := range f.signal[:f.nb] {
		s += v
	}
	return s
}

func (f *isEngine[F]) refreshItem(w *isWorker[F], item int) {
	j := f.refresh[item]
	t := f.t
	n := t.net
	switch j.kind {
	case jobWR: // rows lo…hi−1 of W_l (n_{l−1} × n_l) are columns of W_lᵀ
		rows, cols := n.Sizes[j.l-1], n.Sizes[j.l]
		wc := w.conv[:(j.hi-j.lo)*cols]
		ow, or := f.offW[j.l]+j.lo*cols, f.offR[j.l]+j.lo*cols
		f.kern.round(wc, t.theta[ow:ow+len(wc)])
		f.kern.transpose(f.wt[j.l][j.lo:], rows, wc, cols, j.hi-j.lo, cols)
		f.kern.round(f.r[j.l][j.lo*cols:j.hi*cols], t.phi[or:or+len(wc)])
	case jobSmall:
		for l, k := range n.Sizes {
			f.kern.round(f.b[l], t.theta[f.offB[l]:f.offB[l]+k])
			if l > 0 {
				f.kern.round(f.c[l], t.phi[f.offC[l]:f.offC[l]+k])
			}
			if f.ar {
				lowerT(f.st[l], t.theta[f.offS[l]:], k)
				if l > 0 {
					lowerT(f.tt[l], t.phi[f.offT[l]:], k)
				}
			}
		}
	}
}

// widen64 is kernel.Widen32 in float64: dst_i = a·src_i.
func widen64(dst, src []float64, a float64) {
	dst = dst[:len(src)]
	for i, v := range src {
		dst[i] = a * v
	}
}

// convert sets dst to src rounded to F (the float64 engine's round;
// kernel.Round32 in float32).
func convert[F kernel.Float](dst []F, src []float64) {
	dst = dst[:len(src)]
	for i, v := range src {
		dst[i] = F(v)
	}
}

// lowerT writes into the k×k dst the transpose of the strictly lower
// triangular matrix whose free entries (row by row, as gather packs them)
// begin packed: dst[j·k + i] = s[i,j] for j < i (dst's other entries stay
// zero).
func lowerT[F kernel.Float](dst []F, packed []float64, k int) {
	o := 0
	for i := 1; i < k; i++ {
		for j, v := range packed[o : o+i] {
			dst[j*k+i] = F(v)
		}
		o += i
	}
}

// onRow is the on-list of row r of latent layer l.
func (f *isEngine[F]) onRow(l, r int) []int32 {
	k := f.sizes[l]
	return f.on[l][r*k : r*k+int(f.non[l][r])]
}

// draw sets h_j = 1 with probability p_j (a 24-bit uniform below p_j; two
// per 64-bit draw) and returns the on-list (on has room for len(p)), with
// no branch on the outcome. The generator is math/rand/v2's PCG held by
// value (pcg), its state in registers for the row.
func draw[F kernel.Float](src *pcg, p, h []F, on []int32) []int32 {
	st := *src // in registers
	h, on = h[:len(p)], on[:len(p)]
	n := 0
	var u uint64
	for j, pj := range p {
		if j&1 == 0 {
			st, u = st.next()
		} else {
			u <<= 24
		}
		v := 0
		if F(u>>40)*0x1p-24 < pj {
			v = 1
		}
		h[j] = F(v)
		on[n] = int32(j)
		n += v
	}
	*src = st
	return on[:n]
}

// drawAR draws an autoregressive layer in raster order: act holds the
// input from below and, as units turn on, receives their rows of tt (row
// m holds T[j, m] for every j, zero for j ≤ m), ending as the full
// activations.
func drawAR[F kernel.Float](rng *pcg, act, tt, h []F, on []int32) []int32 {
	on = on[:0]
	k := len(act)
	var u uint64
	for j := range act {
		if j&1 == 0 {
			u = rng.Uint64()
		} else {
			u <<= 24
		}
		if float64(u>>40)*0x1p-24 < nmath.Sigmoid(float64(act[j])) {
			h[j] = 1
			on = append(on, int32(j))
			row := tt[j*k : (j+1)*k]
			for i := j + 1; i < k; i++ {
				act[i] += row[i]
			}
		} else {
			h[j] = 0
		}
	}
	return on
}

// exampleItem draws the S proposals of example k of the minibatch and
// sets their log-weights to −log Q(h | x) (scoreItem adds log p(x, h)).
func (f *isEngine[F]) exampleItem(w *isWorker[F], k int) {
	t := f.t
	c := &t.cur
	row := f.idx[k]
	rng := pcg{seeds.Derive(t.opt.Seed, keyExample, uint64(c.epoch), uint64(c.batch), uint64(c.step), uint64(row)), 0}
	n0, n1, S := f.sizes[0], f.sizes[1], f.S
	x := f.x[k*n0 : (k+1)*n0]
	xon := f.xon[k*n0 : k*n0 : (k+1)*n0]
	if c.step == 0 { // x and its on-list serve the minibatch's steps
		for i, v := range c.data.Row(row) {
			x[i] = F(v)
			if v != 0 {
				xon = append(xon, int32(i))
			}
		}
		f.nxon[k] = int32(len(xon))
	}
	xon = xon[:f.nxon[k]]
	// Q(h_1 | x)'s input c_1 + R_1ᵀx is the same for the S proposals.
	qb := w.qb
	copy(qb, f.c[1])
	f.kern.addRows(qb, f.r[1], xon)
	var s0 float64 // −Σ softplus(q_1) (no T)
	if !f.ar {
		s0 = f.kern.logLik(w.pq, qb, f.zero[:n1])
	}
	for s := range S {
		r := k*S + s
		lq := 0.0
		for l := 1; l <= f.L; l++ {
			nl := f.sizes[l]
			hl, ql := f.h[l][r*nl:(r+1)*nl], f.q[l][r*nl:(r+1)*nl]
			onl := f.on[l][r*nl : r*nl : (r+1)*nl]
			act := w.act[:nl]
			if l == 1 {
				copy(act, qb)
			} else {
				copy(act, f.c[l])
				f.kern.addRows(act, f.r[l], f.onRow(l-1, r))
			}
			if f.ar {
				onl = drawAR(&rng, act, f.tt[l], hl, onl)
				lq += f.kern.logLik(ql, act, hl)
			} else {
				sl := s0
				if l == 1 {
					copy(ql, w.pq)
				} else {
					sl = f.kern.logLik(ql, act, f.zero[:nl])
				}
				onl = draw(&rng, ql, hl, onl)
				for _, j := range onl {
					sl += float64(act[j])
				}
				lq += sl
			}
			f.non[l][r] = int32(len(onl))
			if f.dense {
				f.kern.codes(f.codesA[l], r, nl, hl)
			}
		}
		f.lw[r] = -lq
	}
}

// scoreItem adds log p(x, h_r) to the log-weights of example k's rows r
// and fills its rows of δ, ε and e1. With dense, f.a[l] (l < L) holds the
// products h_{l+1}·W_{l+1}ᵀ (the items binA).
func (f *isEngine[F]) scoreItem(w *isWorker[F], k int) {
	t := f.t
	c := &t.cur
	n0, n1, S := f.sizes[0], f.sizes[1], f.S
	x := f.x[k*n0 : (k+1)*n0]
	xon := f.xon[k*n0 : k*n0+int(f.nxon[k])]
	for s := range S {
		r := k*S + s
		lp := 0.0
		for l := 0; l <= f.L; l++ {
			nl := f.sizes[l]
			act := w.act[:nl]
			switch {
			case f.dense && l < f.L:
				copy(act, f.a[l][r*nl:(r+1)*nl]) // h_{l+1}·W_{l+1}ᵀ, then + b_l
				f.kern.addRows(act, f.b[l], f.all[:1])
			case l < f.L:
				copy(act, f.b[l])
				f.kern.addRows(act, f.wt[l+1], f.onRow(l+1, r))
			default:
				copy(act, f.b[l])
			}
			hl, onl := x, xon
			if l > 0 {
				hl, onl = f.h[l][r*nl:(r+1)*nl], f.onRow(l, r)
			}
			if f.ar {
				f.kern.addRows(act, f.st[l], onl)
			}
			lp += f.kern.logLik(f.a[l][r*nl:(r+1)*nl], act, hl)
		}
		f.lw[r] += lp // = lp − lq, the same bits
	}
	lw := f.lw[k*S : (k+1)*S]
	lse := nmath.LogSumExp(lw)
	e1 := f.e1[k*n1 : (k+1)*n1]
	clear(e1)
	for s := range S {
		r := k*S + s
		wr := F(math.Exp(lw[s] - lse))
		for l := 0; l <= f.L; l++ {
			nl := f.sizes[l]
			hl := x
			if l > 0 {
				hl = f.h[l][r*nl : (r+1)*nl]
				var e []F // ε_1's rows are summed into e1 as they are made
				if l == 1 {
					e = e1
				}
				f.kern.weigh(f.q[l][r*nl:(r+1)*nl], hl, e, wr)
			}
			f.kern.weigh(f.a[l][r*nl:(r+1)*nl], hl, nil, wr)
		}
	}
	if c.step == t.opt.Steps-1 {
		f.signal[k] = lse - math.Log(float64(S))
	}
}

// weigh sets p_i = w·(h_i − p_i) and, with e non-nil, adds it to e_i
// (kernel.Weigh32 in F).
func weigh[F kernel.Float](p, h, e []F, w F) {
	h = h[:len(p)]
	if e == nil {
		for i, v := range p {
			p[i] = w * (h[i] - v)
		}
		return
	}
	e = e[:len(p)]
	for i, v := range p {
		u := w * (h[i] - v)
		p[i] = u
		e[i] += u
	}
}

// gradItem sums the rows of one gradient block and writes it into the
// trainer's flat gradients.
func (f *isEngine[F]) gradItem(w *isWorker[F], item int) {
	j := f.grads[item]
	t := f.t
	R := f.nb * f.S
	l := j.l
	switch j.kind {
	case jobBinW:
		f.binWItem(w, j)
	case jobGradW: // ∂W_l[i,u] = Σ_{r: h_{l,r,u}=1} δ_{l−1,r,i}
		m, k := f.sizes[l-1], f.sizes[l]
		g := t.grad[f.offW[l]:]
		cols := f.columns(w, l, j.lo, j.hi, R)
		sums := w.sumW[:len(cols)*m]
		clear(sums)
		for c0 := 0; c0 < m; c0 += colBlock {
			c1 := min(c0+colBlock, m)
			for u, rows := range cols {
				f.kern.addRowsStride(sums[u*m+c0:u*m+c1], f.a[l-1][c0:R*m], m, rows)
			}
		}
		// Row i of ∂W_l holds the item's units side by side: write them
		// together, one cache line per row.
		nu := len(cols)
		for i := range m {
			gi := g[i*k+j.lo : i*k+j.lo+nu]
			for u := range gi {
				gi[u] = -f.scale * float64(sums[u*m+i])
			}
		}
	case jobGradS, jobGradT: // ∂S_l[i,u] (i > u) = Σ_{r: h_{l,r,u}=1} δ_{l,r,i}; ∂T_l the same of ε
		k := f.sizes[l]
		mat, g, scale := f.a[l], t.grad[f.offS[l]:], -f.scale
		if j.kind == jobGradT {
			mat, g, scale = f.q[l], t.gradPhi[f.offT[l]:], 1
		}
		cols := f.columns(w, l, j.lo, j.hi, R)
		for u := j.lo; u < j.hi; u++ {
			sum := f.rowSum(w, k, mat[:R*k], cols[u-j.lo])
			for i := u + 1; i < k; i++ {
				g[i*(i-1)/2+u] = scale * float64(sum[i])
			}
		}
	case jobGradB: // columns [c0, c1) of Σ_r δ_{l,r}
		k := f.sizes[l]
		sum := w.sum[:j.c1-j.c0]
		clear(sum)
		f.kern.addRowsStride(sum, f.a[l][j.c0:R*k], k, f.all[:R])
		f.kern.widen(t.grad[f.offB[l]+j.c0:f.offB[l]+j.c1], sum, -f.scale)
	case jobGradR: // ∂R_l[i,u] = Σ_{r: h_{l−1,r,i}=1} ε_{l,r,u}
		k := f.sizes[l]
		g := t.gradPhi[f.offR[l]:]
		var cols [][]int32
		if l == 1 { // h_0 = x is shared by an example's rows (sum e1) and by the minibatch's steps
			cols = f.xcols[j.lo:j.hi]
			if t.cur.step == 0 {
				f.columnsTo(cols, 0, j.lo, j.hi, f.nb)
			}
		} else {
			cols = f.columns(w, l-1, j.lo, j.hi, R)
		}
		for i := j.lo; i < j.hi; i++ {
			var sum []F
			if l == 1 {
				sum = f.rowSum(w, k, f.e1[:f.nb*k], cols[i-j.lo])
			} else {
				sum = f.rowSum(w, k, f.q[l][:R*k], cols[i-j.lo])
			}
			f.kern.widen(g[i*k:(i+1)*k], sum, 1)
		}
	case jobGradC:
		k := f.sizes[l]
		var sum []F
		if l == 1 {
			sum = f.rowSum(w, k, f.e1[:f.nb*k], f.all[:f.nb])
		} else {
			sum = f.rowSum(w, k, f.q[l][:R*k], f.all[:R])
		}
		f.kern.widen(t.gradPhi[f.offC[l]:f.offC[l]+k], sum, 1)
	}
}

// rowSum returns, in the worker's scratch, the sum of the rows idx of the
// row-major mat whose rows have k entries.
func (f *isEngine[F]) rowSum(w *isWorker[F], k int, mat []F, idx []int32) []F {
	dst := w.sum[:k]
	clear(dst)
	f.kern.addRows(dst, mat, idx)
	return dst
}

// columns lists, for each unit u = lo … hi−1 of layer l, the rows (among
// the first R) where it is at 1, in one pass over the rows; for l = 0 (the
// examples' x), the examples (R = the minibatch's size) or each example's
// S rows.
func (f *isEngine[F]) columns(w *isWorker[F], l, lo, hi, R int) [][]int32 {
	return f.columnsTo(w.cols[:hi-lo], l, lo, hi, R)
}

// columnsTo is columns into cols (hi − lo lists with room for R rows).
func (f *isEngine[F]) columnsTo(cols [][]int32, l, lo, hi, R int) [][]int32 {
	for i := range cols {
		cols[i] = cols[i][:0]
	}
	if hi-lo == jobUnits && (l > 0 || R == f.nb) {
		mat, k := f.x, f.sizes[0]
		if l > 0 {
			mat, k = f.h[l], f.sizes[l]
		}
		columns8(mat, k, lo, R, cols)
		return cols
	}
	if l == 0 {
		n0 := f.sizes[0]
		for k := range f.nb {
			for i, v := range f.x[k*n0+lo : k*n0+hi] {
				if v == 0 {
					continue
				}
				if R == f.nb {
					cols[i] = append(cols[i], int32(k))
					continue
				}
				for s := range f.S {
					cols[i] = append(cols[i], int32(k*f.S+s))
				}
			}
		}
		return cols
	}
	// Every row is written at its list's end, which advances when the
	// unit is at 1: no branch on the states.
	var cnt [jobUnits]int
	k := f.sizes[l]
	h := f.h[l]
	for i := range cols {
		cols[i] = cols[i][:R]
	}
	for r := range R {
		for i, v := range h[r*k+lo : r*k+hi] {
			cols[i][cnt[i]] = int32(r)
			b := 0
			if v != 0 {
				b = 1
			}
			cnt[i] += b
		}
	}
	for i := range cols {
		cols[i] = cols[i][:cnt[i]]
	}
	return cols
}

// isSampler is the adaptive importance sampler of either precision
// (isEngine[float32] or isEngine[float64]).
type isSampler interface {
	minibatch(idx []int, scale float64, workers, epoch, b int) float64
}
