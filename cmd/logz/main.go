// Command logz trains binary latent-variable models from a YAML experiment
// file and measures them in nats. See `logz help`, the README and docs/.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"

	"github.com/logz-ml/logz/internal/workgroup"
)

// version is set at build time with -ldflags "-X main.version=…"; otherwise
// the module version recorded by the Go toolchain is used.
var version = ""

func main() {
	os.Exit(exitStatus(func() error { return run(os.Args[1:], os.Stdout, os.Stderr) }, os.Stderr))
}

// Exit statuses (documented in mainUsage).
const (
	exitOK     = 0
	exitFailed = 1 // a run or evaluation failed, or logz met an internal error
	exitUsage  = 2 // a mistake on the command line (a usageError)
	exitTime   = 3 // a run stopped at its --time-limit (a timeLimitError)
)

// debugEnv, when set to a non-empty value, adds the stack to the report of
// an internal error.
const debugEnv = "LOGZ_DEBUG"

// exitStatus calls f, prints its error and returns the exit status.
//
// A panic in f is a bug in logz: it is reported in one line as an internal
// error with status 1, the stack only with LOGZ_DEBUG set, because the Go
// runtime would print a stack dump and exit with status 2, the status of a
// usage error. The worker goroutines of estimators and trainers run in
// internal/workgroup groups, which carry a worker's panic (with the
// worker's stack) to the goroutine that waits for them, so it lands here
// too.
func exitStatus(f func() error, stderr io.Writer) (status int) {
	defer func() {
		r := recover()
		if r == nil {
			return
		}
		stack := debug.Stack()
		if p, ok := r.(*workgroup.Panic); ok {
			r, stack = p.Value, p.Stack
		}
		if os.Getenv(debugEnv) != "" {
			fmt.Fprintf(stderr, "logz: internal error: %v (please report it with the command line and this stack)\n%s", r, stack)
		} else {
			fmt.Fprintf(stderr, "logz: internal error: %v (please report it with the command line; %s=1 prints the stack)\n", r, debugEnv)
		}
		status = exitFailed
	}()
	err := f()
	if err == nil {
		return exitOK
	}
	fmt.Fprintln(stderr, "logz:", err)
	var ue usageError
	if errors.As(err, &ue) {
		return exitUsage
	}
	if errors.As(err, new(timeLimitError)) {
		return exitTime
	}
	return exitFailed
}

// usageError is a mistake on the command line (exit status 2).
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

var errHelpShown = errors.New("help shown")

const mainUsage = `logz trains binary latent-variable models and measures them in nats.

Usage:
  logz run [CONFIG.yaml] [--out DIR] [--seed N] [--set PATH=VALUE ...]
           [--resume | --force] [--time-limit D]
                         train and evaluate every experiment of the file
                         (no file: the embedded quickstart; a name such
                         as quickstart-sbn: that built-in config); --set
                         overrides a value of the file; --resume
                         continues the run in DIR (--resume=auto: or
                         starts it if DIR holds none), --force discards
                         it; --time-limit stops cleanly, work saved, before
                         D has passed (exit status 3; --resume continues)
  logz run CONFIG.yaml --out DIR --shard i/n|env/n [--phase train|eval]
           [--experiment NAMES]
                         run shard i of n of a run (a job array task)
  logz merge DIR         write the results of a sharded run from its parts
  logz status DIR [--shards N]
                         what a sharded run has done, and what to resubmit
  logz slurm [CONFIG.yaml] --shards N [--out DIR] [--sbatch-args "..."]
             [--time-limit D] [--seed S] [--set PATH=VALUE ...]
             [--logz PATH] [--dry-run]
                         run the file on Slurm: training and evaluation job
                         arrays and a merge job, with their dependencies;
                         --time-limit: training tasks requeue themselves
  logz eval --model FILE.npz --data SPEC --estimator LIST [flags]
                         evaluate a saved model (--shard i/n --parts DIR to
                         share it among processes, --parts DIR to merge)
  logz sample --model FILE.npz [--n 100] [--steps N] [--init q|data|random]
              [--data SPEC] [--out samples.npy] [--compare q,random] [flags]
                         draw samples of a saved model of any family (an
                         RBM's Gibbs chains from a χ² proposal, data or
                         random states); write them, or compare how fast an
                         RBM's chains from each start mix
  logz export --model FILE.npz --out OUT.npz
                         write a saved model without the trainer's state
                         (to evaluate, sample or share; not to resume)
  logz plot DIR          redraw report.html and the images of a run folder
                         from its files (no training)
  logz compare RUN RUN... [--out DIR] [--ascii]
                         the final estimates of run folders side by side,
                         each difference with its combined error, rows of
                         other protocols marked not comparable, and the
                         configs' differences (docs/compare.md)
  logz compare --model A.npz --model B.npz [--data SPEC] [flags]
  logz compare RUN --experiments A,B [flags]
                         paired verdict: Δ = mean log p_B − mean log p_A on
                         the same examples with one error bar
  logz models [--json | --markdown]
                         list the model families with their trainers,
                         settings and estimators
  logz configs [show NAME]
                         list the configs built into logz (run one with
                         'logz run NAME'), or print one
  logz data get NAME [--dir DIR] [--shifts] [--csv FILE [--any-checksum]]
                         fetch and verify a data set (mnist, fashion-mnist,
                         digits, and the published omniglot,
                         caltech-silhouettes, ocr-letters, binarized-mnist)
                         into where logz reads it, or into DIR; --shifts,
                         --csv and --any-checksum are for digits
  logz version           print the version
  logz help [COMMAND]    show help
  logz help config [SECTION]
                         every config key with its default and meaning
                         (SECTION: data, evaluate, … or a family such as rbm)

Run 'logz COMMAND --help' for a command's flags.

Exit status:
  0  success (and --help)
  1  the run or evaluation failed: a missing or invalid config, model or
     data file, a failed experiment, or an internal error of logz
  2  a usage error: no or unknown command, unknown flag, bad flag value,
     missing required flag or argument, a run folder refused
  3  a run stopped at its --time-limit before it was finished (what was
     written is kept; the run continues with --resume)
  130, 143  interrupted by SIGINT or SIGTERM (what was written is kept;
     the run continues with --resume)

Environment:
  LOGZ_DEBUG=1           print the stack with an internal error
`

