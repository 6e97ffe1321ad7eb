package train

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/logz-ml/logz/internal/kernel"
	"github.com/logz-ml/logz/models"
)

// dbmTrainState is the non-array DBM trainer state kept in the model.npz meta.
type dbmTrainState struct {
	Phase          string `json:"phase"` // PhasePretrain, PhaseJoint or PhaseDone
	Epoch          int    `json:"epoch"`
	JointEpoch     int    `json:"joint_epoch"`
	PretrainEpochs int    `json:"pretrain_epochs"`
	PretrainData   string `json:"pretrain_data,omitempty"`
	// Pretrain is the greedy trainer's state (during pretraining).
	Pretrain json.RawMessage `json:"pretrain,omitempty"`
	// Prepared says that joint training has started: the persistent
	// chains, momentum buffers and generator are saved.
	Prepared bool `json:"joint_prepared,omitempty"`
	Chains   int  `json:"chains,omitempty"`
	// Precision is the joint training's precision, float64 (the only one
	// it has), always saved; "" (checkpoints written before it was
	// recorded) is float64 too.
	Precision kernel.Precision `json:"precision,omitempty"`
	// PretrainPrecisions are the pretraining RBMs' precisions, as a DBN
	// trainer's (dbnTrainState.Precisions), saved in every phase when the
	// DBM is pretrained: the joint phase continues from their weights.
	// Absent in older checkpoints: not checked.
	PretrainPrecisions []kernel.Precision `json:"pretrain_precisions,omitempty"`
}

// jointPrecision is the precision of joint training: float64.
const jointPrecision = kernel.Float64

// pretrainPrecisions are the precisions of the pretraining RBMs (float64
// when unset), nil without pretraining.
func (t *DBMTrainer) pretrainPrecisions() []kernel.Precision {
	o := t.Opt
	if o.PretrainEpochs == 0 || len(o.Pretrain) == 0 {
		return nil
	}
	ps := make([]kernel.Precision, t.M.NumLayers())
	for l := range ps {
		ps[l] = o.Pretrain[min(l, len(o.Pretrain)-1)].Precision.Or(kernel.Float64)
	}
	return ps
}

// The checkpoint's state arrays: during pretraining the RBMs as
// pre_W<l>, pre_vbias<l>, pre_hbias<l> (l = 1…L) and the current RBM
// trainer's state under the prefix pre_; in joint training vel_W<l>
// (l = 1…L, like W<l>), vel_b<l> and chains<l> (Chains × n_l, l = 0…L),
// and the generator as rng.
const preKey = "pre_"

// Checkpoint returns Current() with everything needed to resume training
// exactly where it stands: during pretraining the RBMs and the state of the
// one being trained (momentum buffers, persistent chains, generator); in
// joint training the persistent chains, momentum buffers and generator.
// The arrays alias the trainer's buffers: save the checkpoint before
// training further.
func (t *DBMTrainer) Checkpoint(experiment string) (*models.Checkpoint, error) {
	m, j := t.current(), t.j
	st := dbmTrainState{Phase: t.Phase(), Epoch: t.done, JointEpoch: j.epoch, PretrainEpochs: t.Opt.PretrainEpochs,
		Precision: jointPrecision, PretrainPrecisions: t.pretrainPrecisions()}
	c := &models.Checkpoint{Model: m, Meta: models.Meta{Experiment: experiment, Epoch: t.done}, State: map[string]models.Array{}, Bytes: map[string][]byte{}}
	if t.pre != nil {
		st.PretrainData = t.Opt.PretrainData.String()
		inner, err := t.pre.Checkpoint(experiment)
		if err != nil {
			return nil, err
		}
		st.Pretrain = inner.Meta.Train
		for k, a := range inner.State {
			c.State[preKey+k] = a
		}
		for k, b := range inner.Bytes {
			c.Bytes[preKey+k] = b
		}
		for l, r := range t.preM.Layers {
			s := strconv.Itoa(l + 1)
			c.State[preKey+"W"+s] = models.Array{Shape: []int{r.NVis, r.NHid}, Data: r.W}
			c.State[preKey+"vbias"+s] = models.Array{Shape: []int{r.NVis}, Data: r.VBias}
			c.State[preKey+"hbias"+s] = models.Array{Shape: []int{r.NHid}, Data: r.HBias}
		}
	} else if j.prepared {
		st.Prepared, st.Chains = true, t.Opt.Chains
		rng, err := j.src.MarshalBinary()
		if err != nil {
			return nil, err
		}
		c.Bytes["rng"] = rng
		for l, n := range m.Sizes {
			s := strconv.Itoa(l)
			if l > 0 {
				c.State["vel_W"+s] = models.Array{Shape: []int{m.Sizes[l-1], n}, Data: j.velW[l-1]}
			}
			c.State["vel_b"+s] = models.Array{Shape: []int{n}, Data: j.velB[l]}
			c.State["chains"+s] = models.Array{Shape: []int{t.Opt.Chains, n}, Data: j.chains[l]}
		}
	}
	js, err := json.Marshal(st)
	if err != nil {
		return nil, err
	}
	c.Meta.Train = js
	return c, nil
}

