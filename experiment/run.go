// Package experiment runs the experiments of a config file end to end:
// data, model, training with after-epoch evaluation, final evaluation,
// checkpoints and reports. It is the glue between config, data, models,
// train, eval and eval/report; the command line lives in cmd/logz.
package experiment

import (
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"time"

	"github.com/logz-ml/logz/config"
	"github.com/logz-ml/logz/data"
	"github.com/logz-ml/logz/eval"
	"github.com/logz-ml/logz/eval/report"
	"github.com/logz-ml/logz/family"
	"github.com/logz-ml/logz/internal/atomicfile"
	"github.com/logz-ml/logz/internal/progress"
	"github.com/logz-ml/logz/models"
)

// Options controls a run.
type Options struct {
	// Out is the run directory: results.json, report.md,
	// config.resolved.yaml and one directory per experiment.
	Out string
	// Resume continues each experiment from its model.npz in Out when that
	// holds training state, keeping the rows of results.json written before.
	Resume bool
	// Stdout receives the final table; Stderr progress and per-epoch lines.
	Stdout, Stderr io.Writer
	// Meta is added to report.md (command, version, ...).
	Meta map[string]string
	// Workers for training; 0 = 2. Results do not depend on it.
	Workers int
}

// setRows adapts a data.Set to the estimators' and trainer's view.
type setRows struct{ *data.Set }

func (s setRows) Len() int { return s.N }

// Run runs every experiment of f in order. Results are rewritten atomically
// after every epoch, so a run that dies keeps everything finished before it.
// An experiment that fails (e.g. diverges) is reported and the others still
// run; the returned error joins the failures.
func Run(f *config.File, opt Options) ([]report.Row, error) {
	if opt.Stderr == nil {
		opt.Stderr = io.Discard
	}
	if opt.Stdout == nil {
		opt.Stdout = io.Discard
	}
	if err := os.MkdirAll(opt.Out, 0o755); err != nil {
		return nil, err
	}
	resolved, err := f.Resolved()
	if err != nil {
		return nil, err
	}
	if err := atomicfile.WriteFile(filepath.Join(opt.Out, "config.resolved.yaml"), func(w io.Writer) error {
		_, err := w.Write(resolved)
		return err
	}); err != nil {
		return nil, err
	}
	resultsPath := filepath.Join(opt.Out, "results.json")
	var rows []report.Row
	if opt.Resume {
		if old, err := report.ReadResults(resultsPath); err == nil {
			rows = old
		} else if !errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("--resume: %w", err)
		}
	}
	var failures []error
	for _, exp := range f.Experiments {
		r := &runner{exp: exp, opt: opt, dir: filepath.Join(opt.Out, exp.Name), resultsPath: resultsPath}
		rows, err = r.run(rows)
		if err != nil {
			fmt.Fprintf(opt.Stderr, "logz: experiment %s: %v\n", exp.Name, err)
			failures = append(failures, fmt.Errorf("experiment %s: %w", exp.Name, err))
		}
	}
	if err := report.WriteResults(resultsPath, rows); err != nil {
		return rows, err
	}
	final := finalRows(rows)
	if err := report.RenderTable(opt.Stdout, final, report.TableOptions{}); err != nil {
		return rows, err
	}
	if err := report.RenderSandwich(opt.Stdout, final, report.TableOptions{}); err != nil {
		return rows, err
	}
	meta := map[string]string{"config": f.Name, "seed": fmt.Sprint(f.Seed)}
	if f.Path != "" {
		meta["file"] = f.Path
	}
	for k, v := range opt.Meta {
		meta[k] = v
	}
	title := "logz report: " + f.Name
	if err := atomicfile.WriteFile(filepath.Join(opt.Out, "report.md"), func(w io.Writer) error {
		return report.WriteMarkdown(w, title, meta, rows)
	}); err != nil {
		return rows, err
	}
	return rows, errors.Join(failures...)
}

func finalRows(rows []report.Row) []report.Row {
	var out []report.Row
	for _, r := range rows {
		if r.Stage == report.StageFinal {
			out = append(out, r)
		}
	}
	return out
}

type runner struct {
	exp         config.Experiment
	opt         Options
	dir         string
	resultsPath string
}

