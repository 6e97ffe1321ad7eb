package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/logz-ml/logz/config"
	"github.com/logz-ml/logz/experiment"
)

// runShard is `logz run --shard`.
func runShard(f *config.File, shard experiment.Shard, phase string, only []string, dir string, args []string, deadline time.Time, stderr io.Writer) error {
	status := &experiment.Status{}
	again := commandLine("run", args) + " (finished parts are kept)"
	stopSignals := onInterrupt(status, again, stderr)
	defer stopSignals()
	what := "trains and evaluates"
	switch phase {
	case experiment.PhaseTrain:
		what = "trains"
	case experiment.PhaseEval:
		what = "evaluates"
	}
	fmt.Fprintf(stderr, "logz %s: shard %s %s its share of %s into %s\n", versionString(), shard, what, f.Name, dir)
	start := time.Now()
	err := experiment.RunShard(f, experiment.ShardOptions{
		Out: dir, Shard: shard, Phase: phase, Experiments: only, Stderr: stderr, Logz: versionString(), Status: status,
		Deadline: deadline,
	})
	var refused *experiment.FolderError
	if errors.As(err, &refused) {
		return usageError{"run: " + err.Error()}
	}
	if tl := (*experiment.TimeLimitError)(nil); errors.As(err, &tl) {
		return timeLimitError{err, again}
	}
	if err == nil {
		fmt.Fprintf(stderr, "logz: shard %s wrote its parts into %s (%.1f s); once every shard has run: logz merge %s\n",
			shard, filepath.Join(dir, experiment.PartsDir), time.Since(start).Seconds(), dir)
	}
	return err
}

const mergeUsage = `Usage: logz merge DIR

Writes the results of the sharded run in DIR (made by 'logz run --shard' or
'logz slurm') from its part files: results.json, report.md and each
experiment's epochs.csv and samples.npy, exactly as 'logz run' without
--shard would have — the same numbers, bit for bit, whatever the number of
shards — and prints the final table. It refuses, naming each, parts that
are missing, made with another config, model or logz, or holding a unit
twice; 'logz status DIR' says what to resubmit. The "seconds" of a merged
final estimate is the longest time a shard spent on it (the wall time of
the shards run side by side). Merging again is safe.

Flags:
`

func cmdMerge(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("merge", flag.ContinueOnError)
	fs.Usage = func() { fmt.Fprint(fs.Output(), mergeUsage); printFlags(fs) }
	pos, err := parseFlags(fs, args, stdout)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageError{fmt.Sprintf("merge: want one run folder, got %d arguments (see 'logz merge --help')", len(pos))}
	}
	dir := pos[0]
	start := time.Now()
	status := &experiment.Status{}
	stopSignals := onInterrupt(status, "logz merge "+dir, stderr)
	defer stopSignals()
	_, err = experiment.Merge(experiment.Options{
		Out: dir, Stdout: stdout, Stderr: stderr, Status: status,
		Banner: fmt.Sprintf("logz %s: merging the sharded run in %s", versionString(), dir),
		Meta:   reportMeta("logz merge "+dir, start),
	}, versionString())
	var refused *experiment.FolderError
	if errors.As(err, &refused) {
		return usageError{"merge: " + err.Error()}
	}
	var failed *experiment.FailedError
	if err == nil || errors.As(err, &failed) {
		fmt.Fprintf(stderr, "logz: wrote %s (%.1f s)\n", dir, time.Since(start).Seconds())
	}
	return err
}

const statusUsage = `Usage: logz status DIR [--shards N]

Says what the sharded run in DIR holds: per experiment, its training and
which shards of its final evaluation are done, missing, failed or stale
(made with another config, model or logz), and what to run to finish: for
a run made by 'logz slurm', the sbatch command that resubmits the missing
array tasks (e.g. sbatch --array=3,7 …), else the 'logz run --shard'
commands, ready to paste; then 'logz merge DIR'. An experiment whose
model.npz was deleted after training is trained again.

Flags:
`

