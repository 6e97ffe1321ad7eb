package train

import (
	"math"

	"github.com/logz-ml/logz/internal/kernel"
	"github.com/logz-ml/logz/internal/optim"
	"github.com/logz-ml/logz/internal/seeds"
)

// vaeEngineAux is the engine's part for auxiliary variables
// (models.VAEAux): the estimate of vae_aux.go's doc batched like the plain
// path's. q(a|x) (net q) runs on the examples; ε, a = μ_q + σ_q ⊙ ε and
// the uniforms of the z draws come from each example's stream in the
// per-example reference's order (per draw: A normals, then Z uniforms),
// so both follow the same draws; the a-input net Enc (ea, a dense input),
// the encoder q(z|x,a) (its first layer tanh(W_1ᵀx + b_1 + Enc(a)), the x
// part computed once per example), the decoder and p(a|x,z) (net p, binary
// input [x, z]) run on the rows (examples × draws). Backpropagation:
// the encoder, decoder, baseline and p first; then Enc from the encoder's
// first-layer δ (ea.dl[1] is enc.dl[0]) down to ∂/∂a; then q from
// ∂/∂(μ_q, log σ_q) summed over the draws.
type vaeEngineAux[F kernel.Float] struct {
	q, ea, p *bnet[F]
	nets     []*bnet[F] // enc, dec, [base], p, ea, q
	A        int
	pre      []F       // examples × pad16(n_1): W_1ᵀx + b_1
	eps, a   []float64 // rows × A: ε and a
	ga       []float64 // rows × A: c ∂ log p(a|x,z)/∂a
	u        []float64 // rows × Z: the uniforms of the z draws
	lqa      []float64 // rows: log q(a|x)
	// The rows whose example has pixel i on: xrCol[xrOff[i]:xrOff[i+1]].
	xrCol []int32
	xrOff []int
}

func (v *vaeEngine[F]) newAux(B, rows int) {
	m := v.t.M
	A := m.Aux.Dim
	n1 := m.EncSizes[1]
	ax := &vaeEngineAux[F]{A: A, q: newBNet[F](m.Aux.Q, B), ea: newBNet[F](m.Aux.Enc, rows), p: newBNet[F](m.Aux.P, rows),
		pre: make([]F, B*pad16(n1)), eps: make([]float64, rows*A), a: make([]float64, rows*A),
		ga: make([]float64, rows*A), u: make([]float64, rows*v.Z), lqa: make([]float64, rows), xrOff: make([]int, v.X+1)}
	ea := ax.ea
	ea.dense = true
	ea.in, ea.inT = make([]F, rows*A), make([]F, A*rows)
	ea.din = make([]F, rows*pad16(A))
	ea.wt[0] = make([]F, ea.sizes[1]*pad16(A))
	ea.dl[1] = v.enc.dl[0] // Enc's output is added to the encoder's first pre-activation
	ax.nets = []*bnet[F]{v.enc, v.dec}
	if v.base != nil {
		ax.nets = append(ax.nets, v.base)
	}
	ax.nets = append(ax.nets, ax.p, ea, ax.q)
	v.aux = ax
}

// auxAdam is the Adam state of an auxiliary net.
func (v *vaeEngine[F]) auxAdam(n *bnet[F]) *optim.Adam {
	a := v.t.adamAux
	switch n {
	case v.aux.q:
		return &a[0]
	case v.aux.ea:
		return &a[1]
	}
	return &a[2]
}

// auxGrad is the float64 gradient buffer of an auxiliary net.
func (v *vaeEngine[F]) auxGrad(n *bnet[F]) []float64 {
	g := &v.t.active[0].ax.g
	switch n {
	case v.aux.q:
		return g[0]
	case v.aux.ea:
		return g[1]
	}
	return g[2]
}

// inputRows lists the batch rows of net n whose binary input i is on.
func (v *vaeEngine[F]) inputRows(n *bnet[F], i int) []int32 {
	switch {
	case n == v.dec:
		return v.zCol[v.zcOff[i]:v.zcOff[i+1]]
	case v.aux == nil || n == v.base || n == v.aux.q:
		return v.xCol[v.xcOff[i]:v.xcOff[i+1]]
	case i >= v.X: // p's z inputs
		i -= v.X
		return v.zCol[v.zcOff[i]:v.zcOff[i+1]]
	}
	return v.aux.xrCol[v.aux.xrOff[i]:v.aux.xrOff[i+1]] // the encoder's and p's x inputs
}

