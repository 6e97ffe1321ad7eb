package rbm

import (
	"math"
	"reflect"
	"testing"

	"github.com/logz-ml/logz/train"
)

// schedule is the trainers' view of Train (train.Schedule).
type schedule interface {
	KAt(epoch int) int
	LearningRateAt(epoch int) float64
	MomentumAt(epoch int) float64
}

var _ schedule = Train{}

// Train is what the trainers take as their schedule.
var _ train.Schedule = Train{}

func TestKAt(t *testing.T) {
	for _, E := range []int{2, 3, 7, 10, 24, 25, 26, 50, 100, 1000} {
		tr := DefaultTrain()
		tr.K, tr.KEnd, tr.Epochs = 1, 25, E
		if tr.KAt(1) != 1 || tr.KAt(E) != 25 {
			t.Errorf("E=%d: k(1)=%d k(E)=%d, want 1 and 25", E, tr.KAt(1), tr.KAt(E))
		}
		prev := tr.KAt(1)
		for e := 1; e <= E; e++ {
			k := tr.KAt(e)
			// k(e) = 1 + round(24 (e−1)/(E−1)), halves up: |k − exact| ≤ ½.
			exact := 1 + 24*float64(e-1)/float64(E-1)
			if math.Abs(float64(k)-exact) > 0.5 || (math.Abs(float64(k)-exact) == 0.5 && float64(k) < exact) {
				t.Fatalf("E=%d: k(%d) = %d, exact %.3f", E, e, k, exact)
			}
			if k < prev {
				t.Fatalf("E=%d: k decreases at epoch %d", E, e)
			}
			prev = k
		}
		if tr.KAt(0) != 1 || tr.KAt(E+10) != 25 {
			t.Errorf("E=%d: epochs outside [1,E] not clamped: %d %d", E, tr.KAt(0), tr.KAt(E+10))
		}
	}
	tr := DefaultTrain()
	tr.K, tr.KEnd, tr.Epochs = 3, 0, 10
	for e := range 12 {
		if tr.KAt(e) != 3 {
			t.Fatalf("constant k: k(%d) = %d", e, tr.KAt(e))
		}
	}
	tr.KEnd, tr.Epochs = 9, 1
	if tr.KAt(1) != 3 {
		t.Errorf("one epoch: k = %d, want k = 3", tr.KAt(1))
	}
	tr.K, tr.KEnd, tr.Epochs = 1, 2, 3 // halfway at epoch 2: 1.5 rounds up
	if tr.KAt(2) != 2 {
		t.Errorf("k(2) = %d, want 2 (half rounds up)", tr.KAt(2))
	}
}

func TestLearningRateAt(t *testing.T) {
	tr := DefaultTrain()
	tr.LearningRate, tr.Epochs = 0.1, 10
	for e := 0; e <= 12; e++ {
		if tr.LearningRateAt(e) != 0.1 {
			t.Fatalf("constant: lr(%d) = %v", e, tr.LearningRateAt(e))
		}
	}
	tr.LRSchedule, tr.LREnd = "linear", 0.01
	if tr.LearningRateAt(1) != 0.1 || tr.LearningRateAt(10) != 0.01 || tr.LearningRateAt(11) != 0.01 {
		t.Errorf("linear ends: %v %v %v", tr.LearningRateAt(1), tr.LearningRateAt(10), tr.LearningRateAt(11))
	}
	for e := 1; e <= 10; e++ {
		want := 0.1 + (0.01-0.1)*float64(e-1)/9
		if got := tr.LearningRateAt(e); math.Abs(got-want) > 1e-15 {
			t.Errorf("linear lr(%d) = %v, want %v", e, got, want)
		}
	}
	tr.LRSchedule, tr.LREnd, tr.LRDecay = "exponential", 0, 0.9
	want := 0.1
	for e := 1; e <= 10; e++ {
		if got := tr.LearningRateAt(e); math.Abs(got-want) > 1e-15*want {
			t.Errorf("exponential lr(%d) = %v, want %v", e, got, want)
		}
		want *= 0.9
	}
	tr.Epochs = 1
	tr.LRSchedule = "linear"
	if tr.LearningRateAt(1) != 0.1 {
		t.Errorf("linear over one epoch: %v", tr.LearningRateAt(1))
	}
}

func TestMomentumAndCadence(t *testing.T) {
	tr := DefaultTrain()
	tr.Momentum, tr.FinalMomentum, tr.MomentumSwitchEpoch = 0.5, 0.9, 5
	for e := 1; e <= 8; e++ {
		want := 0.5
		if e >= 5 {
			want = 0.9
		}
		if tr.MomentumAt(e) != want {
			t.Errorf("momentum(%d) = %v, want %v", e, tr.MomentumAt(e), want)
		}
	}
	tr.MomentumSwitchEpoch = 1
	if tr.MomentumAt(1) != 0.9 {
		t.Error("switch at epoch 1 does not apply from the start")
	}
	tr.Epochs, tr.CheckpointEvery = 10, 4
	var ck []int
	for e := 1; e <= 10; e++ {
		if tr.CheckpointDue(e) {
			ck = append(ck, e)
		}
	}
	if !reflect.DeepEqual(ck, []int{4, 8, 10}) {
		t.Errorf("checkpoints after %v", ck)
	}
	tr.CheckpointEvery = 0
	if tr.CheckpointDue(5) || !tr.CheckpointDue(10) {
		t.Error("checkpoint_every 0 must mean only the last epoch")
	}
}
