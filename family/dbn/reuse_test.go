package dbn

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/logz-ml/logz/eval/report"
	"github.com/logz-ml/logz/family"
	"github.com/logz-ml/logz/family/kit/evalenv"
	"github.com/logz-ml/logz/models/modeltest"
)

type rows [][]uint8

func (x rows) Len() int          { return len(x) }
func (x rows) Row(n int) []uint8 { return x[n] }

// TestReusedTopLogZCountedOnce: ais and then dbn-bound with the same AIS
// settings share one AIS of the top RBM; its time is on ais's rows, the
// dbn-bound rows say they reused it and carry only their own work (less
// than the AIS took), and no entry's rows carry more than its wall time.
// (Mutations: dropping the note, or the memo — dbn-bound then runs and
// carries an AIS of its own — fail.)
func TestReusedTopLogZCountedOnce(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	d, err := modeltest.RandomDBN(0.5, rng, 12, 8, 30)
	if err != nil {
		t.Fatal(err)
	}
	x := make(rows, 40)
	for n := range x {
		x[n] = make([]uint8, 12)
		for i := range x[n] {
			x[n][i] = uint8(rng.IntN(2))
		}
	}
	a := AIS.New().(*AISSettings)
	a.Runs, a.Betas, a.Schedule, a.Init, a.Samples = 16, 4000, "linear", "uniform", 5
	b := Bound.New().(*BoundSettings)
	b.Runs, b.Betas, b.Schedule, b.Init, b.MaxUnits, b.Samples = 16, 4000, "linear", "uniform", 1, 5
	wall := map[string]float64{}
	var last time.Time
	env := evalenv.Env{Experiment: "e", Stage: report.StageFinal, Seed: 1, Splits: []evalenv.Split{{Name: "train", Data: x}, {Name: "test", Data: x}},
		OnEntry: func(e evalenv.Entry) error {
			wall[e.Estimator] = time.Since(last).Seconds()
			last = time.Now()
			return nil
		}}
	last = time.Now()
	out, err := env.Run(Family, d, []family.Configured{{Name: "ais", Settings: a}, {Name: "dbn-bound", Settings: b}})
	if err != nil {
		t.Fatal(err)
	}
	sum := map[string]float64{}
	for _, r := range out {
		sum[r.Estimator] += r.Seconds
		reused := strings.Contains(strings.Join(r.Notes, "\n"), "reused: its time is counted on that entry's rows")
		if reused != (r.Estimator == "dbn-bound") {
			t.Errorf("%s %s: notes %q", r.Estimator, r.Split, r.Notes)
		}
	}
	t.Logf("rows: %v; wall: %v", sum, wall)
	for k, s := range sum {
		if s > wall[k] {
			t.Errorf("%s: rows carry %.4f s, more than its wall time %.4f s", k, s, wall[k])
		}
	}
	if sum["dbn-bound"] >= sum["ais"] {
		t.Errorf("dbn-bound's rows (%.4f s) carry the AIS that ais's rows (%.4f s) carry", sum["dbn-bound"], sum["ais"])
	}
}
