package train

import (
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/logz-ml/logz/data"
	"github.com/logz-ml/logz/models"
)

// trainer is the runner's trainer contract (family.Trainer, which this
// package cannot import) with the epoch line's settings: every trainer
// has it, with nothing to adapt.
type trainer interface {
	TrainEpoch(x data.Examples) (EpochSummary, error)
	Checkpoint(experiment string) (*models.Checkpoint, error)
	Resume(c *models.Checkpoint) error
	Completed() int
	Total() int
	Current() models.Model
	SetOnBatch(f func(examples int))
	EpochSettings(s EpochSummary) string
}

var (
	_ trainer = (*RBMTrainer)(nil)
	_ trainer = (*RBMChi2Trainer)(nil)
	_ trainer = (*DBNTrainer)(nil)
	_ trainer = (*DBMTrainer)(nil)
	_ trainer = (*IsingTrainer)(nil)
	_ trainer = (*VAETrainer)(nil)
)

// randomRows are n uniformly random binary rows of d units.
func randomRows(n, d int, seed uint64) rows {
	rng := rand.New(rand.NewPCG(seed, 1))
	x := make(rows, n)
	for i := range x {
		x[i] = make([]uint8, d)
		for j := range x[i] {
			x[i][j] = uint8(rng.IntN(2))
		}
	}
	return x
}

// TestTrainersCountEpochsAndBatches trains every trainer to its Total
// (from the options) on 90 examples: each epoch's summary and Completed
// count the epochs, the batch hook sees every minibatch once with its size
// (⌈90/B⌉ calls summing to 90, for a DBN's and a DBM's every layer and
// phase too), and Current is the model trained.
func TestTrainersCountEpochsAndBatches(t *testing.T) {
	const N = 90
	rbmOpt := RBMOptions{BatchSize: 40, Shuffle: true, Schedule: constSchedule{k: 1, lr: 0.1, mom: 0.5}, Epochs: 2}
	chi2Opt := chi2Options(2)
	chi2Opt.Epochs = 2
	vaeOpt := vaeTestOptions(PriorTrainingChi2, 2)
	vaeOpt.Epochs = 2
	ising := func(method string) trainer {
		o := defaultIsingOptions()
		o.Method, o.BatchSize, o.Epochs = method, 40, 2
		tr, err := NewIsingTrainer(models.NewIsing(4, 4, models.SpinsPM1), o, 3, 2)
		if err != nil {
			t.Fatal(err)
		}
		return tr
	}
	for _, c := range []struct {
		name    string
		tr      trainer
		d       int
		batches []int // minibatches per epoch
	}{
		{"rbm", must(NewRBMTrainer(models.NewRBM(10, 4), rbmOpt, 1)), 10, []int{3, 3}},
		{"rbm-chi2", newChi2Trainer(t, chi2Opt, 10, 4, nil, 1), 10, []int{3, 3}},
		{"dbn", newDBNTrainer(t, dbnOptions(SampledData, false, 2, 1), 1, 10, 6, 5), 10, []int{3, 3, 3}},
		{"dbm", newDBM(t, dbmOpts(1, 2), 1, 10, 6, 4), 10, []int{5, 5, 5, 5}},
		{"ising-exact", ising("exact"), 16, []int{3, 3}},
		{"ising-pcd", ising("pcd"), 16, []int{3, 3}},
		{"ising-chi2", ising("chi2"), 16, []int{3, 3}},
		{"vae", newTinyTrainer(t, 3, vaeOpt, 1, nil), 8, []int{5, 5}},
	} {
		x := randomRows(N, c.d, 7)
		var calls, examples int
		c.tr.SetOnBatch(func(n int) { calls, examples = calls+1, examples+n })
		if c.tr.Total() != len(c.batches) || c.tr.Completed() != 0 {
			t.Fatalf("%s: %d of %d epochs before training, want 0 of %d", c.name, c.tr.Completed(), c.tr.Total(), len(c.batches))
		}
		for e, want := range c.batches {
			calls, examples = 0, 0
			st, err := c.tr.TrainEpoch(x)
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			if st.Epoch != e+1 || c.tr.Completed() != e+1 {
				t.Errorf("%s: epoch %d: summary's epoch %d, Completed %d", c.name, e+1, st.Epoch, c.tr.Completed())
			}
			if calls != want || examples != N {
				t.Errorf("%s: epoch %d: the batch hook saw %d minibatches of %d examples in all, want %d of %d", c.name, e+1, calls, examples, want, N)
			}
			if c.tr.EpochSettings(st) == "" {
				t.Errorf("%s: no settings on the epoch line", c.name)
			}
		}
		if m := c.tr.Current(); m == nil || m.Validate() != nil {
			t.Errorf("%s: Current() = %v", c.name, m)
		}
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// TestMinibatches: the epoch loop cuts perm into consecutive minibatches
// (the last one short), runs step, check and the hook in that order for
// each, and stops at the first error of step or check with the 1-based
// number of its minibatch, the hook not called for it.
func TestMinibatches(t *testing.T) {
	perm := []int{4, 0, 3, 1, 2}
	var log []string
	note := func(s string, n int) { log = append(log, s+string(rune('0'+n))) }
	step := func(b int, idx []int) error {
		note("s", b)
		for _, i := range idx {
			note("i", i)
		}
		return nil
	}
	check := func() error { note("c", 0); return nil }
	hook := func(n int) { note("h", n) }
	if b, err := Minibatches(perm, 2, hook, step, check); b != 0 || err != nil {
		t.Fatalf("got %d, %v", b, err)
	}
	want := "s0 i4 i0 c0 h2 s1 i3 i1 c0 h2 s2 i2 c0 h1"
	if got := strings.Join(log, " "); got != want {
		t.Errorf("loop\n got %s\nwant %s", got, want)
	}

	bad := errors.New("bad")
	for _, c := range []struct {
		fails string // step or check, of the second minibatch
		want  string
	}{{"step", "s0 c0 h2 s1"}, {"check", "s0 c0 h2 s1 c1"}} {
		log = nil
		cur := 0
		b, err := Minibatches(perm, 2, hook, func(b int, _ []int) error {
			cur = b
			note("s", b)
			if c.fails == "step" && b == 1 {
				return bad
			}
			return nil
		}, func() error {
			note("c", cur)
			if c.fails == "check" && cur == 1 {
				return bad
			}
			return nil
		})
		if b != 2 || err != bad {
			t.Errorf("%s fails: got minibatch %d, %v; want 2, %v", c.fails, b, err, bad)
		}
		if got := strings.Join(log, " "); got != c.want {
			t.Errorf("%s fails: loop\n got %s\nwant %s", c.fails, got, c.want)
		}
	}
}

// TestOrder: without shuffling the order is 0…n−1; with it, the same
// permutation as rand.Perm from the same generator state (the draws of
// the trainers that used Perm), in a reused buffer.
func TestOrder(t *testing.T) {
	buf := make([]int, 3, 20)
	if got := Order(buf, 6, false, nil); !slices.Equal(got, []int{0, 1, 2, 3, 4, 5}) {
		t.Errorf("unshuffled: %v", got)
	}
	got := Order(buf, 17, true, rand.New(rand.NewPCG(5, 6)))
	want := rand.New(rand.NewPCG(5, 6)).Perm(17)
	if !slices.Equal(got, want) || &got[0] != &buf[:1][0] {
		t.Errorf("shuffled: %v, want %v in the given buffer", got, want)
	}
}
