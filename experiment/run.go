// Package experiment runs the experiments of a config file end to end:
// data, model, training with after-epoch evaluation, final evaluation,
// checkpoints and reports. It is the glue between config, data, models,
// train, eval and eval/report; the command line lives in cmd/logz.
package experiment

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/logz-ml/logz/config"
	"github.com/logz-ml/logz/data"
	"github.com/logz-ml/logz/eval/report"
	"github.com/logz-ml/logz/family"
	"github.com/logz-ml/logz/family/kit/evalenv"
	"github.com/logz-ml/logz/internal/atomicfile"
	"github.com/logz-ml/logz/internal/progress"
	"github.com/logz-ml/logz/internal/runlock"
	"github.com/logz-ml/logz/models"
)

// Options controls a run.
type Options struct {
	// Out is the run directory: results.json, report.md,
	// config.resolved.yaml and one directory per experiment. It must be new
	// or empty unless Resume or Force is set.
	Out string
	// Resume continues a run in Out made with the same resolved config:
	// each experiment from its model.npz, its final evaluation from the
	// estimates already recorded; finished experiments are not redone.
	Resume bool
	// ResumeAuto, with Resume, starts a new run when Out holds none (the
	// command line's --resume=auto, for job arrays that start and restart
	// one command). Without it, Resume refuses a folder that holds no run:
	// a mistyped Out must not silently start a run from zero.
	ResumeAuto bool
	// Force discards the run in Out (its run files and experiment
	// directories, each named on Stderr) and starts over.
	Force bool
	// Stdout receives the final table; Stderr progress and per-epoch lines.
	Stdout, Stderr io.Writer
	// Meta is added to report.md (command, version, ...).
	Meta map[string]string
	// Workers for training; 0 = 2. Results do not depend on it.
	Workers int
	// Banner, if set, is written to Stderr once the run folder is accepted.
	Banner string
	// Status, if set, is kept up to date with what is safely on disk (for a
	// message when the run is interrupted).
	Status *Status
	// Deadline, if set, is when the run must have stopped: an epoch is not
	// started when one as long as the longest of this sitting (with its
	// evaluation), or on Resume a typical one of the epochs kept
	// (typicalEpoch), would end after it, and the epoch before it is then
	// saved; a final estimator (or a piece of one) is not started once it
	// has passed. Run then returns a *TimeLimitError and --resume
	// continues. A final estimator that has begun runs to its end.
	Deadline time.Time
	// clock, if set, replaces time.Now for Deadline (tests).
	clock func() time.Time
	// begun is when the sitting began (set by Run and RunShard), from which
	// the time limit is Deadline − begun.
	begun time.Time

	// merge, if set, makes Run a merge of a sharded run (see Merge).
	merge *mergePlan
}

// Run runs every experiment of f in order. The run folder is checked
// before anything is written (see Options). Results are rewritten
// atomically after every epoch and every final estimator, and report.md
// after every experiment, so a run that dies keeps everything finished
// before it. An experiment that fails (e.g. diverges) is reported on Stderr
// as it happens and the others still run; the returned error then names
// the failed experiments.
func Run(f *config.File, opt Options) ([]report.Row, error) {
	if opt.Resume && opt.Force {
		return nil, folderError("--resume and --force contradict each other: one continues the run in %s, the other discards it", opt.Out)
	}
	// Before lockFolder, which would make the folder.
	if err := CheckData(f); err != nil {
		return nil, err
	}
	if opt.Resume && !opt.ResumeAuto && opt.Out != "" {
		if _, err := os.Stat(opt.Out); errors.Is(err, fs.ErrNotExist) {
			return nil, nothingToResume(opt.Out, "there is no such folder")
		}
	}
	lock, err := lockFolder(opt.Out, runlock.Exclusive)
	if err != nil {
		return nil, err
	}
	defer lock.Release()
	return runLocked(f, opt)
}

// nothingToResume refuses --resume (without =auto) on a folder that holds
// no run; why says what is there.
func nothingToResume(dir, why string) error {
	return folderError("--resume: %s holds no run to continue (%s); to start a new run there, drop --resume (or pass --resume=auto, which starts a run when there is none and continues it otherwise)", dir, why)
}

