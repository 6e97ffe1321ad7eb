package train

import (
	"sync/atomic"

	"github.com/logz-ml/logz/internal/gemm"
	"github.com/logz-ml/logz/internal/logistic"
	"github.com/logz-ml/logz/internal/mlp"
	"github.com/logz-ml/logz/internal/nmath"
	"github.com/logz-ml/logz/internal/optim"
	"github.com/logz-ml/logz/internal/rowsum"
	"github.com/logz-ml/logz/internal/seeds"
	"github.com/logz-ml/logz/internal/transpose"
	"github.com/logz-ml/logz/internal/workgroup"
)

// Precisions of the VAE trainer's gradient (VAEOptions.Precision).
const (
	PrecisionFloat64 = "float64" // per example, float64 (the zero value "" too)
	PrecisionFloat32 = "float32" // batched over the minibatch, float32 products
)

// vae32 is the VAE trainer's gradient in float32 (VAEOptions.Precision
// "float32"): the estimate of exampleGrad, batched over the minibatch so
// that every layer is one matrix product, with the products and
// activations in float32 and the log-probabilities, the learning signal,
// the prior and the gradients handed to Adam in float64. The parameters
// and Adam stay float64; every step rounds them to float32 copies (with
// Wᵀ for backpropagation) first.
//
// Layer l of a net maps u_l (rows × n_l) to u_{l+1} = tanh(u_l W_l + b_l)
// (the last layer linear). The first layer's input is binary (the data x
// for the encoder and the baseline, the draws z for the decoder), so u_1 is
// b_1 plus the rows of W_1 that the row's on-units select (package rowsum),
// and its gradient Σ_r x_{r,i} δ_{1,r} a sum of the δ rows whose input i is
// on; the other layers are gemm.Cols32 products: u_l W_l forward, u_lᵀ δ_l
// for ∂W_l and δ_l W_lᵀ for δ_{l−1}. Sigmoids, tanh = 2σ(2·) − 1 and the
// Bernoulli log-probabilities are package logistic's.
//
// A step runs as phases, each a list of jobs that write disjoint outputs
// (column blocks of a product, blocks of rows, fixed chunks of examples),
// so nothing depends on the number of workers; the per-chunk sums (the
// signal's moments, the prior's gradient) are added in chunk order. An
// example's draws come from the stream of the float64 path, keyed by
// (epoch, minibatch, position).
type vae32 struct {
	enc, dec, base *net32
	X, Z, S        int
	nb, rows       int // examples and rows (examples × Samples) of the step
	capB           int // the most examples the buffers hold
	// The step's binary inputs: x as float32 rows (nb × X), the on-units
	// of each example (xOn[xOff[k]:xOff[k+1]]) and the examples of each
	// pixel (xCol[xcOff[i]:xcOff[i+1]]); likewise the draws z (zs,
	// rows × Z) with their on-lists per row (zOn, Z entries reserved per
	// row, zN the count) and per latent (zCol, zcOff).
	xf          []float32
	xOn, xCol   []int32
	xOff, xcOff []int
	zs          []uint8
	zOn, zCol   []int32
	zN          []int32
	zcOff       []int
	pq          []float32 // rows × Z: σ(κ) of the row's example, then z − σ(κ)
	lq, lp, lb  []float64 // per row: log q(z|x), log p̃(z); per example: b(x)
	sumSP       float64   // Bernoulli prior: Σ_j softplus(λ_j)
	phase       []job32
	next        atomic.Int64
	wg          workgroup.Group
	work        func()
	t           *VAETrainer
	jobs        []job32   // the phases' job lists (kept to avoid allocating)
	aux         *vae32Aux // auxiliary variables (nil without)
}

