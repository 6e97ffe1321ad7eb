package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/logz-ml/logz/family"
	"github.com/logz-ml/logz/inference/chi2"
	"github.com/logz-ml/logz/models"
)

const exportUsage = `Usage: logz export --model FILE.npz --out OUT.npz

Writes the model of FILE.npz to OUT.npz without the trainer's state: its
parameters, its record (family, epoch, the config and data the run
trained and evaluated on) and any fitted χ² proposal the estimators and
'logz sample --init q' start from, with none of the momentum and Adam
buffers, persistent chains, per-example posteriors or generator states a
run keeps in model.npz to resume bit for bit. OUT.npz is what the
checkpoint is for 'logz eval', 'logz sample' and 'logz compare' (the same
numbers, the run's data read from its record), and often much smaller (a
Gibbs or variational SBN trainer keeps every training image's latent
state), but a run cannot be resumed from it: --resume refuses it.

OUT.npz is written atomically. It may not exist already (nothing is
replaced) nor be the file read; inside a logz run folder it is written
under the folder's lock.

Flags:
`

func cmdExport(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("export", flag.ContinueOnError)
	modelPath := fs.String("model", "", "saved model to read (.npz, a run's model.npz or a NumPy file)")
	out := fs.String("out", "", "file to write the model to without the trainer's state (.npz); must not exist")
	fs.Usage = func() { fmt.Fprint(fs.Output(), exportUsage); printFlags(fs) }
	pos, err := parseFlags(fs, args, stdout)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageError{fmt.Sprintf("export: unexpected argument %q (see 'logz export --help')", pos[0])}
	}
	if *modelPath == "" || *out == "" {
		return usageError{"export: --model and --out are required (see 'logz export --help')"}
	}
	if samePath(*modelPath, *out) {
		return usageError{fmt.Sprintf("export: --out %s is the file --model reads; choose another --out", *out)}
	}
	if err := refuseExisting(*out); err != nil {
		return err
	}
	c, err := models.Load(*modelPath, family.Codecs())
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	release, err := lockRunFolders("export", *out)
	if err != nil {
		return err
	}
	defer release()
	// Checked again under the lock: a run may have written it meanwhile.
	if err := refuseExisting(*out); err != nil {
		return err
	}
	only := c.WithoutTrainerState()
	chi2.CopySaved(only, c)
	if err := models.Save(*out, only, family.Codecs()); err != nil {
		return fmt.Errorf("export: --out: %w", err)
	}
	before, after := fileSize(*modelPath), fileSize(*out)
	fmt.Fprintf(stdout, "wrote the %s of %s (epoch %d) without the trainer's state to %s (%s; the checkpoint is %s)\n",
		c.Model.TypeName(), *modelPath, c.Meta.Epoch, *out, after, before)
	return nil
}

// refuseExisting refuses an --out that names an existing file.
func refuseExisting(out string) error {
	_, err := os.Stat(out)
	if err == nil {
		return usageError{fmt.Sprintf("export: --out %s exists; logz export replaces nothing: remove it or choose another --out", out)}
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("export: --out: %w", err)
	}
	return nil
}

// fileSize is the size of the file at path in decimal units (1 MB =
// 10⁶ bytes), "?" when it cannot be read.
func fileSize(path string) string {
	st, err := os.Stat(path)
	if err != nil {
		return "?"
	}
	b := float64(st.Size())
	for _, u := range []string{"B", "kB", "MB", "GB"} {
		if b < 1000 || u == "GB" {
			if u == "B" {
				return fmt.Sprintf("%.0f %s", b, u)
			}
			return fmt.Sprintf("%.1f %s", b, u)
		}
		b /= 1000
	}
	return "?"
}
