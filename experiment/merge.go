package experiment

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/logz-ml/logz/config"
	"github.com/logz-ml/logz/data"
	"github.com/logz-ml/logz/eval/report"
	"github.com/logz-ml/logz/family"
	"github.com/logz-ml/logz/internal/runlock"
	"github.com/logz-ml/logz/models"
)

// mergePlan is what a merge takes from the parts: every experiment's
// training rows, and per experiment the merger of its evaluation parts or
// the error its training failed with.
type mergePlan struct {
	// totals are the experiments' epochs in all, from their training
	// parts.
	totals map[string]int
	// config is the sharded run's config, read once from its
	// config.resolved.yaml.
	config  *config.File
	rows    []report.Row
	mergers map[string]*merger
	failed  map[string]string
}

// MergeError lists why a sharded run or evaluation cannot be merged yet.
type MergeError struct {
	Dir      string
	Problems []string
	// Hint says what to do (default: run logz status).
	Hint string
}

func (e *MergeError) Error() string {
	hint := e.Hint
	if hint == "" {
		hint = fmt.Sprintf("'logz status %s' lists what is missing and how to resubmit it", e.Dir)
	}
	return fmt.Sprintf("cannot merge %s:\n  %s\n(%s)", e.Dir, strings.Join(e.Problems, "\n  "), hint)
}

// Merge writes the results of the sharded run in opt.Out from its part
// files (see RunShard): results.json, report.md and each experiment's
// epochs.csv, final.progress.json, samples.npy (with samples.json,
// samples.png, filters.png and the estimators' pictures such as
// completion.npy/.json/.png), exactly as Run would
// have written them — every estimate the same, bit for bit, whatever the
// number of shards — with the final table on opt.Stdout. It first checks
// that every experiment's training is complete and that every shard of
// its final evaluation is there once, with the fingerprint of this config,
// model and program (logz, the version); a MergeError lists what is
// missing. The merge redoes each evaluation with the units' values taken
// from the parts (and the cheap work that is not shared, such as exact
// enumeration, recomputed), checking that every unit is in exactly one
// part and every value in the parts is used.
//
// The time of a merged final row ("seconds") is the longest time a shard
// spent on that row: the wall time of the shards run side by side. Epoch
// rows keep the time of the shard that trained the experiment.
func Merge(opt Options, logz string) ([]report.Row, error) {
	dir := opt.Out
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		return nil, folderError("%s does not exist: there is no sharded run to merge there", dir)
	}
	lock, err := lockFolder(dir, runlock.Exclusive)
	if err != nil {
		return nil, err
	}
	defer lock.Release()
	f, err := readShardedConfig(dir)
	if err != nil {
		return nil, err
	}
	if err := refuseLinks(f, dir, f); err != nil {
		return nil, err
	}
	plan, problems := planMerge(f, dir, logz)
	plan.config = f
	if len(problems) > 0 {
		return nil, &MergeError{Dir: dir, Problems: problems}
	}
	opt.Resume, opt.Force = true, false
	opt.merge = plan
	return runLocked(f, opt)
}

// merge is an experiment of Merge: the final evaluation of its trained
// model with the units' values from the shards' parts, its rows kept as
// Run keeps them. Its training rows, in all, are those of its training
// part; an experiment whose training failed fails again here, with its
// training's error.
func (r *runner) merge(all []report.Row, plan *mergePlan) ([]report.Row, error) {
	if msg, failed := plan.failed[r.exp.Name]; failed {
		return all, errors.New(msg)
	}
	if err := r.buildTrained(plan.totals[r.exp.Name]); err != nil {
		return all, err
	}
	earlier := r.setApart(all)
	r.keep = r.keepResults
	r.keepEpochs(earlier)
	r.sayResumed()
	m := plan.mergers[r.exp.Name]
	if err := r.finish(nil, m); err != nil {
		return r.rows(), err
	}
	return r.rows(), m.unused()
}

// readShardedConfig reads the config of the sharded run in dir, which its
// shards wrote into config.resolved.yaml; a run made without --shard (no
// parts folder) is refused, saying so.
func readShardedConfig(dir string) (*config.File, error) {
	path := filepath.Join(dir, config.ResolvedFile)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, folderError("%s holds no sharded run (no %s; the shards write it)", dir, config.ResolvedFile)
	}
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(filepath.Join(dir, PartsDir)); errors.Is(err, fs.ErrNotExist) {
		return nil, notSharded(dir)
	}
	return config.Parse(b, path, config.Options{Recorded: true})
}

