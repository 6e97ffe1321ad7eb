package estim

import (
	"math"
	"testing"
)

// TestByLabelOnSubsample: values of a subsample (idx) are grouped by the
// labels of the examples they belong to, less log Z, labels in increasing
// order, with MeanOf's standard error (NaN, hence null, for one example).
// Mutation checked: taking the label of position k instead of example
// idx[k] fails it.
func TestByLabelOnSubsample(t *testing.T) {
	labels := []uint8{7, 2, 7, 2, 9, 2}
	lp := []float64{1, 2, 4, 8}
	idx := []int{5, 0, 2, 4} // labels 2, 7, 7, 9
	got := ByLabel(lp, idx, labels, 10)
	want := []struct {
		label, n int
		mean, se float64
	}{{2, 1, -9, math.NaN()}, {7, 2, -7, 1}, {9, 1, -2, math.NaN()}}
	if len(got) != len(want) {
		t.Fatalf("got %+v", got)
	}
	for i, w := range want {
		g := got[i]
		if g.Label != w.label || g.NExamples != w.n || g.MeanLoglik == nil || math.Abs(*g.MeanLoglik-w.mean) > 1e-12 {
			t.Errorf("class %d: %+v, want %+v", i, g, w)
		}
		if math.IsNaN(w.se) != (g.LoglikSE == nil) || g.LoglikSE != nil && math.Abs(*g.LoglikSE-w.se) > 1e-12 {
			t.Errorf("class %d: se %v, want %v", i, g.LoglikSE, w.se)
		}
	}
}
