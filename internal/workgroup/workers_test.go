package workgroup

import (
	"strings"
	"sync/atomic"
	"testing"
)

func TestWaitRunsAll(t *testing.T) {
	var g Group
	var n atomic.Int64
	for range 8 {
		g.Go(func() { n.Add(1) })
	}
	g.Wait()
	if n.Load() != 8 {
		t.Fatalf("ran %d of 8", n.Load())
	}
}

// TestPanicReachesWait: a worker's panic is raised by Wait in the caller,
// with the worker's stack, after the other workers finished.
func TestPanicReachesWait(t *testing.T) {
	var g Group
	var n atomic.Int64
	g.Go(func() { panic("boom") })
	for range 4 {
		g.Go(func() { n.Add(1) })
	}
	defer func() {
		p, ok := recover().(*Panic)
		if !ok || p.Value != "boom" || !strings.Contains(string(p.Stack), "workers_test.go") {
			t.Fatalf("recovered %#v", p)
		}
		if n.Load() != 4 {
			t.Errorf("Wait returned before the other workers finished (%d of 4)", n.Load())
		}
	}()
	g.Wait()
	t.Fatal("Wait did not panic")
}