// notSharded is the error of merge and status on a run folder made by
// `logz run` without --shard: it has no parts, and writes its results
// itself.
func notSharded(dir string) error {
	next := fmt.Sprintf("its results are in %s", filepath.Join(dir, config.ResultsFile))
	if _, err := os.Stat(filepath.Join(dir, config.ResultsFile)); err != nil {
		next = fmt.Sprintf("to finish it: logz run %s --out %s --resume", filepath.Join(dir, config.ResolvedFile), dir)
	}
	return folderError("%s is not a sharded run: it was made by logz run without --shard (it has no %s folder), which writes its results itself, so there are no shards to merge or report on; %s",
		dir, PartsDir, next)
}

// missingShards says which evaluation shards of n are missing: "shard 3
// of 4 is missing", "shards 0, 2 and 3 of 4 are missing", "shards 0–9
// and 12 of 16 are missing".
func missingShards(missing []int, n int) string {
	if len(missing) == 1 {
		return fmt.Sprintf("shard %d of %d is missing", missing[0], n)
	}
	return fmt.Sprintf("shards %s of %d are missing", andList(missing), n)
}

// andList writes sorted integers as "0, 2 and 3", runs of three or more as
// "4–9".
func andList(xs []int) string {
	var items []string
	for i := 0; i < len(xs); {
		j := i
		for j+1 < len(xs) && xs[j+1] == xs[j]+1 {
			j++
		}
		switch {
		case j-i >= 2:
			items = append(items, fmt.Sprintf("%d–%d", xs[i], xs[j]))
		case j == i+1:
			items = append(items, fmt.Sprint(xs[i]), fmt.Sprint(xs[j]))
		default:
			items = append(items, fmt.Sprint(xs[i]))
		}
		i = j + 1
	}
	if len(items) < 2 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}

// planMerge reads and checks the parts of every experiment of f.
func planMerge(f *config.File, dir, logz string) (*mergePlan, []string) {
	plan := &mergePlan{mergers: map[string]*merger{}, failed: map[string]string{}, totals: map[string]int{}}
	var problems []string
	for _, exp := range f.Experiments {
		tpath := filepath.Join(dir, PartsDir, trainPartName(exp.Name))
		tp, err := readTrainPart(tpath)
		if errors.Is(err, fs.ErrNotExist) {
			problems = append(problems, fmt.Sprintf("%s: not trained (no %s)", exp.Name, tpath))
			continue
		}
		if err != nil {
			problems = append(problems, err.Error())
			continue
		}
		fp, err := trainFingerprint(exp, logz)
		if err != nil {
			problems = append(problems, err.Error())
			continue
		}
		if d := tp.Fingerprint.differs(fp); d != "" {
			problems = append(problems, fmt.Sprintf("%s was made with another %s", tpath, d))
			continue
		}
		switch {
		case tp.Failed != "":
			plan.failed[exp.Name] = tp.Failed
			plan.rows = append(plan.rows, tp.Rows...)
			continue
		case !tp.Complete:
			problems = append(problems, fmt.Sprintf("%s: training not finished (epoch %d of %d in %s)", exp.Name, tp.Epochs, tp.Total, tpath))
			continue
		}
		plan.rows = append(plan.rows, tp.Rows...)
		plan.totals[exp.Name] = tp.Total
		if err := modelMissing(dir, exp.Name); err != nil {
			problems = append(problems, fmt.Sprintf("%s: %v", exp.Name, err))
			continue
		}
		m, more := readEvalParts(exp, dir, logz)
		problems = append(problems, more...)
		plan.mergers[exp.Name] = m
	}
	return plan, problems
}

// readEvalParts reads and checks the evaluation parts of a trained
// experiment: one shard count, every shard once, fingerprints matching.
func readEvalParts(exp config.Experiment, dir, logz string) (*merger, []string) {
	fp, err := evalFingerprint(exp, dir, logz)
	if err != nil {
		return nil, []string{err.Error()}
	}
	return collectParts(filepath.Join(dir, PartsDir), exp.Name, fp, exp.Name+"'s final evaluation")
}