// run is main without the process: it returns nil after --help.
func run(args []string, stdout, stderr io.Writer) error {
	err := dispatch(args, stdout, stderr)
	if errors.Is(err, errHelpShown) {
		return nil
	}
	return err
}

func dispatch(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, mainUsage)
		return usageError{"no command given"}
	}
	switch cmd, rest := args[0], args[1:]; cmd {
	case "run":
		return cmdRun(rest, stdout, stderr)
	case "eval":
		return cmdEval(rest, stdout, stderr)
	case "merge":
		return cmdMerge(rest, stdout, stderr)
	case "status":
		return cmdStatus(rest, stdout)
	case "slurm":
		return cmdSlurm(rest, stdout, stderr)
	case "sample":
		return cmdSample(rest, stdout, stderr)
	case "plot":
		return cmdPlot(rest, stdout)
	case "export":
		return cmdExport(rest, stdout)
	case "compare":
		return cmdCompare(rest, stdout, stderr)
	case "models":
		return cmdModels(rest, stdout)
	case "configs":
		return cmdConfigs(rest, stdout, stderr)
	case "data":
		return cmdData(rest, stdout, stderr)
	case "version", "--version", "-version":
		if len(rest) > 0 {
			return usageError{fmt.Sprintf("version: unexpected argument %q", rest[0])}
		}
		fmt.Fprintln(stdout, "logz", versionString())
		return nil
	case "help", "-h", "--help", "-help":
		if len(rest) > 0 && rest[0] == "config" {
			return helpConfig(rest[1:], stdout)
		}
		if len(rest) > 1 {
			return usageError{fmt.Sprintf("help: one command at most, got %q", strings.Join(rest, " "))}
		}
		if len(rest) > 0 {
			return run([]string{rest[0], "--help"}, stdout, stderr)
		}
		fmt.Fprint(stdout, mainUsage)
		return nil
	default:
		fmt.Fprint(stderr, mainUsage)
		return usageError{fmt.Sprintf("unknown command %q", cmd)}
	}
}

func versionString() string {
	if version != "" {
		return version
	}
	bi, ok := debug.ReadBuildInfo()
	if ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	// A binary built inside a git checkout (go build, go install ./...)
	// carries the commit: "dev (commit 1a2b3c4d5e6f, modified)", so a report
	// says which code made it.
	var rev, dirty string
	if ok {
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				if s.Value == "true" {
					dirty = ", modified"
				}
			}
		}
	}
	if rev == "" {
		return "dev"
	}
	return fmt.Sprintf("dev (commit %.12s%s)", rev, dirty)
}

// parseFlags parses flags that may come before or after positional
// arguments (`logz run x.yaml --out d` as well as `logz run --out d x.yaml`).
func parseFlags(fs *flag.FlagSet, args []string, stdout io.Writer) ([]string, error) {
	fs.SetOutput(io.Discard)
	var pos []string
	for {
		err := fs.Parse(args)
		if errors.Is(err, flag.ErrHelp) {
			fs.SetOutput(stdout)
			fs.Usage()
			return nil, errHelpShown
		}
		if err != nil {
			return nil, usageError{fmt.Sprintf("%s: %v (see 'logz %s --help')", fs.Name(), err, fs.Name())}
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, checkEmpty(fs, pos)
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// printFlags prints the flags of fs as flag.PrintDefaults does, each
// spelled with two dashes (--out) as the usage lines and docs write them.
func printFlags(fs *flag.FlagSet) {
	var b strings.Builder
	w := fs.Output()
	fs.SetOutput(&b)
	fs.PrintDefaults()
	fs.SetOutput(w)
	for _, l := range strings.SplitAfter(b.String(), "\n") {
		if strings.HasPrefix(l, "  -") {
			l = "  --" + l[3:]
		}
		fmt.Fprint(w, l)
	}
}

func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}
