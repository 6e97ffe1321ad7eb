package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/logz-ml/logz/config"
	"github.com/logz-ml/logz/experiment"
	"github.com/logz-ml/logz/internal/atomicfile"
)

const slurmUsage = `Usage: logz slurm [CONFIG.yaml] --shards N [--out DIR] [--sbatch-args "..."] [--time-limit D] [--seed S] [--set PATH=VALUE ...] [--logz PATH] [--dry-run]

Runs CONFIG.yaml (no file: the embedded quickstart) on a Slurm cluster as
job arrays, through Slurm's own commands. It writes readable sbatch scripts
into DIR/slurm and submits, with 'sbatch --parsable':

  train.sbatch       an array of min(N, experiments) tasks: task k trains
                     the experiments at positions k, k+T, … of the file
                     ('logz run --shard env/T --phase train');
  eval-<k>-<name>.sbatch
                     per experiment, an array of N tasks, task i computing
                     shard i of its final evaluation ('logz run --shard env/N
                     --phase eval --experiment <name>'), each starting once
                     the training task of its experiment has succeeded
                     (--dependency=afterok:<train job>_<task>);
  merge.sbatch       'logz merge DIR', once every evaluation task has
                     succeeded (afterok on all).

Dependent jobs are submitted with --kill-on-invalid-dep=yes, so that a
failed task cancels what waits for it instead of leaving it pending. Task
logs go to DIR/slurm/logs; the job ids to DIR/slurm/plan.json. Follow with
'squeue --me' and 'logz status DIR', which prints the sbatch --array=…
command that resubmits failed tasks (finished parts are kept, so a task
can always simply run again).

--sbatch-args are sbatch options every job gets (e.g. "--partition=short
--time=2:00:00 --cpus-per-task=2"), written as #SBATCH lines, quoted as
sbatch reads them ('--comment="two words"' stays one option); a newline or
another control character in them, or in DIR, is refused.

--time-limit D (a little less than the jobs' --time, e.g. 1h50m under
--time=2:00:00) lets training outlast one job: each training task runs
'logz run ... --time-limit D', which stops cleanly before D has passed
with its epochs saved (exit status 3), and then puts itself back in the
queue ('scontrol requeue'; the script has #SBATCH --requeue and appends to
its log), to continue from its checkpoint when Slurm starts it again. The
evaluation tasks wait for it as before (a requeued task is pending, not
failed). If Slurm refuses the requeue, the task fails and 'logz status'
says how to resubmit it. A limit shorter than an epoch is refused by the
task (it could never finish one). Evaluation tasks are not limited.

The scripts
run the logz binary at --logz (default: this program's path, which must be
visible from the compute nodes). --seed and --set act as in 'logz run'
and are passed on to every job. --dry-run prints the scripts and the
sbatch commands without writing or submitting anything.

Flags:
`

// slurmPlan is DIR/slurm/plan.json: what `logz slurm` wrote and submitted.
type slurmPlan struct {
	Config     string `json:"config"` // "" for the embedded quickstart
	Shards     int    `json:"shards"`
	TrainTasks int    `json:"train_tasks"`
	Scripts    struct {
		Train string   `json:"train"`
		Eval  []string `json:"eval"` // by experiment position
		Merge string   `json:"merge"`
	} `json:"scripts"`
	Jobs struct {
		Train string   `json:"train"`
		Eval  []string `json:"eval"`
		Merge string   `json:"merge"`
	} `json:"jobs"`
	Submitted string `json:"submitted"`
}

func slurmDir(dir string) string { return filepath.Join(dir, "slurm") }

// readSlurmPlan reads DIR/slurm/plan.json, or returns nil without one.
func readSlurmPlan(dir string) (*slurmPlan, error) {
	path := filepath.Join(slurmDir(dir), "plan.json")
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	p := &slurmPlan{}
	if err := json.Unmarshal(b, p); err != nil {
		return nil, fmt.Errorf("%s: %v (written by logz slurm; remove it if it is not)", path, err)
	}
	return p, nil
}

