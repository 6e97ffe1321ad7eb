package train

import (
	"math"
	"runtime"
	"sync/atomic"

	"github.com/logz-ml/logz/internal/kernel"
	"github.com/logz-ml/logz/internal/mlp"
	"github.com/logz-ml/logz/internal/nmath"
	"github.com/logz-ml/logz/internal/optim"
	"github.com/logz-ml/logz/internal/seeds"
	"github.com/logz-ml/logz/internal/workgroup"
	"github.com/logz-ml/logz/models"
)

// vaeEngine is the VAE trainer's gradient (VAETrainer.Gradient), generic
// over the precision F of its products and activations: the estimate of
// the type's doc batched over the minibatch so that every layer is one
// matrix product, with the log-probabilities, the learning signal, the
// prior and the gradients handed to Adam in float64. The parameters and
// Adam stay float64 (but the float32 engine's fused Adam step keeps the
// nets' weights float32 values: vae_adam32.go); every step copies them to
// F (with Wᵀ for backpropagation) first. In float32 the products are gemm.Cols32 and σ,
// tanh = 2σ(2·) − 1 and the Bernoulli log-probabilities package
// logistic's; in float64 gemm.Cols and the float64 functions of the
// models' nets (vae_kern.go).
//
// Layer l of a net maps u_l (rows × n_l) to u_{l+1} = tanh(u_l W_l + b_l)
// (the last layer linear). The first layer's input is binary (the data x
// for the encoder and the baseline, the draws z for the decoder), so u_1 is
// b_1 plus the rows of W_1 that the row's on-units select (package rowsum),
// and its gradient Σ_r x_{r,i} δ_{1,r} a sum of the δ rows whose input i is
// on; the other layers are dense products: u_l W_l forward, u_lᵀ δ_l for
// ∂W_l and δ_l W_lᵀ for δ_{l−1}. In float32 the decoder's first layer and
// its ∂W_0 are dense products too (z as 0/1 rows) in a step whose draws
// are dense enough (zDenseMin).
//
// A step runs as phases, each a list of jobs that write disjoint outputs
// (column blocks of a product, blocks of rows, fixed chunks of examples),
// so nothing depends on the number of workers; the per-chunk sums (the
// signal's moments, the prior's gradient) are added in chunk order. An
// example's draws come from its own stream, keyed by (epoch, minibatch,
// position).
type vaeEngine[F kernel.Float] struct {
	enc, dec, base *bnet[F]
	X, Z, S        int
	nb, rows       int // examples and rows (examples × Samples) of the step
	capB           int // the most examples the buffers hold
	// The step's binary inputs: x as float32 rows (nb × X), the on-units
	// of each example (xOn, X entries reserved per example, xN the count:
	// xOnOf) and the examples of each
	// pixel (xCol[xcOff[i]:xcOff[i+1]]); likewise the draws z (zs,
	// rows × Z) with their on-lists per row (zOn, Z entries reserved per
	// row, zN the count) and per latent (zCol, zcOff).
	xf        []F
	xOn, xCol []int32
	xN        []int32
	xcOff     []int
	idx       []int // the step's examples while prepare reads them
	zs        []uint8
	zOn, zCol []int32
	zN        []int32
	zcOff     []int
	zf, pf    []F // per chunk of examples: a draw z as 0/1 (Z), scratch (Z)
	// zDense: this step's decoder first layer and its ∂W_0 are dense
	// products on the draws as 0/1 rows zd (rows × Z, dec.in) and their
	// transpose (dec.inT), not row sums (denseZ). deferZ: the decoder's
	// first layer runs after the draws, as a phase (float32 without
	// auxiliary variables), not in each draw's finishDraw.
	zDense, deferZ bool
	zd             []F
	pq             []F       // rows × Z: σ(κ) of the row's example, then z − σ(κ)
	lq, lp, lb     []float64 // per row: log q(z|x), log p̃(z); per example: b(x)
	sumSP          float64   // Bernoulli prior: Σ_j softplus(λ_j)
	phase          []vjob[F]
	next           atomic.Int64
	wg             workgroup.Group
	works          []func() // worker(w) for each worker w
	procs          int      // the step's workers: Workers, at most GOMAXPROCS
	// pool: helpers that run workers 1…procs−1's shares of the step's
	// phases (startPool), instead of a goroutine started per phase.
	pool   *workgroup.Pool
	pooled bool
	// scratch is each worker's float64 gradient of a block of parameters
	// (fused: handed to Adam at once instead of stored whole).
	scratch [][]float64
	// bad[w]: worker w met a parameter that is not finite or exceeds
	// models.MaxAbsParam as it updated it (fused).
	bad []bool
	// fused: the step's Adam updates of the nets run in the gradient's jobs
	// (Step); otherwise the gradient is stored whole (Gradient).
	fused bool
	// fresh: the last step was fused and left the F copies (w, b) of the
	// updated parameters, so the next needs no copying (only Wᵀ). Whoever
	// changes the nets' parameters otherwise drops the engine
	// (VAETrainer.InitParams, Resume).
	fresh bool
	t     *VAETrainer
	jobs  []vjob[F]        // the phases' job lists (kept to avoid allocating)
	aux   *vaeEngineAux[F] // auxiliary variables (nil without)
}

