package train

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"testing"

	"github.com/logz-ml/logz/internal/kernel"
	"github.com/logz-ml/logz/models"
)

// withPrecisions sets the layers' precisions of a DBN's options (one entry
// a layer).
func withPrecisions(opt DBNOptions, ps ...kernel.Precision) DBNOptions {
	opt.Layers = slices.Clone(opt.Layers)
	for l, p := range ps {
		opt.Layers[l].Precision = p
	}
	return opt
}

// TestDBNCheckpointPrecision: a DBN checkpoint records every layer's
// precision and is refused, with kernel.Check's message (as the RBM
// trainer's), by an experiment that trains a layer in another precision:
// at a layer boundary (no RBM state to check), in the middle of a layer,
// and for a layer not trained yet; it resumes in its own precisions.
func TestDBNCheckpointPrecision(t *testing.T) {
	_, train, _ := planted(200, 4)
	f32, f64 := kernel.Float32, kernel.Float64
	opt := withPrecisions(dbnOptions(SampledData, false, 2, 2), f32, f32)
	for _, stop := range []int{2, 3} { // after layer 1; in the middle of layer 2
		part := newDBNTrainer(t, opt, 21, 10, 7, 5)
		for range stop {
			if _, err := part.TrainEpoch(train); err != nil {
				t.Fatal(err)
			}
		}
		c := saveAndLoad(t, part)
		var st dbnTrainState
		if err := json.Unmarshal(c.Meta.Train, &st); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(st.Precisions, []kernel.Precision{f32, f32}) {
			t.Fatalf("stop %d: checkpoint records precisions %q", stop, st.Precisions)
		}
		if err := newDBNTrainer(t, opt, 21, 10, 7, 5).Resume(c); err != nil {
			t.Fatalf("stop %d: resume in the same precisions: %v", stop, err)
		}
		for _, c2 := range []struct {
			layer int
			ps    []kernel.Precision
		}{{1, []kernel.Precision{f64, f64}}, {2, []kernel.Precision{f32, f64}}, {2, []kernel.Precision{f32, ""}}} {
			err := newDBNTrainer(t, withPrecisions(opt, c2.ps...), 21, 10, 7, 5).Resume(c)
			want := "layer " + string(rune('0'+c2.layer)) + ": " + precisionMismatch(f32, f64).Error()
			if err == nil || err.Error() != want {
				t.Errorf("stop %d, resume in %q: %v, want %q", stop, c2.ps, err, want)
			}
		}
	}
}

// TestDBMCheckpointPrecision: a DBM checkpoint records the joint
// training's precision (float64) and the pretraining RBMs' in every phase,
// and refuses, with kernel.Check's message, a checkpoint of another joint
// precision or an experiment that pretrains in another precision; a
// checkpoint without the records (as written before) still resumes.
func TestDBMCheckpointPrecision(t *testing.T) {
	_, train, _ := plantedDBM(t, 200, 4)
	f32, f64 := kernel.Float32, kernel.Float64
	opts := func(p kernel.Precision) DBMOptions {
		o := resumeOpts()
		o.Pretrain = slices.Clone(o.Pretrain)
		for l := range o.Pretrain {
			o.Pretrain[l].Precision = p
		}
		return o
	}
	for _, stop := range []int{3, 5} { // pretraining the second RBM; joint training
		part := newDBM(t, opts(f32), 21, 10, 6, 4)
		for range stop {
			if _, err := part.TrainEpoch(train); err != nil {
				t.Fatal(err)
			}
		}
		c := saveAndLoad(t, part)
		var st map[string]any
		if err := json.Unmarshal(c.Meta.Train, &st); err != nil {
			t.Fatal(err)
		}
		if st["precision"] != "float64" || !slices.Equal(st["pretrain_precisions"].([]any), []any{"float32", "float32"}) {
			t.Fatalf("stop %d: checkpoint records precision %v, pretraining %v", stop, st["precision"], st["pretrain_precisions"])
		}
		if err := newDBM(t, opts(f32), 21, 10, 6, 4).Resume(c); err != nil {
			t.Fatalf("stop %d: resume in the same precisions: %v", stop, err)
		}
		want := "pretraining: layer 1: " + precisionMismatch(f32, f64).Error()
		if err := newDBM(t, opts(f64), 21, 10, 6, 4).Resume(c); err == nil || err.Error() != want {
			t.Errorf("stop %d: resume with float64 pretraining: %v, want %q", stop, err, want)
		}
		edit := func(f func(map[string]any)) *models.Checkpoint {
			m := map[string]any{}
			for k, v := range st {
				m[k] = v
			}
			f(m)
			js, err := json.Marshal(m)
			if err != nil {
				t.Fatal(err)
			}
			c2 := *c
			c2.Meta.Train = js
			return &c2
		}
		old := edit(func(m map[string]any) { delete(m, "precision"); delete(m, "pretrain_precisions") })
		if err := newDBM(t, opts(f32), 21, 10, 6, 4).Resume(old); err != nil {
			t.Errorf("stop %d: a checkpoint without precisions: %v", stop, err)
		}
		joint32 := edit(func(m map[string]any) { m["precision"] = "float32" })
		want = kernel.Check("checkpoint", f32, f64).Error()
		if err := newDBM(t, opts(f32), 21, 10, 6, 4).Resume(joint32); err == nil || err.Error() != want {
			t.Errorf("stop %d: a float32 joint checkpoint: %v, want %q", stop, err, want)
		}
	}
}

