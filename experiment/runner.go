package experiment

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"time"

	"gonum.org/v1/gonum/stat"

	"github.com/logz-ml/logz/config"
	"github.com/logz-ml/logz/eval/report"
	"github.com/logz-ml/logz/family"
	"github.com/logz-ml/logz/family/kit/estim"
	"github.com/logz-ml/logz/family/kit/evalenv"
	"github.com/logz-ml/logz/family/kit/sampling"
	"github.com/logz-ml/logz/internal/atomicfile"
	"github.com/logz-ml/logz/internal/progress"
	"github.com/logz-ml/logz/models"
)

// runner takes one experiment of a run folder through the steps below.
// Each mode is a small function that composes the steps it needs:
//
//	run         (Run, runner.run)         start, resume*, train epochs, finish
//	train shard (RunShard, runner.trainPart) start, resume, train epochs, complete part
//	eval shard  (RunShard, runner.evalPart)  build, load trained model, its share → part
//	merge       (Merge, runner.merge)     start, load trained model, finish from the parts
//
// (* with --resume; finish = final evaluation, samples and pictures, rows.)
// Where a mode keeps its rows is its keep function; nothing deeper asks
// which mode it is in.
type runner struct {
	exp  config.Experiment
	opt  Options
	dir  string
	ckpt string // dir/model.npz
	// resultsPath is results.json; html, if set, rewrites report.html with
	// it (a run and a merge).
	resultsPath string
	html        *htmlReport
	// eta estimates the end of the whole run (all experiments); index is
	// this experiment's position in it.
	eta   *runETA
	index int

	// The state the steps share, from start on.
	b *built
	// others are the rows of the run's other experiments, mine this
	// experiment's rows so far.
	others, mine []report.Row
	// done are the final estimates an interrupted run recorded for the
	// trained model (readRecorded), which the final evaluation reuses.
	done map[int]evalenv.Entry
	// pieces are the finished pieces of final entries an interrupted run
	// recorded but did not finish (a sandwich's rounds).
	pieces map[int][][]report.Row
	// longest is the longest epoch of this sitting, with its evaluation
	// and checkpoint, or a typical epoch of those a resumed run kept
	// (typicalEpoch) if longer; outOfTime says that the next one would end after
	// the deadline (Options.Deadline), so training stops after this one.
	longest   time.Duration
	outOfTime bool
	// keep writes the experiment's rows so far where its mode keeps them
	// (keepResults, or a training shard's part) and its epochs.csv; failed
	// is the error its training stopped with, or nil.
	keep func(failed error) error
}

func newRunner(exp config.Experiment, opt Options, index int) *runner {
	dir := filepath.Join(opt.Out, exp.Name)
	return &runner{exp: exp, opt: opt, index: index, dir: dir, ckpt: filepath.Join(dir, modelFile)}
}

// run is an experiment of Run: it trains and evaluates the experiment,
// appending its rows to all (from which rows of an earlier run of the
// same experiment are dropped, except those --resume keeps: the epochs up
// to its checkpoint and the final estimates recorded in
// final.progress.json).
func (r *runner) run(all []report.Row) ([]report.Row, error) {
	earlier, err := r.start(all)
	if err != nil {
		return all, err
	}
	r.keep = r.keepResults
	if r.opt.Resume {
		resumed, err := r.resume(earlier)
		if err == nil && resumed {
			err = r.readRecorded()
		}
		if err != nil {
			return all, err
		}
		if resumed {
			r.sayResumed()
		}
	}
	if err := r.trainEpochs(); err != nil {
		return r.rows(), err
	}
	err = r.finish(StderrProgress(r.opt.Stderr), nil)
	r.eta.finalRan(r.index)
	return r.rows(), err
}

