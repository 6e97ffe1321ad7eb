package workgroup

import (
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"
)

// Pool runs a trainer's many short parallel phases (an SBN minibatch's
// six per dynamics step, a VAE step's ten or so; under a millisecond to a
// few each) on helper goroutines that live from Start to Close (a
// minibatch, a step), instead of starting a goroutine per phase. A
// goroutine started per phase waits for the runtime to wake a
// parked thread and for the kernel to run it, which on a two-core virtual
// machine is slow, and slower when the core has meanwhile gone to another
// process: one core then does most of the phase alone. Here a goroutine
// that finished its share of a phase waits busily for the next one (a
// helper) or for the helpers (the caller) for a while, and only then
// parks. Which goroutine runs which item still does not matter: the
// phases' items write disjoint outputs. docs/performance.md has the
// measurements.
type Pool struct {
	run     func(helper int) // a helper's share of the current phase
	gen     atomic.Uint64    // bumped to start a phase
	quit    atomic.Bool
	done    atomic.Int32 // helpers done with the current phase
	helpers []waiter
	main    waiter
	spinFor time.Duration // the longest busy wait (the constant spinFor)
	failed  atomic.Pointer[Panic]
	exited  sync.WaitGroup
}

// spinFor is the longest a goroutine waits busily before it parks:
// longer than the gaps between a minibatch's phases and than the end of a
// phase (the other goroutine's last item: up to a few hundred µs in a VAE
// step, where a 50 µs wait parked and the woken helper joined the next
// phase 140 µs late on average) on an idle machine, far shorter than a
// scheduler's time slice; spinStep is how much a wait that ended while
// spinning lengthens the next.
const spinFor, spinStep = 500 * time.Microsecond, 2 * time.Microsecond

// A waiter is a goroutine that waits busily, then parks; its state says
// which, so that the goroutine that makes its condition true knows whether
// to wake it.
type waiter struct {
	state atomic.Int32 // awake or parked
	wake  chan struct{}
	spin  time.Duration // how long to wait busily (only the waiter's own)
	_     [40]byte      // one cache line each
}

const (
	awake int32 = iota
	parked
)

// await returns when ready() is true. Whoever makes it true must call
// notify afterwards. The time it waits busily adapts, as an adaptive
// mutex's does: a wait that had to park halves it, one that ended while
// spinning lengthens it by spinStep (up to most). On a machine busy
// with other processes, where the other goroutine's thread is often off
// its core, the waits soon park at once, as goroutines started per phase
// would (spinning there was measured to cost wall time).
func (w *waiter) await(ready func() bool, most time.Duration) {
	if ready() {
		return
	}
	start := time.Now()
	for i := 1; ; i++ {
		if ready() {
			w.spin = min(most, w.spin+spinStep)
			return
		}
		if i&63 == 0 && time.Since(start) > min(w.spin, most) {
			break
		}
	}
	w.spin /= 2
	w.state.Store(parked)
	if ready() && w.state.CompareAndSwap(parked, awake) {
		return
	}
	<-w.wake // notify has set the state back to awake
}

// notify wakes w if it has parked (after its condition became true).
func (w *waiter) notify() {
	if w.state.Load() == parked && w.state.CompareAndSwap(parked, awake) {
		w.wake <- struct{}{}
	}
}

// NewPool makes a pool of helpers goroutines that run run(i) (i =
// 0 … helpers−1) at every phase between start and close.
func NewPool(helpers int, run func(helper int)) *Pool {
	p := &Pool{run: run, helpers: make([]waiter, helpers), spinFor: spinFor}
	p.main.wake = make(chan struct{}, 1)
	for i := range p.helpers {
		p.helpers[i].wake = make(chan struct{}, 1)
		p.helpers[i].spin = spinFor
	}
	p.main.spin = spinFor
	p.done.Store(int32(helpers)) // no phase in progress
	return p
}

// Helpers is the number of helpers (the goroutines besides the caller).
func (p *Pool) Helpers() int { return len(p.helpers) }

// Start starts the helpers.
func (p *Pool) Start() {
	p.quit.Store(false)
	p.failed.Store(nil)
	p.exited.Add(len(p.helpers))
	seen := p.gen.Load()
	for i := range p.helpers {
		go p.helper(i, seen)
	}
}

// helper is helper i's loop, from phase seen on.
func (p *Pool) helper(i int, seen uint64) {
	defer p.exited.Done()
	w := &p.helpers[i]
	for {
		w.await(func() bool { return p.gen.Load() != seen }, p.spinFor)
		seen = p.gen.Load()
		if p.quit.Load() {
			return
		}
		p.share(i)
		if p.done.Add(1) == int32(len(p.helpers)) {
			p.main.notify()
		}
	}
}

// share runs helper i's share of the phase, keeping the first panic for
// the caller (as workgroup.Group does).
func (p *Pool) share(i int) {
	defer func() {
		if r := recover(); r != nil {
			p.failed.CompareAndSwap(nil, &Panic{Value: r, Stack: debug.Stack()})
		}
	}()
	p.run(i)
}

// Phase runs a phase: the helpers' shares and own, the caller's, and
// waits for the helpers; a helper's panic is raised here.
func (p *Pool) Phase(own func()) {
	p.done.Store(0)
	p.gen.Add(1)
	for i := range p.helpers {
		p.helpers[i].notify()
	}
	own()
	p.wait()
	if e := p.failed.Load(); e != nil {
		panic(e)
	}
}

// wait waits for the helpers to finish the current phase.
func (p *Pool) wait() {
	n := int32(len(p.helpers))
	p.main.await(func() bool { return p.done.Load() == n }, p.spinFor)
}

// Close stops the helpers (after the current phase, if the caller's share
// panicked).
func (p *Pool) Close() {
	p.wait()
	p.quit.Store(true)
	p.gen.Add(1)
	for i := range p.helpers {
		p.helpers[i].notify()
	}
	p.exited.Wait()
}
