package sbn

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/logz-ml/logz/internal/kernel"
	"github.com/logz-ml/logz/models"
)

// sameNet reports the first parameter where a and b differ (bitwise).
func sameNet(a, b *Net) string {
	an, ax := params(a)
	_, bx := params(b)
	if a.Rec != nil {
		rn, rx := recParams(a.Rec)
		_, ry := recParams(b.Rec)
		an, ax, bx = append(an, rn...), append(ax, rx...), append(bx, ry...)
	}
	for k := range ax {
		for i := range ax[k] {
			if math.Float64bits(ax[k][i]) != math.Float64bits(bx[k][i]) {
				return an[k]
			}
		}
	}
	return ""
}

// TestResume: 2 epochs, state, restore into a fresh trainer on a fresh net,
// 1 more epoch gives bit for bit the net (and epoch statistics) of 3
// epochs straight — for each dynamics, both samplers, persistent chains,
// averaging, autoregressive nets and a partial last minibatch — and the
// numbers do not depend on the number of workers.
func TestResume(t *testing.T) {
	planted := randomNet([]int{6, 3, 2}, true, 2, 41)
	data := plantedData(planted, 230, 4) // minibatches 100, 100, 30
	for _, c := range []struct {
		method, sampler string
		persistent, ar  bool
		average         int
		precision       kernel.Precision
	}{
		{"sghmc", "adaptive-is", false, false, 1, "float64"},
		{"sgnht", "gibbs", true, true, 4, "float64"},
		{"adam", "gibbs", false, false, 3, "float64"},
		{"sghmc", "gibbs", true, false, 1, "float64"},
		{"sgnht", "adaptive-is", false, true, 5, "float64"},
		{"sghmc", "adaptive-is", false, false, 1, "float32"},
		{"sgnht", "adaptive-is", false, true, 5, "float32"},
		{"adam", "adaptive-is", false, true, 1, "float32"},
		{"sgnht", "gibbs", true, true, 4, "float32"},
		{"adam", "gibbs", false, false, 3, "float32"},
		{"sghmc", "gibbs", true, false, 1, "float32"},
		{"sgld", "gibbs", true, true, 2, "float32"},
		{"sgld", "adaptive-is", false, false, 1, "float64"},
		{"rws", "adaptive-is", false, true, 2, "float32"},
		{"wake-sleep", "adaptive-is", false, false, 1, "float64"},
		{"wake-sleep", "adaptive-is", false, true, 3, "float64"},
		{"nvil", "adaptive-is", false, false, 2, "float64"},
		{"nvil", "adaptive-is", false, true, 1, "float64"},
	} {
		name := c.method + "/" + c.sampler + "/" + string(c.precision)
		o := DefaultTrainOptions()
		o.Method, o.Sampler, o.Persistent, o.Average, o.Seed, o.Precision = c.method, c.sampler, c.persistent, c.average, 77, c.precision
		// No burn-in and large weights, so that chains resumed from other
		// states would not couple with the straight run's.
		o.LearningRate, o.Steps, o.BurnIn = 0.05, 3, 0
		fresh := func(workers int) *Trainer {
			n := New([]int{6, 3, 2}, c.ar)
			InitNormal(n, 2, 6)
			o.Workers = workers
			tr, err := NewTrainer(n, len(data), o)
			if err != nil {
				t.Fatal(err)
			}
			return tr
		}
		straight := fresh(1)
		var want [3]models.EpochSummary
		for e := range 3 {
			var err error
			if want[e], err = straight.TrainEpoch(data); err != nil {
				t.Fatal(err)
			}
		}
		first := fresh(4)
		for e := range 2 {
			st, err := first.TrainEpoch(data)
			if err != nil {
				t.Fatal(err)
			}
			if st != want[e] {
				t.Fatalf("%s: epoch %d with 4 workers %+v, with 1 %+v", name, e+1, st, want[e])
			}
		}
		arr, byt := first.state()
		first.TrainEpoch(data) // the state must be a copy
		second := fresh(3)
		InitNormal(second.Net(), 0.7, 99)
		if err := second.restore(arr, byt); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if second.Completed() != 2 {
			t.Fatalf("%s: restored at epoch %d", name, second.Completed())
		}
		st, err := second.TrainEpoch(data)
		if err != nil {
			t.Fatal(err)
		}
		if st != want[2] {
			t.Errorf("%s: resumed epoch 3 %+v, straight %+v", name, st, want[2])
		}
		if p := sameNet(second.current(), straight.current()); p != "" {
			t.Errorf("%s: resumed net differs from the straight run in %s", name, p)
		}
		if p := sameNet(second.Net(), straight.Net()); p != "" {
			t.Errorf("%s: resumed live sample differs from the straight run in %s", name, p)
		}
		// And the whole trainer state is the same.
		a1, b1 := straight.state()
		a2, b2 := second.state()
		if fmt.Sprint(a1) != fmt.Sprint(a2) || fmt.Sprint(b1) != fmt.Sprint(b2) {
			t.Errorf("%s: the resumed trainer's state differs from the straight run's", name)
		}
		// A trainer with other options refuses the state.
		o2 := o
		o2.Seed++
		other, _ := NewTrainer(New([]int{6, 3, 2}, c.ar), len(data), o2)
		if err := other.restore(arr, byt); err == nil || !strings.Contains(err.Error(), "seed") {
			t.Errorf("%s: restore with another seed: %v", name, err)
		}
		// Nor does one of the other precision.
		{
			o3 := o
			o3.Precision = map[kernel.Precision]kernel.Precision{kernel.Float32: kernel.Float64, kernel.Float64: kernel.Float32}[c.precision]
			other, err := NewTrainer(New([]int{6, 3, 2}, c.ar), len(data), o3)
			if recMethod(c.method) { // float64 only: the trainer itself is refused
				if err == nil || !strings.Contains(err.Error(), "float64 only") {
					t.Errorf("%s: a trainer in %s: %v", name, o3.Precision, err)
				}
			} else if err := other.restore(arr, byt); err == nil || !strings.Contains(err.Error(), "precision") {
				t.Errorf("%s: restore in %s: %v", name, o3.Precision, err)
			}
		}
	}
}

