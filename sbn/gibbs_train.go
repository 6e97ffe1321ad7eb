package sbn

import (
	"math/rand/v2"
	"sync"
	"sync/atomic"

	"github.com/logz-ml/logz/internal/kernel"
	"github.com/logz-ml/logz/internal/seeds"
)

// The Gibbs sampler of the trainer, in two phases per dynamics step.
//
// Sampling: the chains of a minibatch's examples run side by side,
// gibbsLanes at a time (gibbsChains in the precision of train.precision),
// each example's chain resuming from its
// stored state (or starting from a prior draw), sweeping (with the burn-in
// at the first dynamics step of its minibatch) and keeping L states, with
// its own random stream keyed by (epoch, minibatch, step, example). A
// chain's states do not depend on which lane or beside which chains it
// runs, so the sampling groups need not be the gradient's chunks: full
// groups of eight lanes waste no work.
//
// Gradient: each chunk (chunkSize examples, summed in a fixed order) adds
// the gradients of its examples' kept states, example by example and state
// by state (batched: addGradBatch). At the steps before the last (where
// log p(x, h) is not needed), the visible layer's σ(a) of each
// kept state come from the chains (σ = ρ/(1 + ρ)) instead of being summed
// again from W.

// gibbsLanes is the number of chains a sampling task runs side by side
// (two groups of eight lanes).
const gibbsLanes = 16

// chainSet is a sampling task's chains: gibbsChains[float32] or
// gibbsChains[float64].
type chainSet interface {
	load(k int, h [][]float64)
	refresh(active int, g *gibbsTables)
	sweep(g *gibbsTables, rngs []*rand.Rand)
	flush(g *gibbsTables)
	latent(k int, h [][]float64)
	visibleSigmoid(g *gibbsTables, k int, dst []float64)
}

// gibbsSampling holds the sampling phase's tasks and the kept states of a
// minibatch (example at position p, state s: kept[(p·Samples + s)·latent:]).
type gibbsSampling struct {
	tasks  []*gibbsTask
	lanes  int // chains per task
	kept   []float64
	sig0   []float64 // σ(a_0) of each kept state (as kept, n_0 each), at the steps before the last
	active int
	next   atomic.Int32
	phase  sync.WaitGroup // the sampling phase's end, awaited by every worker
	work   func()         // a worker of both phases
}

// gibbsTask is one sampling task: up to gibbsLanes examples of a minibatch.
type gibbsTask struct {
	lc   chainSet
	src  []rand.PCG
	rng  []*rand.Rand
	one  [][]float64
	sc   *Scratch
	rows []int // dataset indices
	pos  int   // position of rows[0] in the minibatch
}

func (t *Trainer) newGibbsSampling() {
	n, o := t.net, t.opt
	gs := &t.gs
	gs.kept = make([]float64, o.BatchSize*o.Samples*t.latent)
	gs.lanes = gibbsLanes
	gs.sig0 = make([]float64, o.BatchSize*o.Samples*n.Sizes[0])
	for lo := 0; lo < o.BatchSize; lo += gs.lanes {
		tk := &gibbsTask{src: make([]rand.PCG, gs.lanes), rng: make([]*rand.Rand, gs.lanes), one: n.States(), sc: n.NewScratch()}
		if t.opt.Precision == kernel.Float32 {
			tk.lc = newGibbsChains[float32](n, gs.lanes)
		} else {
			tk.lc = newGibbsChains[float64](n, gs.lanes)
		}
		for k := range tk.rng {
			tk.rng[k] = rand.New(&tk.src[k])
		}
		gs.tasks = append(gs.tasks, tk)
	}
	gs.work = func() {
		done := false
		defer func() {
			if !done { // a panic in the sampling phase must not leave the others waiting
				gs.phase.Done()
			}
		}()
		for {
			k := int(gs.next.Add(1)) - 1
			if k >= gs.active {
				break
			}
			t.gibbsSample(gs.tasks[k])
		}
		done = true
		gs.phase.Done()
		gs.phase.Wait()
		t.work()
	}
}

// gibbsSteps prepares a dynamics step of the Gibbs sampler on the examples
// idx of the minibatch and returns the function each of its workers runs:
// the sampling tasks, then, once every worker is done with them, the
// gradient chunks (t.work).
func (t *Trainer) gibbsSteps(idx []int, workers int) func() {
	gs := &t.gs
	gs.active = 0
	for lo := 0; lo < len(idx); lo += gs.lanes {
		tk := gs.tasks[gs.active]
		tk.rows, tk.pos = idx[lo:min(lo+gs.lanes, len(idx))], lo
		gs.active++
	}
	gs.next.Store(0)
	gs.phase.Add(max(1, workers))
	return gs.work
}