// bnet holds the F copies and the batch buffers of one mlp.Net.
// Layer l maps n_l = sizes[l] units to n_{l+1}; rows of its outputs are
// padded to pad[l] = n_{l+1} rounded up to 16 (the product kernel's
// strip), and the padding columns of w stay 0.
type bnet[F kernel.Float] struct {
	net   *mlp.Net
	sizes []int
	pad   []int
	off   []int // offset of W_l in the flat parameters (b_l follows)
	w     [][]F // W_l, n_l × pad[l]
	wt    [][]F // l ≥ 1: W_lᵀ, n_{l+1} × pad[l−1]
	b     [][]F
	act   [][]F // rows × pad[l]: u_{l+1} (tanh) or the output
	at    [][]F // l < L−1: act[l]ᵀ, n_{l+1} × rows
	dl    [][]F // rows × pad[l]: δ_{l+1}
	gw    [][]F // n_l × pad[l]: the float32 ∂W_l (layer 0: n_0 × n_1)
	// A net with a real-valued input (dense; the auxiliary net Enc on a):
	// the input in (rows × n_0), its transpose inT, ∂/∂input din (rows ×
	// pad16(n_0)) and wt[0] = W_0ᵀ (n_1 × pad16(n_0)).
	dense   bool
	in, inT []F
	din     []F
}

func pad16(n int) int { return (n + 15) &^ 15 }

func newBNet[F kernel.Float](n *mlp.Net, rows int) *bnet[F] {
	s := n.Sizes()
	L := len(s) - 1
	c := &bnet[F]{net: n, sizes: s, pad: make([]int, L), off: make([]int, L),
		w: make([][]F, L), wt: make([][]F, L), b: make([][]F, L),
		act: make([][]F, L), at: make([][]F, L), dl: make([][]F, L), gw: make([][]F, L)}
	o := 0
	for l := range L {
		c.pad[l] = pad16(s[l+1])
		c.off[l] = o
		o += (s[l] + 1) * s[l+1]
		c.w[l] = make([]F, s[l]*c.pad[l])
		if l > 0 {
			c.wt[l] = make([]F, s[l+1]*c.pad[l-1])
		}
		c.b[l] = make([]F, s[l+1])
		c.act[l] = make([]F, rows*c.pad[l])
		if l < L-1 {
			c.at[l] = make([]F, s[l+1]*rows)
		}
		c.dl[l] = make([]F, rows*c.pad[l])
		c.gw[l] = make([]F, s[l]*c.pad[l])
	}
	return c
}

// Job kinds of a phase.
const (
	jRefreshW  = iota // rows lo…hi of w[l] and b[l] from the float64 net
	jRefreshWT        // columns lo…hi of wt[l] from rows lo…hi of w[l]
	jFirst            // first layer, rows lo…hi, columns c0…c1 (binary input)
	jDense            // act[l] = act[l−1] W_l, columns lo…hi
	jTranspose        // at[l] from act[l]
	jGradDense        // ∂W_l = act[l−1]ᵀ δ_l, rows lo…hi (and Adam, fused)
	jBiasDense        // ∂b_l (and Adam, fused)
	jDelta            // δ_l = (δ_{l+1} W_{l+1}ᵀ) ⊙ (1 − u²), columns lo…hi
	jGradFirst        // ∂W_0 rows lo…hi (input units) by row sums
	jFirstZ           // the decoder's first layer by row sums, rows lo…hi (deferZ)
	jBiasFirst        // ∂b_0
	jPrepare          // x and the on-lists of examples lo…hi (prepare)
	jSample           // the draws of a chunk of examples (task)
	jSignal           // log p(x|z), f, the signal and δ_L of a chunk (task)
	jPrior            // a χ² draws or chains task of the prior
	// Auxiliary variables (vae_engine_aux.go).
	jTransposeIn // inT from in (dense-input net)
	jDeltaIn     // din = δ_0 W_0ᵀ, columns lo…hi (dense-input net)
	jPre         // the encoder's x part W_1ᵀx + b_1, examples lo…hi
	jAuxFirst    // the encoder's first layer tanh(pre + Enc(a)), rows lo…hi
	jNoise       // ε, a, log q(a|x) and the uniforms of a chunk (task)
	jAuxQ        // ∂/∂ outputs of q(a|x) of a chunk (task)
)

type vjob[F kernel.Float] struct {
	kind   int
	n      *bnet[F]
	l      int
	lo, hi int
	c0, c1 int // jFirst: the block of columns
	task   *vaeTask
}

// colBlock is the width of a column block of a product job (two strips):
// narrow enough that a phase's jobs split evenly between two workers
// (the decoder's 784 outputs: 49 jobs, not 13).
const colBlock = 32

// newVAEEngine prepares the engine for minibatches of at most B examples.
func newVAEEngine[F kernel.Float](t *VAETrainer, B int) *vaeEngine[F] {
	m := t.M
	rows := B * t.Opt.Samples
	encRows := B
	if m.Aux != nil {
		encRows = rows // q(z|x,a): one row per draw of a
	}
	v := &vaeEngine[F]{t: t, X: m.NumVisible(), Z: m.NumLatent(), S: t.Opt.Samples, capB: B,
		enc: newBNet[F](m.Enc, encRows), dec: newBNet[F](m.Dec, rows)}
	if t.Base != nil {
		v.base = newBNet[F](t.Base, B)
	}
	v.xf = make([]F, B*v.X)
	v.xOn, v.xN, v.xcOff = make([]int32, B*v.X), make([]int32, B), make([]int, v.X+1)
	v.zs = make([]uint8, rows*v.Z)
	v.zOn, v.zCol, v.zN = make([]int32, rows*v.Z), make([]int32, rows*v.Z), make([]int32, rows)
	v.zcOff = make([]int, v.Z+1)
	v.pq = make([]F, rows*v.Z)
	v.zf, v.pf = make([]F, chunks(B, chunkSize)*v.Z), make([]F, chunks(B, chunkSize)*v.Z)
	v.lq, v.lp, v.lb = make([]float64, rows), make([]float64, rows), make([]float64, B)
	v.works = make([]func(), t.Opt.Workers)
	v.scratch = make([][]float64, t.Opt.Workers)
	v.bad = make([]bool, t.Opt.Workers)
	for w := range v.works {
		v.works[w] = func() { v.worker(w) }
	}
	if m.Aux != nil {
		v.newAux(B, rows)
	} else if is32[F]() {
		v.deferZ = true
		v.zd = make([]F, rows*v.Z)
		v.dec.in, v.dec.inT = v.zd, make([]F, v.Z*rows)
	}
	size := 0
	for _, n := range v.nets() {
		for l := range n.w {
			size = max(size, gradRows*n.sizes[l+1])
		}
	}
	for w := range v.scratch {
		v.scratch[w] = make([]float64, size)
	}
	return v
}