// foresee returns the foreseen seconds on the reference machine of the
// estimators of list that skip does not skip (nil: none) on the current
// model and the evaluation's splits (estim.ListWork), how many of them
// cannot foresee theirs, and how many there are.
func (r *runner) foresee(list []family.Configured, skip func(int) bool) (ref float64, unknown, n int) {
	sizes := make([]int, len(r.b.ev.Splits))
	for k, sp := range r.b.ev.Splits {
		sizes[k] = sp.Data.Len()
	}
	for i := range list {
		if skip == nil || !skip(i) {
			n++
		}
	}
	ref, unknown = estim.ListWork(r.b.fam, r.b.tr.Current(), list, sizes, skip)
	return ref, unknown, n
}

// start builds the experiment and sets its rows apart from all: the other
// experiments' rows are kept as they are; its own are returned, rows of an
// earlier run that resume may keep.
func (r *runner) start(all []report.Row) (earlier []report.Row, err error) {
	if r.b, err = r.build(); err != nil {
		return nil, err
	}
	return r.setApart(all), nil
}

// setApart sets the experiment's rows apart from all: the other
// experiments' rows are kept as they are; its own are returned.
func (r *runner) setApart(all []report.Row) (earlier []report.Row) {
	r.others = make([]report.Row, 0, len(all))
	for _, row := range all {
		if row.Experiment == r.exp.Name {
			earlier = append(earlier, row)
		} else {
			r.others = append(r.others, row)
		}
	}
	return earlier
}

// rows are the run's rows: the other experiments' and this one's so far.
func (r *runner) rows() []report.Row { return append(r.others, r.mine...) }

// resume continues from the experiment's checkpoint when there is one,
// and says whether there was: the trainer and the estimators' tracked
// state as they were after its epoch, and the rows of earlier up to that
// epoch. Without a checkpoint the experiment starts afresh.
func (r *runner) resume(earlier []report.Row) (bool, error) {
	c, err := models.Load(r.ckpt, family.Codecs())
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("--resume: %w", err)
	}
	if err := unresumable(r.ckpt, c); err != nil {
		return false, fmt.Errorf("--resume: %w; move it away to train %s from scratch", err, r.exp.Name)
	}
	if err := r.restore(c); err != nil {
		return false, fmt.Errorf("--resume from %s: %w", r.ckpt, err)
	}
	r.keepEpochs(earlier)
	r.longest = typicalEpoch(r.mine)
	return true, nil
}

// typicalEpoch is how long an epoch takes by the epoch rows of earlier
// sittings: the median seconds of their training rows plus the median
// seconds of the estimates of an evaluated epoch. A resumed sitting judges
// its first epoch by it; medians, so that an epoch that once took far
// longer (the machine paused or shared) does not keep every later sitting
// from starting one.
func typicalEpoch(rows []report.Row) time.Duration {
	var train []float64
	eval := map[int]float64{}
	for _, row := range rows {
		switch {
		case row.Stage != report.StageEpoch:
		case row.Estimator == "train":
			train = append(train, row.Seconds)
		default:
			eval[row.Epoch] += row.Seconds
		}
	}
	secs := median(train) + median(slices.Collect(maps.Values(eval)))
	return time.Duration(secs * float64(time.Second))
}

// median is the median of xs (0 when empty); it sorts xs.
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	slices.Sort(xs)
	return stat.Quantile(0.5, stat.Empirical, xs, nil)
}

// restore puts the model of checkpoint c into the trainer, and the
// estimators' tracked state (a chi2 entry's fitted q) at its epoch, so
// that the next epochs warm-start from it as they did before.
func (r *runner) restore(c *models.Checkpoint) error {
	if d := DataMismatch(c.Meta.Run, r.b.record); d != "" {
		return fmt.Errorf("%s; the run cannot go on with other data (point the data options at the original files, or start a new run with --force)", d)
	}
	if err := r.b.tr.Resume(c); err != nil {
		return err
	}
	if tr := r.b.tr; tr.Completed() < 0 || tr.Completed() > tr.Total() {
		return fmt.Errorf("the checkpoint says %d epochs are done, but the experiment trains %d: the file is corrupt or from another run", tr.Completed(), tr.Total())
	}
	r.b.tracked.Restore(c)
	return nil
}

