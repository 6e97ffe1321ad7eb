package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/logz-ml/logz/config"
	"github.com/logz-ml/logz/experiment"
)

const plotUsage = `Usage: logz plot DIR

Redraws every figure of the run folder DIR from its files, without
training or evaluating: report.html (the tables of report.md, the
per-epoch curves, brackets and final estimates of results.json, and each
experiment's samples.png, filters.png and completion.png, which are redrawn
first from samples.npy and model.npz where those exist). The report keeps
the run's own description (command, version, start) from report.md.
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
	n, err := experiment.RedrawImages(dir)
	if err != nil {
		return fmt.Errorf("plot: %w", err)
	}
	meta := experiment.ReadReportMeta(dir)
	meta["redrawn"] = "logz plot " + dir + " (" + versionString() + ", " + start.UTC().Format(time.RFC3339) + ")"
	if err := experiment.WriteHTMLReport(dir, meta); err != nil {
		return fmt.Errorf("plot: %w", err)
	}
	fmt.Fprintf(stdout, "wrote %s (the images of %d experiment(s) redrawn) in %.2f s\n", filepath.Join(dir, config.HTMLFile), n, time.Since(start).Seconds())
	return nil
}
