package sbn

import (
	"encoding/json"
	"fmt"

	"github.com/logz-ml/logz/models"
	belief "github.com/logz-ml/logz/sbn"
)

// Trained returns the net a finished training evaluates, from its
// checkpoint and without building a trainer (trainer.Reloader): the saved
// net (sbn.Trainer's Current, the last sample of θ or the mean of the last
// Average) with the label of which posterior estimate it is, which the
// trainer gives its Current net and does not save. The label is read from
// the trainer state's meta (the "trainer" bytes: average, avg_n) and must
// say what sbn.Trainer.current says; the sharded-run tests compare the two.
func (Plugin) Trained(c *models.Checkpoint) (models.Model, error) {
	n, ok := c.Model.(*belief.Net)
	if !ok {
		return nil, fmt.Errorf("the checkpoint holds a %s, not a sigmoid belief net", c.Model.TypeName())
	}
	var meta struct {
		Average int `json:"average"`
		AvgN    int `json:"avg_n"`
	}
	if err := json.Unmarshal(c.Bytes["trainer"], &meta); err != nil {
		return nil, fmt.Errorf("the checkpoint's trainer state: %w", err)
	}
	net := *n
	net.Posterior = "the last posterior sample of θ (a plug-in estimate at one sample)"
	if meta.Average > 1 && meta.AvgN > 0 {
		net.Posterior = fmt.Sprintf("the mean of the last %d posterior samples of θ (a plug-in estimate at an average; unsafe if hidden units swap between samples)", min(meta.AvgN, meta.Average))
	}
	return &net, nil
}