// keepEpochs keeps the epoch rows of earlier that the restored checkpoint
// holds; later ones, and final rows, are dropped (a run takes the final
// estimates recorded from final.progress.json).
func (r *runner) keepEpochs(earlier []report.Row) {
	tr := r.b.tr
	for _, row := range earlier {
		if row.Stage == report.StageEpoch && row.Epoch <= tr.Completed() && row.Estimator != earlyStopRow {
			r.mine = append(r.mine, row)
		}
	}
	r.opt.Status.set(r.exp.Name, fmt.Sprintf("%s/%s holds epoch %d of %d", r.exp.Name, modelFile, tr.Completed(), tr.Total()))
}

// readRecorded takes from final.progress.json the final estimates that an
// interrupted run recorded for the trained model, so that they are not
// computed again.
func (r *runner) readRecorded() error {
	over, epoch := r.trainedEpoch()
	p, err := readProgress(filepath.Join(r.dir, progressFile))
	switch {
	case err == nil && over && p.Epoch == epoch:
		r.done = map[int]evalenv.Entry{}
		for _, e := range p.Entries {
			r.done[e.Index] = e
		}
		r.pieces = p.Pieces
	case err != nil && !errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("--resume: %w", err)
	}
	return nil
}

// recorded says whether an interrupted run recorded final estimator i of
// the trained model (r.done), which is then not run again.
func (r *runner) recorded(i int) bool {
	_, ok := r.done[i]
	return ok
}

// sayResumed says on Stderr where the restored experiment stands.
func (r *runner) sayResumed() {
	exp, tr := r.exp, r.b.tr
	switch {
	case tr.Completed() < tr.Total() && !r.stopped():
		fmt.Fprintf(r.opt.Stderr, "%s: resuming after epoch %d from %s\n", exp.Name, tr.Completed(), r.ckpt)
	case len(r.done) == len(exp.Evaluate.Final):
		fmt.Fprintf(r.opt.Stderr, "%s: finished before (%d epochs, %d final estimators); kept\n", exp.Name, tr.Completed(), len(r.done))
	default:
		fmt.Fprintf(r.opt.Stderr, "%s: trained before (%d epochs); %d of %d final estimators were recorded, running the rest\n", exp.Name, tr.Completed(), len(r.done), len(exp.Evaluate.Final))
	}
}

// trainEpochs trains the epochs left. After each come its evaluation (when
// due), its line on Stderr, the rows kept and, when due, a checkpoint. An
// epoch or evaluation that fails keeps the rows so far, with the failure,
// and returns its error joined with any error of keeping them.
func (r *runner) trainEpochs() error {
	var due func(int) bool
	if len(r.exp.Evaluate.EveryEpoch) > 0 {
		due = r.exp.Evaluate.Due
	}
	r.eta.start(r.index, r.b.tr.Total(), r.b.tr.Completed(), due)
	ref, unknown, n := r.foresee(r.exp.Evaluate.Final, r.recorded)
	r.eta.finalDue(r.index, ref, unknown, n)
	live := progress.IsTerminal(r.opt.Stderr)
	if r.b.tr.Completed() < r.b.tr.Total() && !r.stopped() && r.opt.timeUp(r.longest) {
		if limit := r.opt.Deadline.Sub(r.opt.begun); limit > 0 && limit < r.longest {
			return r.limitTooShort(limit)
		}
		return errTimeUp
	}
	for r.b.tr.Completed() < r.b.tr.Total() && !r.stopped() {
		start := r.opt.now()
		if err := r.trainEpoch(live); err != nil {
			return err
		}
		r.longest = max(r.longest, r.opt.now().Sub(start))
		if r.outOfTime {
			return errTimeUp
		}
	}
	return r.selectBest()
}

