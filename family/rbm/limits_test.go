package rbm

import (
	"strings"
	"testing"

	"github.com/logz-ml/logz/family/familytest"

	"github.com/logz-ml/logz/family"
)

type problems = familytest.Problems

// TestSizeLimits: sizes that would exhaust memory are reported at their key
// with the limit; the model size against the data's D is checked by
// NewModel before allocating.
func TestSizeLimits(t *testing.T) {
	train := func(edit func(*Train)) family.Settings {
		tr := DefaultTrain()
		edit(&tr)
		return &tr
	}
	cases := []struct {
		name string
		s    family.Settings
		want string
	}{
		{"hidden 2e9", &Model{Hidden: 2_000_000_000, Init: DefaultInit()},
			"hidden: expected at most 1048576 units per layer (models.MaxUnits), got 2000000000"},
		{"batch_size", train(func(t *Train) { t.BatchSize = 1 << 30 }),
			"batch_size: expected at most 10000 (rbm.MaxBatch; the trainer keeps a D×H gradient per 25 examples), got 1073741824"},
		{"pcd chains", train(func(t *Train) { t.Method, t.Chains = "pcd", 50_000 }),
			"chains: expected at most 10000 persistent chains (rbm.MaxBatch; the trainer keeps a D×H gradient per 25 chains), got 50000"},
		{"csl chains", &CSLSettings{Chains: 1 << 20, Init: "base-rate"}, "chains: expected at most 100000 (family.MaxRuns), got 1048576"},
	}
	for _, c := range cases {
		var p problems
		c.s.Check(&p)
		if got := strings.Join(p, "\n"); !strings.Contains(got, c.want) {
			t.Errorf("%s:\n got %q\nwant …%s…", c.name, got, c.want)
		}
	}
	_, err := Plugin{}.NewModel(&Model{Hidden: 500_000, Init: DefaultInit()}, 784)
	want := "model.hidden: rbm 784-500000 has 392500784 parameters; the limit is 134217728 (models.MaxParams, 1 GiB of float64)"
	if err == nil || err.Error() != want {
		t.Errorf("NewModel: got %v\nwant %s", err, want)
	}
}
