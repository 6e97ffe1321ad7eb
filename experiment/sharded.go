package experiment

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/logz-ml/logz/config"
	"github.com/logz-ml/logz/eval/report"
	"github.com/logz-ml/logz/family"
	"github.com/logz-ml/logz/family/kit/evalenv"
	"github.com/logz-ml/logz/internal/atomicfile"
	"github.com/logz-ml/logz/internal/progress"
	"github.com/logz-ml/logz/internal/runlock"
	"github.com/logz-ml/logz/models"
)

// Phases of a shard.
const (
	PhaseTrain = "train"
	PhaseEval  = "eval"
)

// ShardOptions controls one shard of a sharded run (RunShard).
type ShardOptions struct {
	// Out is the run folder, shared by all shards and the merge.
	Out   string
	Shard Shard
	// Phase is PhaseTrain (train this shard's experiments), PhaseEval
	// (compute this shard's share of the final evaluation of experiments
	// already trained) or "" (both, in that order).
	Phase string
	// Experiments, if set, limits the shard to the experiments of these
	// names.
	Experiments []string
	Stderr      io.Writer
	// Workers for training; 0 = 2. Results do not depend on it.
	Workers int
	// Logz is the version of the program, part of every part's fingerprint.
	Logz string
	// Status, if set, is kept up to date with what is safely on disk.
	Status *Status
	// Deadline, if set, stops the shard's training as Options.Deadline
	// stops a run's (RunShard then returns a *TimeLimitError); its share
	// of the final evaluation is not limited.
	Deadline time.Time
}

// NotDoneError is returned by RunShard when an experiment in its scope
// could not be evaluated because its training is not finished (another
// shard trains it) or failed.
type NotDoneError struct {
	Shard       Shard
	Experiments []string
}

func (e *NotDoneError) Error() string {
	return fmt.Sprintf("shard %s did not evaluate %s: not trained (yet); run the shards' training first (--phase %s), then this shard again", e.Shard, strings.Join(e.Experiments, ", "), PhaseTrain)
}

// RunShard runs one shard of a sharded run of f in opt.Out (see Shard): it
// trains the experiments at positions Index, Index + Count, … of the
// config (phase train) and computes its share of the final evaluation of
// every experiment whose training is complete (phase eval), writing part
// files into Out/parts (see PartsDir). Every shard writes the same
// config.resolved.yaml, and refuses a folder made with another config.
// Parts finished before with a matching fingerprint are kept, so a shard
// run again (a requeued or preempted job) only does what is missing; an
// interrupted training resumes from its last checkpoint. `Merge` then
// writes the run's results, exactly as `Run` would have.
func RunShard(f *config.File, opt ShardOptions) error {
	if opt.Stderr == nil {
		opt.Stderr = io.Discard
	}
	if opt.Status == nil {
		opt.Status = &Status{}
	}
	sh := opt.Shard
	if sh.Count < 1 || sh.Index < 0 || sh.Index >= sh.Count {
		return fmt.Errorf("shard %s: want 0 ≤ index < count", sh)
	}
	if opt.Phase != "" && opt.Phase != PhaseTrain && opt.Phase != PhaseEval {
		return fmt.Errorf("phase %q: want %s, %s or both (\"\")", opt.Phase, PhaseTrain, PhaseEval)
	}
	opt.Status.start(opt.Out)
	inScope := map[string]bool{}
	for _, name := range opt.Experiments {
		if !slices.ContainsFunc(f.Experiments, func(e config.Experiment) bool { return e.Name == name }) {
			names := make([]string, len(f.Experiments))
			for i, e := range f.Experiments {
				names[i] = e.Name
			}
			return fmt.Errorf("no experiment %q in %s (its experiments: %s)", name, f.Name, strings.Join(names, ", "))
		}
		inScope[name] = true
	}
	scoped := func(e config.Experiment) bool { return len(inScope) == 0 || inScope[e.Name] }
	if err := CheckData(f); err != nil {
		return err
	}
	if err := refuseEarlyStop(f); err != nil {
		return err
	}
	resolved, err := f.Resolved()
	if err != nil {
		return err
	}
	lock, err := lockFolder(opt.Out, runlock.Shared)
	if err != nil {
		return err
	}
	defer lock.Release()
	if err := runlock.WithSetup(opt.Out, func() error { return prepareShardFolder(f, resolved, opt.Out) }); err != nil {
		return err
	}
	eta := newRunETA(make([]int, len(f.Experiments)))
	base := Options{Out: opt.Out, Resume: true, Stderr: opt.Stderr, Stdout: io.Discard, Workers: opt.Workers, Status: opt.Status, Deadline: opt.Deadline}
	base.begun = base.now()
	var failed []string
	if opt.Phase != PhaseEval {
		for i, exp := range f.Experiments {
			if i%sh.Count != sh.Index || !scoped(exp) {
				continue
			}
			if err := trainShard(exp, i, base, opt, eta); err != nil {
				if errors.Is(err, errTimeUp) {
					return base.timeLimitError(err)
				}
				var fe *FolderError
				if errors.As(err, &fe) {
					return err
				}
				fmt.Fprintf(opt.Stderr, "logz: experiment %s failed: %v\n", exp.Name, err)
				failed = append(failed, exp.Name)
			}
		}
	}
	var waiting []string
	if opt.Phase != PhaseTrain {
		for i, exp := range f.Experiments {
			if !scoped(exp) {
				continue
			}
			err := evalShard(exp, i, base, opt)
			switch {
			case errors.Is(err, errNotTrained):
				fmt.Fprintf(opt.Stderr, "logz: %s is not trained yet (shard %d/%d trains it); not evaluated\n", exp.Name, i%sh.Count, sh.Count)
				waiting = append(waiting, exp.Name)
			case err != nil:
				var fe *FolderError
				if errors.As(err, &fe) {
					return err
				}
				fmt.Fprintf(opt.Stderr, "logz: experiment %s failed: %v\n", exp.Name, err)
				failed = append(failed, exp.Name)
			}
		}
	}
	if len(failed) > 0 {
		return &FailedError{Experiments: failed, Total: len(f.Experiments), Out: opt.Out}
	}
	if len(waiting) > 0 {
		return &NotDoneError{Shard: sh, Experiments: waiting}
	}
	return nil
}