// noTimeForAnother says, at the end of an epoch that began at start,
// whether another epoch as long as r.longest would end
// after the deadline (with no more epochs to train, it never does).
func (r *runner) noTimeForAnother(start time.Time) bool {
	tr := r.b.tr
	return tr.Completed() < tr.Total() && !r.stopped() && r.opt.timeUp(max(r.longest, r.opt.now().Sub(start)))
}

// trainEpoch trains one epoch and does what follows it (see trainEpochs);
// live draws a progress bar.
func (r *runner) trainEpoch(live bool) error {
	exp, tr, train := r.exp, r.b.tr, r.b.train
	epochs := tr.Total()
	start, begun := time.Now(), r.opt.now()
	var bar *progress.Bar
	if live {
		bar = progress.New(r.opt.Stderr, fmt.Sprintf("%s epoch %d/%d", exp.Name, tr.Completed()+1, epochs), int64(train.N))
	}
	tr.SetOnBatch(func(n int) { bar.Add(int64(n)) })
	sum, err := tr.TrainEpoch(train)
	bar.Done()
	if err != nil {
		err = fmt.Errorf("%w; %s", err, onDisk(r.ckpt, r.checkpointDue, tr.Completed()+1))
		return errors.Join(err, r.keep(err))
	}
	line := r.addTrainRow(sum, time.Since(start).Seconds())
	trained := time.Now()
	evaluated := exp.Evaluate.Due(sum.Epoch) && len(exp.Evaluate.EveryEpoch) > 0
	if evaluated {
		estimates, err := r.evaluateEpoch(sum.Epoch)
		if err != nil {
			return errors.Join(err, r.keep(err))
		}
		line += estimates
		best, err := r.afterValidation(sum.Epoch)
		if err != nil {
			return errors.Join(err, r.keep(err))
		}
		line += best
	}
	r.eta.epoch(r.index, trained.Sub(start), time.Since(trained), evaluated)
	if evaluated {
		if ref, unknown, _ := r.foresee(exp.Evaluate.EveryEpoch, nil); unknown == 0 {
			r.eta.evalWork(ref, time.Since(trained))
		}
	}
	if eta := r.eta.String(); eta != "" {
		line += "  " + eta
	}
	fmt.Fprintln(r.opt.Stderr, line)
	// Rows first, then the checkpoint: a process killed between the two
	// has rows of an epoch its checkpoint does not hold, which --resume
	// drops and recomputes; the other order would lose the epoch's rows.
	if err := r.keep(nil); err != nil {
		return err
	}
	r.outOfTime = r.noTimeForAnother(begun)
	if r.checkpointDue(sum.Epoch) || sum.Epoch == epochs || r.stopped() || r.outOfTime {
		return r.checkpoint()
	}
	return nil
}

// addTrainRow adds the training row of an epoch (summary sum, secs
// seconds) and returns the start of the epoch's line.
func (r *runner) addTrainRow(sum models.EpochSummary, secs float64) string {
	exp, tr := r.exp, r.b.tr
	r.mine = append(r.mine, report.Row{
		Experiment: exp.Name, Model: evalenv.Label(tr.Current()), Stage: report.StageEpoch,
		Epoch: sum.Epoch, Estimator: "train", Split: "train", Value: report.F(sum.ReconError),
		NExamples: r.b.train.N, Seconds: secs, Init: sum.Signal, Warnings: slices.Clone(r.b.warnings),
	})
	layer := ""
	if sum.Layer > 0 {
		layer = fmt.Sprintf(" layer %d", sum.Layer)
	}
	signal := "recon"
	if sum.Signal != "" {
		signal = sum.Signal
	}
	return epochLine(exp.Name, sum, tr.Total(), layer, settingsOf(tr, sum)) + fmt.Sprintf("  %s %.4f (%.1f s)", signal, sum.ReconError, secs)
}

