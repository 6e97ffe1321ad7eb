package train

import (
	"errors"
	"math"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/logz-ml/logz/internal/nmath"
	"github.com/logz-ml/logz/models"
)

type constSchedule struct {
	k       int
	lr, mom float64
}

func (s constSchedule) KAt(int) int                { return s.k }
func (s constSchedule) LearningRateAt(int) float64 { return s.lr }
func (s constSchedule) MomentumAt(int) float64     { return s.mom }

type rows [][]uint8

func (r rows) Len() int          { return len(r) }
func (r rows) Row(n int) []uint8 { return r[n] }

// exactLogLik is the mean log p(v) over xs by enumerating all 2^D visible states.
func exactLogLik(m *models.RBM, xs rows) float64 {
	v := make([]float64, m.NVis)
	logZ := exactLogZ(m)
	s := 0.0
	for _, x := range xs {
		for i := range v {
			v[i] = float64(x[i])
		}
		s += m.LogUnnorm(v, nil) - logZ
	}
	return s / float64(len(xs))
}

// planted returns an RBM with strong structure and n exact samples from it
// (by enumerating every visible state: D is small).
func planted(n int, seed uint64) (*models.RBM, rows, rows) {
	const D, H = 10, 3
	rng := rand.New(rand.NewPCG(seed, 1))
	m := models.NewRBM(D, H)
	for i := range m.W {
		m.W[i] = 2.5 * rng.NormFloat64()
	}
	for i := range m.VBias {
		m.VBias[i] = -1 + 0.5*rng.NormFloat64()
	}
	train, test := exactDraws(D, n, rng, func(v []float64) float64 { return m.LogUnnorm(v, nil) })
	return m, train, test
}

// exactDraws returns n training and n/2 test vectors of D units drawn
// exactly, with rng, from p(v) ∝ exp(logUnnorm(v)) by enumerating all 2^D
// visible states.
func exactDraws(D, n int, rng *rand.Rand, logUnnorm func(v []float64) float64) (train, test rows) {
	v := make([]float64, D)
	logp := make([]float64, 1<<D)
	for s := range logp {
		for i := range v {
			v[i] = float64(s >> i & 1)
		}
		logp[s] = logUnnorm(v)
	}
	logZ := nmath.LogSumExp(logp)
	cdf := make([]float64, len(logp))
	acc := 0.0
	for s, l := range logp {
		acc += math.Exp(l - logZ)
		cdf[s] = acc
	}
	draw := func() []uint8 {
		u := rng.Float64() * acc
		s := 0
		for s < len(cdf)-1 && cdf[s] < u {
			s++
		}
		x := make([]uint8, D)
		for i := range x {
			x[i] = uint8(s >> i & 1)
		}
		return x
	}
	for range n {
		train = append(train, draw())
	}
	for range n / 2 {
		test = append(test, draw())
	}
	return train, test
}

func newTrainer(t *testing.T, persistent bool, seed uint64, workers int) *RBMTrainer {
	t.Helper()
	return newTrainerIn(t, false, persistent, seed, workers)
}

// newTrainerIn is newTrainer in float32 when f32 is set.
func newTrainerIn(t *testing.T, f32, persistent bool, seed uint64, workers int) *RBMTrainer {
	t.Helper()
	m := models.NewRBM(10, 6)
	tr, err := NewRBMTrainer(m, RBMOptions{
		Persistent: persistent, Chains: 50, BatchSize: 40, WeightDecay: 1e-4, Shuffle: true,
		Schedule: constSchedule{k: 1, lr: 0.1, mom: 0.5}, Workers: workers, Precision: precisionOf(f32),
	}, seed)
	if err != nil {
		t.Fatal(err)
	}
	tr.InitParams(0.01, nil)
	return tr
}

// TestTrainingRaisesExactLikelihood trains on data drawn from a planted RBM and
// requires the exact test log-likelihood to close at least 95% of the gap
// between the initial model and the planted model itself: CD-1, PCD-1 and
// CD-5 (incremental sweeps), in float64 and float32 (at 12 trainer seeds
// every CD-1 and PCD-1 run closes 98–99% of it).
func TestTrainingRaisesExactLikelihood(t *testing.T) {
	truth, train, test := planted(3000, 11)
	best := exactLogLik(truth, test)
	for _, f32 := range []bool{false, true} {
		for _, c := range []struct {
			pcd bool
			k   int
		}{{false, 1}, {true, 1}, {false, 5}} {
			tr := newTrainerIn(t, f32, c.pcd, 5, 2)
			tr.Opt.Schedule = constSchedule{k: c.k, lr: 0.1, mom: 0.5}
			before := exactLogLik(tr.M, test)
			for range 30 {
				if _, err := tr.TrainEpoch(train); err != nil {
					t.Fatal(err)
				}
			}
			after := exactLogLik(tr.M, test)
			t.Logf("float32=%v %+v: test log-lik %.3f → %.3f (planted model %.3f)", f32, c, before, after, best)
			if !(after > before+0.95*(best-before)) {
				t.Errorf("float32=%v %+v: test log-lik %.3f → %.3f does not close 95%% of the gap to %.3f", f32, c, before, after, best)
			}
		}
	}
}