// net32 holds the float32 copies and the batch buffers of one mlp.Net.
// Layer l maps n_l = sizes[l] units to n_{l+1}; rows of its outputs are
// padded to pad[l] = n_{l+1} rounded up to 16 (the product kernel's
// strip), and the padding columns of w stay 0.
type net32 struct {
	net   *mlp.Net
	sizes []int
	pad   []int
	off   []int       // offset of W_l in the flat parameters (b_l follows)
	w     [][]float32 // W_l, n_l × pad[l]
	wt    [][]float32 // l ≥ 1: W_lᵀ, n_{l+1} × pad[l−1]
	b     [][]float32
	act   [][]float32 // rows × pad[l]: u_{l+1} (tanh) or the output
	at    [][]float32 // l < L−1: act[l]ᵀ, n_{l+1} × rows
	dl    [][]float32 // rows × pad[l]: δ_{l+1}
	gw    [][]float32 // n_l × pad[l]: the float32 ∂W_l (layer 0: n_0 × n_1)
	// A net with a real-valued input (dense; the auxiliary net Enc on a):
	// the input in (rows × n_0), its transpose inT, ∂/∂input din (rows ×
	// pad16(n_0)) and wt[0] = W_0ᵀ (n_1 × pad16(n_0)).
	dense   bool
	in, inT []float32
	din     []float32
}

func pad16(n int) int { return (n + 15) &^ 15 }

func newNet32(n *mlp.Net, rows int) *net32 {
	s := n.Sizes()
	L := len(s) - 1
	c := &net32{net: n, sizes: s, pad: make([]int, L), off: make([]int, L),
		w: make([][]float32, L), wt: make([][]float32, L), b: make([][]float32, L),
		act: make([][]float32, L), at: make([][]float32, L), dl: make([][]float32, L), gw: make([][]float32, L)}
	o := 0
	for l := range L {
		c.pad[l] = pad16(s[l+1])
		c.off[l] = o
		o += (s[l] + 1) * s[l+1]
		c.w[l] = make([]float32, s[l]*c.pad[l])
		if l > 0 {
			c.wt[l] = make([]float32, s[l+1]*c.pad[l-1])
		}
		c.b[l] = make([]float32, s[l+1])
		c.act[l] = make([]float32, rows*c.pad[l])
		if l < L-1 {
			c.at[l] = make([]float32, s[l+1]*rows)
		}
		c.dl[l] = make([]float32, rows*c.pad[l])
		c.gw[l] = make([]float32, s[l]*c.pad[l])
	}
	return c
}

// Job kinds of a phase.
const (
	j32RefreshW  = iota // rows lo…hi of w[l] and b[l] from the float64 net
	j32RefreshWT        // wt[l] from w[l]
	j32First            // first layer, rows lo…hi (binary input)
	j32Dense            // act[l] = act[l−1] W_l, columns lo…hi
	j32Transpose        // at[l] from act[l]
	j32GradDense        // ∂W_l = act[l−1]ᵀ δ_l and ∂b_l, columns lo…hi
	j32Delta            // δ_l = (δ_{l+1} W_{l+1}ᵀ) ⊙ (1 − u²), columns lo…hi
	j32GradFirst        // ∂W_0 rows lo…hi (input units) by row sums
	j32BiasFirst        // ∂b_0
	j32Sample           // the draws of a chunk of examples (task)
	j32Signal           // log p(x|z), f, the signal and δ_L of a chunk (task)
	j32Prior            // a χ² draws or chains task of the prior
	j32Adam             // Adam on entries lo…hi of one parameter vector
	// Auxiliary variables (vae32_aux.go).
	j32TransposeIn // inT from in (dense-input net)
	j32DeltaIn     // din = δ_0 W_0ᵀ, columns lo…hi (dense-input net)
	j32Pre         // the encoder's x part W_1ᵀx + b_1, examples lo…hi
	j32AuxFirst    // the encoder's first layer tanh(pre + Enc(a)), rows lo…hi
	j32Noise       // ε, a, log q(a|x) and the uniforms of a chunk (task)
	j32AuxQ        // ∂/∂ outputs of q(a|x) of a chunk (task)
)

type job32 struct {
	kind   int
	n      *net32
	l      int
	lo, hi int
	task   *vaeTask
	adam   *optim.Adam
	theta  []float64
	g      []float64
}

// colBlock is the width of a column block of a product job (four strips).
const colBlock = 64