// TestDiverged: a learning rate that blows the parameters up is reported
// as models.ErrDiverged naming the epoch and minibatch.
func TestDiverged(t *testing.T) {
	data := plantedData(randomNet([]int{6, 3}, false, 2, 42), 200, 5)
	for _, sampler := range []string{"adaptive-is", "gibbs"} {
		for _, precision := range []kernel.Precision{kernel.Float64, kernel.Float32} {
			n := New([]int{6, 3}, false)
			o := DefaultTrainOptions()
			o.Sampler, o.LearningRate, o.Prior, o.Friction, o.Precision = sampler, 1e12, "none", 0.01, precision
			tr, err := NewTrainer(n, len(data), o)
			if err != nil {
				t.Fatal(err)
			}
			_, err = tr.TrainEpoch(data)
			if !errors.Is(err, models.ErrDiverged) || !strings.Contains(err.Error(), "epoch 1, minibatch 1") {
				t.Errorf("%s/%s: got %v", sampler, precision, err)
			}
			t.Log(err)
		}
	}
}

// TestAverage: with Average = 2 the evaluated net is the mean of the last
// two samples (θ after each minibatch; the one sample there is after the
// first), the recognition net the current one.
func TestAverage(t *testing.T) {
	data := plantedData(randomNet([]int{6, 3}, false, 2, 43), 100, 6) // one minibatch per epoch
	n := New([]int{6, 3}, false)
	InitNormal(n, 0.5, 7)
	o := DefaultTrainOptions()
	o.Average, o.LearningRate = 2, 0.05
	tr, err := NewTrainer(n, len(data), o)
	if err != nil {
		t.Fatal(err)
	}
	var samples []*Net
	for e := range 3 {
		if _, err := tr.TrainEpoch(data); err != nil {
			t.Fatal(err)
		}
		samples = append(samples, tr.Net().clone())
		if e == 0 { // a single sample so far: it is the average
			if p := sameNet(tr.current(), samples[0]); p != "" {
				t.Fatalf("after one sample the average differs from it in %s", p)
			}
		}
	}
	cur := tr.current()
	_, want := params(samples[1])
	_, last := params(samples[2])
	names, got := params(cur)
	for k := range want {
		for i := range want[k] {
			if m := (want[k][i] + last[k][i]) / 2; math.Abs(got[k][i]-m) > 1e-15 {
				t.Fatalf("%s[%d] = %g, mean of the last two samples %g", names[k], i, got[k][i], m)
			}
		}
	}
	if p := sameNet(&Net{Sizes: cur.Sizes, W: samples[2].W, B: samples[2].B, Rec: cur.Rec}, samples[2]); p != "" {
		t.Errorf("recognition net is not the current one (%s)", p)
	}
}

