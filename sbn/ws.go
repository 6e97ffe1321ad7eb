package sbn

import (
	"math/rand/v2"

	"github.com/logz-ml/logz/internal/kernel"
	"github.com/logz-ml/logz/internal/nmath"
	"sync/atomic"

	"github.com/logz-ml/logz/internal/seeds"
	"github.com/logz-ml/logz/internal/workgroup"
)

// Wake-sleep (Hinton, Dayan, Frey & Neal 1995) and NVIL (Mnih & Gregor
// 2014, nvil.go): two baselines of Du, Zhu & Zhang's Table 3 that train
// the generative net p(x, h | θ) together with the recognition network
// Q(h | x; φ), on one engine (recEngine). Each dynamics step of a
// minibatch B (Steps per minibatch) draws, for every example x_n, L =
// Samples proposals h_{n,s} ~ Q(· | x_n) (its own stream, keyed by
// (seed, epoch, minibatch, step, example)) and moves θ by Adam (the
// "adam" dynamics, with the prior if one is set) along
//
//	g_θ = (1/|B|) Σ_n (1/L) Σ_s ∇_θ log p(x_n, h_{n,s})
//
// — for wake-sleep the wake phase, for NVIL the gradient of the
// variational lower bound L(x) = E_Q[log p(x, h) − log Q(h | x)] (Q does
// not depend on θ). They differ in φ, moved by Adam (RecLearningRate):
//
//	wake-sleep, the sleep phase: |B|·L dreams (h, x) ~ p(h, x | θ) by
//	  ancestral sampling (dream s of position k keyed by (seed, epoch,
//	  minibatch, step, k·L + s)), and
//	    g_φ = (1/|B|) Σ_k (1/L) Σ_s ∇_φ log Q(h_{k,s} | x_{k,s}),
//	  the gradient of −KL(p(h | x) ‖ Q(h | x)) averaged over the model's
//	  own x (the dreams are drawn at the θ before this step's update);
//	nvil: the score-function gradient of L(x) (nvil.go).
//
// The chunks of chunkSize examples have their own buffers and are summed
// in a fixed order: the numbers do not depend on the number of workers.
// Everything is float64 (GradScratch's forward, addGrad, forwardQ and
// addGradQ of grad.go).
type recEngine struct {
	t    *Trainer
	nvil *nvilState // nil for wake-sleep
	// sleepOnly: the sleep phase alone, for rws with Sleep (rws.go)
	sleepOnly bool
	wt        [][]float64
	tasks     []*recTask
	gsum      *Net
	gGen      [][]float64 // gsum's slices (paramSlices)
	grec      [][]float64 // tasks[0].gq's slices (recSlices)

	// the current step
	idx                []int
	epoch, batch, step int
	active             int
	next               atomic.Int32
	wg                 workgroup.Group
	work               func()
}

// recTask is one chunk of a minibatch with its own buffers.
type recTask struct {
	src   rand.PCG
	rng   *rand.Rand
	gs    *GradScratch
	sc    *Scratch
	h     [][]float64
	g     *Net         // ∇θ, W blocks transposed (addGrad)
	gq    *Recognition // ∇φ
	gb    []float64    // ∇ of NVIL's baseline
	bs    []float64    // NVIL baseline scratch
	f     []float64    // the chunk's chunkSize·L values of log p − log Q
	bx    float64      // NVIL: b(x) of the current example
	rows  []int
	pos   int
	sumF  float64 // Σ over the chunk's draws of log p − log Q
	sumD  float64 // NVIL: Σ (r − μ) and Σ (r − μ)² over the draws
	sumD2 float64
}

// recMethod reports whether method trains on the recognition engine.
func recMethod(method string) bool { return method == "wake-sleep" || method == "nvil" }