func cmdStatus(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("status", flag.ContinueOnError)
	shards := fs.Int("shards", 0, "the number of evaluation shards (default: the 'logz slurm' plan, else the parts', else 1)")
	fs.Usage = func() { fmt.Fprint(fs.Output(), statusUsage); printFlags(fs) }
	pos, err := parseFlags(fs, args, stdout)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageError{fmt.Sprintf("status: want one run folder, got %d arguments (see 'logz status --help')", len(pos))}
	}
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == "shards" })
	if (set && *shards < 1) || *shards < 0 || *shards > experiment.MaxShards {
		return usageError{fmt.Sprintf("status: --shards wants an integer in [1, %d], got %d (leave it out to take the count from the run)", experiment.MaxShards, *shards)}
	}
	dir := pos[0]
	plan, err := readSlurmPlan(dir)
	if err != nil {
		return err
	}
	n := *shards
	if n == 0 && plan != nil {
		n = plan.Shards
	}
	st, err := experiment.ReadShardedState(dir, n, versionString())
	var refused *experiment.FolderError
	if errors.As(err, &refused) {
		return usageError{"status: " + err.Error()}
	}
	if err != nil {
		return err
	}
	writeStatus(stdout, st, plan)
	return nil
}

// writeStatus prints a sharded run's state and what to run to finish it.
func writeStatus(w io.Writer, st *experiment.ShardedState, plan *slurmPlan) {
	dir := st.Dir
	fmt.Fprintf(w, "sharded run of %s in %s (%d experiments)\n", st.Config.Name, dir, len(st.Experiments))
	width := 0
	for _, e := range st.Experiments {
		width = max(width, len(e.Name))
	}
	var retrain []experiment.ExperimentState
	var todo []string
	ready := true
	for _, e := range st.Experiments {
		train := "not started"
		switch {
		case e.Failed != "":
			train = "training failed: " + e.Failed
		case e.MissingModel != "":
			train = fmt.Sprintf("trained (%d epochs), but %s is missing: to be trained again", e.Total, e.MissingModel)
		case e.Trained:
			train = fmt.Sprintf("trained (%d epochs)", e.Total)
		case e.Started:
			train = fmt.Sprintf("training: epoch %d of %d", e.Epochs, e.Total)
		}
		ev := "evaluation: not started"
		switch {
		case e.Failed != "":
			ev = "not evaluated"
		case e.Shards > 0:
			ev = fmt.Sprintf("evaluation: %d of %d shards done", len(e.Done), e.Shards)
			if len(e.Missing) > 0 {
				ev += "; missing " + strings.ReplaceAll(list(e.Missing), ",", ", ")
			}
			if len(e.FailedShards) > 0 {
				ev += "; failed " + strings.ReplaceAll(list(e.FailedShards), ",", ", ") + " (see their logs)"
			}
		}
		fmt.Fprintf(w, "  %-*s  %s; %s\n", width, e.Name, train, ev)
		for _, p := range e.Problems {
			fmt.Fprintf(w, "  %-*s  ! %s\n", width, "", p)
		}
		if !e.Ready() {
			ready = false
		}
		if e.Failed != "" {
			continue
		}
		switch {
		case !e.Trained && plan != nil && plan.TrainTasks > 0:
			retrain = append(retrain, e)
		case !e.Trained:
			again := ""
			if e.MissingModel != "" {
				again = " again"
			}
			todo = append(todo, fmt.Sprintf("train %s%s: %s", e.Name, again, shardCommand(st, experiment.Shard{Index: 0, Count: 1}, experiment.PhaseTrain, e.Name)))
			if e.Shards == 0 || len(e.Missing) > 0 {
				todo = append(todo, "then "+evalCommand(st, plan, e))
			}
		case len(e.Missing) > 0 || e.Shards == 0:
			todo = append(todo, evalCommand(st, plan, e))
		}
	}
	switch {
	case ready && st.Merged:
		fmt.Fprintf(w, "every part is there and %s is written (merging again is safe: logz merge %s)\n", filepath.Join(dir, config.ResultsFile), shellQuote(dir))
		return
	case ready:
		fmt.Fprintf(w, "every part is there: logz merge %s\n", shellQuote(dir))
		return
	}
	fmt.Fprintln(w, "to finish:")
	if len(retrain) > 0 {
		fmt.Fprintf(w, "  %s\n", trainCommand(plan, retrain))
	}
	for _, c := range todo {
		fmt.Fprintf(w, "  %s\n", c)
	}
	if plan != nil && plan.Scripts.Merge != "" {
		fmt.Fprintf(w, "  then merge: sbatch %s (or logz merge %s)\n", shellQuote(plan.Scripts.Merge), shellQuote(dir))
	} else {
		fmt.Fprintf(w, "  then merge: logz merge %s\n", shellQuote(dir))
	}
}

