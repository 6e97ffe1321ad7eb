package rbm

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/logz-ml/logz/eval/report"
	"github.com/logz-ml/logz/family"
	"github.com/logz-ml/logz/family/kit/estim"
	"github.com/logz-ml/logz/family/kit/evalenv"
	"github.com/logz-ml/logz/models/modeltest"
)

// TestSecondsCountedOnce: with three splits, the rows of every entry
// (exact and ais, whose log Z all the splits share; pll and recon, which
// loop over the splits) carry in total no more than the entry's wall time,
// and at least half of it: the final table's Minutes (the sum of a line's
// rows) count the shared log Z once, not once per split, and a later split
// does not carry the earlier splits' time. (Mutations: exact's or ais's
// log Z time on every split row, as LoglikRows cloned it, or pll's rows
// timed from the entry's start, each fail the first bound.)
func TestSecondsCountedOnce(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	m := modeltest.RandomRBM(200, 14, 0.1, 0.5, rng)
	split := func() examples {
		x := make(examples, 3000)
		for n := range x {
			x[n] = make([]uint8, 200)
			for i := range x[n] {
				if rng.Float64() < 0.2 {
					x[n][i] = 1
				}
			}
		}
		return x
	}
	a := AIS.New().(*AISSettings)
	a.Runs, a.Betas, a.Schedule, a.Init = 20, 3000, "linear", "uniform"
	list := []family.Configured{{Name: "exact", Settings: Exact.New()}, {Name: "ais", Settings: a},
		{Name: "pll", Settings: PLL.New()}, {Name: "recon", Settings: Recon.New()}}
	wall := map[string]float64{}
	var last time.Time
	env := evalenv.Env{Experiment: "e", Stage: report.StageFinal, Seed: 3,
		Splits: []evalenv.Split{{Name: "train", Data: split()}, {Name: "valid", Data: split()}, {Name: "test", Data: split()}},
		OnEntry: func(e evalenv.Entry) error {
			wall[e.Estimator] = time.Since(last).Seconds()
			last = time.Now()
			return nil
		}}
	last = time.Now()
	rows, err := env.Run(Family, m, list)
	if err != nil {
		t.Fatal(err)
	}
	sum := map[string]float64{}
	for _, r := range rows {
		sum[r.Estimator] += r.Seconds
	}
	for _, c := range list {
		w, s := wall[c.Name], sum[c.Name]
		t.Logf("%s: rows %.4f s, wall %.4f s", c.Name, s, w)
		if s > w {
			t.Errorf("%s: its rows carry %.4f s, more than the entry's wall time %.4f s: shared work counted more than once", c.Name, s, w)
		}
		if w > 0.005 && s < w/2 {
			t.Errorf("%s: its rows carry %.4f s of the entry's %.4f s", c.Name, s, w)
		}
	}
}

// TestFinalEstimatorsShowProgress: run through an Env with a Progress,
// ais, pll, recon, raise and csl each open a progress line per piece of
// work (pll and recon one per split, counting its examples) that reaches
// its total; exact on fewer than estim.ExactBarUnits units is fast and stays
// quiet. (Mutation: pll or recon without env.Bar fails.)
func TestFinalEstimatorsShowProgress(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	m := modeltest.RandomRBM(30, 6, 0.3, 0.5, rng)
	x := make(examples, 50)
	for n := range x {
		x[n] = make([]uint8, 30)
		for i := range x[n] {
			x[n][i] = uint8(rng.IntN(2))
		}
	}
	a := AIS.New().(*AISSettings)
	a.Runs, a.Betas, a.Schedule = 4, 50, "linear"
	ra := RAISE.New().(*estim.RAISE)
	ra.Chains, ra.Betas, ra.Schedule, ra.Examples = 2, 20, "linear", 10
	c := CSL.New().(*CSLSettings)
	c.Chains, c.Steps, c.Examples = 4, 20, 10
	type bar struct {
		label       string
		total, done int64
		closed      bool
	}
	var bars []*bar
	env := evalenv.Env{Experiment: "e", Stage: report.StageFinal, Seed: 3, BaseRate: make([]float64, 30),
		Splits: []evalenv.Split{{Name: "train", Data: x}, {Name: "test", Data: x[:20]}},
		Progress: func(label string, total int64) (func(int64), func()) {
			b := &bar{label: label, total: total}
			bars = append(bars, b)
			return func(n int64) { b.done += n }, func() { b.closed = true }
		}}
	list := []family.Configured{{Name: "exact", Settings: Exact.New()}, {Name: "ais", Settings: a}, {Name: "raise", Settings: ra},
		{Name: "csl", Settings: c}, {Name: "pll", Settings: PLL.New()}, {Name: "recon", Settings: Recon.New()}}
	if _, err := env.Run(Family, m, list); err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for _, b := range bars {
		t.Logf("%q %d/%d closed %v", b.label, b.done, b.total, b.closed)
		if b.done != b.total || !b.closed {
			t.Errorf("bar %q: %d of %d, closed %v", b.label, b.done, b.total, b.closed)
		}
		for _, k := range []string{"AIS", "RAISE", "CSL", "PLL", "recon", "states"} {
			if strings.Contains(b.label, " "+k+" ") {
				count[k]++
			}
		}
	}
	want := map[string]int{"AIS": 1, "RAISE": 2, "CSL": 2, "PLL": 2, "recon": 2}
	for k, n := range want {
		if count[k] != n {
			t.Errorf("%d %s bars, want %d", count[k], k, n)
		}
	}
	if count["states"] != 0 {
		t.Errorf("exact of 6 units opened a bar")
	}
}
