package chi2

import (
	"math"
	"sync"
	"testing"

	ichi2 "github.com/logz-ml/logz/inference/chi2"
	"github.com/logz-ml/logz/inference/chi2/chi2test"
)

func TestBoundEstimateMatchesEnumeration(t *testing.T) {
	target := ichi2.RBMTarget{M: chi2test.RandomRBM(8, 4, 1, 12)}
	q := chi2test.Fit(t, target, 4, 400, 13)
	logZ, exact := chi2test.ExactBound(target, q)
	e, err := Bound(target, q, 20000, 20, 99, 3)
	if err != nil {
		t.Fatal(err)
	}
	// Power: SE 0.0004 and 0.0003 nats with 20,000 draws of this q.
	if e.SE > 0.002 || e.SEIS > 0.002 {
		t.Errorf("standard errors %.5f (bound) and %.5f (IS) above 0.002 nats", e.SE, e.SEIS)
	}
	if math.Abs(e.LogZ-exact) > 4*e.SE {
		t.Fatalf("bound estimate %.5f ± %.5f, exact bound %.5f", e.LogZ, e.SE, exact)
	}
	if math.Abs(e.LogZIS-logZ) > 4*e.SEIS {
		t.Fatalf("IS estimate %.5f ± %.5f, log Z %.5f", e.LogZIS, e.SEIS, logZ)
	}
	if !(e.ESS > 1 && e.ESS <= 20000) {
		t.Fatalf("ESS %g", e.ESS)
	}
	one, err := Bound(target, q, 20000, 20, 99, 1)
	if err != nil {
		t.Fatal(err)
	}
	if one.LogZ != e.LogZ || one.SE != e.SE || one.LogZIS != e.LogZIS {
		t.Fatalf("bound depends on workers: %+v vs %+v", one, e)
	}
}

// TestBoundProgress: BoundProgress counts every draw once (batches of
// unequal size included) and gives Bound's estimate. (Mutation: counting a
// fixed samples/batches per batch misses the remainder.)
func TestBoundProgress(t *testing.T) {
	target := ichi2.RBMTarget{M: chi2test.RandomRBM(8, 4, 1, 12)}
	q := chi2test.Fit(t, target, 4, 100, 13)
	var mu sync.Mutex
	var last, total int64
	e, err := BoundProgress(target, q, 1003, 7, 5, 3, func(d, n int64) {
		mu.Lock()
		last, total = max(last, d), n
		mu.Unlock()
	})
	if err != nil {
		t.Fatal(err)
	}
	if last != 1003 || total != 1003 {
		t.Errorf("progress reached %d of %d, want 1003 of 1003", last, total)
	}
	if want, _ := Bound(target, q, 1003, 7, 5, 3); want.LogZ != e.LogZ || want.SE != e.SE {
		t.Errorf("with progress %+v, without %+v", e, want)
	}
}
