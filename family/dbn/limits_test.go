package dbn

import (
	"strings"
	"testing"

	"github.com/logz-ml/logz/family/familytest"

	"github.com/logz-ml/logz/family/rbm"
)

type problems = familytest.Problems

// TestLayerLimits: a layer above models.MaxUnits is reported at its key;
// sizes whose parameters exceed models.MaxParams are refused by NewModel,
// naming model.layers, before anything is allocated.
func TestLayerLimits(t *testing.T) {
	var p problems
	(&Model{Layers: []int{500, 2_000_000_000}, Init: rbm.DefaultInit()}).Check(&p)
	want := "layers[1]: expected at most 1048576 units per layer (models.MaxUnits), got 2000000000"
	if got := strings.Join(p, "\n"); !strings.Contains(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	_, err := Plugin{}.NewModel(&Model{Layers: []int{500, 1_000_000}, Init: rbm.DefaultInit()}, 784)
	want = "model.layers: dbn 784-500-1000000 has 501393284 parameters; the limit is 134217728 (models.MaxParams, 1 GiB of float64)"
	if err == nil || err.Error() != want {
		t.Errorf("NewModel: got %v\nwant %s", err, want)
	}
}
