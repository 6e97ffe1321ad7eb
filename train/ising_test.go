package train

import (
	"path/filepath"
	"testing"

	"github.com/logz-ml/logz/data"
	"github.com/logz-ml/logz/models"
)

func plantedIsingData(t *testing.T, split string, n int) (*data.Set, *models.Ising) {
	spec := data.PlantedSpec{Model: "ising", Rows: 4, Cols: 4, Train: n, Test: n, Seed: 3, WeightScale: 0.8}
	s, err := data.Planted(spec, split)
	if err != nil {
		t.Fatal(err)
	}
	return s, data.PlantedIsing(spec)
}

// meanLoglik is the exact mean log-likelihood of m on s.
func isingMeanLoglik(t *testing.T, m *models.Ising, s *data.Set) float64 {
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

// TestIsingTrainingRaisesLoglik: on data from a planted 4×4 Ising model,
// exact-gradient, PCD (Adam; PCD also with SGD) and χ² training from the
// zero model raise the exact test log-likelihood far above the uniform
// start, to within 0.1 nats of the planted model's own (its per-example
// standard error on 1,000 examples is ≈ 0.08, so the gap is estimation
// noise in the data, not a loose tolerance of the trainer).
func TestIsingTrainingRaisesLoglik(t *testing.T) {
	tr, truth := plantedIsingData(t, "train", 1000)
	te, _ := plantedIsingData(t, "test", 1000)
	want := isingMeanLoglik(t, truth, te)
	for _, c := range []struct{ method, opt string }{{"exact", "adam"}, {"pcd", "adam"}, {"pcd", "sgd"}, {"chi2", "adam"}} {
		m := models.NewIsing(4, 4, models.SpinsPM1)
		start := isingMeanLoglik(t, m, te)
		opt := defaultIsingOptions()
		opt.Method, opt.SGD, opt.BatchSize = c.method, c.opt == "sgd", 50
		if c.opt == "sgd" {
			opt.LearningRate = 0.1
		} else if c.method != "exact" {
			opt.LearningRate = 0.02 // Adam's steps do not shrink with the chains' noise
		}
		trn, err := NewIsingTrainer(m, opt, 7, 2)
		if err != nil {
			t.Fatal(err)
		}
		epochs := 6
		if c.method == "chi2" {
			epochs = 12
		}
		for range epochs {
			if _, err := trn.TrainEpoch(tr); err != nil {
				t.Fatal(err)
			}
		}
		got := isingMeanLoglik(t, m, te)
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

// TestIsingResumeEqualsUninterrupted: 2 epochs, a checkpoint through model.npz,
// 2 more epochs in a fresh trainer (other seed, other workers) give the
// parameters of 4 uninterrupted epochs exactly, for both methods.
func TestIsingResumeEqualsUninterrupted(t *testing.T) {
	tr, _ := plantedIsingData(t, "train", 300)
	for _, method := range []string{"exact", "pcd", "chi2"} {
		opt := defaultIsingOptions()
		opt.Method, opt.BatchSize, opt.Chains = method, 40, 20
		full, _ := NewIsingTrainer(models.NewIsing(4, 4, models.SpinsPM1), opt, 11, 1)
		for range 4 {
			if _, err := full.TrainEpoch(tr); err != nil {
				t.Fatal(err)
			}
		}
		half, _ := NewIsingTrainer(models.NewIsing(4, 4, models.SpinsPM1), opt, 11, 2)
		for range 2 {
			half.TrainEpoch(tr)
		}
		c, err := half.Checkpoint("e")
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(t.TempDir(), "model.npz")
		if err := models.Save(p, c, codecs); err != nil {
			t.Fatal(err)
		}
		loaded, err := models.Load(p, codecs)
		if err != nil {
			t.Fatal(err)
		}
		resumed, _ := NewIsingTrainer(models.NewIsing(4, 4, models.SpinsPM1), opt, 999, 3)
		if err := resumed.Resume(loaded); err != nil {
			t.Fatal(err)
		}
		for range 2 {
			resumed.TrainEpoch(tr)
		}
		for k, v := range full.M.Params() {
			if resumed.M.Params()[k] != v {
				t.Fatalf("%s: parameter %d is %v resumed, %v uninterrupted", method, k, resumed.M.Params()[k], v)
			}
		}
		bad := opt
		bad.Method = map[string]string{"exact": "pcd", "pcd": "exact", "chi2": "pcd"}[method]
		other, _ := NewIsingTrainer(models.NewIsing(4, 4, models.SpinsPM1), bad, 1, 1)
		if err := other.Resume(loaded); err == nil {
			t.Errorf("%s checkpoint resumed by a %s trainer", method, bad.Method)
		}
	}
}

// defaultIsingOptions are the ising family's default train: settings
// (pcd, 100 chains, one sweep, Adam at 0.02 on minibatches of 100, χ²
// proposal of 10 components fitted by 10 steps of 100 draws at 0.05).
func defaultIsingOptions() IsingOptions {
	return IsingOptions{Method: "pcd", BatchSize: 100, LearningRate: 0.02, Chains: 100, Sweeps: 1,
		QSteps: 10, QSamples: 100, QComponents: 10, QLearningRate: 0.05, Linearise: true}
}
