package eval

import (
	"math"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestExactProgress checks that Progress sees every state once, in chunks:
// the cumulative count ends at 2^K, never goes past it, is reported about
// every ExactProgressStates states, and the log Z does not change.
func TestExactProgress(t *testing.T) {
	for _, tc := range []struct {
		name  string
		d, h  int
		path  exactPath
		every int64 // states between reports
		calls int   // reports expected
	}{
		// 2^16 states in 64 blocks of 2^10: 4 reports of 2^8 each.
		{"multiplicative", 30, 16, pathMultiplicative, 256, 256},
		{"additive", 30, 16, pathAdditive, 256, 256},
		// Blocks of 2^12 states at the default interval: one report each.
		{"default interval", 30, 18, pathAuto, 0, 64},
		// Blocks smaller than a report (64 of 8 states; 4 of 1): one report each.
		{"small blocks", 12, 9, pathAuto, 256, 64},
		{"two units", 2, 5, pathAuto, 8, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := testRBM(tc.d, tc.h, 0.1, 0.3, 7)
			want, err := Exact{path: tc.path}.LogZ(m)
			if err != nil {
				t.Fatal(err)
			}
			var mu sync.Mutex
			var calls int
			var last, max, total int64
			e := Exact{path: tc.path, progressStates: tc.every, Progress: func(done, tot int64) {
				mu.Lock()
				defer mu.Unlock()
				calls++
				last, total = done, tot
				if done > max {
					max = done
				}
			}}
			got, err := e.LogZ(m)
			if err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Errorf("log Z %v with Progress, %v without", got, want)
			}
			states := int64(1) << min(tc.d, tc.h)
			if total != states || max != states {
				t.Errorf("progress reached %d of total %d, want %d of %d", max, total, states, states)
			}
			if calls != tc.calls || last != states {
				t.Errorf("%d progress calls, the last at %d; want %d, the last at %d", calls, last, tc.calls, states)
			}
		})
	}
}

// TestExactProgressDoesNotAllocate checks that Progress costs the
// enumeration a fixed few allocations however many reports it makes (the
// hot loop does not allocate). Mutation check: a report that allocates
// once fails with 2^12 allocations more.
func TestExactProgressDoesNotAllocate(t *testing.T) {
	m := testRBM(40, 15, 0.1, 0.3, 3)
	for _, path := range []exactPath{pathMultiplicative, pathAdditive} {
		allocs := func(progress func(int64, int64)) float64 {
			e := Exact{Workers: 1, Progress: progress, progressStates: 8, path: path}
			return testing.AllocsPerRun(2, func() { e.LogZ(m) })
		}
		with, without := allocs(func(int64, int64) {}), allocs(nil)
		if with > without+3 {
			t.Errorf("path %d: %v allocations with Progress (2^12 reports), %v without", path, with, without)
		}
	}
}

// TestExactPlan checks the plan of an enumeration: sizes, a positive rate,
// an estimate of 2^K / rate, and the error of a model that is too large.
func TestExactPlan(t *testing.T) {
	m := testRBM(60, 22, 0.1, 0.3, 5)
	p, err := Exact{}.Plan(m)
	if err != nil {
		t.Fatal(err)
	}
	if p.Units != 22 || p.Summed != 60 || !p.HiddenEnumerated {
		t.Errorf("plan %+v, want 22 hidden units enumerated, 60 summed", p)
	}
	if !(p.Rate > 0) || math.IsInf(p.Rate, 0) {
		t.Fatalf("rate %v", p.Rate)
	}
	if want := float64(1<<22) / p.Rate; math.Abs(p.Estimate.Seconds()-want) > 1e-6*want+1e-9 {
		t.Errorf("estimate %v, want 2^22 / %v = %v s", p.Estimate, p.Rate, want)
	}
	v, err := Exact{}.Plan(testRBM(8, 30, 0.1, 0.3, 5))
	if err != nil || v.HiddenEnumerated || v.Units != 8 || v.Summed != 30 {
		t.Errorf("plan of an 8×30 RBM: %+v, %v", v, err)
	}
	if _, err := (Exact{MaxUnits: 20}).Plan(m); err == nil || !strings.Contains(err.Error(), "MaxUnits") {
		t.Errorf("plan of a model above MaxUnits: %v", err)
	}
}

func TestExactPlanString(t *testing.T) {
	p := ExactPlan{Units: 33, Summed: 784, HiddenEnumerated: true, Rate: 5.64e6, Estimate: 1523 * time.Second}
	if got, want := p.String(), "enumerating 2^33 hidden states × 784 visible units: about 25 min (measured 5.6 M states/s)"; got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	p = ExactPlan{Units: 31, Summed: 40, Rate: 950, Estimate: 26 * 86400 * time.Second}
	if got, want := p.String(), "enumerating 2^31 visible states × 40 hidden units: about 26 days (measured 950 states/s)"; got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	for _, c := range []struct {
		d    time.Duration
		want string
	}{{0, "1 s"}, {4200 * time.Millisecond, "4.2 s"}, {89 * time.Second, "89 s"}, {90 * time.Second, "1.5 min"},
		{3 * time.Hour, "3.0 h"}, {100 * time.Hour, "4.2 days"}, {400 * 24 * time.Hour, "400 days"}} {
		if got := roughDuration(c.d); got != c.want {
			t.Errorf("roughDuration(%v) = %q, want %q", c.d, got, c.want)
		}
	}
	for _, c := range []struct {
		x    float64
		want string
	}{{9.96, "10"}, {123, "120"}, {1234, "1.2 k"}, {2.5e9, "2.5 G"}} {
		if got := siNumber(c.x); got != c.want {
			t.Errorf("siNumber(%v) = %q, want %q", c.x, got, c.want)
		}
	}
}
