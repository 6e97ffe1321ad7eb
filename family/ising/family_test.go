package ising

import (
	"path/filepath"
	"testing"

	"github.com/logz-ml/logz/data"
	"github.com/logz-ml/logz/models"
)

// rows adapts a data.Set to data.Examples.
type rows struct{ *data.Set }

func (s rows) Len() int { return s.N }

func plantedData(t *testing.T, split string, n int) (*data.Set, *models.Ising) {
	spec := data.PlantedSpec{Model: "ising", Rows: 4, Cols: 4, Train: n, Test: n, Seed: 3, WeightScale: 0.8}
	s, err := data.Planted(spec, split)
	if err != nil {
		t.Fatal(err)
	}
	return s, data.PlantedIsing(spec)
}

// meanLoglik is the exact mean log-likelihood of m on s.
func meanLoglik(t *testing.T, m *models.Ising, s *data.Set) float64 {
	logZ, err := m.LogZTransfer(models.MaxIsingWidth)
	if err != nil {
		t.Fatal(err)
	}
	sum := 0.0
	for n := range s.N {
		sum += m.LogUnnorm(s.Row(n))
	}
	return sum/float64(s.N) - logZ
}

// TestTrainingRaisesLoglik: on data from a planted 4×4 Ising model,
// exact-gradient, PCD (Adam; PCD also with SGD) and χ² training from the
// zero model raise the exact test log-likelihood far above the uniform
// start, to within 0.1 nats of the planted model's own (its per-example
// standard error on 1,000 examples is ≈ 0.08, so the gap is estimation
// noise in the data, not a loose tolerance of the trainer).
func TestTrainingRaisesLoglik(t *testing.T) {
	tr, truth := plantedData(t, "train", 1000)
	te, _ := plantedData(t, "test", 1000)
	want := meanLoglik(t, truth, te)
	for _, c := range []struct{ method, opt string }{{"exact", "adam"}, {"pcd", "adam"}, {"pcd", "sgd"}, {"chi2", "adam"}} {
		m := models.NewIsing(4, 4, models.SpinsPM1)
		start := meanLoglik(t, m, te)
		opt := DefaultTrain()
		opt.Method, opt.Optimizer, opt.BatchSize = c.method, c.opt, 50
		if c.opt == "sgd" {
			opt.LearningRate = 0.1
		} else if c.method != "exact" {
			opt.LearningRate = 0.02 // Adam's steps do not shrink with the chains' noise
		}
		trn, err := NewTrainer(m, opt, 7, 2)
		if err != nil {
			t.Fatal(err)
		}
		epochs := 6
		if c.method == "chi2" {
			epochs = 12
		}
		for range epochs {
			if _, err := trn.TrainEpoch(rows{tr}); err != nil {
				t.Fatal(err)
			}
		}
		got := meanLoglik(t, m, te)
		t.Logf("%s/%s: %.3f → %.3f (planted model %.3f)", c.method, c.opt, start, got, want)
		// χ² learning follows the gradient of a bound: its model
		// expectation is under ∝ p̃²/q, not p, so with a 10-component
		// mixture q it settles ≈ 0.1 nats below maximum likelihood here;
		// it is held to 0.2 and to 90% of the way from the start.
		tol := 0.1
		if c.method == "chi2" {
			tol = 0.2
			if got < start+0.9*(want-start) {
				t.Errorf("chi2: test log-likelihood %.3f from %.3f; the planted model has %.3f", got, start, want)
			}
		}
		if got < want-tol || got < start+0.5*(want-start) {
			t.Errorf("%s/%s: test log-likelihood %.3f from %.3f; the planted model has %.3f", c.method, c.opt, got, start, want)
		}
	}
}

// TestResumeEqualsUninterrupted: 2 epochs, a checkpoint through model.npz,
// 2 more epochs in a fresh trainer (other seed, other workers) give the
// parameters of 4 uninterrupted epochs exactly, for both methods.
func TestResumeEqualsUninterrupted(t *testing.T) {
	tr, _ := plantedData(t, "train", 300)
	for _, method := range []string{"exact", "pcd", "chi2"} {
		opt := DefaultTrain()
		opt.Method, opt.BatchSize, opt.Chains = method, 40, 20
		full, _ := NewTrainer(models.NewIsing(4, 4, models.SpinsPM1), opt, 11, 1)
		for range 4 {
			if _, err := full.TrainEpoch(rows{tr}); err != nil {
				t.Fatal(err)
			}
		}
		half, _ := NewTrainer(models.NewIsing(4, 4, models.SpinsPM1), opt, 11, 2)
		for range 2 {
			half.TrainEpoch(rows{tr})
		}
		c, err := half.Checkpoint("e")
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(t.TempDir(), "model.npz")
		if err := models.Save(p, c); err != nil {
			t.Fatal(err)
		}
		loaded, err := models.Load(p)
		if err != nil {
			t.Fatal(err)
		}
		resumed, _ := NewTrainer(models.NewIsing(4, 4, models.SpinsPM1), opt, 999, 3)
		if err := resumed.Resume(loaded); err != nil {
			t.Fatal(err)
		}
		for range 2 {
			resumed.TrainEpoch(rows{tr})
		}
		for k, v := range full.M.Params() {
			if resumed.M.Params()[k] != v {
				t.Fatalf("%s: parameter %d is %v resumed, %v uninterrupted", method, k, resumed.M.Params()[k], v)
			}
		}
		bad := opt
		bad.Method = map[string]string{"exact": "pcd", "pcd": "exact", "chi2": "pcd"}[method]
		other, _ := NewTrainer(models.NewIsing(4, 4, models.SpinsPM1), bad, 1, 1)
		if err := other.Resume(loaded); err == nil {
			t.Errorf("%s checkpoint resumed by a %s trainer", method, bad.Method)
		}
	}
}

func TestGrid(t *testing.T) {
	for _, c := range []struct {
		m          Model
		vis, r, cl int
		bad        bool
	}{{Model{}, 25, 5, 5, false}, {Model{}, 20, 0, 0, true}, {Model{Rows: 4}, 20, 4, 5, false}, {Model{Cols: 4}, 20, 5, 4, false},
		{Model{Rows: 3}, 20, 0, 0, true}, {Model{Rows: 4, Cols: 4}, 20, 0, 0, true}} {
		r, cl, err := c.m.Grid(c.vis)
		if (err != nil) != c.bad || (!c.bad && (r != c.r || cl != c.cl)) {
			t.Errorf("%+v on %d units: %d×%d %v", c.m, c.vis, r, cl, err)
		}
	}
}
