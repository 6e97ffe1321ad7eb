package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/logz-ml/logz/config"
	"github.com/logz-ml/logz/configs"
	"github.com/logz-ml/logz/experiment"
	_ "github.com/logz-ml/logz/family/all" // every model family
	"github.com/logz-ml/logz/internal/progress"
)

const runUsage = `Usage: logz run [CONFIG.yaml] [--out DIR] [--seed N] [--set [NAME:]PATH=VALUE ...] [--resume[=auto] | --force]
       logz run [CONFIG.yaml] --out DIR --shard i/n|env/n [--phase train|eval] [--experiment NAMES]

Runs every experiment of CONFIG.yaml in order: loads the data, trains,
evaluates after epochs and at the end, and writes into DIR
(default runs/<config name>): results.json, report.md, report.html (the
tables with plots of every estimator per epoch, the final brackets,
samples and filters; self-contained), config.resolved.yaml
and per experiment <name>/model.npz and <name>/epochs.csv. The final table
goes to stdout, progress to stderr. Without CONFIG.yaml it runs the embedded
quickstart (two RBMs on planted synthetic data; about 18 CPU-seconds: 10
to 20 s on two idle cores, longer on a busy machine).

DIR must be new or empty. A DIR holding a run is refused unless --resume
(continue it: same config and seed, checked before anything is written;
finished experiments and final estimates are kept) or --force (discard it:
each file removed is named). --resume on a DIR holding no run is refused
(a mistyped --out must not start a run from zero); --resume=auto starts
the run there, and continues it when it is there (the one command of a job
that is started and restarted). A DIR holding files named like logz's that
logz did not write is not a run: it is refused, and never discarded.
Interrupted (Ctrl-C, SIGTERM), logz finishes the file it is writing, says
what is kept and exits with status 130 (143); --resume continues from
there.

--time-limit D (e.g. 1h50m: a little less than a job's wall time) ends a
sitting cleanly before D has passed: an epoch does not start when one as
long as the longest of the sitting (with its evaluation), or before the
first a typical one of those kept, would end after D, and the last one
trained is saved even between checkpoints; no final estimator, or round
of one, starts after D (one already running goes to its end). logz then
says what is kept and exits with status 3; the same command with
--resume (or --resume=auto) continues. A D shorter than a typical epoch
kept is an error (no sitting that long could train one).

--set PATH=VALUE (repeatable) replaces a value of the file without editing
it, e.g. another data set for a shipped config:
  logz run configs/repro-chi2-vae-ber200.yaml --set data.train=npy:tr.npy \
    --set data.test=npy:te.npy --set data.validation=0
PATH is a dotted key of an experiment (data.train, train.epochs,
model.hidden, evaluate.every, ...; seed is each experiment's, the same
for all, where --seed replaces the file's). VALUE is read as YAML (a
scalar, [a, b] or {k: v}; '' for empty text) and checked as the file's
values are. The value is set in base: and in every experiment that sets
the key itself, so every experiment gets it; NAME:PATH=VALUE sets it in
experiment NAME only (NAME may be a grid's experiment name: then in each
of its points; docs/grid.md). A mapping merges key by key (data={train: a,
test: b} is two --set), a list replaces the whole list; later --set win.
config.resolved.yaml holds the values used, so --resume needs the same
--set.

With --shard, the run is shared among n processes (the tasks of a job
array; see 'logz slurm'): shard i trains the experiments at positions
i, i+n, … of the file (--phase train) and computes its share of the final
evaluation of every trained experiment — AIS runs, RAISE's (example, chain)
pairs, CSL's chain groups, importance sampling's examples, dealt out by
index (--phase eval); without --phase it does both. It writes part files
into DIR/parts; a part finished before with the same fingerprint is kept,
so a shard can simply be run again. 'logz merge DIR' then writes the
results, the same numbers as without --shard; 'logz status DIR' says what
is missing.

Flags:
`

