package eval

import (
	"math/rand/v2"
	"sync"
	"testing"
)

// progressCounter records the largest done and the total a Progress was
// told, safely from several goroutines.
type progressCounter struct {
	mu          sync.Mutex
	done, total int64
	calls       int
}

func (p *progressCounter) f(done, total int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done, p.total, p.calls = max(p.done, done), total, p.calls+1
}

func (p *progressCounter) check(t *testing.T, what string, n int) {
	t.Helper()
	if p.calls == 0 || p.done != int64(n) || p.total != int64(n) {
		t.Errorf("%s: progress reached %d of %d after %d calls, want %d of %d", what, p.done, p.total, p.calls, n, n)
	}
}

// TestPerExampleEstimatorsReportProgress: the per-example estimators that
// used to run silently (the DBN's exact, bound and IS, the DBM's exact and
// IS, the reconstruction error) count every example once; the counts do
// not change the estimates. (Mutation: dropping any Progress call fails.)
func TestPerExampleEstimatorsReportProgress(t *testing.T) {
	d := tinyDBNs[1].d
	xs := allVisible(4)
	z, _ := ExactTopLogZ(d, Exact{})
	var pb, pi progressCounter
	b, err := DBNBound{Samples: 3, Seed: 1, Progress: pb.f}.LogProb(d, z, xs)
	if err != nil {
		t.Fatal(err)
	}
	b0, _ := DBNBound{Samples: 3, Seed: 1}.LogProb(d, z, xs)
	if b.Mean != b0.Mean {
		t.Errorf("DBN bound with progress %v, without %v", b.Mean, b0.Mean)
	}
	pb.check(t, "DBN bound", len(xs))
	if _, err := (DBNIS{Samples: 3, Seed: 1, Progress: pi.f}).LogProb(d, z, xs); err != nil {
		t.Fatal(err)
	}
	pi.check(t, "DBN IS", len(xs))
	var pe progressCounter
	if _, err := (DBNExact{Progress: pe.f}).LogProb(d, xs); err != nil {
		t.Fatal(err)
	}
	pe.check(t, "DBN exact", len(xs))

	dm := randomDBM(t, 15, 1.0, 0.5, 6, 4, 3)
	x := rowsForTest{{1, 0, 1, 1, 0, 0}, {0, 0, 0, 0, 0, 1}, {1, 1, 1, 1, 1, 1}}
	var pd progressCounter
	if _, err := (DBMIS{Samples: 10, Progress: pd.f}).LogUnnormAll(dm, x, 5, nil); err != nil {
		t.Fatal(err)
	}
	pd.check(t, "DBM IS", len(x))
	var px progressCounter
	if _, err := (DBMExact{Progress: px.f}).LogProb(dm, x); err != nil {
		t.Fatal(err)
	}
	px.check(t, "DBM exact", len(x))

	m := smallRBM(20, 5, 1, 3)
	rx := pllRows(reconProgressEvery+100, 20, 0.3, 4)
	var pr progressCounter
	got := ReconErrorProgress(m, rx, rand.New(rand.NewPCG(1, 1)), pr.f)
	if want := ReconError(m, rx, rand.New(rand.NewPCG(1, 1))); got != want {
		t.Errorf("recon with progress %v, without %v", got, want)
	}
	pr.check(t, "recon", len(rx))
	if pr.calls != 2 {
		t.Errorf("recon: %d progress calls for %d examples, want 2", pr.calls, len(rx))
	}
}