// xRows builds the per-pixel lists of rows (each example's S draws).
func (v *vaeEngine[F]) xRows() {
	ax, S := v.aux, v.S
	ax.xrCol = grow32(ax.xrCol, len(v.xCol)*S)
	for i := range v.X {
		ax.xrOff[i+1] = v.xcOff[i+1] * S
		o := v.xcOff[i] * S
		for _, k := range v.xCol[v.xcOff[i]:v.xcOff[i+1]] {
			for s := range S {
				ax.xrCol[o] = k*int32(S) + int32(s)
				o++
			}
		}
	}
}

// dataJobs appends a job of kind per data task.
func (v *vaeEngine[F]) dataJobs(jobs []vjob[F], kind int) []vjob[F] {
	for _, w := range v.t.active {
		if w.kind == vaeData {
			jobs = append(jobs, vjob[F]{kind: kind, task: w})
		}
	}
	return jobs
}

// denseLayers runs layers from…(last) of the nets, layer by layer.
func (v *vaeEngine[F]) denseLayers(jobs []vjob[F], from int, nets ...*bnet[F]) []vjob[F] {
	for l := from; ; l++ {
		jobs = jobs[:0]
		for _, n := range nets {
			if l < len(n.w) {
				jobs = blocks(jobs, jDense, n, l, n.pad[l], colBlock)
			}
		}
		if len(jobs) == 0 {
			return jobs
		}
		v.run(jobs)
	}
}

// backprop runs the nets' backpropagation from their output deltas,
// layer by layer from the top; a dense-input net ends with ∂/∂input.
func (v *vaeEngine[F]) backprop(jobs []vjob[F], nets ...*bnet[F]) []vjob[F] {
	for depth := 0; ; depth++ {
		jobs = jobs[:0]
		for _, n := range nets {
			l := len(n.w) - 1 - depth
			switch {
			case l >= 1:
				jobs = blocks(jobs, jGradDense, n, l, n.sizes[l], gradRows)
				jobs = append(jobs, vjob[F]{kind: jBiasDense, n: n, l: l})
				jobs = blocks(jobs, jDelta, n, l-1, n.pad[l-1], colBlock)
			case l == 0 && (n.dense || n == v.dec && v.zDense):
				jobs = blocks(jobs, jGradDense, n, 0, n.sizes[0], gradRows)
				jobs = append(jobs, vjob[F]{kind: jBiasDense, n: n, l: 0})
				if n.dense { // not the decoder on z: no ∂/∂z
					jobs = blocks(jobs, jDeltaIn, n, 0, pad16(n.sizes[0]), colBlock)
				}
			case l == 0:
				jobs = blocks(jobs, jGradFirst, n, 0, n.sizes[0], 16)
				jobs = append(jobs, vjob[F]{kind: jBiasFirst, n: n})
			}
		}
		if len(jobs) == 0 {
			return jobs
		}
		v.run(jobs)
	}
}

// gradientAux is gradient for a model with auxiliary variables.
func (v *vaeEngine[F]) gradientAux() {
	ax := v.aux
	v.xRows()
	enc, dec, q, ea, p := v.enc, v.dec, ax.q, ax.ea, ax.p
	// The F copies; the transposes with the encoder's x part, q's and the
	// baseline's first layers.
	jobs := v.refresh(v.jobs)
	jobs = blocks(jobs, jPre, enc, 0, v.nb, chunkSize)
	jobs = v.firstBlocks(jobs, q)
	if v.base != nil {
		jobs = v.firstBlocks(jobs, v.base)
	}
	v.run(jobs)
	if v.base != nil {
		jobs = v.denseLayers(jobs, 1, q, v.base)
	} else {
		jobs = v.denseLayers(jobs, 1, q)
	}
	// ε, a, log q(a|x), the uniforms; Enc on a; the encoder on the rows.
	v.run(v.dataJobs(jobs[:0], jNoise))
	jobs = append(blocks(jobs[:0], jDense, ea, 0, ea.pad[0], colBlock), vjob[F]{kind: jTransposeIn, n: ea})
	v.run(jobs)
	jobs = v.denseLayers(jobs, 1, ea)
	v.run(blocks(jobs[:0], jAuxFirst, enc, 0, v.rows, chunkSize))
	jobs = v.denseLayers(jobs, 1, enc)
	// The draws z, the first layers of the decoder and p on them.
	v.run(v.dataJobs(jobs[:0], jSample))
	v.zColumns()
	jobs = v.denseLayers(jobs, 1, dec, p)
	if !v.priorReady() {
		return
	}
	// The signal and output deltas, the prior, the transposed activations.
	jobs = jobs[:0]
	for _, w := range v.t.active {
		k := jPrior
		if w.kind == vaeData {
			k = jSignal
		}
		jobs = append(jobs, vjob[F]{kind: k, task: w})
	}
	for _, n := range ax.nets {
		for l := range len(n.w) - 1 {
			jobs = append(jobs, vjob[F]{kind: jTranspose, n: n, l: l})
		}
	}
	v.run(jobs)
	if v.base != nil {
		jobs = v.backprop(jobs, enc, dec, v.base, p)
	} else {
		jobs = v.backprop(jobs, enc, dec, p)
	}
	jobs = v.backprop(jobs, ea)
	v.run(v.dataJobs(jobs[:0], jAuxQ))
	v.jobs = v.backprop(jobs, q)
	v.fresh = v.fused
}