// TestCommittedDBNCheckpointsResume: the DBN and DBM checkpoints committed
// under docs/runs (written before the trainers recorded the layers'
// precisions) still resume, in either precision, since they do not say
// which; one that records its precisions resumes only in them.
func TestCommittedDBNCheckpointsResume(t *testing.T) {
	files, _ := filepath.Glob("../docs/runs/*db[nm]*/*/model.npz")
	n := 0
	for _, f := range files {
		c, err := models.Load(f, codecs)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		var tr interface {
			Resume(*models.Checkpoint) error
		}
		var recorded []kernel.Precision
		for _, p := range []kernel.Precision{kernel.Float32, kernel.Float64} {
			switch m := c.Model.(type) {
			case *models.DBN:
				var st dbnTrainState
				if err := json.Unmarshal(c.Meta.Train, &st); err != nil {
					t.Fatalf("%s: %v", f, err)
				}
				recorded = st.Precisions
				o := DBNOptions{Data: must(ParseLayerData(st.Data)), TransposeInit: st.Transpose}
				for range m.Layers {
					o.Layers = append(o.Layers, RBMOptions{Epochs: 1, BatchSize: 1, Schedule: constSchedule{k: 1}, Precision: p})
				}
				d, err := models.NewDBN(m.Sizes()...)
				if err != nil {
					t.Fatal(err)
				}
				if tr, err = NewDBNTrainer(d, o, 1); err != nil {
					t.Fatalf("%s: %v", f, err)
				}
			case *models.DBM:
				var st dbmTrainState
				if err := json.Unmarshal(c.Meta.Train, &st); err != nil {
					t.Fatalf("%s: %v", f, err)
				}
				recorded = st.PretrainPrecisions
				o := dbmOpts(st.PretrainEpochs, st.JointEpoch)
				o.Pretrain[0].Precision = p
				o.Chains = st.Chains
				if st.PretrainData != "" { // recorded while pretraining
					if o.PretrainData, err = ParseLayerData(st.PretrainData); err != nil {
						t.Fatalf("%s: %v", f, err)
					}
				}
				d, err := models.NewDBM(m.Sizes...)
				if err != nil {
					t.Fatal(err)
				}
				if tr, err = NewDBMTrainer(d, o, 1); err != nil {
					t.Fatalf("%s: %v", f, err)
				}
			default:
				continue
			}
			err := tr.Resume(c)
			refused := recorded != nil && slices.ContainsFunc(recorded, func(q kernel.Precision) bool { return q != "" && q != p })
			if (err != nil) != refused {
				t.Errorf("%s (precisions %q): resume in %s: %v", f, recorded, p, err)
			}
		}
		if tr != nil {
			n++
			t.Logf("%s: precisions %q", f, recorded)
		}
	}
	if n == 0 {
		t.Skip("no committed DBN checkpoint")
	}
}
