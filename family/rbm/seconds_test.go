package rbm

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/logz-ml/logz/eval/report"
	"github.com/logz-ml/logz/family"
	"github.com/logz-ml/logz/family/kit"
	"github.com/logz-ml/logz/internal/brute"
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
	m := brute.RandomRBM(200, 14, 0.1, 0.5, rng)
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
	env := kit.Env{Experiment: "e", Stage: report.StageFinal, Seed: 3,
		Splits: []kit.Split{{Name: "train", Data: split()}, {Name: "valid", Data: split()}, {Name: "test", Data: split()}},
		OnEntry: func(e kit.Entry) error {
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