func (v *vaeEngine[F]) doAux(j *vjob[F]) {
	n, ax := j.n, v.aux
	switch j.kind {
	case jTransposeIn:
		transposeF(n.inT, v.rows, n.in, n.sizes[0], v.rows, n.sizes[0])
	case jDeltaIn:
		pi := pad16(n.sizes[0])
		colsF(v.rows, j.lo, j.hi, n.sizes[1], n.dl[0], n.pad[0], n.wt[0], pi, n.din, pi)
	case jPre:
		out, p, pp := n.sizes[1], n.pad[0], pad16(n.sizes[1])
		for k := j.lo; k < j.hi; k++ {
			a := ax.pre[k*pp : k*pp+out]
			copy(a, n.b[0])
			addRowsF(a, n.w[0], p, v.xOnOf(k))
		}
	case jAuxFirst:
		out, p, pp := n.sizes[1], n.pad[0], pad16(n.sizes[1])
		g, pg := ax.ea.act[len(ax.ea.w)-1], ax.ea.pad[len(ax.ea.w)-1]
		for r := j.lo; r < j.hi; r++ {
			k := r / v.S
			a, x, e := n.act[0][r*p:r*p+out], ax.pre[k*pp:k*pp+out], g[r*pg:r*pg+out]
			for i, y := range x {
				a[i] = y + e[i]
			}
			if len(n.w) > 1 {
				tanhF(a)
			}
		}
	case jNoise:
		v.noise(j.task)
	case jAuxQ:
		v.auxQ(j.task)
	}
}

// noise draws, for the task's examples, each draw's ε (A normals) and the
// Z uniforms of its z from the example's stream, in the reference's
// order, and sets a = μ_q + σ_q ⊙ ε (Enc's input row) and log q(a|x).
func (v *vaeEngine[F]) noise(w *vaeTask) {
	t, ax := v.t, v.aux
	A, Z, S := ax.A, v.Z, v.S
	q := ax.q
	L := len(q.w) - 1
	for k := range w.rows {
		p := w.pos + k
		w.src.Seed(seeds.Derive(t.Seed, vaeSeedLatent, uint64(t.epoch), uint64(t.batch), uint64(p)), 0)
		y := q.act[L][p*q.pad[L] : p*q.pad[L]+2*A]
		if v.base != nil {
			v.lb[p] = float64(v.base.act[len(v.base.w)-1][p*v.base.pad[len(v.base.w)-1]])
		}
		for s := range S {
			r := p*S + s
			eps, a, in := ax.eps[r*A:(r+1)*A], ax.a[r*A:(r+1)*A], ax.ea.in[r*A:(r+1)*A]
			for i := range eps {
				eps[i] = w.rng.NormFloat64()
			}
			lqa := 0.0
			for i, e := range eps {
				ls := float64(y[A+i])
				a[i] = float64(y[i]) + math.Exp(ls)*e
				in[i] = F(a[i])
				lqa -= 0.5*e*e + ls + halfLog2Pi
			}
			ax.lqa[r] = lqa
			for j := range Z {
				ax.u[r*Z+j] = w.rng.Float64()
			}
		}
	}
}

// halfLog2Pi is ½ log 2π.
var halfLog2Pi = 0.5 * math.Log(2*math.Pi)