// runLocked is Run once the run folder is locked (Merge locks it before it
// reads the shards' parts).
func runLocked(f *config.File, opt Options) ([]report.Row, error) {
	if opt.Stderr == nil {
		opt.Stderr = io.Discard
	}
	if opt.Stdout == nil {
		opt.Stdout = io.Discard
	}
	if opt.Status == nil {
		opt.Status = &Status{}
	}
	opt.Status.start(opt.Out)
	opt.begun = opt.now()
	resolved, err := f.Resolved()
	if err != nil {
		return nil, err
	}
	prep, err := prepare(f, resolved, opt)
	if err != nil {
		return nil, err
	}
	if len(prep.discard) > 0 {
		fmt.Fprintf(opt.Stderr, "logz: --force: discarding %s\n", strings.Join(prep.about, ", "))
		if err := prep.discardAll(); err != nil {
			return nil, err
		}
	}
	if opt.Banner != "" {
		fmt.Fprintln(opt.Stderr, opt.Banner)
	}
	for _, path := range prep.stale {
		if err := os.Remove(path); err == nil {
			fmt.Fprintf(opt.Stderr, "logz: --resume: removed %s, a temporary file of a killed run\n", path)
		}
	}
	if opt.Resume && prep.empty {
		fmt.Fprintf(opt.Stderr, "logz: --resume=auto: %s holds no run yet; starting one\n", opt.Out)
	}
	if err := os.MkdirAll(opt.Out, 0o755); err != nil {
		return nil, err
	}
	if opt.merge != nil {
		// The shards' training rows; the shards wrote config.resolved.yaml.
		prep.rows = opt.merge.rows
	} else if err := opt.Status.write(func() error {
		return atomicfile.WriteFile(filepath.Join(opt.Out, config.ResolvedFile), func(w io.Writer) error {
			_, err := w.Write(resolved)
			return err
		})
	}); err != nil {
		return nil, err
	}
	resultsPath := filepath.Join(opt.Out, config.ResultsFile)
	rows := prep.rows
	meta := map[string]string{"config": f.Name, "seed": fmt.Sprint(f.Seed)}
	if f.Path != "" {
		meta["file"] = f.Path
	}
	if len(f.Overrides) > 0 {
		meta["overrides"] = "--set " + strings.Join(f.Overrides, " --set ")
	}
	for k, v := range opt.Meta {
		meta[k] = v
	}
	html := newHTMLReport(opt.Out, "logz report: "+f.Name, meta)
	html.shows(rows)
	if html.sweep.Setting, html.sweep.X, err = config.SweepOf(resolved); err != nil {
		return nil, err
	}
	if html.grid, err = reportGrid(resolved); err != nil {
		return nil, err
	}
	// report.md and report.html are rewritten only when this sitting
	// changed the rows (or there are none yet): a sitting that trained and
	// evaluated nothing (a --resume of a finished run, or one refused by
	// its time limit) leaves the report of the sitting that did the work,
	// its command included.
	reported := slices.Clone(rows)
	_, statErr := os.Stat(filepath.Join(opt.Out, config.ReportFile))
	haveReport := statErr == nil
	writeReport := func() error {
		if haveReport && reflect.DeepEqual(rows, reported) {
			return nil
		}
		return opt.Status.write(func() error {
			if err := report.WriteResultsGrid(resultsPath, rows, html.grid); err != nil {
				return err
			}
			if err := atomicfile.WriteFile(filepath.Join(opt.Out, config.ReportFile), func(w io.Writer) error {
				return report.WriteMarkdownGrid(w, "logz report: "+f.Name, meta, rows, html.grid)
			}); err != nil {
				return err
			}
			if err := html.write(rows); err != nil {
				return err
			}
			reported, haveReport = slices.Clone(rows), true
			return nil
		})
	}
	var failed []string
	totals := make([]int, len(f.Experiments))
	trains := make([]any, len(f.Experiments))
	for i, exp := range f.Experiments {
		totals[i], trains[i] = epochsOf(exp.Train), exp.Train
	}
	eta := newRunETA(totals, trains...)
	experiment := (*runner).run
	if plan := opt.merge; plan != nil {
		experiment = func(r *runner, rows []report.Row) ([]report.Row, error) { return r.merge(rows, plan) }
	}
	for i, exp := range f.Experiments {
		if opt.timeUp(0) {
			return rows, opt.timeLimitError(errTimeUp)
		}
		r := newRunner(exp, opt, i)
		r.resultsPath, r.html, r.eta = resultsPath, html, eta
		rows, err = experiment(r, rows)
		if pe := (*PartsError)(nil); errors.As(err, &pe) {
			return rows, fmt.Errorf("merging %s: %w", exp.Name, pe)
		}
		if errors.Is(err, errTimeUp) {
			return rows, errors.Join(writeReport(), opt.timeLimitError(err))
		}
		if err != nil {
			fmt.Fprintf(opt.Stderr, "logz: experiment %s failed: %v\n", exp.Name, err)
			failed = append(failed, exp.Name)
			eta.start(i, 0, 0, nil) // nothing more to train here
			eta.finalRan(i)
			opt.Status.set(exp.Name, "failed")
		}
		if err := writeReport(); err != nil {
			return rows, err
		}
	}
	final := finalRows(rows)
	if err := report.RenderTable(opt.Stdout, final, report.TableOptions{Grid: html.grid}); err != nil {
		return rows, err
	}
	if err := report.RenderSandwich(opt.Stdout, final, report.TableOptions{}); err != nil {
		return rows, err
	}
	if len(failed) > 0 {
		return rows, &FailedError{Experiments: failed, Total: len(f.Experiments), Out: opt.Out}
	}
	return rows, nil
}