func newRecEngine(t *Trainer) *recEngine {
	n := t.net
	e := &recEngine{t: t, wt: make([][]float64, len(n.Sizes))}
	for l := 1; l < len(n.Sizes); l++ {
		e.wt[l] = make([]float64, len(n.W[l]))
	}
	if t.opt.Method == "nvil" {
		e.nvil = newNVIL(t)
	}
	for lo := 0; lo < t.opt.BatchSize; lo += chunkSize {
		tk := &recTask{gs: n.NewGradScratch(), sc: n.NewScratch(), h: n.States(), g: New(n.Sizes, n.AR()),
			gq: NewRecognition(n.Sizes, n.AR()), f: make([]float64, chunkSize*t.opt.Samples)}
		tk.rng = rand.New(&tk.src)
		if e.nvil != nil && e.nvil.base != nil {
			tk.gb, tk.bs = make([]float64, e.nvil.base.NumParams()), make([]float64, e.nvil.base.ScratchLen())
		}
		e.tasks = append(e.tasks, tk)
	}
	g0 := e.tasks[0].g
	e.gsum = &Net{Sizes: n.Sizes, B: g0.B, S: g0.S, W: make([][]float64, len(n.Sizes))}
	for l := 1; l < len(n.Sizes); l++ {
		e.gsum.W[l] = make([]float64, len(n.W[l]))
	}
	e.gGen, _ = paramSlices(e.gsum)
	e.grec, _ = recSlices(e.tasks[0].gq, n.Sizes)
	e.work = func() {
		for {
			k := int(e.next.Add(1)) - 1
			if k >= e.active {
				return
			}
			e.runTask(e.tasks[k])
		}
	}
	return e
}

// minibatch runs the steps of minibatch b of epoch on the examples idx
// and returns the sum over them of (1/L) Σ_s log p(x, h_s) − log Q(h_s | x)
// at the last step.
func (e *recEngine) minibatch(idx []int, scale float64, workers, epoch, b int) (signal float64) {
	t := e.t
	e.layout(idx, epoch, b)
	for step := range t.opt.Steps {
		signal = e.gradients(step, scale, workers)
		if e.nvil != nil {
			e.nvil.update(e.tasks[:e.active], len(idx), t.opt.Samples)
		}
		t.update(epoch, b, step)
		t.recAdam.Step(t.phi, t.gradPhi, -1/float64(len(idx)))
		scatter(t.phi, t.rec, t.recTri)
	}
	return signal
}

// layout cuts the minibatch idx into the tasks' chunks.
func (e *recEngine) layout(idx []int, epoch, b int) {
	e.idx, e.epoch, e.batch = idx, epoch, b
	e.active = 0
	for lo := 0; lo < len(idx); lo += chunkSize {
		tk := e.tasks[e.active]
		tk.rows, tk.pos = idx[lo:min(lo+chunkSize, len(idx))], lo
		e.active++
	}
}

// gradients computes the gradients of step of the minibatch laid out:
// t.grad = −scale·Σ_n (1/L) Σ_s ∇_θ log p(x_n, h_{n,s}) (without the
// prior) and t.gradPhi = Σ (the sleep phase's or NVIL's φ gradient, each
// example's L terms weighted 1/L), and the sum over the draws of the
// baseline's gradient in tasks[0].gb; it returns the minibatch's Σ_n
// (1/L) Σ_s log p(x_n, h_{n,s}) − log Q(h_{n,s} | x_n).
func (e *recEngine) gradients(step int, scale float64, workers int) (signal float64) {
	t := e.t
	n := t.net
	e.run(step, workers)
	t0 := e.tasks[0]
	signal = t0.sumF
	for _, tk := range e.tasks[1:e.active] {
		addNet(t0.g, tk.g)
		addRec(t0.gq, tk.gq)
		axpy(t0.gb, tk.gb)
		signal += tk.sumF
	}
	for l := 1; l <= n.Layers(); l++ {
		transpose(t0.g.W[l], n.Sizes[l], n.Sizes[l-1], e.gsum.W[l])
	}
	gather(e.gGen, t.genTri, t.grad)
	for i := range t.grad {
		t.grad[i] *= -scale
	}
	gather(e.grec, t.recTri, t.gradPhi)
	return signal / float64(t.opt.Samples)
}

// addRec adds the parameters of b to a.
func addRec(a, b *Recognition) {
	for l := 1; l < len(a.R); l++ {
		axpy(a.R[l], b.R[l])
		axpy(a.C[l], b.C[l])
		if a.T != nil {
			axpy(a.T[l], b.T[l])
		}
	}
}

func zeroRec(a *Recognition) {
	for l := 1; l < len(a.R); l++ {
		clear(a.R[l])
		clear(a.C[l])
		if a.T != nil {
			clear(a.T[l])
		}
	}
}