// gibbsSample resumes the chains of the task's examples, sweeps, keeps L
// states of each and stores each chain's last state.
func (t *Trainer) gibbsSample(tk *gibbsTask) {
	n, o, lc, c := t.net, t.opt, tk.lc, &t.cur
	h := tk.one
	for k, row := range tk.rows {
		tk.src[k].Seed(seeds.Derive(o.Seed, keyExample, uint64(c.epoch), uint64(c.batch), uint64(c.step), uint64(row)), 0)
		for i, v := range c.data.Row(row) {
			h[0][i] = float64(v)
		}
		st, fresh := t.gibbsState(row, tk.pos+k)
		if fresh {
			n.samplePrior(h, tk.rng[k], tk.sc)
		} else {
			unpackStates(st, h)
		}
		lc.load(k, h)
	}
	K := len(tk.rows)
	lc.refresh(K, t.gibbs)
	rngs := tk.rng[:K]
	if c.step == 0 {
		for range o.BurnIn {
			lc.sweep(t.gibbs, rngs)
		}
	}
	H := t.latent
	sig0 := c.step < o.Steps-1 // the gradient's visible σ from the chains (not at the last step: log p needs the activations)
	m := n.Sizes[0]
	for s := range o.Samples {
		for range o.GibbsSweeps {
			lc.sweep(t.gibbs, rngs)
		}
		if sig0 {
			lc.flush(t.gibbs)
		}
		for k := range K {
			lc.latent(k, h)
			packStates(h, t.gs.kept[((tk.pos+k)*o.Samples+s)*H:])
			if sig0 {
				at := ((tk.pos+k)*o.Samples + s) * m
				lc.visibleSigmoid(t.gibbs, k, t.gs.sig0[at:at+m])
			}
		}
	}
	for k, row := range tk.rows {
		st, _ := t.gibbsState(row, tk.pos+k)
		for i, v := range t.gs.kept[((tk.pos+k)*o.Samples+o.Samples-1)*H : ((tk.pos+k)*o.Samples+o.Samples)*H] {
			st[i] = uint8(v)
		}
	}
}

// gibbsGrad adds the gradients of the kept states of the chunk's examples
// (and, at the last dynamics step, their log p(x, h) to the signal).
func (t *Trainer) gibbsGrad(tk *trainTask) {
	n, o, c := t.net, t.opt, &t.cur
	m := n.Sizes[0]
	for k, row := range tk.rows {
		x := tk.xs[k*m : (k+1)*m]
		for i, v := range c.data.Row(row) {
			x[i] = float64(v)
		}
	}
	K, S, H := len(tk.rows), o.Samples, t.latent
	last := c.step == o.Steps-1
	w := 1 / float64(S)
	var sig0 []float64
	if !last {
		sig0 = t.gs.sig0[tk.pos*S*m : (tk.pos+K)*S*m]
	}
	n.addGradBatch(tk.gb, tk.xs, K, S, t.gs.kept[tk.pos*S*H:(tk.pos+K)*S*H], t.gibbs.wt, w, tk.gGen, last, sig0)
	if last {
		for _, lp := range tk.gb.lp[:K*S] {
			tk.signal += w * lp
		}
	}
}

// gibbsState returns the stored state of the chain of example row, at
// position pos of its minibatch, and whether the chain starts afresh (a
// persistent chain the first time, else at the minibatch's first step);
// it marks a persistent chain as started.
func (t *Trainer) gibbsState(row, pos int) ([]uint8, bool) {
	if t.persist != nil {
		fresh := t.seen[row] == 0
		t.seen[row] = 1
		return t.persist[row*t.latent : (row+1)*t.latent], fresh
	}
	return t.batchSt[pos*t.latent : (pos+1)*t.latent], t.cur.step == 0
}

// unpackStates sets the latent layers h[1:] from the flat bytes st.
func unpackStates(st []uint8, h [][]float64) {
	o := 0
	for l := 1; l < len(h); l++ {
		for i := range h[l] {
			h[l][i] = float64(st[o])
			o++
		}
	}
}

// packStates writes the latent layers h[1:] flat into dst.
func packStates(h [][]float64, dst []float64) {
	o := 0
	for l := 1; l < len(h); l++ {
		o += copy(dst[o:], h[l])
	}
}