// evaluateEpoch runs the after-epoch estimators on the model after epoch,
// adds their rows, and returns their estimates for the epoch's line.
func (r *runner) evaluateEpoch(epoch int) (string, error) {
	ev := r.b.ev
	ev.Stage, ev.Epoch = report.StageEpoch, epoch
	rows, err := ev.Run(r.b.fam, r.b.tr.Current(), r.exp.Evaluate.EveryEpoch)
	if r.exp.Evaluate.ByLabel {
		addByLabel(r.b.tr.Current(), ev.Splits, rows)
	}
	r.mine = append(r.mine, rows...)
	if err != nil {
		return "", err
	}
	line := ""
	for _, row := range rows {
		if row.MeanLoglik != nil {
			line += fmt.Sprintf("  %s/%s %.3f", row.Estimator, row.Split, *row.MeanLoglik)
			if t := row.SubsampleTag(); t != "" {
				line += " (" + t + ")"
			}
		}
	}
	return line, nil
}

// saveCheckpoint saves the trainer's checkpoint, with the estimators'
// tracked state and the run record, at path.
func (r *runner) saveCheckpoint(path string) error {
	c, err := r.b.tr.Checkpoint(r.exp.Name)
	if err != nil {
		return err
	}
	r.b.tracked.Put(c)
	c.Meta.Run = r.b.record
	return r.opt.Status.write(func() error { return models.Save(path, c, family.Codecs()) })
}

func (r *runner) checkpointDue(epoch int) bool {
	c, ok := r.exp.Train.(family.CheckpointSchedule)
	return ok && c.CheckpointDue(epoch)
}

// checkpoint saves the model, with the estimators' tracked state, into
// model.npz.
func (r *runner) checkpoint() error {
	tr := r.b.tr
	if err := r.saveCheckpoint(r.ckpt); err != nil {
		return err
	}
	r.opt.Status.set(r.exp.Name, fmt.Sprintf("%s/%s holds epoch %d of %d", r.exp.Name, modelFile, tr.Completed(), tr.Total()))
	return nil
}

// finish ends an experiment of a run or a merge: the final evaluation (see
// finalEvaluation), then the samples and their pictures, then the rows
// kept; the experiment is finished when all of them are done.
func (r *runner) finish(progress func(string, int64) (func(int64), func()), sharding evalenv.Sharding) error {
	err := r.finalEvaluation(progress, sharding)
	if err == nil {
		err = writeSamples(r.b.fam, r.b.tr.Current(), r.dir, config.DeriveSeed(r.exp.Seed, 3), r.b.train, r.opt.Workers, r.opt.Status)
	}
	if err == nil {
		err = r.writeProposalPictures()
	}
	if err = errors.Join(err, r.keep(nil)); err == nil {
		r.opt.Status.set(r.exp.Name, r.exp.Name+" finished")
	}
	return err
}

// finalEnv is the environment of the final evaluation of the trained
// model.
func (r *runner) finalEnv() evalenv.Env {
	ev := r.b.ev
	ev.Stage, ev.Epoch = report.StageFinal, r.b.tr.Completed()
	return ev
}

