package experiment

import (
	"fmt"
	"path/filepath"
	"slices"

	"github.com/logz-ml/logz/config"
	"github.com/logz-ml/logz/eval/report"
	"github.com/logz-ml/logz/family"
	"github.com/logz-ml/logz/family/kit/evalenv"
	"github.com/logz-ml/logz/models"
)

// Validation early stopping and model selection (train.early_stop): after
// each after-epoch evaluation the monitored estimator's mean log-likelihood
// on the valid split is compared with the best so far; the model of a new
// best is saved as best.npz, training stops after patience evaluations
// without a better one, and the final evaluation, samples and pictures use
// the best model. Where it stands is a function of the epoch rows alone
// (stopStateOf), so that --resume, which keeps the rows up to its
// checkpoint, stands where the interrupted run stood and reaches the same
// best epoch, bit for bit.

// earlyStopRow is the estimator name of the row that records how early
// stopping ended: the best epoch, its validation estimate, and why
// training ended (Init: stopRowPatience or stopRowEpochs).
const (
	earlyStopRow    = "early_stop"
	stopRowPatience = "patience"
	stopRowEpochs   = "epochs"
)

// stopState is where early stopping stands after some epoch rows.
type stopState struct {
	best    int     // the epoch of the best validation estimate; 0 = none yet
	value   float64 // that estimate
	last    int     // the last evaluated epoch; 0 = none yet
	since   int     // evaluations after best without a better estimate
	stopped bool    // since reached the patience
}

// monitorOf is the estimator whose valid rows early stopping compares.
func monitorOf(exp config.Experiment, es *family.EarlyStop) string {
	if es.Monitor != "" {
		return es.Monitor
	}
	return exp.Evaluate.EveryEpoch[0].Name
}

// stopStateOf reads where early stopping stands from the epoch rows of
// experiment name from epoch from on (family.EarlyStopFrom): per evaluated epoch, the first valid row of the monitor
// estimator; a strictly greater mean log-likelihood is better (a missing
// one, NaN, is not).
func stopStateOf(rows []report.Row, name, monitor string, patience, from int) stopState {
	var s stopState
	for _, row := range rows {
		if row.Experiment != name || row.Stage != report.StageEpoch || row.Estimator != monitor || row.Split != "valid" || row.Epoch == s.last || row.Epoch < from {
			continue
		}
		s.last = row.Epoch
		if row.MeanLoglik != nil && (s.best == 0 || *row.MeanLoglik > s.value) {
			s.best, s.value, s.since = row.Epoch, *row.MeanLoglik, 0
		} else {
			s.since++
		}
		if s.since >= patience {
			s.stopped = true
			break
		}
	}
	return s
}

// stopState is where the experiment's early stopping stands; on is false
// when it has none.
func (r *runner) stopState() (s stopState, on bool) {
	es := family.EarlyStopOf(r.exp.Train)
	if es == nil {
		return stopState{}, false
	}
	return stopStateOf(r.mine, r.exp.Name, monitorOf(r.exp, es), es.Patience, family.EarlyStopFrom(r.exp.Train, r.b.tr.Total())), true
}

// stopped reports whether early stopping has ended training.
func (r *runner) stopped() bool {
	s, on := r.stopState()
	return on && s.stopped
}

// trainedEpoch says whether training is over (every epoch trained, or
// stopped early) and the epoch of the model the final evaluation uses
// (the best one under early stopping).
func (r *runner) trainedEpoch() (over bool, epoch int) {
	tr := r.b.tr
	s, on := r.stopState()
	epoch = tr.Completed()
	if on && s.best > 0 {
		epoch = s.best
	}
	return tr.Completed() == tr.Total() || s.stopped, epoch
}

