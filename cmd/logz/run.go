package main

import (
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/logz-ml/logz/config"
	"github.com/logz-ml/logz/configs"
	"github.com/logz-ml/logz/experiment"
	_ "github.com/logz-ml/logz/family/all" // every model family
	"github.com/logz-ml/logz/internal/progress"
)

const runUsage = `Usage: logz run [CONFIG.yaml] [--out DIR] [--seed N] [--resume]

Runs every experiment of CONFIG.yaml in order: loads the data, trains,
evaluates after epochs and at the end, and writes into DIR
(default runs/<config name>): results.json, report.md, config.resolved.yaml
and per experiment <name>/model.npz and <name>/epochs.csv. The final table
goes to stdout, progress to stderr. Without CONFIG.yaml it runs the embedded
quickstart (an RBM on planted synthetic data; under a minute).

Flags:
`

func cmdRun(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	out := fs.String("out", "", "run directory (default runs/<config name>)")
	seed := fs.String("seed", "", "replace the config file's seed (experiments with their own seed keep it)")
	resume := fs.Bool("resume", false, "continue unfinished experiments from their model.npz in the run directory")
	fs.Usage = func() { fmt.Fprint(fs.Output(), runUsage); fs.PrintDefaults() }
	pos, err := parseFlags(fs, args, stdout)
	if err != nil {
		return err
	}
	if len(pos) > 1 {
		return usageError{fmt.Sprintf("run: one config file at most, got %d (%s)", len(pos), strings.Join(pos, " "))}
	}
	opt := config.Options{}
	if *seed != "" {
		var s uint64
		if _, err := fmt.Sscan(*seed, &s); err != nil {
			return usageError{fmt.Sprintf("run: --seed wants a non-negative integer, got %q", *seed)}
		}
		opt.Seed = &s
	}
	var f *config.File
	if len(pos) == 1 {
		// A config of many experiments takes a while to read and resolve.
		opt.Progress = progress.Delayed(stderr, "config "+pos[0]+": ", "experiments", 2*time.Second, progress.Options{})
		f, err = config.Load(pos[0], opt)
	} else {
		name, b := configs.Default()
		f, err = config.Parse(b, name, opt)
	}
	if err != nil {
		return err
	}
	dir := *out
	if dir == "" {
		dir = filepath.Join("runs", f.Name)
	}
	fmt.Fprintf(stderr, "logz %s: running %d experiment(s) of %s into %s\n", versionString(), len(f.Experiments), f.Name, dir)
	start := time.Now()
	_, err = experiment.Run(f, experiment.Options{
		Out: dir, Resume: *resume, Stdout: stdout, Stderr: stderr,
		Meta: map[string]string{
			"command":  "logz " + strings.Join(append([]string{"run"}, args...), " "),
			"version":  versionString(),
			"go":       runtime.Version(),
			"started":  start.UTC().Format(time.RFC3339),
			"platform": runtime.GOOS + "/" + runtime.GOARCH,
		},
	})
	fmt.Fprintf(stderr, "logz: wrote %s (%.1f s)\n", dir, time.Since(start).Seconds())
	return err
}