// sampleAux draws the task's rows' z ~ q(z|x,a) with the uniforms of noise
// (finishDraw records them), and runs p's first layer on [x, z].
func (v *vaeEngine[F]) sampleAux(w *vaeTask) {
	clearChunk(w)
	ax := v.aux
	Z, S, X := v.Z, v.S, v.X
	enc, p := v.enc, ax.p
	L := len(enc.w)
	pe, pp, H := enc.pad[L-1], p.pad[0], p.sizes[1]
	for k := range w.rows {
		e := w.pos + k
		for s := range S {
			r := e*S + s
			on := v.drawRow(w, r, enc.act[L-1][r*pe:r*pe+Z], ax.u)
			a := p.act[0][r*pp : r*pp+H]
			copy(a, p.b[0])
			addRowsF(a, p.w[0], pp, v.xOnOf(e))
			addRowsF(a, p.w[0][X*pp:], pp, on)
			tanhF(a)
		}
	}
}

// signalAux is signal for a model with auxiliary variables: per row, f
// gains log p(a|x,z) − log q(a|x); the encoder's output delta is the
// row's c·sig·(z − σ(κ)); p's output deltas are c ∂ log p(a|x,z)/∂(μ_p,
// log σ_p), and c ∂ log p(a|x,z)/∂a is kept for auxQ.
func (v *vaeEngine[F]) signalAux(w *vaeTask, norm float64) {
	t, ax := v.t, v.aux
	c := t.scale
	X, Z, S, A := v.X, v.Z, v.S, ax.A
	enc, p := v.enc, ax.p
	Le, Lp := len(enc.w)-1, len(p.w)-1
	pe, pp := enc.pad[Le], p.pad[Lp]
	for k := range w.rows {
		e := w.pos + k
		x := v.xf[e*X : (e+1)*X]
		dBase := 0.0
		for s := range S {
			r := e*S + s
			ll := v.decoderDeltas(r, x, F(c))
			y, dy := p.act[Lp][r*pp:r*pp+2*A], p.dl[Lp][r*pp:r*pp+2*A]
			a, ga := ax.a[r*A:(r+1)*A], ax.ga[r*A:(r+1)*A]
			lpa := 0.0
			for i, av := range a {
				ls := float64(y[A+i])
				inv := math.Exp(-ls)
				u := (av - float64(y[i])) * inv
				lpa -= 0.5*u*u + ls + halfLog2Pi
				dy[i] = F(c * u * inv)
				dy[A+i] = F(c * (u*u - 1))
				ga[i] = -c * u * inv
			}
			f := ll + v.lp[r] - v.lq[r] + lpa - ax.lqa[r]
			d := f - v.lb[e] - t.SignalMean
			cs := F(c) * F(t.clipSignal(d/norm))
			de := enc.dl[Le][r*pe : r*pe+Z]
			for j, q := range v.pq[r*Z : (r+1)*Z] {
				de[j] = cs * q
			}
			dBase += d
			w.addDraw(f, ll, d)
		}
		if b := v.base; b != nil {
			b.dl[len(b.w)-1][e*b.pad[len(b.w)-1]] = F(c * dBase)
		}
	}
}

// auxQ sets q's output deltas of the task's examples: summed over the
// draws, g = norm·∂(score term)/∂a + c ∂ log p(a|x,z)/∂a into μ_q and
// g·σ_q·ε + c into log σ_q (as auxDraw).
func (v *vaeEngine[F]) auxQ(w *vaeTask) {
	t, ax := v.t, v.aux
	A, S := ax.A, v.S
	c := t.scale
	norm := v.norm()
	q, ea := ax.q, ax.ea
	L := len(q.w) - 1
	pi := pad16(A)
	for k := range w.rows {
		e := w.pos + k
		y, dy := q.act[L][e*q.pad[L]:e*q.pad[L]+2*A], q.dl[L][e*q.pad[L]:e*q.pad[L]+2*A]
		for i := range A {
			sigma := math.Exp(float64(y[A+i]))
			gm, gs := 0.0, 0.0
			for s := range S {
				r := e*S + s
				g := norm*float64(ea.din[r*pi+i]) + ax.ga[r*A+i]
				gm += g
				gs += g*sigma*ax.eps[r*A+i] + c
			}
			dy[i], dy[A+i] = F(gm), F(gs)
		}
	}
}

// norm is the learning signal's normaliser max(1, √v) (1 before the first step).
func (v *vaeEngine[F]) norm() float64 {
	if t := v.t; t.SignalSteps > 0 {
		return max(1, math.Sqrt(t.SignalVar))
	}
	return 1
}