// run trains and evaluates one experiment, appending its rows to all (from
// which rows of an earlier, unfinished run of the same experiment are
// dropped unless they are kept for --resume).
func (r *runner) run(all []report.Row) ([]report.Row, error) {
	exp := r.exp
	train0, valid, test, err := LoadData(exp)
	if err != nil {
		return all, err
	}
	fam, err := exp.Model.Family()
	if err != nil {
		return all, err
	}
	m, err := fam.NewModel(exp.Model.Settings, train0.D)
	if err != nil {
		return all, err
	}
	if err := fam.CheckFeasible(m, append(append([]config.Estimator(nil), exp.Evaluate.EveryEpoch...), exp.Evaluate.Final...)); err != nil {
		return all, err
	}
	if err := os.MkdirAll(r.dir, 0o755); err != nil {
		return all, err
	}
	baseRate := data.LogOdds(train0, 1)
	tr, err := fam.NewTrainer(family.TrainerArgs{
		Model: m, ModelSettings: exp.Model.Settings, Train: exp.Train,
		Data: train0, BaseRate: baseRate, Seed: config.DeriveSeed(exp.Seed, 1), Workers: r.opt.Workers,
	})
	if err != nil {
		return all, err
	}
	checkpointDue := func(epoch int) bool {
		c, ok := exp.Train.(family.CheckpointSchedule)
		return ok && c.CheckpointDue(epoch)
	}

	ckptPath := filepath.Join(r.dir, "model.npz")
	var mine []report.Row
	others := make([]report.Row, 0, len(all))
	for _, row := range all {
		if row.Experiment == exp.Name {
			mine = append(mine, row)
		} else {
			others = append(others, row)
		}
	}
	if r.opt.Resume {
		if c, err := models.Load(ckptPath); err == nil {
			if err := tr.Resume(c); err != nil {
				return all, fmt.Errorf("--resume from %s: %w", ckptPath, err)
			}
			fmt.Fprintf(r.opt.Stderr, "%s: resuming after epoch %d from %s\n", exp.Name, tr.Completed(), ckptPath)
			// Keep the rows of the epochs already done; drop later ones and finals.
			kept := mine[:0]
			for _, row := range mine {
				if row.Stage == report.StageEpoch && row.Epoch <= tr.Completed() {
					kept = append(kept, row)
				}
			}
			mine = kept
		} else if !errors.Is(err, os.ErrNotExist) {
			return all, fmt.Errorf("--resume: %w", err)
		} else {
			mine = nil
		}
	} else {
		mine = nil
	}
	flush := func() error {
		if err := report.WriteResults(r.resultsPath, append(append([]report.Row(nil), others...), mine...)); err != nil {
			return err
		}
		return atomicfile.WriteFile(filepath.Join(r.dir, "epochs.csv"), func(w io.Writer) error {
			return report.WriteEpochsCSV(w, mine)
		})
	}
	evalSplits := Splits(exp, train0, valid, test)
	ev := family.Env{Experiment: exp.Name, Splits: evalSplits, BaseRate: baseRate, Train: setRows{train0}, Seed: config.DeriveSeed(exp.Seed, 2),
		Notice: func(msg string) { fmt.Fprintln(r.opt.Stderr, msg) }}
	save := func() error {
		c, err := tr.Checkpoint(exp.Name)
		if err != nil {
			return err
		}
		return models.Save(ckptPath, c)
	}
	epochs := tr.Total()
	live := progress.IsTerminal(r.opt.Stderr)
	for tr.Completed() < epochs {
		start := time.Now()
		var bar *progress.Bar
		if live {
			bar = progress.New(r.opt.Stderr, fmt.Sprintf("%s epoch %d/%d", exp.Name, tr.Completed()+1, epochs), int64(train0.N))
		}
		tr.SetOnBatch(func(n int) { bar.Add(int64(n)) })
		st, err := tr.TrainEpoch(setRows{train0})
		bar.Done()
		if err != nil {
			ferr := flush()
			return append(others, mine...), errors.Join(fmt.Errorf("%w; the last good checkpoint is %s (epoch %d)", err, ckptPath, lastSaved(checkpointDue, tr.Completed())), ferr)
		}
		secs := time.Since(start).Seconds()
		mine = append(mine, report.Row{
			Experiment: exp.Name, Model: family.Label(tr.Current()), Stage: report.StageEpoch,
			Epoch: st.Epoch, Estimator: "train", Split: "train", Value: report.F(st.ReconError),
			NExamples: train0.N, Seconds: secs,
		})
		layer := ""
		if st.Layer > 0 {
			layer = fmt.Sprintf(" layer %d", st.Layer)
		}
		line := fmt.Sprintf("%s: epoch %d/%d%s  k=%d lr=%.4g mom=%.2f  recon %.4f (%.1f s)",
			exp.Name, st.Epoch, epochs, layer, st.K, st.LearningRate, st.Momentum, st.ReconError, secs)
		if exp.Evaluate.Due(st.Epoch) && len(exp.Evaluate.EveryEpoch) > 0 {
			ev.Stage, ev.Epoch = report.StageEpoch, st.Epoch
			rows, err := ev.Run(fam, tr.Current(), exp.Evaluate.EveryEpoch)
			mine = append(mine, rows...)
			if err != nil {
				flush()
				return append(others, mine...), err
			}
			for _, row := range rows {
				if row.MeanLoglik != nil {
					line += fmt.Sprintf("  %s/%s %.3f", row.Estimator, row.Split, *row.MeanLoglik)
				}
			}
		}
		fmt.Fprintln(r.opt.Stderr, line)
		if checkpointDue(st.Epoch) || st.Epoch == epochs {
			if err := save(); err != nil {
				return append(others, mine...), err
			}
		}
		if err := flush(); err != nil {
			return append(others, mine...), err
		}
	}
	ev.Stage, ev.Epoch = report.StageFinal, tr.Completed()
	ev.Progress = StderrProgress(r.opt.Stderr)
	rows, err := ev.Run(fam, tr.Current(), exp.Evaluate.Final)
	mine = append(mine, rows...)
	ferr := flush()
	return append(others, mine...), errors.Join(err, ferr)
}