// TestCommittedCheckpointsResume: the trainer states committed under
// docs/runs (written before the precision was a kernel.Precision, float32
// as "float32" and float64 as no field) restore into a trainer of the
// precision they record and are refused, with kernel.Check's message, by
// one of the other (or, for a method with no engine in the other
// precision, are not offered one).
func TestCommittedCheckpointsResume(t *testing.T) {
	type resumer interface {
		Resume(*models.Checkpoint) error
	}
	files, _ := filepath.Glob("../docs/runs/*sbn*/*/model.npz")
	if len(files) == 0 {
		t.Skip("no committed sbn checkpoint")
	}
	for _, f := range files {
		c, err := models.Load(f, models.Codecs{TypeOf(false), TypeOf(true)})
		if err != nil {
			t.Fatal(err)
		}
		var m trainerMeta
		if err := json.Unmarshal(c.Bytes["trainer"], &m); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		n := c.Model.(*Net)
		o := DefaultTrainOptions()
		o.Method, o.Sampler, o.Persistent, o.Average, o.Seed = m.Method, m.Sampler, m.Persistent, m.Average, m.Seed
		// Gan et al.'s samplers have trainers of their own, whose state
		// also names the prior.
		newTrainer := func(o TrainOptions) (resumer, error) {
			switch m.Method {
			case "pg-gibbs":
				return NewPGTrainer(n, m.N, o)
			case "pg-vb":
				return NewVBTrainer(n, m.N, o)
			}
			return NewTrainer(n, m.N, o)
		}
		if m.Method == "pg-gibbs" || m.Method == "pg-vb" {
			var pm pgMeta
			if err := json.Unmarshal(c.Bytes["trainer"], &pm); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			o.Prior = pm.Prior
		}
		want := m.Precision.Or(kernel.Float64)
		for _, p := range []kernel.Precision{kernel.Float32, kernel.Float64} {
			o.Precision = p
			tr, err := newTrainer(o)
			if err != nil {
				if p != want {
					continue // the method has no engine in this precision
				}
				t.Fatalf("%s: %v", f, err)
			}
			err = tr.Resume(c)
			switch {
			case p == want && err != nil:
				t.Errorf("%s (%q): resume in %s: %v", f, m.Precision, p, err)
			case p != want && (err == nil || err.Error() != kernel.Check("sbn trainer state", m.Precision, p).Error()):
				t.Errorf("%s (%q): resume in %s: %v", f, m.Precision, p, err)
			}
		}
		t.Logf("%s: precision %q resumes in %s", f, m.Precision, want)
	}
}

// TestCheckFinite: a NaN, an infinity or an entry beyond
// models.MaxAbsParam in θ or in φ is reported, an entry at the limit is
// not.
func TestCheckFinite(t *testing.T) {
	o := DefaultTrainOptions()
	tr, err := NewTrainer(New([]int{6, 3}, false), 10, o)
	if err != nil {
		t.Fatal(err)
	}
	for _, xs := range [][]float64{tr.theta, tr.phi} {
		for _, c := range []struct {
			x   float64
			bad bool
		}{{math.NaN(), true}, {math.Inf(1), true}, {math.Inf(-1), true}, {1.0001 * models.MaxAbsParam, true},
			{-1.0001 * models.MaxAbsParam, true}, {models.MaxAbsParam, false}, {-models.MaxAbsParam, false}, {0.5, false}} {
			k := len(xs) - 1
			old := xs[k]
			xs[k] = c.x
			if err := tr.checkFinite(); (err != nil) != c.bad {
				t.Errorf("entry %v (of %d): %v", c.x, len(xs), err)
			}
			xs[k] = old
		}
	}
}
