package vae

import (
	"github.com/logz-ml/logz/family"
	"strings"
	"testing"

	"github.com/logz-ml/logz/family/familytest"
	"github.com/logz-ml/logz/models"
	"github.com/logz-ml/logz/train"
)

func TestTrainDefaultsValid(t *testing.T) {
	s := DefaultTrain()
	var p familytest.Problems
	s.Check(&p)
	if len(p) != 0 {
		t.Fatalf("defaults have problems: %v", p)
	}
	if err := s.Options(1).Check(); err != nil {
		t.Fatalf("default options: %v", err)
	}
}

// TestTrainBadSettingsNamed sets one bad value at a time and requires a
// problem that names its key.
func TestTrainBadSettingsNamed(t *testing.T) {
	for key, set := range map[string]func(*Train){
		"method":          func(s *Train) { s.Method = "vimco" },
		"epochs":          func(s *Train) { s.Epochs = 0 },
		"batch_size":      func(s *Train) { s.BatchSize = -1 },
		"learning_rate":   func(s *Train) { s.LearningRate = 0 },
		"samples":         func(s *Train) { s.Samples = 0 },
		"prior_training":  func(s *Train) { s.PriorTraining = "cd" },
		"chains":          func(s *Train) { s.Chains = 0 },
		"k":               func(s *Train) { s.K = 0 },
		"baseline_hidden": func(s *Train) { s.BaselineHidden = -3 },
		"signal_decay":    func(s *Train) { s.SignalDecay = 1 },
		"signal_clip":     func(s *Train) { s.SignalClip = -1 },
		"q_samples":       func(s *Train) { s.QSamples = 1 },
	} {
		s := DefaultTrain()
		set(&s)
		var p familytest.Problems
		s.Check(&p)
		if len(p) != 1 || !strings.HasPrefix(p[0], key+":") {
			t.Errorf("bad %s: problems %v, want one naming the key", key, p)
		}
	}
}

// TestNewTrainer builds the trainer of a small RBM-prior VAE, trains an
// epoch and refuses pcd for a Bernoulli prior.
func TestNewTrainer(t *testing.T) {
	m, err := models.NewVAE(6, 4, []int{5}, 3)
	if err != nil {
		t.Fatal(err)
	}
	s := DefaultTrain()
	s.BatchSize, s.BaselineHidden = 10, 4
	ms := DefaultModel()
	tr, sum := trainOneEpoch(t, m, &ms, &s)
	lz := tr.(*train.VAETrainer).LogZ
	if sum.Signal != train.SignalELBOChi2 || sum.Epoch != 1 || tr.Completed() != 1 || lz == 0 {
		t.Errorf("summary %+v, tracked log Z %v", sum, lz)
	}
	b, _ := models.NewVAE(6, 4, []int{5}, 0)
	s.PriorTraining = train.PriorTrainingPCD
	if _, err := (Plugin{}).NewTrainer(family.TrainerArgs{Model: b, Train: &s, Seed: 1}); err == nil || !strings.Contains(err.Error(), "prior_training") {
		t.Errorf("pcd with a Bernoulli prior: %v, want an error naming prior_training", err)
	}
}

// trainOneEpoch builds the nvil trainer of m (6 visible units) and trains
// it for an epoch on 30 fixed examples.
func trainOneEpoch(t *testing.T, m *models.VAE, ms *Model, s *Train) (family.Trainer, models.EpochSummary) {
	t.Helper()
	data := make(rowsData, 30)
	for i := range data {
		data[i] = []uint8{uint8(i % 2), 1, 0, uint8(i % 3 / 2), 1, 0}
	}
	tr, err := Plugin{}.NewTrainer(family.TrainerArgs{Model: m, ModelSettings: ms, Train: s, Seed: 1, Workers: 2, BaseRate: make([]float64, 6)})
	if err != nil {
		t.Fatal(err)
	}
	sum, err := tr.TrainEpoch(data)
	if err != nil {
		t.Fatal(err)
	}
	return tr, sum
}

type rowsData [][]uint8

func (r rowsData) Len() int          { return len(r) }
func (r rowsData) Row(n int) []uint8 { return r[n] }