// Resume restores a trainer made by NewDBMTrainer with the options and seed
// of the checkpointed run, so that training continues exactly as if it had
// not stopped. The pretraining epochs and layer data and the number of
// chains are checked against the checkpoint.
func (t *DBMTrainer) Resume(c *models.Checkpoint) error {
	m, ok := c.Model.(*models.DBM)
	if !ok {
		return fmt.Errorf("checkpoint holds a %s, not a dbm", c.Model.TypeName())
	}
	if a, b := fmt.Sprint(m.Sizes), fmt.Sprint(t.M.Sizes); a != b {
		return fmt.Errorf("checkpoint DBM has layer sizes %s, the experiment's %s", a, b)
	}
	var st dbmTrainState
	if err := decodeTrainState(c, &st); err != nil {
		return err
	}
	o := t.Opt
	L := t.M.NumLayers()
	if st.PretrainEpochs != o.PretrainEpochs {
		return fmt.Errorf("checkpoint was pretrained with %d epochs per layer, the experiment asks for %d", st.PretrainEpochs, o.PretrainEpochs)
	}
	if err := kernel.Check("checkpoint", st.Precision, jointPrecision); err != nil {
		return err
	}
	if err := checkLayerPrecisions(st.PretrainPrecisions, t.pretrainPrecisions()); err != nil {
		return fmt.Errorf("pretraining: %w", err)
	}
	pre := L * o.PretrainEpochs
	switch st.Phase {
	case PhasePretrain:
		if st.Epoch < 0 || st.Epoch >= pre {
			return fmt.Errorf("checkpoint training state: pretraining at epoch %d of %d", st.Epoch, pre)
		}
		if st.PretrainData != o.PretrainData.String() {
			return fmt.Errorf("checkpoint was pretrained on %s layer data, the experiment asks for %s", st.PretrainData, o.PretrainData)
		}
	case PhaseJoint, PhaseDone:
		if st.JointEpoch < 0 || st.JointEpoch > o.Epochs || st.Epoch != pre+st.JointEpoch {
			return fmt.Errorf("checkpoint training state (epoch %d, joint epoch %d) does not fit the experiment's %d pretraining and %d joint epochs",
				st.Epoch, st.JointEpoch, pre, o.Epochs)
		}
		if st.Prepared && st.Chains != o.Chains {
			return fmt.Errorf("checkpoint has %d persistent chains, the experiment asks for %d", st.Chains, o.Chains)
		}
	default:
		return fmt.Errorf("checkpoint training state: unknown phase %q", st.Phase)
	}
	get := func(name string, n int) ([]float64, error) {
		a, ok := c.State[name]
		if !ok || len(a.Data) != n {
			return nil, fmt.Errorf("checkpoint state %q missing or of the wrong size (want %d values)", name, n)
		}
		return a.Data, nil
	}
	j := t.newJoint()
	j.epoch = st.JointEpoch
	if st.Phase == PhasePretrain {
		if err := t.newPretrainer(); err != nil {
			return err
		}
		for l, r := range t.preM.Layers {
			s := strconv.Itoa(l + 1)
			for _, p := range []struct {
				name string
				dst  []float64
			}{{"W", r.W}, {"vbias", r.VBias}, {"hbias", r.HBias}} {
				src, err := get(preKey+p.name+s, len(p.dst))
				if err != nil {
					return err
				}
				copy(p.dst, src)
			}
		}
		inner := &models.Checkpoint{Model: t.preM, Meta: models.Meta{Train: st.Pretrain}, State: map[string]models.Array{}, Bytes: map[string][]byte{}}
		for k, a := range c.State {
			if k, ok := strings.CutPrefix(k, preKey); ok {
				inner.State[k] = a
			}
		}
		for k, b := range c.Bytes {
			if k, ok := strings.CutPrefix(k, preKey); ok {
				inner.Bytes[k] = b
			}
		}
		if err := t.pre.Resume(inner); err != nil {
			return fmt.Errorf("pretraining: %w", err)
		}
	} else {
		t.pre, t.preM = nil, nil
	}
	if st.Prepared {
		rng, ok := c.Bytes["rng"]
		if !ok {
			return errors.New("checkpoint has no generator state")
		}
		if err := j.src.UnmarshalBinary(rng); err != nil {
			return fmt.Errorf("checkpoint generator state: %w", err)
		}
		j.velW, j.velB, j.chains = make([][]float64, L), make([][]float64, L+1), make([][]float64, L+1)
		for l, n := range m.Sizes {
			s := strconv.Itoa(l)
			var err error
			if l > 0 {
				if j.velW[l-1], err = get("vel_W"+s, len(m.W[l-1])); err != nil {
					return err
				}
			}
			if j.velB[l], err = get("vel_b"+s, n); err != nil {
				return err
			}
			if j.chains[l], err = get("chains"+s, o.Chains*n); err != nil {
				return err
			}
		}
		j.prepared = true
	}
	for l := range m.W {
		copy(t.M.W[l], m.W[l])
	}
	for l := range m.B {
		copy(t.M.B[l], m.B[l])
	}
	t.j, t.done = j, st.Epoch
	return nil
}