func cmdSlurm(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("slurm", flag.ContinueOnError)
	shards := fs.Int("shards", 0, "number of shards of every final evaluation, N (required)")
	out := fs.String("out", "", "run directory (default runs/<config name>)")
	sbatchArgs := fs.String("sbatch-args", "", "sbatch options for every job, e.g. \"--partition=short --time=1:00:00\"")
	timeLimit := fs.Duration("time-limit", 0, "each training task stops cleanly before this much time (e.g. 1h50m, under the jobs' --time) and requeues itself to continue")
	seed := fs.String("seed", "", "replace the config file's seed, as in logz run")
	logzPath := fs.String("logz", "", "the logz binary the jobs run (default: this program)")
	dryRun := fs.Bool("dry-run", false, "print the scripts and sbatch commands; write and submit nothing")
	var sets setFlags
	fs.Var(&sets, "set", setUsage+"; passed on to every job")
	fs.Usage = func() { fmt.Fprint(fs.Output(), slurmUsage); printFlags(fs) }
	pos, err := parseFlags(fs, args, stdout)
	if err != nil {
		return err
	}
	if len(pos) > 1 {
		return usageError{fmt.Sprintf("slurm: one config file at most, got %d (%s)", len(pos), strings.Join(pos, " "))}
	}
	if *shards < 1 || *shards > experiment.MaxShards {
		return usageError{fmt.Sprintf("slurm: --shards wants the number of evaluation shards, an integer in [1, %d], got %d", experiment.MaxShards, *shards)}
	}
	opt := config.Options{}
	if opt.Seed, err = seedFlag("slurm", *seed); err != nil {
		return err
	}
	if opt.Set, err = sets.overrides("slurm"); err != nil {
		return err
	}
	if *timeLimit < 0 {
		return usageError{fmt.Sprintf("slurm: --time-limit wants a positive duration such as 1h50m, got %s", *timeLimit)}
	}
	extra, err := sbatchLines(*sbatchArgs)
	if err != nil {
		return usageError{"slurm: --sbatch-args: " + err.Error()}
	}
	cfgPath := ""
	if len(pos) == 1 {
		if cfgPath, err = filepath.Abs(pos[0]); err != nil {
			return err
		}
	}
	f, err := loadConfig(pos, opt, stderr)
	if err != nil {
		return err
	}
	dir := *out
	if dir == "" {
		dir = filepath.Join("runs", f.Name)
	}
	if dir, err = filepath.Abs(dir); err != nil {
		return err
	}
	if err := outputDirOK(dir); err != nil {
		return usageError{"slurm: --out: " + err.Error()}
	}
	bin := *logzPath
	if bin == "" {
		if bin, err = os.Executable(); err != nil {
			return fmt.Errorf("slurm: the path of this program: %w (give --logz)", err)
		}
	}
	if bin, err = filepath.Abs(bin); err != nil {
		return err
	}
	if !*dryRun {
		if fi, err := os.Stat(bin); err != nil || fi.IsDir() || fi.Mode()&0o111 == 0 {
			return usageError{fmt.Sprintf("slurm: --logz %s is not an executable file", bin)}
		}
		if strings.Contains(bin, string(filepath.Separator)+"go-build") {
			fmt.Fprintf(stderr, "logz slurm: warning: %s looks like a temporary binary of 'go run', which is gone when this command ends; build logz (go build ./cmd/logz) and give --logz\n", bin)
		}
	}

	plan := &slurmPlan{Config: cfgPath, Shards: *shards, TrainTasks: min(*shards, len(f.Experiments))}
	sdir := slurmDir(dir)
	logs := filepath.Join(sdir, "logs")
	// The log files' pattern: a % of DIR is a % (%%), not a replacement.
	logPattern := strings.ReplaceAll(logs, "%", "%%")
	run := []string{bin, "run"}
	if cfgPath != "" {
		run = append(run, cfgPath)
	}
	run = append(run, "--out", dir)
	if *seed != "" {
		run = append(run, "--seed", *seed)
	}
	run = append(run, sets.args()...)
	label := f.Name
	if cfgPath != "" {
		label += " (" + cfgPath + ")"
	} else {
		label += " (the embedded quickstart)"
	}
	type script struct{ path, text string }
	var scripts []script
	T := plan.TrainTasks
	plan.Scripts.Train = filepath.Join(sdir, "train.sbatch")
	about := fmt.Sprintf("Training of the %d experiment(s) of %s on %d array task(s): task k trains the experiments at positions k, k+%d, … of the file.", len(f.Experiments), label, T, T)
	trainRun := append(slices.Clip(run), "--shard", fmt.Sprintf("env/%d", T), "--phase", experiment.PhaseTrain)
	trainExtra := extra
	if *timeLimit > 0 {
		about += fmt.Sprintf(" A task stops before %s with its work saved and requeues itself to continue.", *timeLimit)
		trainRun = append(trainRun, "--time-limit", timeLimit.String())
		trainExtra = append(slices.Clip(extra), "--requeue", "--open-mode=append")
	}
	scripts = append(scripts, script{plan.Scripts.Train, sbatchScript(about,
		"logz-train-"+f.Name, fmt.Sprintf("0-%d", T-1), filepath.Join(logPattern, "train-%a.out"), trainExtra,
		trainRun, *timeLimit > 0)})
	for k, e := range f.Experiments {
		path := filepath.Join(sdir, fmt.Sprintf("eval-%d-%s.sbatch", k, e.Name))
		plan.Scripts.Eval = append(plan.Scripts.Eval, path)
		scripts = append(scripts, script{path, sbatchScript(
			fmt.Sprintf("Final evaluation of experiment %s of %s in %d shard(s): task i computes shard i (the AIS runs, RAISE pairs, CSL chain groups and IS examples whose index is i mod %d); it runs once training task %d has succeeded.", e.Name, label, *shards, *shards, k%T),
			fmt.Sprintf("logz-eval-%s-%s", f.Name, e.Name), fmt.Sprintf("0-%d", *shards-1), filepath.Join(logPattern, fmt.Sprintf("eval-%d-%%a.out", k)), extra,
			append(slices.Clip(run), "--shard", fmt.Sprintf("env/%d", *shards), "--phase", experiment.PhaseEval, "--experiment", e.Name), false)})
	}
	plan.Scripts.Merge = filepath.Join(sdir, "merge.sbatch")
	scripts = append(scripts, script{plan.Scripts.Merge, sbatchScript(
		fmt.Sprintf("Merge of the shards of %s into results.json, report.md and the CSVs, once every evaluation task has succeeded.", label),
		"logz-merge-"+f.Name, "", filepath.Join(logPattern, "merge.out"), extra,
		[]string{bin, "merge", dir}, false)})

	if *dryRun {
		for _, s := range scripts {
			fmt.Fprintf(stdout, "==> %s <==\n%s\n", s.path, s.text)
		}
		fmt.Fprintf(stdout, "==> submission (not done: --dry-run) <==\n")
		fmt.Fprintf(stdout, "sbatch --parsable %s                   → TRAIN\n", plan.Scripts.Train)
		for k, path := range plan.Scripts.Eval {
			fmt.Fprintf(stdout, "sbatch --parsable --dependency=afterok:TRAIN_%d --kill-on-invalid-dep=yes %s   → EVAL%d\n", k%T, path, k)
		}
		evals := make([]string, len(f.Experiments))
		for k := range evals {
			evals[k] = fmt.Sprintf("EVAL%d", k)
		}
		fmt.Fprintf(stdout, "sbatch --parsable --dependency=afterok:%s --kill-on-invalid-dep=yes %s\n", strings.Join(evals, ":"), plan.Scripts.Merge)
		return nil
	}

	if err := experiment.PrepareShards(f, dir); err != nil {
		var refused *experiment.FolderError
		if errors.As(err, &refused) {
			return usageError{"slurm: " + err.Error()}
		}
		return err
	}
	if err := os.MkdirAll(logs, 0o755); err != nil {
		return err
	}
	for _, s := range scripts {
		if err := atomicfile.WriteFile(s.path, func(w io.Writer) error {
			_, err := io.WriteString(w, s.text)
			return err
		}); err != nil {
			return err
		}
	}
	writePlan := func() error {
		return atomicfile.WriteFile(filepath.Join(sdir, "plan.json"), func(w io.Writer) error {
			enc := json.NewEncoder(w)
			enc.SetIndent("", "  ")
			return enc.Encode(plan)
		})
	}
	plan.Submitted = time.Now().UTC().Format(time.RFC3339)
	if err := writePlan(); err != nil {
		return err
	}
	train, err := sbatch(plan.Scripts.Train)
	if err != nil {
		return err
	}
	plan.Jobs.Train = train
	for k, path := range plan.Scripts.Eval {
		id, err := sbatch(path, fmt.Sprintf("--dependency=afterok:%s_%d", train, k%T), "--kill-on-invalid-dep=yes")
		if err != nil {
			writePlan()
			return err
		}
		plan.Jobs.Eval = append(plan.Jobs.Eval, id)
	}
	merge, err := sbatch(plan.Scripts.Merge, "--dependency=afterok:"+strings.Join(plan.Jobs.Eval, ":"), "--kill-on-invalid-dep=yes")
	if err != nil {
		writePlan()
		return err
	}
	plan.Jobs.Merge = merge
	if err := writePlan(); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "submitted %s to Slurm: training array %s (%d tasks), evaluation arrays %s (%d tasks each), merge %s\n",
		f.Name, train, T, strings.Join(plan.Jobs.Eval, ", "), *shards, merge)
	fmt.Fprintf(stdout, "scripts and logs in %s; follow with: squeue --me; logz status %s\n", sdir, dir)
	return nil
}

