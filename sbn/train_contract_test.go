package sbn

import (
	"testing"

	"github.com/logz-ml/logz/data"
	"github.com/logz-ml/logz/models"
)

// trainer is the runner's trainer contract (family.Trainer) with the epoch
// line's settings, as every trainer of package train has it.
type trainer interface {
	TrainEpoch(x data.Examples) (models.EpochSummary, error)
	Checkpoint(experiment string) (*models.Checkpoint, error)
	Resume(c *models.Checkpoint) error
	Completed() int
	Total() int
	Current() models.Model
	SetOnBatch(f func(examples int))
	EpochSettings(s models.EpochSummary) string
}

var _ trainer = (*Trainer)(nil)

// TestTrainerCountsEpochsAndBatches: Total is the options' Epochs, each
// epoch's summary and Completed count the epochs, the batch hook sees every
// minibatch once with its size, and a checkpoint resumes at its epoch.
func TestTrainerCountsEpochsAndBatches(t *testing.T) {
	x := plantedData(randomNet([]int{6, 3}, false, 2, 5), 230, 6) // minibatches 100, 100, 30
	o := DefaultTrainOptions()
	o.Steps, o.Epochs = 2, 2
	tr, err := NewTrainer(New([]int{6, 3}, false), len(x), o)
	if err != nil {
		t.Fatal(err)
	}
	var sizes []int
	tr.SetOnBatch(func(n int) { sizes = append(sizes, n) })
	if tr.Total() != 2 || tr.Completed() != 0 {
		t.Fatalf("%d of %d epochs before training, want 0 of 2", tr.Completed(), tr.Total())
	}
	for e := 1; e <= 2; e++ {
		sizes = nil
		st, err := tr.TrainEpoch(x)
		if err != nil {
			t.Fatal(err)
		}
		if st.Epoch != e || tr.Completed() != e || st.Signal != SignalISBound || st.K != 2 {
			t.Errorf("epoch %d: summary %+v, Completed %d", e, st, tr.Completed())
		}
		if len(sizes) != 3 || sizes[0] != 100 || sizes[1] != 100 || sizes[2] != 30 {
			t.Errorf("epoch %d: the batch hook saw minibatches of %v, want [100 100 30]", e, sizes)
		}
	}
	c, err := tr.Checkpoint("x")
	if err != nil {
		t.Fatal(err)
	}
	again, _ := NewTrainer(New([]int{6, 3}, false), len(x), o)
	if err := again.Resume(c); err != nil || again.Completed() != 2 || c.Meta.Epoch != 2 {
		t.Errorf("resumed at epoch %d (meta %d): %v", again.Completed(), c.Meta.Epoch, err)
	}
}
