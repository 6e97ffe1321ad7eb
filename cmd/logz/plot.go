package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/logz-ml/logz/config"
	"github.com/logz-ml/logz/experiment"
)

const plotUsage = `Usage: logz plot DIR

Redraws every figure of the run folder DIR from its files, without
training or evaluating: report.html (the tables of report.md, the
per-epoch curves, brackets and final estimates of results.json, and each
experiment's samples.png, filters.png and completion.png, which are redrawn
first from samples.npy, model.npz and completion.npy). A picture whose file
is missing (deleted) is not redrawn: it is kept, named on the output and
marked as not redrawn in report.html. The report keeps the run's own
description (command, version, start) from report.md.
`

func cmdPlot(args []string, stdout io.Writer) error {
	flags := flag.NewFlagSet("plot", flag.ContinueOnError)
	flags.Usage = func() { fmt.Fprint(flags.Output(), plotUsage) }
	pos, err := parseFlags(flags, args, stdout)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageError{fmt.Sprintf("plot: want one run folder, got %d arguments (see 'logz plot --help')", len(pos))}
	}
	dir := pos[0]
	if _, err := os.Stat(filepath.Join(dir, config.ResultsFile)); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("plot: %s has no %s: not a run folder, or its run wrote nothing yet", dir, config.ResultsFile)
		}
		return fmt.Errorf("plot: %w", err)
	}
	release, err := experiment.LockFolder(dir)
	var refused *experiment.FolderError
	if errors.As(err, &refused) {
		return usageError{"plot: " + err.Error()}
	}
	if err != nil {
		return fmt.Errorf("plot: %w", err)
	}
	defer release()
	start := time.Now()
	imgs, err := experiment.RedrawImages(dir)
	if err != nil {
		return fmt.Errorf("plot: %w", err)
	}
	meta := experiment.ReadReportMeta(dir)
	meta["redrawn"] = "logz plot " + dir + " (" + versionString() + ", " + start.UTC().Format(time.RFC3339) + ")"
	if err := experiment.WriteHTMLReport(dir, meta); err != nil {
		return fmt.Errorf("plot: %w", err)
	}
	fmt.Fprintf(stdout, "wrote %s in %.2f s\n", filepath.Join(dir, config.HTMLFile), time.Since(start).Seconds())
	writeRedrawn(stdout, imgs)
	return nil
}

// writeRedrawn says which pictures logz plot redrew and which it could
// not, because a file they are drawn from is missing.
func writeRedrawn(w io.Writer, imgs []experiment.ExperimentImages) {
	var drawn, stale []string
	for _, e := range imgs {
		for _, f := range e.Drawn {
			drawn = append(drawn, e.Experiment+"/"+f)
		}
		for _, f := range e.Stale {
			stale = append(stale, e.Experiment+"/"+f)
		}
	}
	switch {
	case len(drawn) > 0:
		fmt.Fprintf(w, "  redrawn: %s\n", strings.Join(drawn, ", "))
	case len(stale) == 0:
		fmt.Fprintln(w, "  no images to redraw: the experiment folders hold no samples.npy, model.npz or completion.npy")
	}
	if len(stale) > 0 {
		fmt.Fprintf(w, "  not redrawn, because a file they are drawn from is missing (kept as they were; report.html marks them): %s\n", strings.Join(stale, ", "))
	}
}