// finalEvaluation runs the final estimators on the trained model and adds
// their rows, then the published reference rows. Progress draws its bars
// (nil: none); sharding, if set, gives the units of shareable work (a
// merge's parts). The estimates an interrupted run recorded (r.done) are
// reused; each estimator that finishes is recorded in final.progress.json,
// so that a --resume after an interruption does not run it again, and its
// pictures are written.
func (r *runner) finalEvaluation(progress func(string, int64) (func(int64), func()), sharding evalenv.Sharding) error {
	exp, tr, st := r.exp, r.b.tr, r.opt.Status
	progressPath := filepath.Join(r.dir, progressFile)
	prog := finalProgress{Epoch: tr.Completed()}
	for i := range len(exp.Evaluate.Final) {
		if e, ok := r.done[i]; ok {
			prog.Entries = append(prog.Entries, e)
		}
		for k, piece := range r.pieces[i] {
			if !r.recorded(i) {
				prog.setPiece(i, k, piece)
			}
		}
	}
	// With a deadline, no final estimator, or piece of one, starts after
	// it: everything finished is recorded, so --resume goes on from there.
	moreAfter := func(i int) bool {
		for j := i + 1; j < len(exp.Evaluate.Final); j++ {
			if !r.recorded(j) {
				return true
			}
		}
		return false
	}
	if moreAfter(-1) && r.opt.timeUp(0) {
		return errTimeUp
	}
	ev := r.finalEnv()
	ev.Done, ev.Progress, ev.Sharding, ev.Pieces = r.done, progress, sharding, r.pieces
	ev.OnPiece = func(i int, name string, k int, rows []report.Row) error {
		prog.setPiece(i, k, rows)
		if err := st.write(func() error { return writeProgress(progressPath, prog) }); err != nil {
			return err
		}
		st.set(exp.Name, fmt.Sprintf("%s trained (%d epochs), %d of %d final estimators recorded, and %d piece(s) of %s", exp.Name, tr.Completed(), len(prog.Entries), len(exp.Evaluate.Final), k+1, name))
		return nil
	}
	ev.BeforePiece = func() error {
		if r.opt.timeUp(0) {
			return errTimeUp
		}
		return nil
	}
	ev.Artifact = func(a sampling.Artifact) error {
		return st.write(func() error { return writeArtifact(r.dir, a) })
	}
	ev.OnEntry = func(e evalenv.Entry) error {
		prog.set(e)
		if err := st.write(func() error { return writeProgress(progressPath, prog) }); err != nil {
			return err
		}
		st.set(exp.Name, fmt.Sprintf("%s trained (%d epochs), %d of %d final estimators recorded", exp.Name, tr.Completed(), len(prog.Entries), len(exp.Evaluate.Final)))
		if moreAfter(e.Index) && r.opt.timeUp(0) {
			return errTimeUp
		}
		return nil
	}
	rows, err := ev.Run(r.b.fam, tr.Current(), exp.Evaluate.Final)
	if exp.Evaluate.ByLabel {
		addByLabel(tr.Current(), ev.Splits, rows)
	}
	r.mine = append(r.mine, rows...)
	if err != nil {
		return err
	}
	r.mine = append(r.mine, referenceRows(exp, evalenv.Label(tr.Current()), tr.Completed())...)
	return nil
}

// keepResults keeps the rows of a run or a merge: the run's rows so far
// in results.json (and report.html), the experiment's in its epochs.csv.
func (r *runner) keepResults(error) error {
	return r.opt.Status.write(func() error {
		all := append(append([]report.Row(nil), r.others...), r.mine...)
		var g report.Grid
		if r.html != nil {
			g = r.html.grid
		}
		if err := report.WriteResultsGrid(r.resultsPath, all, g); err != nil {
			return err
		}
		if err := r.html.epoch(all); err != nil {
			return err
		}
		return r.writeEpochs()
	})
}

// writeEpochs writes the experiment's rows so far into its epochs.csv.
func (r *runner) writeEpochs() error {
	return atomicfile.WriteFile(filepath.Join(r.dir, epochsFile), func(w io.Writer) error {
		return report.WriteEpochsCSV(w, r.mine)
	})
}

// writeProposalPictures writes the pictures of the χ² proposal held by
// the trained model's checkpoint (χ² training, tracked chi2 estimators)
// when the family draws them (sampling.ProposalPicturer): q-components and
// q-chains .npy, .json and .png in the experiment's folder.
func (r *runner) writeProposalPictures() error {
	p, ok := sampling.ProposalPicturerOf(r.b.fam)
	if !ok {
		return nil
	}
	c, err := r.b.tr.Checkpoint(r.exp.Name)
	if err != nil {
		return err
	}
	r.b.tracked.Put(c)
	arts, err := p.ProposalPictures(r.b.tr.Current(), c, config.DeriveSeed(r.exp.Seed, 5), r.opt.Workers)
	if err != nil {
		return fmt.Errorf("proposal pictures: %w", err)
	}
	for _, a := range arts {
		if err := r.opt.Status.write(func() error { return writeArtifact(r.dir, a) }); err != nil {
			return err
		}
	}
	return nil
}