// PrepareShards checks the run folder dir for a sharded run of f, as every
// shard does (a new or empty folder, or one holding a sharded run of the
// same config), and writes config.resolved.yaml and the parts folder: what
// `logz slurm` does before it submits the shards.
func PrepareShards(f *config.File, dir string) error {
	if err := refuseEarlyStop(f); err != nil {
		return err
	}
	resolved, err := f.Resolved()
	if err != nil {
		return err
	}
	lock, err := lockFolder(dir, runlock.Shared)
	if err != nil {
		return err
	}
	defer lock.Release()
	return runlock.WithSetup(dir, func() error { return prepareShardFolder(f, resolved, dir) })
}

// prepareShardFolder accepts a new or empty folder, or one holding a
// sharded run of the same config; it writes config.resolved.yaml and
// makes the parts folder. Shards started together run it one at a time
// (runlock.WithSetup): the first writes the config, the others find it.
func prepareShardFolder(f *config.File, resolved []byte, dir string) error {
	entries, err := readRunDir(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist) || (err == nil && onlyTempFiles(entries)):
	case err != nil:
		if fi, serr := os.Stat(dir); serr == nil && !fi.IsDir() {
			return folderError("%s is a file, not a folder; choose another --out", dir)
		}
		return err
	default:
		if _, err := os.Stat(filepath.Join(dir, config.ResolvedFile)); err != nil {
			return folderError("%s is not empty and holds no logz run (no %s); choose a new or empty folder with --out", dir, config.ResolvedFile)
		}
		if err := sameConfig(f, resolved, dir, "--shard", "every shard must use the same config (or use another --out)"); err != nil {
			return err
		}
		if err := refuseLinks(f, dir, nil); err != nil {
			return err
		}
		// The model first, then its part: a training shard writes the part
		// before its first checkpoint (trainPart), so a model seen here
		// has its part by the time we look for it.
		for _, exp := range f.Experiments {
			_, errModel := os.Stat(filepath.Join(dir, exp.Name, modelFile))
			if _, errPart := os.Stat(filepath.Join(dir, PartsDir, trainPartName(exp.Name))); errModel == nil && errors.Is(errPart, fs.ErrNotExist) {
				return folderError("--shard: %s holds %s/%s but no %s/%s: it is a run made without --shard; use another --out", dir, exp.Name, modelFile, PartsDir, trainPartName(exp.Name))
			}
		}
		return os.MkdirAll(filepath.Join(dir, PartsDir), 0o755)
	}
	if err := atomicfile.WriteFile(filepath.Join(dir, config.ResolvedFile), func(w io.Writer) error {
		_, err := w.Write(resolved)
		return err
	}); err != nil {
		return err
	}
	return os.MkdirAll(filepath.Join(dir, PartsDir), 0o755)
}