// trainCommand says how to resubmit the training tasks of a run made by
// 'logz slurm' that train exps.
func trainCommand(plan *slurmPlan, exps []experiment.ExperimentState) string {
	var names []string
	seen := map[int]bool{}
	var tasks []int
	for _, e := range exps {
		names = append(names, e.Name)
		if k := e.Index % plan.TrainTasks; !seen[k] {
			seen[k] = true
			tasks = append(tasks, k)
		}
	}
	return fmt.Sprintf("train %s: resubmit sbatch --array=%s %s, then their evaluation arrays in full", strings.Join(names, ", "), list(tasks), shellQuote(plan.Scripts.Train))
}

// shardCommand is the command line that runs shard sh of the sharded run
// st, in phase, for experiment exp; an index of -1 writes $I for it (in a
// shell loop).
func shardCommand(st *experiment.ShardedState, sh experiment.Shard, phase, exp string) string {
	index := "$I"
	if sh.Index >= 0 {
		index = fmt.Sprint(sh.Index)
	}
	return fmt.Sprintf("logz run %s --out %s --shard %s/%d --phase %s --experiment %s",
		shellQuote(filepath.Join(st.Dir, config.ResolvedFile)), shellQuote(st.Dir), index, sh.Count, phase, shellQuote(exp))
}

// evalCommand says how to run an experiment's missing evaluation shards:
// the sbatch command of a run made by 'logz slurm', else the logz run
// commands (a shell loop for several shards). An experiment without a
// shard count yet takes that of the other experiments, else 1.
func evalCommand(st *experiment.ShardedState, plan *slurmPlan, e experiment.ExperimentState) string {
	if plan != nil && e.Index < len(plan.Scripts.Eval) && plan.Shards == e.Shards && len(e.Missing) > 0 {
		return fmt.Sprintf("evaluate %s: resubmit sbatch --array=%s %s", e.Name, list(e.Missing), shellQuote(plan.Scripts.Eval[e.Index]))
	}
	n, missing, hint := e.Shards, e.Missing, ""
	if n == 0 {
		n, hint = 1, fmt.Sprintf(" (one shard; to split it into N: logz status %s --shards N)", shellQuote(st.Dir))
		for _, o := range st.Experiments {
			if o.Shards > 0 {
				n, hint = o.Shards, fmt.Sprintf(" (%d shards, as the other experiments)", o.Shards)
				break
			}
		}
		missing = make([]int, n)
		for i := range missing {
			missing[i] = i
		}
	}
	if len(missing) == 1 {
		return fmt.Sprintf("evaluate %s: %s%s", e.Name, shardCommand(st, experiment.Shard{Index: missing[0], Count: n}, experiment.PhaseEval, e.Name), hint)
	}
	return fmt.Sprintf("evaluate %s: for I in %s; do %s; done%s", e.Name, strings.ReplaceAll(list(missing), ",", " "), shardCommand(st, experiment.Shard{Index: -1, Count: n}, experiment.PhaseEval, e.Name), hint)
}

// list formats integers as "3,7".
func list(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, ",")
}