// newVAE32 prepares the float32 path for minibatches of at most B examples.
func newVAE32(t *VAETrainer, B int) *vae32 {
	m := t.M
	rows := B * t.Opt.Samples
	encRows := B
	if m.Aux != nil {
		encRows = rows // q(z|x,a): one row per draw of a
	}
	v := &vae32{t: t, X: m.NumVisible(), Z: m.NumLatent(), S: t.Opt.Samples, capB: B,
		enc: newNet32(m.Enc, encRows), dec: newNet32(m.Dec, rows)}
	if t.Base != nil {
		v.base = newNet32(t.Base, B)
	}
	v.xf = make([]float32, B*v.X)
	v.xOff, v.xcOff = make([]int, B+1), make([]int, v.X+1)
	v.zs = make([]uint8, rows*v.Z)
	v.zOn, v.zCol, v.zN = make([]int32, rows*v.Z), make([]int32, rows*v.Z), make([]int32, rows)
	v.zcOff = make([]int, v.Z+1)
	v.pq = make([]float32, rows*v.Z)
	v.lq, v.lp, v.lb = make([]float64, rows), make([]float64, rows), make([]float64, B)
	v.work = v.worker
	if m.Aux != nil {
		v.newAux(B, rows)
	}
	return v
}

func (v *vae32) nets() []*net32 {
	if v.aux != nil {
		return v.aux.nets
	}
	if v.base != nil {
		return []*net32{v.enc, v.dec, v.base}
	}
	return []*net32{v.enc, v.dec}
}

// run runs the jobs of one phase on the trainer's workers.
func (v *vae32) run(jobs []job32) {
	v.phase = jobs
	v.next.Store(0)
	if workers := min(v.t.Opt.Workers, len(jobs)); workers <= 1 {
		v.worker()
	} else {
		for range workers {
			v.wg.Go(v.work)
		}
		v.wg.Wait()
	}
}

func (v *vae32) worker() {
	for {
		i := int(v.next.Add(1)) - 1
		if i >= len(v.phase) {
			return
		}
		v.do(&v.phase[i])
	}
}