// copyRows sets rows lo…hi of w[l] to the net's W_l and reports whether
// they are all finite and within models.MaxAbsParam.
func (n *bnet[F]) copyRows(l, lo, hi int) bool {
	out, p := n.sizes[l+1], n.pad[l]
	W := n.net.W[l]
	var c inRange
	for i := lo; i < hi; i++ {
		copyF(&c, n.w[l][i*p:i*p+out], W[i*out:(i+1)*out])
	}
	return c.ok()
}

// copyBias sets b[l] to the net's b_l and reports as copyRows.
func (n *bnet[F]) copyBias(l int) bool {
	var c inRange
	copyF(&c, n.b[l], n.net.B[l])
	return c.ok()
}

// inRange tracks the largest magnitude and any NaN of the values copied.
type inRange struct {
	big float64
	nan bool
}

// copyF sets dst to src rounded to F, noting their magnitudes in c.
func copyF[F kernel.Float](c *inRange, dst []F, src []float64) {
	dst = dst[:len(src)]
	big := c.big
	for q, x := range src {
		dst[q] = F(x)
		if a := math.Abs(x); !(a <= big) { // rarely: a new largest, or NaN
			if a != a {
				c.nan = true
			} else {
				big = a
			}
		}
	}
	c.big = big
}

// ok: no NaN, and every magnitude (±Inf too) within models.MaxAbsParam.
func (c *inRange) ok() bool { return !c.nan && c.big <= models.MaxAbsParam }

// netsFinite reports, after a fused step (known), whether every updated
// parameter of the nets was finite and within models.MaxAbsParam.
func (v *vaeEngine[F]) netsFinite() (ok, known bool) {
	if !v.fresh {
		return false, false
	}
	for _, b := range v.bad {
		if b {
			return false, true
		}
	}
	return true, true
}

// transposeRows sets columns lo…hi of wt[l] to rows lo…hi of w[l] (layers
// l ≥ 1, and layer 0 of a dense-input net; none for a binary input).
func (n *bnet[F]) transposeRows(l, lo, hi int) {
	if l > 0 {
		transposeF(n.wt[l][lo:], n.pad[l-1], n.w[l][lo*n.pad[l]:], n.pad[l], hi-lo, n.sizes[l+1])
		return
	}
	transposeF(n.wt[0][lo:], pad16(n.sizes[0]), n.w[0][lo*n.pad[0]:], n.pad[0], hi-lo, n.sizes[1])
}

// refresh starts a step: unless the last step (fused) left the F copies
// w and b of the parameters fresh, it copies them (one phase); it returns
// the jobs of the transposed copies wt, to run with the next phase.
func (v *vaeEngine[F]) refresh(jobs []vjob[F]) []vjob[F] {
	jobs = jobs[:0]
	nets := v.nets()
	if !v.fresh {
		for _, n := range nets {
			for l := range n.w {
				jobs = blocks(jobs, jRefreshW, n, l, n.sizes[l], 128)
			}
		}
		v.run(jobs)
		jobs = jobs[:0]
	}
	v.fresh = false
	for _, n := range nets {
		for l := range n.w {
			if l > 0 || n.dense {
				jobs = blocks(jobs, jRefreshWT, n, l, n.sizes[l], 128)
			}
		}
	}
	return jobs
}

// gradRows is the rows of ∂W (input units) of one gradient job: a
// multiple of the float32 product's 6-row tiles.
const gradRows = 24

// gradOut returns where the float64 gradient of net n's parameters
// off…off+size−1 goes: the worker's scratch when fused, else the trainer's
// gradient buffer.
func (v *vaeEngine[F]) gradOut(n *bnet[F], off, size int, scratch []float64) []float64 {
	if v.fused {
		return scratch[:size]
	}
	return v.grad(n)[off : off+size]
}

// adamRange, when fused, takes the Adam step (ascent, at the step's T) of
// net n's parameters off…off+len(g)−1 with their gradient g: the
// arithmetic of optim.Adam.StepRange on a view of the state from off. The
// caller then copies the updated parameters to F (the next step's copies,
// while they are in cache).
func (v *vaeEngine[F]) adamRange(n *bnet[F], off int, g []float64) {
	a := v.adam(n)
	view := optim.Adam{LR: a.LR, M: a.M[off:], S: a.S[off:], T: a.T}
	view.StepRange(n.net.Params()[off:], g, -1, 0, len(g))
}

// adamRow32 takes, fused in float32, the Adam step st of row i of net n's
// W_l with its float32 gradient g (the row's first n_{l+1} entries) and
// sets the row of the F copy w[l], as gradOut, adamRange and copyRows do
// in turn, in one pass, with the float32 moments mm of the weights
// (vae_adam32.go).
func (v *vaeEngine[F]) adamRow32(st *optim.Step32, mm *moments32, n *bnet[F], l, i int, g []F, wk int) {
	out, p := n.sizes[l+1], n.pad[l]
	big, nan := st.RangeW32(n.net.Params(), mm.m, mm.s, as32(g[:out]), as32(n.w[l][i*p:i*p+out]), n.off[l]+i*out)
	if nan || !(big <= models.MaxAbsParam) {
		v.bad[wk] = true
	}
}

// adam is net n's Adam state.
func (v *vaeEngine[F]) adam(n *bnet[F]) *optim.Adam {
	t := v.t
	switch n {
	case v.enc:
		return &t.adamEnc
	case v.dec:
		return &t.adamDec
	case v.base:
		return &t.adamBase
	}
	return v.auxAdam(n)
}