// sbatch submits a script with `sbatch --parsable` and returns the job id.
func sbatch(script string, opts ...string) (string, error) {
	args := append(append([]string{"--parsable"}, opts...), script)
	cmd := exec.Command("sbatch", args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		var ee *exec.Error
		if errors.As(err, &ee) {
			return "", fmt.Errorf("slurm: cannot run sbatch (%v): is this a Slurm login node? (logz slurm --dry-run prints the scripts)", err)
		}
		return "", fmt.Errorf("slurm: sbatch %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(errb.String()))
	}
	// --parsable prints "jobid" or "jobid;cluster".
	id, _, _ := strings.Cut(strings.TrimSpace(out.String()), ";")
	if id == "" || strings.ContainsAny(id, " \n") {
		return "", fmt.Errorf("slurm: sbatch %s printed %q, not a job id", strings.Join(args, " "), out.String())
	}
	return id, nil
}

// sbatchScript is a batch script: a comment, #SBATCH lines and the
// command. output is the --output file pattern, written as one word of
// its #SBATCH line (sbatchWord); the lines of extra are written as they
// are (sbatchLines quotes them). With requeue, an exit status 3 of the
// command (a run stopped at its --time-limit, its work saved) puts the
// array task back in the queue.
func sbatchScript(about, name, array, output string, extra []string, command []string, requeue bool) string {
	var b strings.Builder
	b.WriteString("#!/bin/bash\n")
	for _, l := range wrap(about, 76) {
		b.WriteString("# " + l + "\n")
	}
	b.WriteString("# Written by 'logz slurm'; submitted with the dependencies in plan.json.\n")
	if array != "" {
		b.WriteString("# A task that failed can simply run again: sbatch --array=<tasks> " + "this script.\n")
	}
	fmt.Fprintf(&b, "#SBATCH --job-name=%s\n", name)
	if array != "" {
		fmt.Fprintf(&b, "#SBATCH --array=%s\n", array)
	}
	fmt.Fprintf(&b, "#SBATCH --output=%s\n", sbatchWord(output))
	for _, l := range extra {
		fmt.Fprintf(&b, "#SBATCH %s\n", l)
	}
	q := make([]string, len(command))
	for i, c := range command {
		q[i] = shellQuote(c)
	}
	if !requeue {
		b.WriteString("set -eu\n")
		b.WriteString("exec " + strings.Join(q, " ") + "\n")
		return b.String()
	}
	b.WriteString("set -u\n")
	b.WriteString("rc=0\n")
	b.WriteString(strings.Join(q, " ") + " || rc=$?\n")
	fmt.Fprintf(&b, "if [ \"$rc\" = %d ]; then\n", exitTime)
	b.WriteString("\t# Stopped at its --time-limit with its work saved: back in the queue, to\n")
	b.WriteString("\t# continue from it (the jobs that depend on this task wait).\n")
	b.WriteString("\tscontrol requeue \"${SLURM_ARRAY_JOB_ID}_${SLURM_ARRAY_TASK_ID}\"\n")
	b.WriteString("fi\n")
	b.WriteString("exit \"$rc\"\n")
	return b.String()
}

// wrap breaks text into lines of at most width runes, at spaces.
func wrap(text string, width int) []string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(text) {
		if line != "" && len([]rune(line))+1+len([]rune(w)) > width {
			lines = append(lines, line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	return append(lines, line)
}

// shellQuote quotes s for bash unless it is plainly safe.
func shellQuote(s string) string {
	safe := s != ""
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/._-=:,+%@", r)) {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// sbatchWord writes s as one word of an #SBATCH line. sbatch splits such
// a line itself, not through a shell: at blanks outside quotes; ' and "
// group characters, also in mid-word (--comment="a b"); a backslash
// escapes the next character, inside quotes too; an unquoted # starts a
// comment; and a word may not begin with ':'. A word free of those
// characters is written as it is; any other goes in double quotes, with
// its \ and " escaped by a backslash. s holds no control character
// (sbatchLines and outputDirOK refuse them: a line ends at a newline).
func sbatchWord(s string) string {
	if s != "" && !strings.HasPrefix(s, ":") && !strings.ContainsAny(s, " \t'\"\\#") {
		return s
	}
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}

// sbatchOption writes the option word w (--name=value, -x or --name) for
// an #SBATCH line: the value after '=' quoted by sbatchWord, so that
// --comment=two words reads --comment="two words".
func sbatchOption(w string) string {
	if name, value, ok := strings.Cut(w, "="); ok && sbatchWord(name) == name {
		return name + "=" + sbatchWord(value)
	}
	return sbatchWord(w)
}

// controlChar returns a message naming the first control character of s
// (a newline, a tab, ...), or "" when s has none.
func controlChar(s string) string {
	for i, r := range s {
		if unicode.IsControl(r) {
			return fmt.Sprintf("a control character (%U%s) at byte %d of %q", r, map[rune]string{'\n': ", a newline", '\t': ", a tab", '\r': ", a carriage return"}[r], i, s)
		}
	}
	return ""
}

// outputDirOK checks that the run directory dir can be written on the
// #SBATCH --output line of a script: one line (no control character), and
// no backslash, which would make Slurm leave the %a of every task's log
// name unexpanded, so that the tasks of an array share one log file.
func outputDirOK(dir string) error {
	if c := controlChar(dir); c != "" {
		return fmt.Errorf("%s: the run directory is written on the #SBATCH --output line of every script, which is one line", c)
	}
	if strings.Contains(dir, `\`) {
		return fmt.Errorf("a backslash in %q: Slurm would not expand the task number (%%a) in the log file names under it; choose a directory without one", dir)
	}
	return nil
}

// sbatchLines splits --sbatch-args into one option per #SBATCH line: a
// word starting with '-' begins an option, a word that does not is its
// value ("-p short" → "-p short"). Words are separated by blanks and may
// be quoted with ' or "; each is written quoted as sbatch reads it
// (sbatchWord). A control character (a newline would start a line of its
// own, ending the #SBATCH lines or splicing words onto one) is refused.
func sbatchLines(s string) ([]string, error) {
	if c := controlChar(s); c != "" {
		return nil, fmt.Errorf("%s; sbatch options are one line of printable text, separated by blanks", c)
	}
	var words []string
	var cur strings.Builder
	in, quote := false, rune(0)
	for _, r := range s {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(r)
		case r == '\'' || r == '"':
			quote, in = r, true
		case r == ' ':
			if in {
				words = append(words, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteRune(r)
			in = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("unbalanced %c in %q", quote, s)
	}
	if in {
		words = append(words, cur.String())
	}
	var lines []string
	for _, w := range words {
		switch {
		case strings.HasPrefix(w, "-"):
			for _, own := range []string{"--array", "-a", "--dependency", "-d", "--output", "-o", "--job-name", "-J", "--parsable"} {
				if w == own || strings.HasPrefix(w, own+"=") || (len(own) == 2 && strings.HasPrefix(w, own) && len(w) > 2) {
					return nil, fmt.Errorf("%s is set by logz slurm itself", own)
				}
			}
			lines = append(lines, sbatchOption(w))
		case len(lines) == 0:
			return nil, fmt.Errorf("%q is not an sbatch option (they start with -)", w)
		default:
			lines[len(lines)-1] += " " + sbatchWord(w)
		}
	}
	return lines, nil
}
