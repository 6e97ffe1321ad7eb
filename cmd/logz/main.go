// Command logz trains binary latent-variable models from a YAML experiment
// file and measures them in nats. See `logz help` and the README.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"
)

// version is set at build time with -ldflags "-X main.version=…"; otherwise
// the module version recorded by the Go toolchain is used.
var version = ""

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "logz:", err)
		var ue usageError
		if errors.As(err, &ue) {
			os.Exit(2)
		}
		os.Exit(1)
	}
}

// usageError is a mistake on the command line (exit status 2).
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

var errHelpShown = errors.New("help shown")

const mainUsage = `logz trains binary latent-variable models and measures them in nats.

Usage:
  logz run [CONFIG.yaml] [--out DIR] [--seed N] [--resume]
                         train and evaluate every experiment of the file
                         (no file: the embedded quickstart)
  logz eval --model FILE.npz --data SPEC --estimator LIST [flags]
                         evaluate a saved model
  logz models [--json | --markdown]
                         list the model families with their trainers,
                         settings and estimators
  logz version           print the version
  logz help [COMMAND]    show help

Run 'logz COMMAND --help' for a command's flags.
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
	case "models":
		return cmdModels(rest, stdout)
	case "version", "--version", "-version":
		fmt.Fprintln(stdout, "logz", versionString())
		return nil
	case "help", "-h", "--help", "-help":
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
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
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
			return pos, nil
		}
		pos = append(pos, args[0])
		args = args[1:]
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