func (v *vaeEngine[F]) nets() []*bnet[F] {
	if v.aux != nil {
		return v.aux.nets
	}
	if v.base != nil {
		return []*bnet[F]{v.enc, v.dec, v.base}
	}
	return []*bnet[F]{v.enc, v.dec}
}

// run runs the jobs of one phase on the step's workers: the caller is
// worker 0 and starts taking jobs at once; workers 1…procs−1 are the
// pool's helpers while it runs (startPool), otherwise goroutines started
// for the phase (a goroutine's start on an idle core waits for that core's
// thread to wake, so the caller's jobs are not kept waiting for it).
// Which worker runs a job changes nothing in its results.
func (v *vaeEngine[F]) run(jobs []vjob[F]) {
	v.phase = jobs
	v.next.Store(0)
	if v.pooled {
		v.pool.Phase(v.works[0])
		return
	}
	workers := min(v.procs, len(jobs))
	for w := 1; w < workers; w++ {
		v.wg.Go(v.works[w])
	}
	v.worker(0)
	if workers > 1 {
		v.wg.Wait()
	}
}

// startPool starts the helpers of the step's remaining phases (none for
// one worker, nor for more workers than GOMAXPROCS: a helper waiting
// busily would hold a processor another goroutine needs); stopPool stops
// them. The step starts them once the fitting of q that runs beside its
// first phases (VAETrainer.fitting) is done, for the same reason.
func (v *vaeEngine[F]) startPool() {
	if v.pooled || v.procs < 2 || v.procs > runtime.GOMAXPROCS(0) {
		return
	}
	if v.pool == nil || v.pool.Helpers() != v.procs-1 {
		v.pool = workgroup.NewPool(v.procs-1, func(i int) { v.worker(i + 1) })
	}
	v.pool.Start()
	v.pooled = true
}

// keepPool reports whether the step leaves its helpers running for the
// next: within TrainEpoch and without a fitting of q beside the next
// step's first phases (whose goroutine a waiting helper would keep from a
// processor). A helper started per step waits for its thread to be woken
// before the step's first phase, about a tenth of a millisecond on a
// two-core virtual machine, a few per cent of a step.
func (v *vaeEngine[F]) keepPool() bool {
	return v.t.inEpoch && v.t.M.Prior == nil
}

// release stops the helpers a step left running (keepPool).
func (v *vaeEngine[F]) release() { v.stopPool() }

func (v *vaeEngine[F]) stopPool() {
	if v.pooled {
		v.pooled = false
		v.pool.Close()
	}
}

// worker runs the phase's jobs with worker w's scratch, taking the next
// one until none is left.
func (v *vaeEngine[F]) worker(w int) {
	for {
		i := int(v.next.Add(1)) - 1
		if i >= len(v.phase) {
			return
		}
		v.do(&v.phase[i], w)
	}
}

// prepare reads the minibatch's examples: x as float32 and its on-lists
// by example (a phase of jPrepare jobs over chunks of examples) and by
// pixel.
func (v *vaeEngine[F]) prepare(idx []int) {
	t := v.t
	X := v.X
	v.nb, v.rows = len(idx), len(idx)*v.S
	v.idx = idx
	v.run(blocks(v.jobs[:0], jPrepare, nil, 0, v.nb, chunkSize))
	v.idx = nil
	clear(v.xcOff)
	for k := range v.nb {
		for _, i := range v.xOnOf(k) {
			v.xcOff[i+1]++
		}
	}
	for i := range X {
		v.xcOff[i+1] += v.xcOff[i]
	}
	v.xCol = grow32(v.xCol, v.xcOff[X])
	for k := range v.nb {
		for _, i := range v.xOnOf(k) {
			v.xCol[v.xcOff[i]] = int32(k)
			v.xcOff[i]++
		}
	}
	for i := X; i > 0; i-- {
		v.xcOff[i] = v.xcOff[i-1]
	}
	v.xcOff[0] = 0
	if m := t.M; m.Prior == nil {
		v.sumSP = 0
		for _, l := range m.PriorLogits {
			v.sumSP += nmath.Softplus(l)
		}
	}
}

// readExamples sets examples lo…hi's x as float32 and on-lists.
func (v *vaeEngine[F]) readExamples(lo, hi int) {
	X := v.X
	for k := lo; k < hi; k++ {
		x := v.t.data.Row(v.idx[k])
		xf := v.xf[k*X : (k+1)*X]
		on := v.xOn[k*X : k*X]
		for i, b := range x[:X] {
			if b != 0 {
				xf[i] = 1
				on = append(on, int32(i))
			} else {
				xf[i] = 0
			}
		}
		v.xN[k] = int32(len(on))
	}
}

// xOnOf is example k's on-units.
func (v *vaeEngine[F]) xOnOf(k int) []int32 { return v.xOn[k*v.X : k*v.X+int(v.xN[k])] }

// zColumns builds the per-latent lists of the rows whose draw has z_j = 1.
func (v *vaeEngine[F]) zColumns() {
	Z := v.Z
	clear(v.zcOff)
	for r := range v.rows {
		for _, j := range v.zOn[r*Z : r*Z+int(v.zN[r])] {
			v.zcOff[j+1]++
		}
	}
	for j := range Z {
		v.zcOff[j+1] += v.zcOff[j]
	}
	for r := range v.rows {
		for _, j := range v.zOn[r*Z : r*Z+int(v.zN[r])] {
			v.zCol[v.zcOff[j]] = int32(r)
			v.zcOff[j]++
		}
	}
	for j := Z; j > 0; j-- {
		v.zcOff[j] = v.zcOff[j-1]
	}
	v.zcOff[0] = 0
}