// trainFingerprint is the fingerprint of an experiment's training part.
func trainFingerprint(exp config.Experiment, logz string) (Fingerprint, error) {
	h, err := experimentHash(exp)
	return Fingerprint{Config: h, Seed: exp.Seed, Logz: logz}, err
}

// evalFingerprint is the fingerprint of an experiment's evaluation parts,
// for the model in its folder.
func evalFingerprint(exp config.Experiment, dir, logz string) (Fingerprint, error) {
	fp, err := trainFingerprint(exp, logz)
	if err != nil {
		return fp, err
	}
	if fp.Model, err = HashFile(filepath.Join(dir, exp.Name, modelFile)); err != nil {
		return fp, err
	}
	names := make([]string, len(exp.Evaluate.Final))
	for i, e := range exp.Evaluate.Final {
		names[i] = e.Name
	}
	fp.Estimators = strings.Join(names, ",")
	return fp, nil
}

// trainShard trains experiment exp (at position i of the config) into its
// folder, its rows into its training part, resuming from a part and a
// checkpoint left by an earlier attempt.
func trainShard(exp config.Experiment, i int, base Options, opt ShardOptions, eta *runETA) error {
	fp, err := trainFingerprint(exp, opt.Logz)
	if err != nil {
		return err
	}
	path := filepath.Join(opt.Out, PartsDir, trainPartName(exp.Name))
	var rows []report.Row
	switch p, err := readTrainPart(path); {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return folderError("%v", err)
	case p.Fingerprint.differs(fp) != "":
		return folderError("%s was made with another %s; remove it (and %s/%s) to train %s again", path, p.Fingerprint.differs(fp), exp.Name, modelFile, exp.Name)
	case p.Complete && modelMissing(opt.Out, exp.Name) != nil:
		// Deleted after training: train it again, from the start (the
		// same model, bit for bit, so finished evaluation parts stay good).
		fmt.Fprintf(opt.Stderr, "%s: %s says trained, but %s is missing; training %s again\n", exp.Name, path, filepath.Join(opt.Out, exp.Name, modelFile), exp.Name)
	case p.Complete:
		fmt.Fprintf(opt.Stderr, "%s: trained before (%d epochs, %s); kept\n", exp.Name, p.Epochs, path)
		opt.Status.set(exp.Name, exp.Name+" trained")
		return nil
	default:
		rows = p.Rows
	}
	r := newRunner(exp, base, i)
	r.eta = eta
	return r.trainPart(rows, path, fp)
}

// trainPart is an experiment of a training shard: it trains the
// experiment, resuming from its checkpoint and the rows of an earlier
// attempt (all), and keeps its rows in its training part at path (with
// fingerprint fp) — complete once training is done and its last
// checkpoint saved, with the error when training failed. The final
// evaluation is the evaluation shards'.
func (r *runner) trainPart(all []report.Row, path string, fp Fingerprint) error {
	earlier, err := r.start(all)
	if err != nil {
		return err
	}
	st := r.opt.Status
	part := func(complete bool, failed error) error {
		tr := r.b.tr
		p := trainPart{
			Format: partFormat, Kind: "train", Experiment: r.exp.Name, Fingerprint: fp,
			Epochs: tr.Completed(), Total: tr.Total(), Complete: complete && failed == nil && tr.Completed() == tr.Total(),
			Rows: r.mine,
		}
		if p.Rows == nil {
			p.Rows = []report.Row{}
		}
		if failed != nil {
			p.Failed = failed.Error()
		}
		return writePart(path, &p)
	}
	r.keep = func(failed error) error {
		return st.write(func() error {
			if err := part(false, failed); err != nil {
				return err
			}
			return r.writeEpochs()
		})
	}
	resumed, err := r.resume(earlier)
	if err != nil {
		return err
	}
	if resumed {
		r.sayResumed()
	}
	// The part exists before the first checkpoint: a shard that sets the
	// folder up meanwhile must not find a model without its part and take
	// the folder for a run made without --shard.
	if err := st.write(func() error { return part(false, nil) }); err != nil {
		return err
	}
	if err := r.trainEpochs(); err != nil {
		return err
	}
	if err := st.write(func() error { return part(true, nil) }); err != nil {
		return err
	}
	st.set(r.exp.Name, r.exp.Name+" trained")
	return nil
}