// runTask computes one chunk's gradients at the current step.
func (e *recEngine) runTask(tk *recTask) {
	t := e.t
	n := t.net
	zeroNet(tk.g)
	zeroRec(tk.gq)
	clear(tk.gb)
	tk.sumF, tk.sumD, tk.sumD2 = 0, 0, 0
	L := t.opt.Samples
	w := 1 / float64(L)
	gs, h := tk.gs, tk.h
	for k, row := range tk.rows {
		if e.sleepOnly {
			break
		}
		tk.src.Seed(seeds.Derive(t.opt.Seed, keyExample, uint64(e.epoch), uint64(e.batch), uint64(e.step), uint64(row)), 0)
		x := t.cur.data.Row(row)
		f := tk.f[k*L : (k+1)*L]
		if e.nvil != nil {
			tk.bx = e.nvil.baseline(tk, x)
		}
		for s := range L {
			for i, v := range x {
				h[0][i] = float64(v)
			}
			gs.on[0] = onUnits(h[0], gs.on[0])
			lq := n.forwardQ(h, gs.pq, gs.on, tk.rng)
			lp := n.forward(h, gs.p, gs.on, e.wt)
			n.addGrad(h, gs.p, gs.on, w, tk.g)
			f[s] = lp - lq
			tk.sumF += f[s]
			if e.nvil != nil {
				// the draw's score weight; gs.pq still holds σ(q)
				n.addGradQ(h, gs.pq, gs.on, e.nvil.weight(tk, f[s])*w, tk.gq)
			}
		}
		if e.nvil != nil {
			e.nvil.baselineGrad(tk, x, f)
		}
	}
	if e.nvil != nil {
		return
	}
	// The sleep phase: the chunk's dreams.
	for k := range tk.rows {
		for s := range L {
			pos := (tk.pos+k)*L + s
			tk.src.Seed(seeds.Derive(t.opt.Seed, keySleep, uint64(e.epoch), uint64(e.batch), uint64(e.step), uint64(pos)), 0)
			e.dream(tk)
			n.forwardQ(h, gs.pq, gs.on, nil)
			n.addGradQ(h, gs.pq, gs.on, w, tk.gq)
		}
	}
}

// state adds NVIL's state (nothing for wake-sleep).
func (e *recEngine) state(put func(string, []float64, ...int)) {
	if e.nvil != nil {
		e.nvil.state(put)
	}
}

// restore reads NVIL's state.
func (e *recEngine) restore(get func(string, []float64) error) error {
	if e.nvil != nil {
		return e.nvil.restore(get)
	}
	return nil
}

// dream draws (h, x) ~ p(h, x | θ) top-down into tk.h, with the on-lists
// in tk.gs.on: a layer's input from above is b_l plus the rows of W_{l+1}ᵀ
// (e.wt) of the units at 1 (kernel.AddRows), then its units are drawn in
// raster order (adding S_l's row for an autoregressive net), each as
// Sample draws it (a uniform below σ(a)).
func (e *recEngine) dream(tk *recTask) {
	n := e.t.net
	L := n.Layers()
	gs := tk.gs
	for l := L; l >= 0; l-- {
		k := n.Sizes[l]
		a := gs.p[l][:k]
		copy(a, n.B[l])
		if l < L {
			kernel.AddRows(a, e.wt[l+1], gs.on[l+1])
		}
		hl, on := tk.h[l], gs.on[l][:0]
		for i, ai := range a {
			if n.S != nil {
				ai += lowerDot(n.S[l], k, i, hl)
			}
			if tk.rng.Float64() < nmath.Sigmoid(ai) {
				hl[i] = 1
				on = append(on, int32(i))
			} else {
				hl[i] = 0
			}
		}
		gs.on[l] = on
	}
}

// sleepGradient runs the sleep phase alone (sleepOnly) at step of the
// minibatch laid out and writes Σ_k (1/L) Σ_s ∇_φ log Q(h_{k,s} | x_{k,s})
// over its dreams into dst (the flat φ order).
func (e *recEngine) sleepGradient(step, workers int, dst []float64) {
	e.run(step, workers)
	t0 := e.tasks[0]
	for _, tk := range e.tasks[1:e.active] {
		addRec(t0.gq, tk.gq)
	}
	gather(e.grec, e.t.recTri, dst)
}

// run runs the tasks of step of the minibatch laid out on up to workers
// goroutines, at the net's current θ (W_lᵀ refreshed first).
func (e *recEngine) run(step, workers int) {
	n := e.t.net
	e.step = step
	for l := 1; l <= n.Layers(); l++ {
		transpose(n.W[l], n.Sizes[l-1], n.Sizes[l], e.wt[l])
	}
	e.next.Store(0)
	if workers = min(workers, e.active); workers <= 1 {
		e.work()
	} else {
		for range workers {
			e.wg.Go(e.work)
		}
		e.wg.Wait()
	}
}