// FailedError is returned by Run when experiments failed; their errors
// were written to Stderr as they happened.
type FailedError struct {
	Experiments []string
	Total       int
	Out         string
}

func (e *FailedError) Error() string {
	return fmt.Sprintf("%d of %d experiment(s) failed (%s; errors above); what finished is in %s",
		len(e.Experiments), e.Total, strings.Join(e.Experiments, ", "), e.Out)
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

// built is an experiment made ready to train and evaluate.
type built struct {
	fam   *family.Family
	tr    family.Trainer
	train *data.Set
	// tracked is what estimators keep between the evaluations of the
	// experiment; every checkpoint carries it and --resume restores it.
	tracked *evalenv.Tracked
	// ev is the environment of the experiment's evaluations (without the
	// stage and epoch).
	ev evalenv.Env
	// warnings are the train settings' warnings for this training set
	// (family.TrainWarnings), printed at the start and kept in the
	// training rows.
	warnings []string
	// record is what every checkpoint says the experiment trains and
	// evaluates on, and what --resume checks a checkpoint against.
	record *models.RunRecord
}

// build loads an experiment's data, makes its model (checked against its
// estimators) and trainer, and the environment of its evaluations.
func (r *runner) build() (*built, error) { return r.buildWith(nil) }

// buildWith is build; done, if set, is the experiment's finished training
// read from its checkpoint (a merge), whose model is evaluated as it is:
// no model is made and no trainer built.
func (r *runner) buildWith(done *trained) (*built, error) {
	exp := r.exp
	train0, valid, test, err := LoadData(exp)
	if err != nil {
		return nil, err
	}
	if err := checkLabels(exp, train0, valid, test); err != nil {
		return nil, err
	}
	fam, err := exp.Model.Family()
	if err != nil {
		return nil, err
	}
	var m models.Model
	if done != nil {
		if m, err = family.Trained(fam, done.c); err != nil {
			return nil, fmt.Errorf("%s: %w", r.ckpt, err)
		}
		done.m = m
	} else if m, err = fam.Plugin.NewModel(exp.Model.Settings, train0.D); err != nil {
		return nil, err
	}
	if err := fam.CheckFeasible(m, append(append([]config.Estimator(nil), exp.Evaluate.EveryEpoch...), exp.Evaluate.Final...)); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(r.dir, 0o755); err != nil {
		return nil, err
	}
	baseRate := data.LogOdds(train0, 1)
	var tr family.Trainer = done
	if done == nil {
		tr, err = fam.Plugin.NewTrainer(family.TrainerArgs{
			Model: m, ModelSettings: exp.Model.Settings, Train: exp.Train,
			Data: train0, BaseRate: baseRate, Seed: config.DeriveSeed(exp.Seed, 1), Workers: r.opt.Workers,
		})
		if err != nil {
			return nil, err
		}
	}
	tracked := evalenv.NewTracked()
	ev := evalenv.Env{Experiment: exp.Name, Splits: Splits(exp, train0, valid, test), BaseRate: baseRate, Train: train0, Seed: config.DeriveSeed(exp.Seed, 2),
		Notice: func(msg string) { fmt.Fprintln(r.opt.Stderr, msg) }, Tracked: tracked, ByLabel: exp.Evaluate.ByLabel}
	warnings := family.TrainWarnings(exp.Train, train0.N)
	for _, w := range warnings {
		fmt.Fprintf(r.opt.Stderr, "%s: warning: %s\n", exp.Name, w)
	}
	record, err := runRecord(exp, train0, ev.Splits)
	if err != nil {
		return nil, err
	}
	return &built{fam: fam, tr: tr, train: train0, tracked: tracked, ev: ev, warnings: warnings, record: record}, nil
}

// runRecord is what an experiment's checkpoints say it trains and
// evaluates on: its resolved config alone, and the fingerprints of its
// training set and evaluated splits.
func runRecord(exp config.Experiment, train *data.Set, splits []evalenv.Split) (*models.RunRecord, error) {
	one := config.File{Name: exp.Name, Seed: exp.Seed, Experiments: []config.Experiment{exp}}
	resolved, err := one.Resolved()
	if err != nil {
		return nil, err
	}
	rec := &models.RunRecord{Config: string(resolved), Train: train.Fingerprint(), Splits: map[string]data.Provenance{}}
	for _, s := range splits {
		if s.Source != nil {
			rec.Splits[s.Name] = *s.Source
		}
	}
	return rec, nil
}

// DataMismatch compares the data a checkpoint says its run used (rec)
// with the data loaded now (now), and describes the first difference —
// which split, the files and both hashes — or returns "" when they agree
// (or the checkpoint records none).
func DataMismatch(rec, now *models.RunRecord) string {
	if rec == nil || now == nil {
		return ""
	}
	differ := func(what string, was, is data.Provenance) string {
		if was.SHA256 == "" || was.Same(is) {
			return ""
		}
		return fmt.Sprintf("the %s differs from the one the checkpoint was made with: it was %s (%s), it is now %s (%s)",
			what, was, fileOf(was), is, fileOf(is))
	}
	if d := differ("training set", rec.Train, now.Train); d != "" {
		return d
	}
	for _, name := range []string{"train", "valid", "test"} {
		was, ok := rec.Splits[name]
		is, ok2 := now.Splits[name]
		if ok && ok2 {
			if d := differ(name+" split", was, is); d != "" {
				return d
			}
		}
	}
	return ""
}

// fileOf names the file a split was read from, for messages.
func fileOf(p data.Provenance) string {
	if p.File == "" {
		return "no file: " + p.Spec
	}
	return "read from " + p.File
}

// NumSamples is the number of samples of the trained model that the runner
// writes to <experiment>/samples.npy for a family with Family.Sample.
const NumSamples = 100

// referenceRows are the experiment's published numbers (reference:), as
// rows of estimator "reference" beside the final estimates.
func referenceRows(exp config.Experiment, model string, epoch int) []report.Row {
	var out []report.Row
	for _, rv := range exp.Reference.Values() {
		out = append(out, report.Row{
			Experiment: exp.Name, Model: model, Stage: report.StageFinal, Epoch: epoch,
			Estimator: report.ReferenceEstimator, Split: rv.Split, MeanLoglik: report.F(rv.Value),
			Notes: []string{report.ReferenceNote(exp.Reference.Source)},
		})
	}
	return out
}

// onDisk says which checkpoint of an experiment that failed in epoch
// failed is on disk, after checking the file.
func onDisk(ckptPath string, due func(epoch int) bool, failed int) string {
	c, err := models.Load(ckptPath, family.Codecs())
	if err != nil {
		next := 0
		for e := 1; e <= failed+1000 && next == 0; e++ {
			if due(e) {
				next = e
			}
		}
		why := "checkpoints are written only at the end of training"
		if next > 0 {
			why = fmt.Sprintf("the first checkpoint was due after epoch %d", next)
		}
		return fmt.Sprintf("no checkpoint was written (%s)", why)
	}
	return fmt.Sprintf("%s holds the model after epoch %d, the last one saved (resuming with the same settings repeats the same epochs; change them, e.g. a lower train.learning_rate, and start over with --force)", ckptPath, c.Meta.Epoch)
}

// Splits returns the evaluation splits an experiment asks for, each capped
// at evaluate.max_examples.
func Splits(exp config.Experiment, trainSet, valid, test *data.Set) []evalenv.Split {
	var out []evalenv.Split
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
		fp := s.Fingerprint()
		out = append(out, evalenv.Split{Name: name, Data: s, Source: &fp})
	}
	return out
}

