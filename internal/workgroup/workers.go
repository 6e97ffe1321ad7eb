// Package workgroup runs goroutines whose panics are not lost: a panic in a
// worker is carried to the goroutine that waits for them and raised there,
// where the command's recover turns it into an "internal error" (exit
// status 1) instead of the Go runtime's crash (status 2).
package workgroup

import (
	"fmt"
	"runtime/debug"
	"sync"
	"sync/atomic"
)

// Group is a sync.WaitGroup that forwards the first panic of its
// goroutines to Wait. The zero value is ready to use.
type Group struct {
	wg    sync.WaitGroup
	mu    sync.Mutex
	panic *Panic
}

// Panic is what Wait raises when a worker panicked: the worker's value and
// its stack.
type Panic struct {
	Value any
	Stack []byte
}

func (p *Panic) Error() string { return fmt.Sprintf("panic in a worker goroutine: %v", p.Value) }

// Go runs f in a new goroutine.
func (g *Group) Go(f func()) {
	g.wg.Add(1)
	go func() {
		defer g.wg.Done()
		defer func() {
			if r := recover(); r != nil {
				g.mu.Lock()
				if g.panic == nil {
					g.panic = &Panic{Value: r, Stack: debug.Stack()}
				}
				g.mu.Unlock()
			}
		}()
		f()
	}()
}

// Wait waits for every goroutine started by Go, then raises the first
// panic among them, if any, as a *Panic.
func (g *Group) Wait() {
	g.wg.Wait()
	if g.panic != nil {
		panic(g.panic)
	}
}

// ForEach runs work items 0 … items−1 on at most workers goroutines (at
// least one); each goroutine builds its own worker (its scratch) with
// newWorker and takes the next item until none is left. Items should
// write only their own results, so that nothing depends on which
// goroutine ran them.
func ForEach(items, workers int, newWorker func() func(item int)) {
	workers = max(1, min(workers, items))
	var next atomic.Int64
	var g Group
	for range workers {
		g.Go(func() {
			work := newWorker()
			for {
				i := int(next.Add(1) - 1)
				if i >= items {
					return
				}
				work(i)
			}
		})
	}
	g.Wait()
}