func grow32(s []int32, n int) []int32 {
	if cap(s) < n {
		return make([]int32, n, n+n/4)
	}
	return s[:n]
}

// blocks appends to jobs the jobs of kind on net n, layer l, over [0, n)
// in blocks of size.
func blocks[F kernel.Float](jobs []vjob[F], kind int, n *bnet[F], l, total, size int) []vjob[F] {
	for lo := 0; lo < total; lo += size {
		jobs = append(jobs, vjob[F]{kind: kind, n: n, l: l, lo: lo, hi: min(lo+size, total)})
	}
	return jobs
}

// gradient computes the minibatch's gradient into the first active task's
// buffers (as Gradient), the data tasks being the chunks of examples.
func (v *vaeEngine[F]) gradient(idx []int, fused bool) {
	t := v.t
	v.fused = fused
	v.procs = min(t.Opt.Workers, runtime.GOMAXPROCS(0))
	if !t.fitting {
		v.startPool()
	}
	if !v.keepPool() {
		defer v.stopPool()
	}
	if fused {
		for _, n := range v.nets() {
			v.adam(n).T++
		}
		clear(v.bad)
	}
	v.prepare(idx)
	if fused && is32[F]() {
		adams := make([]*optim.Adam, 0, 8)
		for _, n := range v.nets() {
			adams = append(adams, v.adam(n))
		}
		t.ensureMoments32(adams)
	}
	if v.aux != nil {
		v.gradientAux()
		return
	}
	nets := v.nets()
	// The F copies; the transposes with the first layers of the encoder
	// and baseline.
	jobs := v.refresh(v.jobs)
	jobs = v.firstBlocks(jobs, v.enc)
	if v.base != nil {
		jobs = v.firstBlocks(jobs, v.base)
	}
	v.run(jobs)
	// The encoder's and baseline's dense layers.
	for l := 1; l < max(len(v.enc.w), v.baseLayers()); l++ {
		jobs = jobs[:0]
		for _, n := range []*bnet[F]{v.enc, v.base} {
			if n != nil && l < len(n.w) {
				jobs = blocks(jobs, jDense, n, l, n.pad[l], colBlock)
			}
		}
		v.run(jobs)
	}
	// The draws, their log q, log p̃ and the decoder's first layer.
	jobs = jobs[:0]
	for _, w := range t.active {
		if w.kind == vaeData {
			jobs = append(jobs, vjob[F]{kind: jSample, task: w})
		}
	}
	v.run(jobs)
	v.zDense = v.deferZ && v.denseZ()
	if !v.zDense {
		v.zColumns()
	}
	if v.deferZ {
		jobs = jobs[:0]
		if v.zDense {
			jobs = blocks(jobs, jDense, v.dec, 0, v.dec.pad[0], colBlock)
		} else {
			jobs = blocks(jobs, jFirstZ, v.dec, 0, v.rows, chunkSize)
		}
		v.run(jobs)
	}
	for l := 1; l < len(v.dec.w); l++ {
		jobs = blocks(jobs[:0], jDense, v.dec, l, v.dec.pad[l], colBlock)
		v.run(jobs)
	}
	// log p(x|z), the signal, the output deltas; the prior's negative
	// phase; the transposed activations for the gradients.
	if !v.priorReady() {
		return
	}
	v.startPool()
	jobs = jobs[:0]
	for _, w := range t.active {
		k := jPrior
		if w.kind == vaeData {
			k = jSignal
		}
		jobs = append(jobs, vjob[F]{kind: k, task: w})
	}
	for _, n := range nets {
		for l := range len(n.w) - 1 {
			jobs = append(jobs, vjob[F]{kind: jTranspose, n: n, l: l})
		}
	}
	if v.zDense {
		jobs = append(jobs, vjob[F]{kind: jTransposeIn, n: v.dec})
	}
	v.run(jobs)
	// Backpropagation, layer by layer from the top.
	v.jobs = v.backprop(jobs, nets...)
	v.fresh = v.fused
}

// priorReady waits for the step's fitting of q (VAETrainer.priorReady);
// on its error it ends the step before any parameter changes, undoing the
// Adam steps' T++.
func (v *vaeEngine[F]) priorReady() bool {
	if v.t.priorReady() == nil {
		return true
	}
	if v.fused {
		for _, n := range v.nets() {
			v.adam(n).T--
		}
	}
	v.fresh = false
	return false
}

func (v *vaeEngine[F]) baseLayers() int {
	if v.base == nil {
		return 0
	}
	return len(v.base.w)
}

// rowsOf is the number of batch rows of net n: examples, or rows for the decoder.
func (v *vaeEngine[F]) rowsOf(n *bnet[F]) int {
	if n == v.dec || (v.aux != nil && (n == v.enc || n == v.aux.p || n == v.aux.ea)) {
		return v.rows
	}
	return v.nb
}

// grad is the float64 gradient buffer that receives net n's gradient.
func (v *vaeEngine[F]) grad(n *bnet[F]) []float64 {
	a := v.t.active[0]
	switch n {
	case v.enc:
		return a.gEnc
	case v.dec:
		return a.gDec
	case v.base:
		return a.gBase
	}
	return v.auxGrad(n)
}