func cmdRun(args []string, stdout, stderr io.Writer) error {
	startTime := time.Now() // --time-limit counts from here
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	out := fs.String("out", "", "run directory (default runs/<config name>)")
	seed := fs.String("seed", "", "replace the config file's seed (experiments with their own seed keep it)")
	var resume resumeFlag
	fs.Var(&resume, "resume", "continue the run in the run directory (same config and seed): unfinished experiments from their model.npz, final evaluations from the estimates recorded; a directory holding no run is refused, unless --resume=auto (start a run when there is none, continue it otherwise: for job arrays that start and restart one command)")
	force := fs.Bool("force", false, "discard the run in the run directory and start over")
	shardFlag := fs.String("shard", "", "run shard i of n of a sharded run: i/n, or env/n to take i from $SLURM_ARRAY_TASK_ID ($SGE_TASK_ID−1, $PBS_ARRAY_INDEX, $JOB_COMPLETION_INDEX)")
	phase := fs.String("phase", "", "with --shard: train (this shard's experiments) or eval (its share of the final evaluation of trained experiments); default both")
	only := fs.String("experiment", "", "with --shard: only the experiments of these comma-separated names")
	var sets setFlags
	fs.Var(&sets, "set", setUsage)
	timeLimit := fs.Duration("time-limit", 0, "stop cleanly before this much time has passed (e.g. 1h50m, under a job's wall-time limit): no epoch starts that would end after it (judged by the longest epoch so far, or a typical one of those kept) and the last one is saved; no final estimator starts after it; exit status 3, and --resume continues")
	fs.Usage = func() { fmt.Fprint(fs.Output(), runUsage); printFlags(fs) }
	pos, err := parseFlags(fs, args, stdout)
	if err != nil {
		return err
	}
	if len(pos) > 1 {
		return usageError{fmt.Sprintf("run: one config file at most, got %d (%s)", len(pos), strings.Join(pos, " "))}
	}
	if resume.on() && *force {
		return usageError{"run: --resume and --force contradict each other (one continues the run in the folder, the other discards it)"}
	}
	var shard *experiment.Shard
	if *shardFlag != "" {
		s, err := experiment.ParseShard(*shardFlag, os.Getenv)
		if err != nil {
			return usageError{"run: --shard: " + err.Error()}
		}
		if resume.on() || *force {
			return usageError{"run: --shard continues what DIR holds by itself (finished parts are kept); drop --resume and --force"}
		}
		if *out == "" {
			return usageError{"run: --shard needs --out DIR, the folder every shard and the merge share"}
		}
		shard = &s
	}
	if *timeLimit < 0 {
		return usageError{fmt.Sprintf("run: --time-limit wants a positive duration such as 1h50m, got %s", *timeLimit)}
	}
	if shard == nil && (*phase != "" || *only != "") {
		return usageError{"run: --phase and --experiment choose a shard's work; they need --shard"}
	}
	if *phase != "" && *phase != experiment.PhaseTrain && *phase != experiment.PhaseEval {
		return usageError{fmt.Sprintf("run: --phase wants %s or %s, got %q", experiment.PhaseTrain, experiment.PhaseEval, *phase)}
	}
	opt := config.Options{}
	if opt.Seed, err = seedFlag("run", *seed); err != nil {
		return err
	}
	if opt.Set, err = sets.overrides("run"); err != nil {
		return err
	}
	f, err := loadConfig(pos, opt, stderr)
	if err != nil {
		return err
	}
	dir := *out
	if dir == "" {
		dir = filepath.Join("runs", f.Name)
	}
	var deadline time.Time
	if *timeLimit > 0 {
		deadline = startTime.Add(*timeLimit)
	}
	if shard != nil {
		return runShard(f, *shard, *phase, splitList(*only), dir, args, deadline, stderr)
	}
	status := &experiment.Status{}
	again := resumeCommand(pos, dir, *seed, sets, *timeLimit)
	stopSignals := onInterrupt(status, again, stderr)
	defer stopSignals()
	start := time.Now()
	_, err = experiment.Run(f, experiment.Options{
		Out: dir, Resume: resume.on(), ResumeAuto: resume == resumeAuto, Force: *force, Stdout: stdout, Stderr: stderr, Status: status,
		Banner:   fmt.Sprintf("logz %s: running %d experiment(s) of %s into %s", versionString(), len(f.Experiments), f.Name, dir),
		Meta:     reportMeta(commandLine("run", args), start),
		Deadline: deadline,
	})
	var refused *experiment.FolderError
	if errors.As(err, &refused) {
		return usageError{"run: " + err.Error()}
	}
	if tl := (*experiment.TimeLimitError)(nil); errors.As(err, &tl) {
		return timeLimitError{err, again}
	}
	var failed *experiment.FailedError
	if err == nil || errors.As(err, &failed) {
		fmt.Fprintf(stderr, "logz: wrote %s (%.1f s)\n", dir, time.Since(start).Seconds())
	}
	return err
}

// resumeFlag is run's --resume: a bool flag (--resume, --resume=false)
// that also takes =auto.
type resumeFlag string

const (
	resumeOff  resumeFlag = ""
	resumeOn   resumeFlag = "true"
	resumeAuto resumeFlag = "auto"
)

func (r *resumeFlag) String() string {
	if r == nil || *r == resumeOff {
		return "false"
	}
	return string(*r)
}

func (r *resumeFlag) Set(s string) error {
	switch strings.ToLower(s) {
	case "auto":
		*r = resumeAuto
		return nil
	}
	b, err := strconv.ParseBool(s)
	if err != nil {
		return fmt.Errorf("expected --resume, --resume=auto or --resume=false")
	}
	*r = resumeOff
	if b {
		*r = resumeOn
	}
	return nil
}