// CheckData checks that the data files of every experiment of f are there
// (data.Find), naming the experiment and key of the first that is not: a
// run calls it before it makes or touches its run folder.
func CheckData(f *config.File) error {
	for _, exp := range f.Experiments {
		opt := DataOptions(exp)
		for _, k := range []struct{ key, spec string }{{"data.train", exp.Data.Train}, {"data.test", exp.Data.Test}} {
			if _, err := data.Find(k.spec, opt); err != nil {
				where := ""
				if f.Path != "" {
					where = f.Path + ": "
				}
				return &DataError{fmt.Sprintf("%sexperiment %s: %s: %v", where, exp.Name, k.key, err)}
			}
		}
	}
	return nil
}

// DataError is a data file of the config that is missing or not a file,
// found by CheckData before the run folder is made.
type DataError struct{ Msg string }

func (e *DataError) Error() string { return e.Msg }

// LoadData loads an experiment's train, validation and test sets.
func LoadData(exp config.Experiment) (trainSet, valid, test *data.Set, err error) {
	d := exp.Data
	opt := DataOptions(exp)
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

// DataOptions are the data options of an experiment: where its files
// are, how they are binarised, its planted data.
func DataOptions(exp config.Experiment) data.Options {
	d := exp.Data
	opt := data.Options{
		DataDir:  d.DataDir,
		Binarize: data.Binarization{Method: d.Binarize, Threshold: d.Threshold, Seed: d.BinarizeSeed},
		Planted: data.PlantedSpec{
			Visible: d.Planted.Visible, Hidden: d.Planted.Hidden, Train: d.Planted.Train,
			Valid: d.Planted.Valid, Test: d.Planted.Test, Seed: d.Planted.Seed, WeightScale: d.Planted.WeightScale,
			Model: d.Planted.Model, Rows: d.Planted.Rows, Cols: d.Planted.Cols,
		},
	}
	if d.DataDir != "" {
		opt.FashionDir, opt.DigitsDir = d.DataDir, d.DataDir
	}
	return opt
}

// ParsePlantedValid reports whether the experiment's validation split is the
// planted data's own valid split.
func ParsePlantedValid(exp config.Experiment) bool {
	return len(exp.Data.Train) > 8 && exp.Data.Train[:8] == "planted:" && exp.Data.Planted.Valid > 0
}

// StderrProgress returns a evalenv.Env Progress that draws progress bars on w
// (quiet when w is not a terminal).
func StderrProgress(w io.Writer) func(string, int64) (func(int64), func()) {
	return func(label string, total int64) (func(int64), func()) {
		b := progress.New(w, label, total)
		return b.Add, b.Done
	}
}