func (v *vaeEngine[F]) do(j *vjob[F], wk int) {
	scratch := v.scratch[wk]
	n, l := j.n, j.l
	switch j.kind {
	case jRefreshW:
		n.copyRows(l, j.lo, j.hi)
		if j.lo == 0 {
			n.copyBias(l)
		}
	case jRefreshWT:
		n.transposeRows(l, j.lo, j.hi)
	case jFirst:
		v.first(n, j.lo, j.hi, j.c0, j.c1)
	case jFirstZ:
		for r := j.lo; r < j.hi; r++ {
			v.decFirst(r, v.zOn[r*v.Z:r*v.Z+int(v.zN[r])])
		}
	case jDense:
		rows := v.rowsOf(n)
		if l == 0 { // dense input
			colsF(rows, j.lo, j.hi, n.sizes[0], n.in, n.sizes[0], n.w[0], n.pad[0], n.act[0], n.pad[0])
		} else {
			colsF(rows, j.lo, j.hi, n.sizes[l], n.act[l-1], n.pad[l-1], n.w[l], n.pad[l], n.act[l], n.pad[l])
		}
		hi := min(j.hi, n.sizes[l+1])
		if j.lo >= hi {
			return
		}
		b := n.b[l][j.lo:hi]
		for r := range rows {
			a := n.act[l][r*n.pad[l]+j.lo : r*n.pad[l]+hi]
			for q, x := range b {
				a[q] += x
			}
			if l < len(n.w)-1 {
				tanhF(a)
			}
		}
	case jTranspose:
		rows := v.rowsOf(n)
		transposeF(n.at[l], rows, n.act[l], n.pad[l], rows, n.sizes[l+1])
	case jGradDense: // rows lo…hi of ∂W_l = u_lᵀ δ_l
		rows := v.rowsOf(n)
		out, p := n.sizes[l+1], n.pad[l]
		at := n.inT
		if l > 0 {
			at = n.at[l-1]
		}
		gw := n.gw[l][j.lo*p:]
		colsF(j.hi-j.lo, 0, p, rows, at[j.lo*rows:], rows, n.dl[l], p, gw, p)
		if v.fused && is32[F]() {
			a := v.adam(n)
			st, mm := a.Prepare32(-1), v.t.moments32Of(a)
			for i := j.lo; i < j.hi; i++ {
				v.adamRow32(&st, mm, n, l, i, gw[(i-j.lo)*p:], wk)
			}
			return
		}
		o := n.off[l] + j.lo*out
		g := v.gradOut(n, o, (j.hi-j.lo)*out, scratch)
		for i := range j.hi - j.lo {
			src, dst := gw[i*p:i*p+out], g[i*out:(i+1)*out]
			for q, x := range src {
				dst[q] = float64(x)
			}
		}
		if v.fused {
			v.adamRange(n, o, g)
			if !n.copyRows(l, j.lo, j.hi) { // not wt: this phase's δ jobs read the old Wᵀ
				v.bad[wk] = true
			}
		}
	case jBiasDense: // ∂b_l
		in, out := n.sizes[l], n.sizes[l+1]
		o := n.off[l] + in*out
		g := v.gradOut(n, o, out, scratch)
		biasGrad(g, n.dl[l], n.pad[l], v.rowsOf(n), 0)
		if v.fused {
			v.adamRange(n, o, g)
			if !n.copyBias(l) {
				v.bad[wk] = true
			}
		}
	case jDelta:
		rows := v.rowsOf(n)
		p, pn := n.pad[l], n.pad[l+1]
		colsF(rows, j.lo, j.hi, n.sizes[l+2], n.dl[l+1], pn, n.wt[l+1], p, n.dl[l], p)
		hi := min(j.hi, n.sizes[l+1])
		for r := range rows {
			tanhGradF(n.dl[l][r*p+j.lo:r*p+hi], n.act[l][r*p+j.lo:r*p+hi])
		}
	case jGradFirst: // rows lo…hi of ∂W_0, sums of the δ rows whose input is on
		out, p := n.sizes[1], n.pad[0]
		if v.fused && is32[F]() {
			a := v.adam(n)
			st, mm := a.Prepare32(-1), v.t.moments32Of(a)
			for i := j.lo; i < j.hi; i++ {
				acc := n.gw[0][i*p : i*p+out]
				clear(acc)
				addRowsF(acc, n.dl[0], p, v.inputRows(n, i))
				v.adamRow32(&st, mm, n, 0, i, acc, wk)
			}
			return
		}
		g := v.gradOut(n, j.lo*out, (j.hi-j.lo)*out, scratch)
		for i := j.lo; i < j.hi; i++ {
			acc := n.gw[0][i*p : i*p+out] // its own padding up to p: addRowsF may widen
			clear(acc)
			addRowsF(acc, n.dl[0], p, v.inputRows(n, i))
			dst := g[(i-j.lo)*out : (i-j.lo+1)*out]
			for q, x := range acc {
				dst[q] = float64(x)
			}
		}
		if v.fused {
			v.adamRange(n, j.lo*out, g)
			if !n.copyRows(0, j.lo, j.hi) {
				v.bad[wk] = true
			}
		}
	case jBiasFirst:
		in, out := n.sizes[0], n.sizes[1]
		g := v.gradOut(n, in*out, out, scratch)
		biasGrad(g, n.dl[0], n.pad[0], v.rowsOf(n), 0)
		if v.fused {
			v.adamRange(n, in*out, g)
			if !n.copyBias(0) {
				v.bad[wk] = true
			}
		}
	case jPrepare:
		v.readExamples(j.lo, j.hi)
	case jSample:
		if v.aux != nil {
			v.sampleAux(j.task)
			return
		}
		v.sample(j.task)
	case jSignal:
		v.signal(j.task)
	case jTransposeIn, jDeltaIn, jPre, jAuxFirst, jNoise, jAuxQ:
		v.doAux(j)
	case jPrior:
		if j.task.kind == vaeDraws {
			v.t.runDraws(j.task)
		} else {
			v.t.runChains(j.task)
		}
	}
}

// biasGrad sets g_q = Σ_r δ[r·p + lo + q] (in float64).
func biasGrad[F kernel.Float](g []float64, d []F, p, rows, lo int) {
	clear(g)
	for r := range rows {
		row := d[r*p+lo : r*p+lo+len(g)]
		for q, x := range row {
			g[q] += float64(x)
		}
	}
}