// evalShard computes this shard's share of experiment exp's final
// evaluation into its part, unless a part with a matching fingerprint is
// there. It returns errNotTrained when the training is not complete.
func evalShard(exp config.Experiment, i int, base Options, opt ShardOptions) error {
	tp, err := readTrainPart(filepath.Join(opt.Out, PartsDir, trainPartName(exp.Name)))
	if errors.Is(err, fs.ErrNotExist) || (err == nil && !tp.Complete) {
		return errNotTrained
	}
	if err != nil {
		return folderError("%v", err)
	}
	if err := modelMissing(opt.Out, exp.Name); err != nil {
		return err
	}
	fp, err := evalFingerprint(exp, opt.Out, opt.Logz)
	if err != nil {
		return err
	}
	path := filepath.Join(opt.Out, PartsDir, evalPartName(exp.Name, opt.Shard))
	switch p, err := readEvalPart(path); {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return folderError("%v", err)
	case p.Fingerprint.differs(fp) != "":
		return folderError("%s was made with another %s; remove it to compute it again", path, p.Fingerprint.differs(fp))
	case p.Failed == "":
		fmt.Fprintf(opt.Stderr, "%s: shard %s of the final evaluation done before (%s); kept\n", exp.Name, opt.Shard, path)
		return nil
	}
	r := newRunner(exp, base, i)
	return r.evalPart(path, fp, opt.Shard, tp.Total)
}

// evalPart is an experiment of an evaluation shard: shard s's share of
// the final evaluation of the trained model, into its part at path (with
// fingerprint fp); total is the epochs its training part says it trained.
func (r *runner) evalPart(path string, fp Fingerprint, s Shard, total int) error {
	if err := r.buildTrained(total); err != nil {
		return err
	}
	ev := r.finalEnv()
	ev.Progress = shardProgress(r.opt.Stderr, s)
	fmt.Fprintf(r.opt.Stderr, "%s: shard %s of the final evaluation (%d estimators)\n", r.exp.Name, s, len(r.exp.Evaluate.Final))
	p, runErr := evalShare(ev, s, fp, r.b.fam, r.b.tr.Current(), r.exp.Evaluate.Final)
	if err := r.opt.Status.write(func() error { return writePart(path, &p) }); err != nil {
		return errors.Join(runErr, err)
	}
	if runErr == nil {
		r.opt.Status.set(r.exp.Name, fmt.Sprintf("%s: shard %s of the final evaluation in %s", r.exp.Name, s, path))
	}
	return runErr
}

// evalShare runs shard s's share of an evaluation (ev, with fingerprint
// fp) and returns its part, which holds the error when an estimator
// failed.
func evalShare(ev evalenv.Env, s Shard, fp Fingerprint, f *family.Family, m models.Model, ests []config.Estimator) (evalPart, error) {
	rec := &recorder{shard: s}
	ev.Sharding, ev.SkipUnshared = rec, true
	start := time.Now()
	_, err := ev.Run(f, m, ests)
	p := evalPart{
		Format: partFormat, Kind: "eval", Experiment: ev.Experiment, Fingerprint: fp,
		Shard: s.Index, Shards: s.Count, Seconds: time.Since(start).Seconds(),
		Entries: rec.entries,
	}
	if p.Entries == nil {
		p.Entries = []partEntry{}
	}
	if err != nil {
		p.Failed = err.Error()
	}
	return p, err
}

// shardProgress is StderrProgress for a shard, which does only its share
// of each estimator's work: its bars count without a total.
func shardProgress(w io.Writer, s Shard) func(string, int64) (func(int64), func()) {
	return func(label string, _ int64) (func(int64), func()) {
		b := progress.New(w, fmt.Sprintf("%s (shard %s's share)", label, s), 0)
		return b.Add, b.Done
	}
}