// collectParts reads the evaluation parts of experiment exp ("" for `logz
// eval`) in the parts folder pdir and checks them — readable, of one shard
// count, every shard once, each with fingerprint fp, each piece of work
// whole (merger.check) — and returns their merger, or what is wrong; who
// names the evaluation in the messages.
func collectParts(pdir, exp string, fp Fingerprint, who string) (*merger, []string) {
	files, shards, err := evalParts(pdir, exp)
	if err != nil {
		return nil, []string{err.Error()}
	}
	if len(files) == 0 {
		return nil, []string{fmt.Sprintf("%s: no part in %s", who, pdir)}
	}
	counts := map[int]bool{}
	for _, s := range shards {
		counts[s.Count] = true
	}
	if len(counts) > 1 {
		var cs []int
		for c := range counts {
			cs = append(cs, c)
		}
		slices.Sort(cs)
		return nil, []string{fmt.Sprintf("%s: parts from runs with %v shards in %s; keep those of one and remove the others", who, cs, pdir)}
	}
	n := shards[0].Count
	parts := make([]*evalPart, n)
	names := make([]string, n)
	var problems []string
	for k, file := range files {
		p, err := readEvalPart(file)
		if err != nil {
			problems = append(problems, err.Error())
			continue
		}
		if (exp != "" && p.Experiment != exp) || p.Shard != shards[k].Index || p.Shards != n {
			problems = append(problems, fmt.Sprintf("%s holds shard %d/%d of %s; its name says shard %s of %s", file, p.Shard, p.Shards, p.Experiment, shards[k], exp))
			continue
		}
		if d := p.Fingerprint.differs(fp); d != "" {
			problems = append(problems, fmt.Sprintf("%s was made with another %s; remove it and run shard %s again", file, d, shards[k]))
			continue
		}
		parts[p.Shard], names[p.Shard] = p, file
	}
	var missing []int
	for i, p := range parts {
		if p == nil {
			missing = append(missing, i)
		}
	}
	if len(missing) > 0 && len(problems) == 0 {
		problems = append(problems, fmt.Sprintf("%s: %s", who, missingShards(missing, n)))
	}
	if len(problems) > 0 {
		return nil, problems
	}
	m := newMerger(parts, names)
	return m, m.check()
}

// trained is the family.Trainer of a merge: the model of a finished
// training as its checkpoint holds it, evaluated as it is. Nothing is
// built to read it (the trainers' Resume checks that a checkpoint fits
// the trainer the config makes; the training part's fingerprint and the
// evaluation parts' hash of model.npz have checked that already), and it
// trains and resumes nothing.
type trained struct {
	c *models.Checkpoint
	// m is the model evaluated (trainer.Trained).
	m models.Model
	// total is the epochs in all, from the training part.
	total int
}

func (t *trained) TrainEpoch(data.Examples) (models.EpochSummary, error) {
	return models.EpochSummary{}, errors.New("a merge trains nothing: its model is trained")
}

// Checkpoint returns the checkpoint read, with its state maps copied (the
// caller adds to them).
func (t *trained) Checkpoint(string) (*models.Checkpoint, error) {
	c := *t.c
	c.State, c.Bytes = maps.Clone(c.State), maps.Clone(c.Bytes)
	return &c, nil
}

func (t *trained) Resume(*models.Checkpoint) error {
	return errors.New("a merge resumes nothing: its model is trained")
}

// Completed is the epochs the checkpoint says were completed.
func (t *trained) Completed() int        { return t.c.Meta.Epoch }
func (t *trained) Total() int            { return t.total }
func (t *trained) Current() models.Model { return t.m }
func (t *trained) SetOnBatch(func(int))  {}

// buildTrained builds the experiment of a merge or an evaluation shard
// around the model of its finished training (total epochs in all, from
// its training part), read from its checkpoint without building a
// trainer; it checks the checkpoint against the data loaded now and the
// training part (every epoch done), and restores the estimators' tracked
// state it holds.
func (r *runner) buildTrained(total int) error {
	c, err := models.Load(r.ckpt, family.Codecs())
	if err != nil {
		return err
	}
	if got, want := c.Model.TypeName(), r.exp.Model.Type; got != want {
		return fmt.Errorf("%s holds a %s, the experiment is a %s", r.ckpt, got, want)
	}
	if r.b, err = r.buildWith(&trained{c: c, total: total}); err != nil {
		return err
	}
	if d := DataMismatch(c.Meta.Run, r.b.record); d != "" {
		return fmt.Errorf("%s: %s; the run cannot go on with other data (point the data options at the original files)", r.ckpt, d)
	}
	if tr := r.b.tr; tr.Completed() != tr.Total() {
		return fmt.Errorf("%s holds the model after epoch %d of %d, though %s says training is complete", r.ckpt, tr.Completed(), tr.Total(), trainPartName(r.exp.Name))
	}
	r.b.tracked.Restore(c)
	return nil
}
