package workgroup

import (
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

// TestPhasePool runs phases on a pool of three helpers and the caller:
// every item of every phase exactly once, with the phase's results all
// there when phase returns, also after pauses longer than spinFor (the
// helpers and the caller park and must be woken); a helper's panic is
// raised by phase as a *Panic, and close stops the helpers
// (none is left running). Waits that park at once, many times over, do
// not hang (a wake-up between a waiter's last look and its parking is not
// lost).
func TestPhasePool(t *testing.T) {
	before := runtime.NumGoroutine()
	const items = 97
	var next atomic.Int32
	var hits [items]atomic.Int32
	var boom atomic.Bool // helper 1 panics
	loop := func() {
		for {
			k := next.Add(1) - 1
			if k >= items {
				return
			}
			hits[k].Add(1)
		}
	}
	p := NewPool(3, func(i int) {
		if i == 1 && boom.Load() {
			panic("helper")
		}
		loop()
	})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		for round := range 2 { // a pool is started again for the next minibatch
			p.Start()
			for ph := range 60 {
				next.Store(0)
				p.Phase(loop)
				for k := range hits {
					if n := hits[k].Swap(0); n != 1 {
						t.Errorf("round %d phase %d: item %d ran %d times", round, ph, k, n)
						return
					}
				}
				if ph%20 == 0 {
					time.Sleep(3 * spinFor) // the helpers park
				}
			}
			p.Close()
		}
		// Waits that park at once, many times: a notify that comes
		// between a waiter's last look and its parking must not be lost.
		p.spinFor = 0
		p.Start()
		for range 5000 {
			next.Store(0)
			p.Phase(loop)
			for k := range hits {
				hits[k].Store(0)
			}
		}
		boom.Store(true)
		var e any
		func() {
			defer func() { e = recover() }()
			next.Store(0)
			p.Phase(loop)
		}()
		if e, ok := e.(*Panic); !ok || e.Value != "helper" {
			t.Errorf("phase raised %v, want the helper's panic", e)
		}
		p.Close()
	}()
	select {
	case <-finished:
	case <-time.After(20 * time.Second):
		t.Fatal("the pool hangs")
	}
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Errorf("%d goroutines after close, %d before", n, before)
	}
}
