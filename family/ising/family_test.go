package ising

import (
	"testing"

	"github.com/logz-ml/logz/train"
)

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

// TestOptions: every train: key the trainer uses reaches its options.
func TestOptions(t *testing.T) {
	s := Train{Method: "chi2", BatchSize: 7, Optimizer: "sgd", LearningRate: 0.3, Chains: 11, Sweeps: 2,
		QSteps: 3, QSamples: 13, QComponents: 5, QLearningRate: 0.07, Linearise: true}
	want := train.IsingOptions{Method: "chi2", BatchSize: 7, SGD: true, LearningRate: 0.3, Chains: 11, Sweeps: 2,
		QSteps: 3, QSamples: 13, QComponents: 5, QLearningRate: 0.07, Linearise: true}
	if got := s.Options(); got != want {
		t.Errorf("options %+v, want %+v", got, want)
	}
	s.Optimizer, s.Linearise = "adam", false
	if got := s.Options(); got.SGD || got.Linearise {
		t.Errorf("adam, linearise false: options %+v", got)
	}
}