// afterValidation follows the evaluation after epoch under early
// stopping: it checks that the monitor gave a validation log-likelihood,
// saves the model as best.npz when it is the best so far, and returns
// what the epoch's line adds ("" if nothing).
func (r *runner) afterValidation(epoch int) (string, error) {
	s, on := r.stopState()
	if !on {
		return "", nil
	}
	monitor := monitorOf(r.exp, family.EarlyStopOf(r.exp.Train))
	i := slices.IndexFunc(r.mine, func(row report.Row) bool {
		return row.Stage == report.StageEpoch && row.Epoch == epoch && row.Estimator == monitor && row.Split == "valid"
	})
	switch {
	case i < 0:
		return "", fmt.Errorf("train.early_stop: evaluate.every_epoch's %s gave no estimate on the valid split after epoch %d", monitor, epoch)
	case r.mine[i].MeanLoglik == nil && r.mine[i].Value != nil:
		return "", fmt.Errorf("train.early_stop: evaluate.every_epoch's %s gives no log-likelihood (only a value): monitor an estimator of log p such as exact or ais", monitor)
	}
	if s.best == epoch {
		if err := r.saveCheckpoint(filepath.Join(r.dir, bestFile)); err != nil {
			return "", err
		}
		return "  best", nil
	}
	if s.stopped {
		return fmt.Sprintf("  early stop: no better %s/valid than %.4f (epoch %d) in %d evaluations", monitor, s.value, s.best, s.since), nil
	}
	return "", nil
}

// selectBest ends training under early stopping: it records how it ended
// (an early_stop row; a resumed run's earlier one is not kept, see
// keepEpochs) and, when the best model is not the last one, puts
// the best model, read from best.npz, in the trainer's place, so that the
// final evaluation, samples and pictures use it.
func (r *runner) selectBest() error {
	s, on := r.stopState()
	if !on {
		return nil
	}
	tr := r.b.tr
	r.mine = append(r.mine, r.stopRow(s))
	if s.best == 0 || s.best == tr.Completed() {
		return r.keep(nil)
	}
	path := filepath.Join(r.dir, bestFile)
	c, err := models.Load(path, family.Codecs())
	if err != nil {
		return fmt.Errorf("train.early_stop: the best model: %w", err)
	}
	if c.Meta.Epoch != s.best {
		return fmt.Errorf("train.early_stop: %s holds the model after epoch %d, but the best validation estimate is epoch %d's; the file is from another run (run again with --force)", path, c.Meta.Epoch, s.best)
	}
	if d := DataMismatch(c.Meta.Run, r.b.record); d != "" {
		return fmt.Errorf("train.early_stop: %s: %s", path, d)
	}
	m, err := family.Trained(r.b.fam, c)
	if err != nil {
		return fmt.Errorf("train.early_stop: %s: %w", path, err)
	}
	r.b.tr = &trained{c: c, m: m, total: tr.Total()}
	r.b.tracked.Restore(c)
	return r.keep(nil)
}

// stopRow records how early stopping ended: the best epoch and its
// validation estimate, and in Init why training ended.
func (r *runner) stopRow(s stopState) report.Row {
	tr := r.b.tr
	es := family.EarlyStopOf(r.exp.Train)
	monitor := monitorOf(r.exp, es)
	row := report.Row{
		Experiment: r.exp.Name, Model: evalenv.Label(tr.Current()), Stage: report.StageEpoch,
		Epoch: s.best, Estimator: earlyStopRow, Split: "valid", Init: stopRowEpochs, Warnings: []string{},
	}
	for _, sp := range r.b.ev.Splits {
		if sp.Name == "valid" {
			row.NExamples = sp.Data.Len()
		}
	}
	why := fmt.Sprintf("all %d epochs trained", tr.Total())
	if s.stopped {
		row.Init = stopRowPatience
		why = fmt.Sprintf("stopped after epoch %d: %d evaluations without a better one (patience %d)", tr.Completed(), s.since, es.Patience)
	}
	if s.best == 0 {
		row.Epoch = tr.Completed()
		row.Notes = []string{fmt.Sprintf("no %s estimate on the valid split was made; %s, and the final evaluations use the last model", monitor, why)}
		return row
	}
	row.MeanLoglik = report.F(s.value)
	row.Notes = []string{fmt.Sprintf("best %s/valid %.4f after epoch %d; %s; the final evaluations use the model of epoch %d", monitor, s.value, s.best, why, s.best)}
	return row
}

// refuseEarlyStop refuses train.early_stop in a sharded run, whose
// training and evaluation parts assume the last model is evaluated.
func refuseEarlyStop(f *config.File) error {
	for _, e := range f.Experiments {
		if family.EarlyStopOf(e.Train) != nil {
			return fmt.Errorf("experiment %s: train.early_stop is not supported in a sharded run (--shard); run it without --shard, or set train.early_stop.patience: 0", e.Name)
		}
	}
	return nil
}