// firstCols is the width of a column block of a first-layer job: 128
// columns of a 784-row W_0 (400 KB) stay in a core's L2 cache while the
// job sums the rows that its examples select.
const firstCols = 128

// firstBlocks appends the first-layer jobs of net n (binary input x):
// blocks of firstCols columns, each over chunks of examples, so that W_0
// is read from the shared cache once per chunk and block rather than once
// per example. Each entry's sum is the same (the row sums are column by
// column), so the blocks give the same bits as whole rows. In float64 a
// job takes whole rows (addRowsF widens a float64 row over its padding).
func (v *vaeEngine[F]) firstBlocks(jobs []vjob[F], n *bnet[F]) []vjob[F] {
	out := n.sizes[1]
	width := out
	if is32[F]() {
		width = firstCols
	}
	for c0 := 0; c0 < out; c0 += width {
		for lo := 0; lo < v.nb; lo += chunkSize {
			jobs = append(jobs, vjob[F]{kind: jFirst, n: n, lo: lo, hi: min(lo+chunkSize, v.nb), c0: c0, c1: min(c0+width, out)})
		}
	}
	return jobs
}

// first computes columns c0…c1 of the first layer of net n (encoder or
// baseline: input x) for the examples lo…hi.
func (v *vaeEngine[F]) first(n *bnet[F], lo, hi, c0, c1 int) {
	p := n.pad[0]
	for k := lo; k < hi; k++ {
		a := n.act[0][k*p+c0 : k*p+c1]
		copy(a, n.b[0][c0:c1])
		addRowsF(a, n.w[0][c0:], p, v.xOnOf(k))
		if len(n.w) > 1 {
			tanhF(a)
		}
	}
}

// sample draws the task's examples' z ~ q(z|x) from their streams,
// records log q(z|x), log p̃(z), the prior's gradient and b(x), and runs
// the decoder's first layer on the draws.
func (v *vaeEngine[F]) sample(w *vaeTask) {
	t := v.t
	clearChunk(w)
	Z, S := v.Z, v.S
	enc := v.enc
	L := len(enc.w)
	pe := enc.pad[L-1]
	for k := range w.rows {
		p := w.pos + k
		w.src.Seed(seeds.Derive(t.Seed, vaeSeedLatent, uint64(t.epoch), uint64(t.batch), uint64(p)), 0)
		kappa := enc.act[L-1][p*pe : p*pe+Z]
		if v.base != nil {
			v.lb[p] = float64(v.base.act[len(v.base.w)-1][p*v.base.pad[len(v.base.w)-1]])
		}
		for s := range S {
			v.drawRow(w, p*S+s, kappa, nil)
		}
	}
}

// drawRow draws row r's z ~ q(z) = σ(κ), comparing σ(κ_j) with uniforms
// from w.rng (u nil) or u[r·Z + j], records it (finishDraw) and returns its
// on-units.
func (v *vaeEngine[F]) drawRow(w *vaeTask, r int, kappa []F, u []float64) []int32 {
	Z := v.Z
	pq := v.pq[r*Z : (r+1)*Z]
	sigmoidF(pq, kappa)
	z := v.zs[r*Z : (r+1)*Z]
	on := v.zOn[r*Z : r*Z : (r+1)*Z]
	zf := v.zf[w.pos/chunkSize*Z:][:Z]
	for j, q := range pq {
		var x float64
		if u != nil {
			x = u[r*Z+j]
		} else {
			x = w.rng.Float64()
		}
		if x < float64(q) {
			z[j], zf[j] = 1, 1
			on = append(on, int32(j))
		} else {
			z[j], zf[j] = 0, 0
		}
	}
	v.finishDraw(w, r, kappa, on)
	return on
}

// finishDraw records row r's draw z (in v.zs, its on-units on, the task's
// zf): log q(z|x), z − σ(κ) in place of σ(κ), log p̃(z) and the prior's
// gradient, and runs the decoder's first layer on it.
func (v *vaeEngine[F]) finishDraw(w *vaeTask, r int, kappa []F, on []int32) {
	t, m, Z := v.t, v.t.M, v.Z
	z, zf, pq := v.zs[r*Z:(r+1)*Z], v.zf[w.pos/chunkSize*Z:][:Z], v.pq[r*Z:(r+1)*Z]
	v.zN[r] = int32(len(on))
	v.lq[r] = logLikF(v.pf[w.pos/chunkSize*Z:][:Z], kappa, zf)
	for j, q := range pq {
		pq[j] = zf[j] - q
	}
	if m.Prior != nil {
		v.lp[r] = m.LogPrior(w.s, z)
	} else {
		lp := -v.sumSP
		for _, j := range on {
			lp += m.PriorLogits[j]
			w.gLog[j]++
		}
		v.lp[r] = lp
	}
	t.priorGrad32(w, z)
	if v.deferZ {
		copy(v.zd[r*Z:(r+1)*Z], zf)
		return
	}
	v.decFirst(r, on)
}

// decFirst runs the decoder's first layer on row r's draw (on-units on)
// by the sum of the rows of W_0 that they select.
func (v *vaeEngine[F]) decFirst(r int, on []int32) {
	dec := v.dec
	a := dec.act[0][r*dec.pad[0] : r*dec.pad[0]+dec.sizes[1]]
	copy(a, dec.b[0])
	addRowsF(a, dec.w[0], dec.pad[0], on)
	if len(dec.w) > 1 {
		tanhF(a)
	}
}

// zDenseMin is the fraction of the draws' latents on (the density of z)
// from which the decoder's first layer and its ∂W_0 are dense float32
// products rather than row sums. A row sum's cost grows with the on-units
// (it reads and writes the accumulator for each); the product's does not.
// Measured on the Ber(200) shape (100 rows, 200 → 500), they cost the same
// at about 45% on and the product is 20% cheaper at 55%; MNIST's x (about
// 13% on) keeps the row sums.
var zDenseMin = 0.45 // a variable for the tests, which take both paths

