package train

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/logz-ml/logz/internal/kernel"
	"github.com/logz-ml/logz/models"
)

// trainState is the non-array part of the trainer state kept in model.npz meta.
type trainState struct {
	Epoch int `json:"epoch"`
	// Method is "chi2" for the χ² trainer; empty for CD and PCD, whose
	// checkpoints predate it (Persistent tells them apart).
	Method     string `json:"method,omitempty"`
	Persistent bool   `json:"persistent"`
	Chains     int    `json:"chains,omitempty"`
	// UpScale and DownScale are saved when not 1 (DBM pretraining).
	UpScale   float64 `json:"up_scale,omitempty"`
	DownScale float64 `json:"down_scale,omitempty"`
	// Precision is RBMOptions.Precision, always saved.
	Precision kernel.Precision `json:"precision,omitempty"`
	// Float32 is how checkpoints written before Precision recorded a
	// float32 trainer (true; absent for float64); read, never written.
	Float32 bool `json:"float32,omitempty"`
}

// precision is the precision the checkpoint was trained in: Precision, or
// for an older checkpoint float32 when it says so, else float64.
func (st trainState) precision() kernel.Precision {
	if st.Float32 {
		return kernel.Float32
	}
	return st.Precision.Or(kernel.Float64)
}

// precisionMismatch is the error of resuming a checkpoint trained in one
// precision in the other: kernel.Check's, with the setting that continues
// it. CD and PCD train in float32 unless train.precision is set, and
// trained in float64 by default before, so a float64 checkpoint of a
// config without the key is the likely case.
func precisionMismatch(was, now kernel.Precision) error {
	err := kernel.Check("checkpoint", was, now)
	if err == nil {
		return nil
	}
	why := ""
	if was == kernel.Float64 && now == kernel.Float32 {
		why = "; cd and pcd train in float32 unless train.precision is set, and older runs trained in float64 by default"
	}
	return fmt.Errorf("%w%s", err, why)
}

// zeroIfOne returns 0 for 1, so that ordinary RBMs keep their meta as it was.
func zeroIfOne(s float64) float64 {
	if s == 1 {
		return 0
	}
	return s
}

// Checkpoint returns the model with everything needed to resume training
// exactly where it stands: momentum buffers, persistent chains and the
// master generator's state. The arrays alias the trainer's buffers: save the
// checkpoint before training further.
func (t *RBMTrainer) Checkpoint(experiment string) (*models.Checkpoint, error) {
	rng, err := t.src.MarshalBinary()
	if err != nil {
		return nil, err
	}
	js, err := json.Marshal(trainState{Epoch: t.done, Persistent: t.Opt.Persistent, Chains: t.Opt.Chains,
		UpScale: zeroIfOne(t.up), DownScale: zeroIfOne(t.down), Precision: t.Opt.Precision})
	if err != nil {
		return nil, err
	}
	m := t.M
	c := &models.Checkpoint{
		Model: m,
		Meta:  models.Meta{Experiment: experiment, Epoch: t.done, Train: js},
		State: map[string]models.Array{
			"vel_W":     {Shape: []int{m.NVis, m.NHid}, Data: t.velW},
			"vel_vbias": {Shape: []int{m.NVis}, Data: t.velA},
			"vel_hbias": {Shape: []int{m.NHid}, Data: t.velB},
		},
		Bytes: map[string][]byte{"rng": rng},
	}
	if t.chains != nil {
		c.State["chains"] = models.Array{Shape: []int{t.Opt.Chains, m.NVis}, Data: t.chains}
	}
	return c, nil
}

// method names the training method of a checkpoint.
func (s trainState) method() string {
	switch {
	case s.Method != "":
		return s.Method
	case s.Persistent:
		return "pcd"
	}
	return "cd"
}

// checkpointRBM returns a checkpoint's RBM, which must have the shape of
// want, and its decoded training state.
func checkpointRBM(c *models.Checkpoint, want *models.RBM) (*models.RBM, trainState, error) {
	var st trainState
	m, ok := c.Model.(*models.RBM)
	if !ok {
		return nil, st, fmt.Errorf("checkpoint holds a %s, not an rbm", c.Model.TypeName())
	}
	if m.NVis != want.NVis || m.NHid != want.NHid {
		return nil, st, fmt.Errorf("checkpoint RBM is %d×%d, the experiment's %d×%d", m.NVis, m.NHid, want.NVis, want.NHid)
	}
	return m, st, decodeTrainState(c, &st)
}

// decodeTrainState decodes the trainer state of c's meta into st.
func decodeTrainState(c *models.Checkpoint, st any) error {
	if len(c.Meta.Train) == 0 {
		return errors.New("checkpoint has no training state (it cannot be resumed, only evaluated)")
	}
	if err := json.Unmarshal(c.Meta.Train, st); err != nil {
		return fmt.Errorf("checkpoint training state: %w", err)
	}
	return nil
}

// Resume restores a trainer from a checkpoint written by Checkpoint. The
// options must match the ones the checkpoint was trained with (PCD and its
// number of chains, the input scales and the precision are checked).
func (t *RBMTrainer) Resume(c *models.Checkpoint) error {
	m, st, err := checkpointRBM(c, t.M)
	if err != nil {
		return err
	}
	if st.Method != "" {
		return fmt.Errorf("checkpoint was trained by %s, the experiment asks for %s", st.method(), trainState{Persistent: t.Opt.Persistent}.method())
	}
	if st.Persistent != t.Opt.Persistent || (st.Persistent && st.Chains != t.Opt.Chains) {
		return fmt.Errorf("checkpoint was trained with persistent=%v chains=%d, the experiment asks for persistent=%v chains=%d",
			st.Persistent, st.Chains, t.Opt.Persistent, t.Opt.Chains)
	}
	if up, down := scaleOrOne(st.UpScale), scaleOrOne(st.DownScale); up != t.up || down != t.down {
		return fmt.Errorf("checkpoint was trained with input scales up %v, down %v; the experiment asks for %v, %v", up, down, t.up, t.down)
	}
	if err := precisionMismatch(st.precision(), t.Opt.Precision); err != nil {
		return err
	}
	get := func(name string, n int) ([]float64, error) {
		a, ok := c.State[name]
		if !ok || len(a.Data) != n {
			return nil, fmt.Errorf("checkpoint state %q missing or of the wrong size (want %d values)", name, n)
		}
		return a.Data, nil
	}
	if t.velW, err = get("vel_W", len(m.W)); err != nil {
		return err
	}
	if t.velA, err = get("vel_vbias", m.NVis); err != nil {
		return err
	}
	if t.velB, err = get("vel_hbias", m.NHid); err != nil {
		return err
	}
	if st.Persistent {
		if t.chains, err = get("chains", st.Chains*m.NVis); err != nil {
			return err
		}
	}
	rng, ok := c.Bytes["rng"]
	if !ok {
		return fmt.Errorf("checkpoint has no generator state")
	}
	if err := t.src.UnmarshalBinary(rng); err != nil {
		return fmt.Errorf("checkpoint generator state: %w", err)
	}
	copy(t.M.W, m.W)
	copy(t.M.VBias, m.VBias)
	copy(t.M.HBias, m.HBias)
	t.done = st.Epoch
	return nil
}