// prepare reads the minibatch's examples: x as float32 and its on-lists
// by example and by pixel.
func (v *vae32) prepare(idx []int) {
	t := v.t
	X := v.X
	v.nb, v.rows = len(idx), len(idx)*v.S
	v.xOn = v.xOn[:0]
	clear(v.xcOff)
	for k, n := range idx {
		x := t.data.Row(n)
		xf := v.xf[k*X : (k+1)*X]
		for i, b := range x[:X] {
			if b != 0 {
				xf[i] = 1
				v.xOn = append(v.xOn, int32(i))
				v.xcOff[i+1]++
			} else {
				xf[i] = 0
			}
		}
		v.xOff[k+1] = len(v.xOn)
	}
	for i := range X {
		v.xcOff[i+1] += v.xcOff[i]
	}
	v.xCol = grow32(v.xCol, len(v.xOn))
	for k := range v.nb {
		for _, i := range v.xOn[v.xOff[k]:v.xOff[k+1]] {
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

// zColumns builds the per-latent lists of the rows whose draw has z_j = 1.
func (v *vae32) zColumns() {
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
func blocks(jobs []job32, kind int, n *net32, l, total, size int) []job32 {
	for lo := 0; lo < total; lo += size {
		jobs = append(jobs, job32{kind: kind, n: n, l: l, lo: lo, hi: min(lo+size, total)})
	}
	return jobs
}

// gradient computes the minibatch's gradient into the first active task's
// buffers (as Gradient), the data tasks being the chunks of examples.
func (v *vae32) gradient(idx []int) {
	t := v.t
	v.prepare(idx)
	if v.aux != nil {
		v.gradientAux()
		return
	}
	nets := v.nets()
	// Refresh the float32 copies.
	jobs := v.jobs[:0]
	for _, n := range nets {
		for l := range n.w {
			jobs = blocks(jobs, j32RefreshW, n, l, n.sizes[l], 128)
		}
	}
	v.run(jobs)
	// Transposed copies, and the first layers of the encoder and baseline.
	jobs = jobs[:0]
	for _, n := range nets {
		for l := 1; l < len(n.w); l++ {
			jobs = append(jobs, job32{kind: j32RefreshWT, n: n, l: l})
		}
	}
	jobs = blocks(jobs, j32First, v.enc, 0, v.nb, chunkSize)
	if v.base != nil {
		jobs = blocks(jobs, j32First, v.base, 0, v.nb, chunkSize)
	}
	v.run(jobs)
	// The encoder's and baseline's dense layers.
	for l := 1; l < max(len(v.enc.w), v.baseLayers()); l++ {
		jobs = jobs[:0]
		for _, n := range []*net32{v.enc, v.base} {
			if n != nil && l < len(n.w) {
				jobs = blocks(jobs, j32Dense, n, l, n.pad[l], colBlock)
			}
		}
		v.run(jobs)
	}
	// The draws, their log q, log p̃ and the decoder's first layer.
	jobs = jobs[:0]
	for _, w := range t.active {
		if w.kind == vaeData {
			jobs = append(jobs, job32{kind: j32Sample, task: w})
		}
	}
	v.run(jobs)
	v.zColumns()
	for l := 1; l < len(v.dec.w); l++ {
		jobs = blocks(jobs[:0], j32Dense, v.dec, l, v.dec.pad[l], colBlock)
		v.run(jobs)
	}
	// log p(x|z), the signal, the output deltas; the prior's negative
	// phase; the transposed activations for the gradients.
	jobs = jobs[:0]
	for _, w := range t.active {
		k := j32Prior
		if w.kind == vaeData {
			k = j32Signal
		}
		jobs = append(jobs, job32{kind: k, task: w})
	}
	for _, n := range nets {
		for l := range len(n.w) - 1 {
			jobs = append(jobs, job32{kind: j32Transpose, n: n, l: l})
		}
	}
	v.run(jobs)
	// Backpropagation, layer by layer from the top.
	v.jobs = v.backprop(jobs, nets...)
}

func (v *vae32) baseLayers() int {
	if v.base == nil {
		return 0
	}
	return len(v.base.w)
}

// rowsOf is the number of batch rows of net n: examples, or rows for the decoder.
func (v *vae32) rowsOf(n *net32) int {
	if n == v.dec || (v.aux != nil && (n == v.enc || n == v.aux.p || n == v.aux.ea)) {
		return v.rows
	}
	return v.nb
}

// grad is the float64 gradient buffer that receives net n's gradient.
func (v *vae32) grad(n *net32) []float64 {
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

func (v *vae32) do(j *job32) {
	n, l := j.n, j.l
	switch j.kind {
	case j32RefreshW:
		out, p := n.sizes[l+1], n.pad[l]
		W := n.net.W[l]
		for i := j.lo; i < j.hi; i++ {
			src, dst := W[i*out:(i+1)*out], n.w[l][i*p:i*p+out]
			for q, x := range src {
				dst[q] = float32(x)
			}
		}
		if j.lo == 0 {
			for q, x := range n.net.B[l] {
				n.b[l][q] = float32(x)
			}
		}
	case j32RefreshWT:
		if l == 0 {
			transpose.Float32(n.wt[0], pad16(n.sizes[0]), n.w[0], n.pad[0], n.sizes[0], n.sizes[1])
			return
		}
		transpose.Float32(n.wt[l], n.pad[l-1], n.w[l], n.pad[l], n.sizes[l], n.sizes[l+1])
	case j32First:
		v.first(n, j.lo, j.hi)
	case j32Dense:
		rows := v.rowsOf(n)
		if l == 0 { // dense input
			gemm.Cols32(gemm.Set, 1, rows, j.lo, j.hi, n.sizes[0], n.in, n.sizes[0], n.w[0], n.pad[0], n.act[0], n.pad[0])
		} else {
			gemm.Cols32(gemm.Set, 1, rows, j.lo, j.hi, n.sizes[l], n.act[l-1], n.pad[l-1], n.w[l], n.pad[l], n.act[l], n.pad[l])
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
				tanh32(a)
			}
		}
	case j32Transpose:
		rows := v.rowsOf(n)
		transpose.Float32(n.at[l], rows, n.act[l], n.pad[l], rows, n.sizes[l+1])
	case j32GradDense:
		rows := v.rowsOf(n)
		in, out, p := n.sizes[l], n.sizes[l+1], n.pad[l]
		at := n.inT
		if l > 0 {
			at = n.at[l-1]
		}
		gemm.Cols32(gemm.Set, 1, in, j.lo, j.hi, rows, at, rows, n.dl[l], p, n.gw[l], p)
		hi := min(j.hi, out)
		g := v.grad(n)
		o := n.off[l]
		for i := range in {
			src, dst := n.gw[l][i*p+j.lo:i*p+hi], g[o+i*out+j.lo:o+i*out+hi]
			for q, x := range src {
				dst[q] = float64(x)
			}
		}
		biasGrad(g[o+in*out+j.lo:o+in*out+hi], n.dl[l], p, rows, j.lo)
	case j32Delta:
		rows := v.rowsOf(n)
		p, pn := n.pad[l], n.pad[l+1]
		gemm.Cols32(gemm.Set, 1, rows, j.lo, j.hi, n.sizes[l+2], n.dl[l+1], pn, n.wt[l+1], p, n.dl[l], p)
		hi := min(j.hi, n.sizes[l+1])
		for r := range rows {
			d, u := n.dl[l][r*p+j.lo:r*p+hi], n.act[l][r*p+j.lo:r*p+hi]
			for q, x := range u {
				d[q] *= 1 - x*x
			}
		}
	case j32GradFirst:
		out, p := n.sizes[1], n.pad[0]
		g := v.grad(n)
		for i := j.lo; i < j.hi; i++ {
			acc := n.gw[0][i*out : (i+1)*out]
			clear(acc)
			rowsum.AddRowsStride32(acc, n.dl[0], p, v.inputRows(n, i))
			dst := g[i*out : (i+1)*out]
			for q, x := range acc {
				dst[q] = float64(x)
			}
		}
	case j32BiasFirst:
		in, out := n.sizes[0], n.sizes[1]
		biasGrad(v.grad(n)[in*out:in*out+out], n.dl[0], n.pad[0], v.rowsOf(n), 0)
	case j32Sample:
		if v.aux != nil {
			v.sampleAux(j.task)
			return
		}
		v.sample(j.task)
	case j32Signal:
		v.signal(j.task)
	case j32Adam:
		j.adam.StepRange(j.theta, j.g, -1, j.lo, j.hi)
	case j32TransposeIn, j32DeltaIn, j32Pre, j32AuxFirst, j32Noise, j32AuxQ:
		v.doAux(j)
	case j32Prior:
		if j.task.kind == vaeDraws {
			v.t.runDraws(j.task)
		} else {
			v.t.runChains(j.task)
		}
	}
}

// biasGrad sets g_q = Σ_r δ[r·p + lo + q] (in float64).
func biasGrad(g []float64, d []float32, p, rows, lo int) {
	clear(g)
	for r := range rows {
		row := d[r*p+lo : r*p+lo+len(g)]
		for q, x := range row {
			g[q] += float64(x)
		}
	}
}

// first computes the first layer of net n (encoder or baseline: input x)
// for the examples lo…hi.
func (v *vae32) first(n *net32, lo, hi int) {
	out, p := n.sizes[1], n.pad[0]
	for k := lo; k < hi; k++ {
		a := n.act[0][k*p : k*p+out]
		copy(a, n.b[0])
		rowsum.AddRowsStride32(a, n.w[0], p, v.xOn[v.xOff[k]:v.xOff[k+1]])
		if len(n.w) > 1 {
			tanh32(a)
		}
	}
}

// tanh32 sets a_j = tanh(a_j) = 2σ(2a_j) − 1.
func tanh32(a []float32) {
	for q, x := range a {
		a[q] = 2 * x
	}
	logistic.Sigmoid(a, a)
	for q, x := range a {
		a[q] = 2*x - 1
	}
}

// sample draws the task's examples' z ~ q(z|x) from their streams,
// records log q(z|x), log p̃(z), the prior's gradient and b(x), and runs
// the decoder's first layer on the draws.
func (v *vae32) sample(w *vaeTask) {
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
func (v *vae32) drawRow(w *vaeTask, r int, kappa []float32, u []float64) []int32 {
	Z := v.Z
	pq := v.pq[r*Z : (r+1)*Z]
	logistic.Sigmoid(pq, kappa)
	z := v.zs[r*Z : (r+1)*Z]
	on := v.zOn[r*Z : r*Z : (r+1)*Z]
	zf := w.zf[:Z]
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
func (v *vae32) finishDraw(w *vaeTask, r int, kappa []float32, on []int32) {
	t, m, dec, Z := v.t, v.t.M, v.dec, v.Z
	z, zf, pq := v.zs[r*Z:(r+1)*Z], w.zf[:Z], v.pq[r*Z:(r+1)*Z]
	v.zN[r] = int32(len(on))
	v.lq[r] = logistic.LogLik(w.pf[:Z], kappa, zf)
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
	a := dec.act[0][r*dec.pad[0] : r*dec.pad[0]+dec.sizes[1]]
	copy(a, dec.b[0])
	rowsum.AddRowsStride32(a, dec.w[0], dec.pad[0], on)
	if len(dec.w) > 1 {
		tanh32(a)
	}
}

// clearChunk clears a data task's sums. Not clearTask: the float32 path
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
func (v *vae32) signal(w *vaeTask) {
	t := v.t
	c := float32(t.scale)
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
			cs := c * float32(t.clipSignal(d/norm))
			for j, e := range v.pq[r*Z : (r+1)*Z] {
				de[j] += cs * e
			}
			dBase += d
			w.addDraw(f, ll, d)
		}
		if b := v.base; b != nil {
			b.dl[len(b.w)-1][p*b.pad[len(b.w)-1]] = c * float32(dBase)
		}
	}
}

// decoderDeltas returns log p(x|z) of row r (x its example) and sets the
// decoder's output deltas c(x − σ(ℓ)).
func (v *vae32) decoderDeltas(r int, x []float32, c float32) float64 {
	dec, X := v.dec, v.X
	L := len(dec.w) - 1
	pd := dec.pad[L]
	dd := dec.dl[L][r*pd : r*pd+X]
	ll := logistic.LogLik(dd, dec.act[L][r*pd:r*pd+X], x)
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

// gradient32 is Gradient's work for Precision float32 after the tasks are
// laid out: the batched phases, then the sums in task order.
func (t *VAETrainer) gradient32(idx []int) (sumF, sumLog, sumD, sumD2 float64) {
	if t.f32 == nil || t.f32.capB < len(idx) {
		t.f32 = newVAE32(t, max(len(idx), t.Opt.BatchSize))
	}
	t.f32.gradient(idx)
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

// adamBlock is the entries of one Adam job.
const adamBlock = 1 << 15

// adamSteps is Step's Adam updates of the decoder, encoder and baseline
// (ascent, as Step), split into blocks of entries run on the workers: each
// entry's update is Adam's arithmetic whatever the split.
func (v *vae32) adamSteps() {
	t := v.t
	jobs := v.jobs[:0]
	add := func(a *optim.Adam, theta, g []float64) {
		a.T++
		for lo := 0; lo < len(theta); lo += adamBlock {
			jobs = append(jobs, job32{kind: j32Adam, adam: a, theta: theta, g: g, lo: lo, hi: min(lo+adamBlock, len(theta))})
		}
	}
	a0 := t.active[0]
	add(&t.adamDec, t.M.Dec.Params(), a0.gDec)
	add(&t.adamEnc, t.M.Enc.Params(), a0.gEnc)
	if t.Base != nil {
		add(&t.adamBase, t.Base.Params(), a0.gBase)
	}
	if m := t.M; m.Aux != nil {
		for i, n := range m.Aux.Nets() {
			add(&t.adamAux[i], n.Params(), a0.ax.g[i])
		}
	}
	v.run(jobs)
	v.jobs = jobs
}