// denseZ reports whether the step's draws are dense enough for products.
func (v *vaeEngine[F]) denseZ() bool {
	on := 0
	for _, n := range v.zN[:v.rows] {
		on += int(n)
	}
	return float64(on) >= zDenseMin*float64(v.rows*v.Z)
}

// clearChunk clears a data task's sums. Not clearTask: the engine
// writes the nets' gradients whole into the first task's buffers, and the
// chunks only sum the prior's terms and the signal's moments.
func clearChunk(w *vaeTask) {
	clear(w.gLog)
	clear(w.prior.gW)
	clear(w.prior.gA)
	clear(w.prior.gB)
	w.sumF, w.sumD, w.sumD2, w.sumLog = 0, 0, 0, 0
}

// priorGrad32 adds ∇ log p̃(z) (unscaled) to an RBM prior's gradient; the
// Bernoulli prior's z counts are added by sample and scaled at the end.
func (t *VAETrainer) priorGrad32(w *vaeTask, z []uint8) {
	if t.M.Prior != nil {
		t.priorGrad(w, z, t.scale)
	}
}

// signal computes, for the task's examples, log p(x|z) of each draw and
// the decoder's output deltas c(x − σ(ℓ)), f, the learning signal, the
// encoder's output deltas c·Σ_s sig_s (z_s − σ(κ)) and the baseline's
// c·Σ_s d_s, and adds f, d, d², log p(x|z) to the task's sums.
func (v *vaeEngine[F]) signal(w *vaeTask) {
	t := v.t
	c := F(t.scale)
	X, Z, S := v.X, v.Z, v.S
	enc := v.enc
	Le := len(enc.w) - 1
	pe := enc.pad[Le]
	norm := v.norm()
	if v.aux != nil {
		v.signalAux(w, norm)
		return
	}
	for k := range w.rows {
		p := w.pos + k
		x := v.xf[p*X : (p+1)*X]
		de := enc.dl[Le][p*pe : p*pe+Z]
		clear(de)
		dBase := 0.0
		for s := range S {
			r := p*S + s
			ll := v.decoderDeltas(r, x, c)
			f := ll + v.lp[r] - v.lq[r]
			d := f - v.lb[p] - t.SignalMean
			cs := c * F(t.clipSignal(d/norm))
			for j, e := range v.pq[r*Z : (r+1)*Z] {
				de[j] += cs * e
			}
			dBase += d
			w.addDraw(f, ll, d)
		}
		if b := v.base; b != nil {
			b.dl[len(b.w)-1][p*b.pad[len(b.w)-1]] = c * F(dBase)
		}
	}
}

// decoderDeltas returns log p(x|z) of row r (x its example) and sets the
// decoder's output deltas c(x − σ(ℓ)).
func (v *vaeEngine[F]) decoderDeltas(r int, x []F, c F) float64 {
	dec, X := v.dec, v.X
	L := len(dec.w) - 1
	pd := dec.pad[L]
	dd := dec.dl[L][r*pd : r*pd+X]
	ll := logLikF(dd, dec.act[L][r*pd:r*pd+X], x)
	for i, q := range dd {
		dd[i] = c * (x[i] - q)
	}
	return ll
}

// clipSignal clips a normalised learning signal at ±SignalClip (0: none).
func (t *VAETrainer) clipSignal(sig float64) float64 {
	if cl := t.Opt.SignalClip; cl > 0 {
		return max(-cl, min(cl, sig))
	}
	return sig
}

// addDraw adds one draw's f, log p(x|z), d and d² to w's sums.
func (w *vaeTask) addDraw(f, ll, d float64) {
	w.sumF += f
	w.sumLog += ll
	w.sumD += d
	w.sumD2 += d * d
}

// vaeGradEngine is the engine of the trainer's precision (vaeEngine[F]).
type vaeGradEngine interface {
	gradient(idx []int, fused bool)
	release()
	capacity() int
	netsFinite() (ok, known bool)
}

func (v *vaeEngine[F]) capacity() int { return v.capB }

// newEngine makes the engine of the trainer's precision for minibatches of
// at most B examples.
func (t *VAETrainer) newEngine(B int) vaeGradEngine {
	if t.Opt.Precision == kernel.Float32 {
		return newVAEEngine[float32](t, B)
	}
	return newVAEEngine[float64](t, B)
}

// engineGradient is Gradient's work after the tasks are laid out: the
// engine's batched phases, then the sums in task order. fused: the nets'
// Adam steps are taken in the engine's jobs, their gradients not stored.
func (t *VAETrainer) engineGradient(idx []int, fused bool) (sumF, sumLog, sumD, sumD2 float64) {
	if t.eng == nil || t.eng.capacity() < len(idx) {
		if t.eng != nil {
			t.eng.release()
		}
		t.eng = t.newEngine(max(len(idx), t.Opt.BatchSize))
	}
	t.eng.gradient(idx, fused)
	a0 := t.active[0]
	sumF, sumLog, sumD, sumD2 = a0.sumF, a0.sumLog, a0.sumD, a0.sumD2
	for _, w := range t.active[1:] {
		addPriorGrad(a0, w)
		if w.kind != vaeData {
			continue
		}
		axpy(a0.gLog, 1, w.gLog)
		sumF += w.sumF
		sumLog += w.sumLog
		sumD += w.sumD
		sumD2 += w.sumD2
	}
	if m := t.M; m.Prior == nil {
		// gLog holds the counts Σ z_j: ∇_λ = c Σ (z_j − σ(λ_j)).
		k := float64(len(idx) * t.Opt.Samples)
		for j, l := range m.PriorLogits {
			a0.gLog[j] = t.scale * (a0.gLog[j] - k*nmath.Sigmoid(l))
		}
	}
	return sumF, sumLog, sumD, sumD2
}