// IsBoolFlag lets --resume stand alone, as a bool flag.
func (r *resumeFlag) IsBoolFlag() bool { return true }

func (r resumeFlag) on() bool { return r != resumeOff }

// seedFlag reads the --seed of command cmd: nil when not given.
func seedFlag(cmd, s string) (*uint64, error) {
	if s == "" {
		return nil, nil
	}
	var n uint64
	if _, err := fmt.Sscan(s, &n); err != nil {
		return nil, usageError{fmt.Sprintf("%s: --seed wants a non-negative integer, got %q", cmd, s)}
	}
	return &n, nil
}

// loadConfig reads the config file of `logz run` and `logz slurm` (pos
// holds it, or nothing for the embedded quickstart) and prints its
// warnings (config.File.Warnings) on stderr.
func loadConfig(pos []string, opt config.Options, stderr io.Writer) (*config.File, error) {
	f, err := readConfig(pos, opt, stderr)
	if err != nil {
		return nil, err
	}
	for _, w := range f.Warnings {
		fmt.Fprintf(stderr, "logz: warning: %s\n", w)
	}
	return f, nil
}

// readConfig is loadConfig without the warnings.
func readConfig(pos []string, opt config.Options, stderr io.Writer) (*config.File, error) {
	if len(pos) == 0 {
		name, b := configs.Default()
		return config.Parse(b, name, opt)
	}
	// A name that is no file but a shipped config runs the one built in.
	if _, err := os.Stat(pos[0]); errors.Is(err, fs.ErrNotExist) {
		if file, b, ok := configs.Lookup(pos[0]); ok {
			return config.Parse(b, file, opt)
		}
		if !strings.ContainsAny(pos[0], "/\\") {
			return nil, fmt.Errorf("config: %s: no such file, and no shipped config of that name%s", pos[0], knownConfigs(pos[0]))
		}
	}
	// A config of many experiments takes a while to read and resolve.
	opt.Progress = progress.Delayed(stderr, "config "+pos[0]+": ", "experiments", 2*time.Second, progress.Options{})
	return config.Load(pos[0], opt)
}

// reportMeta is what report.md says about the command that wrote it.
func reportMeta(command string, start time.Time) map[string]string {
	return map[string]string{
		"command":  command,
		"version":  versionString(),
		"go":       runtime.Version(),
		"started":  start.UTC().Format(time.RFC3339),
		"platform": runtime.GOOS + "/" + runtime.GOARCH,
	}
}

// resumeCommand is the command that continues this run: the same config,
// seed and --set overrides.
func resumeCommand(pos []string, dir, seed string, sets setFlags, timeLimit time.Duration) string {
	cmd := append([]string(nil), pos...)
	cmd = append(cmd, "--out", dir)
	if seed != "" {
		cmd = append(cmd, "--seed", seed)
	}
	cmd = append(cmd, sets.args()...)
	if timeLimit > 0 {
		cmd = append(cmd, "--time-limit", timeLimit.String())
	}
	return commandLine("run", append(cmd, "--resume"))
}

// timeLimitError is a run stopped at its --time-limit (exit status 3):
// what it kept, and the command that continues.
type timeLimitError struct {
	err   error
	again string
}

func (e timeLimitError) Error() string { return e.err.Error() + "\ncontinue with: " + e.again }

func (e timeLimitError) Unwrap() error { return e.err }

// exit ends the process; a variable for tests.
var exit = os.Exit

// onInterrupt makes SIGINT and SIGTERM end the run cleanly: the file being
// written is finished, what is on disk is named with the command that
// continues, and the process exits with 128+signal (130, 143). A second
// signal exits at once. It returns a function that stops listening.
func onInterrupt(status *experiment.Status, resume string, stderr io.Writer) func() {
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	quit := make(chan struct{})
	go func() {
		var sig os.Signal
		select {
		case sig = <-sigs:
		case <-quit:
			return
		}
		code := 130
		if sig == syscall.SIGTERM {
			code = 143
		}
		go func() { <-sigs; exit(code) }()
		out, kept := status.Stop()
		name := "SIGINT"
		if code == 143 {
			name = "SIGTERM"
		}
		if len(kept) == 0 {
			fmt.Fprintf(stderr, "\nlogz: interrupted by %s; nothing finished was saved in %s yet (no checkpoint or final estimate)\n", name, out)
		} else {
			fmt.Fprintf(stderr, "\nlogz: interrupted by %s; kept in %s:\n  %s\ncontinue with: %s\n", name, out, strings.Join(kept, "\n  "), resume)
		}
		exit(code)
	}()
	return func() { signal.Stop(sigs); close(quit) }
}