// lastSaved is the epoch of the last checkpoint written before epoch failed+1.
func lastSaved(due func(epoch int) bool, done int) int {
	for e := done; e > 0; e-- {
		if due(e) {
			return e
		}
	}
	return 0
}

// Splits returns the evaluation splits an experiment asks for, each capped
// at evaluate.max_examples.
func Splits(exp config.Experiment, trainSet, valid, test *data.Set) []family.Split {
	var out []family.Split
	for _, name := range exp.Evaluate.Splits {
		var s *data.Set
		switch name {
		case "train":
			s = trainSet
		case "valid":
			s = valid
		case "test":
			s = test
		}
		if s == nil {
			continue
		}
		if n := exp.Evaluate.MaxExamples; n > 0 && n < s.N {
			s = s.Limit(n)
		}
		out = append(out, family.Split{Name: name, Data: setRows{s}})
	}
	return out
}

// LoadData loads an experiment's train, validation and test sets.
func LoadData(exp config.Experiment) (trainSet, valid, test *data.Set, err error) {
	d := exp.Data
	opt := data.Options{
		DataDir:  d.DataDir,
		Binarize: data.Binarization{Method: d.Binarize, Threshold: d.Threshold, Seed: d.BinarizeSeed},
		Planted: data.PlantedSpec{
			Visible: d.Planted.Visible, Hidden: d.Planted.Hidden, Train: d.Planted.Train,
			Valid: d.Planted.Valid, Test: d.Planted.Test, Seed: d.Planted.Seed, WeightScale: d.Planted.WeightScale,
		},
	}
	if d.DataDir != "" {
		opt.FashionDir = d.DataDir
	}
	if trainSet, err = data.Load(d.Train, opt); err != nil {
		return
	}
	if test, err = data.Load(d.Test, opt); err != nil {
		return
	}
	if trainSet.D != test.D {
		return nil, nil, nil, fmt.Errorf("data: train %s has %d units per example, test %s has %d", d.Train, trainSet.D, d.Test, test.D)
	}
	if d.LimitTrain > 0 && d.LimitTrain < trainSet.N {
		trainSet = trainSet.Limit(d.LimitTrain)
	}
	if d.LimitTest > 0 && d.LimitTest < test.N {
		test = test.Limit(d.LimitTest)
	}
	if d.Validation > 0 {
		if trainSet, valid, err = data.Split(trainSet, d.Validation, rand.New(rand.NewPCG(config.DeriveSeed(exp.Seed, 4), 0))); err != nil {
			return nil, nil, nil, fmt.Errorf("data.validation: %w", err)
		}
	} else if ParsePlantedValid(exp) {
		if valid, err = data.Load("planted:valid", opt); err != nil {
			return
		}
	}
	return trainSet, valid, test, nil
}

// ParsePlantedValid reports whether the experiment's validation split is the
// planted data's own valid split.
func ParsePlantedValid(exp config.Experiment) bool {
	return len(exp.Data.Train) > 8 && exp.Data.Train[:8] == "planted:" && exp.Data.Planted.Valid > 0
}

// Rows adapts a data set to the estimators' view of examples.
func Rows(s *data.Set) eval.Examples { return setRows{s} }

// StderrProgress returns a family.Env Progress that draws progress bars on w
// (quiet when w is not a terminal).
func StderrProgress(w io.Writer) func(string, int64) (func(int64), func()) {
	return func(label string, total int64) (func(int64), func()) {
		b := progress.New(w, label, total)
		return b.Add, b.Done
	}
}