func sameParams(a, b *models.RBM) bool {
	for i := range a.W {
		if a.W[i] != b.W[i] {
			return false
		}
	}
	for i := range a.VBias {
		if a.VBias[i] != b.VBias[i] {
			return false
		}
	}
	for j := range a.HBias {
		if a.HBias[j] != b.HBias[j] {
			return false
		}
	}
	return true
}

// TestDeterministicAcrossWorkers: the same seed gives bit-identical parameters
// whatever the number of workers and GOMAXPROCS, in float64 and float32.
func TestDeterministicAcrossWorkers(t *testing.T) {
	_, train, _ := planted(500, 3)
	for _, f32 := range []bool{false, true} {
		for _, pcd := range []bool{false, true} {
			var ref *models.RBM
			for _, procs := range []int{1, 2} {
				for _, workers := range []int{1, 3} {
					old := runtime.GOMAXPROCS(procs)
					tr := newTrainerIn(t, f32, pcd, 9, workers)
					for range 3 {
						if _, err := tr.TrainEpoch(train); err != nil {
							t.Fatal(err)
						}
					}
					runtime.GOMAXPROCS(old)
					if ref == nil {
						ref = tr.M
					} else if !sameParams(ref, tr.M) {
						t.Fatalf("float32=%v pcd=%v: GOMAXPROCS=%d workers=%d differs", f32, pcd, procs, workers)
					}
				}
			}
		}
	}
}

// TestResumeEqualsUninterrupted saves a checkpoint to disk after 2 epochs,
// resumes it in a fresh trainer and compares with 4 uninterrupted epochs.
func TestResumeEqualsUninterrupted(t *testing.T) {
	_, train, _ := planted(400, 4)
	for _, pcd := range []bool{false, true} {
		f32 := pcd // the float32 copies are rebuilt from the float64 parameters
		full := newTrainerIn(t, f32, pcd, 21, 2)
		for range 4 {
			full.TrainEpoch(train)
		}
		part := newTrainerIn(t, f32, pcd, 21, 2)
		for range 2 {
			part.TrainEpoch(train)
		}
		loaded := saveAndLoad(t, part)
		resumed := newTrainerIn(t, f32, pcd, 999, 1) // seed and init are overwritten by Resume
		if err := resumed.Resume(loaded); err != nil {
			t.Fatal(err)
		}
		if resumed.Completed() != 2 {
			t.Fatalf("resumed at epoch %d", resumed.Completed())
		}
		for range 2 {
			resumed.TrainEpoch(train)
		}
		if !sameParams(full.M, resumed.M) {
			t.Errorf("pcd=%v: resumed run differs from the uninterrupted one", pcd)
		}
		other := newTrainerIn(t, !f32, pcd, 999, 1)
		want := map[bool][]string{
			false: {"trained in float64 precision, this trainer runs in float32", "older runs trained in float64 by default", "set the precision back to float64"},
			true:  {"trained in float32 precision, this trainer runs in float64", "set the precision back to float32"},
		}[f32]
		err := other.Resume(loaded)
		for _, w := range want {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("pcd=%v: resuming in the other precision: err = %v, want %q", pcd, err, w)
			}
		}
	}
}

// codecs are the model types these tests save and load (train cannot see
// the family registry, family.Codecs, that a program passes).
var codecs = models.Codecs{models.RBMType, models.DBNType, models.DBMType, models.IsingType, models.VAEType}

// saveAndLoad writes a trainer's checkpoint to a model.npz and reads it back.
func saveAndLoad(t *testing.T, tr interface {
	Checkpoint(string) (*models.Checkpoint, error)
}) *models.Checkpoint {
	t.Helper()
	c, err := tr.Checkpoint("x")
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
	return loaded
}

func TestDivergenceNamesEpoch(t *testing.T) {
	_, train, _ := planted(200, 5)
	tr := newTrainer(t, false, 1, 2)
	tr.Opt.Schedule = constSchedule{k: 1, lr: 1e308, mom: 0.9}
	var err error
	for e := 0; e < 5 && err == nil; e++ {
		_, err = tr.TrainEpoch(train)
	}
	if !errors.Is(err, ErrDiverged) || !strings.Contains(err.Error(), "epoch 1") {
		t.Fatalf("err = %v", err)
	}
}

func TestDataShapeMismatch(t *testing.T) {
	tr := newTrainer(t, false, 1, 1)
	if _, err := tr.TrainEpoch(rows{{1, 0, 1}}); err == nil || !strings.Contains(err.Error(), "3 units") {
		t.Fatalf("err = %v", err)
	}
}

// TestHugeParametersAreDivergence: a finite parameter above
// models.MaxAbsParam stops training as a divergence, since such a model
// could be saved but never loaded again.
func TestHugeParametersAreDivergence(t *testing.T) {
	_, train, _ := planted(200, 5)
	tr := newTrainer(t, false, 1, 2)
	tr.M.W[3] = 2 * models.MaxAbsParam
	_, err := tr.TrainEpoch(train)
	if !errors.Is(err, ErrDiverged) || !strings.Contains(err.Error(), "parameters must lie in") {
		t.Fatalf("err = %v", err)
	}
}
