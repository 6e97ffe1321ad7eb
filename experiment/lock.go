package experiment

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/logz-ml/logz/config"
	"github.com/logz-ml/logz/internal/runlock"
)

// lockFolder takes the run folder dir for this process (see
// internal/runlock): exclusively for a run, a resumed or forced run, a merge
// or a redraw; shared for a shard. It makes the folder if there is none, but
// never puts its lock file into a folder that holds something other than a
// logz run: that folder is refused as it was before.
func lockFolder(dir string, mode runlock.Mode) (*runlock.Lock, error) {
	if dir == "" {
		return nil, folderError("no run folder given (an empty --out); name a folder")
	}
	switch entries, err := readRunDir(dir); {
	case errors.Is(err, fs.ErrNotExist):
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
	case err != nil:
		if fi, serr := os.Stat(dir); serr == nil && !fi.IsDir() {
			return nil, folderError("%s is a file, not a folder; choose another --out", dir)
		}
		return nil, err
	case !onlyTempFiles(entries):
		if st := readRunState(dir, entries); !st.run {
			return nil, notARun(dir, st.foreign)
		}
	}
	l, err := runlock.Acquire(dir, mode)
	var busy *runlock.BusyError
	if errors.As(err, &busy) {
		return nil, &FolderError{busy.Error()}
	}
	return l, err
}

// LockFolder takes the run folder dir exclusively, for a command that
// rewrites files of a finished run (logz plot); release it when done.
func LockFolder(dir string) (release func() error, err error) {
	l, err := lockFolder(dir, runlock.Exclusive)
	if err != nil {
		return nil, err
	}
	return l.Release, nil
}

// readRunDir lists a run folder without its lock file.
func readRunDir(dir string) ([]os.DirEntry, error) {
	entries, err := os.ReadDir(dir)
	out := entries[:0]
	for _, e := range entries {
		if !runlock.IsLockFile(e.Name()) {
			out = append(out, e)
		}
	}
	return out, err
}

// onlyTempFiles reports whether a folder with these entries holds nothing
// but temporary files of a killed writer (or nothing at all).
func onlyTempFiles(entries []os.DirEntry) bool {
	for _, e := range entries {
		if !isTempFile(e.Name()) {
			return false
		}
	}
	return true
}

// notARun refuses a folder that holds no logz run; foreign names the files
// in it that are named like logz's but were not written by logz.
func notARun(dir string, foreign []string) error {
	why := fmt.Sprintf("no %s or %s written by logz", config.ResolvedFile, config.ResultsFile)
	if len(foreign) > 0 {
		why += "; " + strings.Join(foreign, ", ") + " there are not logz's"
	}
	return folderError("%s is not empty and holds no logz run (%s); logz never deletes files it did not write: choose a new or empty folder with --out", dir, why)
}

// refuseLinks refuses a run folder in which a name logz writes — a run
// file, the parts folder, an experiment's folder (of f or of the run
// there) or a file in it — is a symbolic link: writing or clearing through
// it would change files outside the run folder. The run folder itself may
// be a link; that is the user's own choice of where the run goes.
//
// was, if not nil, is the config of the run in dir as the caller read it
// from its config.resolved.yaml (a merge), which is then not read again.
func refuseLinks(f *config.File, dir string, was *config.File) error {
	names := map[string]bool{PartsDir: true}
	for _, n := range config.RunFiles {
		names[n] = true
	}
	expDirs := experimentDirs(f, dir, was)
	entries, err := readRunDir(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return err
	}
	var links []string
	for _, e := range entries {
		n := e.Name()
		if !names[n] && !expDirs[n] {
			continue
		}
		path := filepath.Join(dir, n)
		if e.Type()&fs.ModeSymlink != 0 {
			links = append(links, describeLink(path))
			continue
		}
		if !e.IsDir() {
			continue
		}
		sub, err := os.ReadDir(path)
		if err != nil {
			return err
		}
		for _, s := range sub {
			if s.Type()&fs.ModeSymlink != 0 && (n == PartsDir || isExperimentFile(s.Name())) {
				links = append(links, describeLink(filepath.Join(path, s.Name())))
			}
		}
	}
	switch len(links) {
	case 0:
		return nil
	case 1:
		return folderError("%s is a symbolic link; logz does not write or delete through links in a run folder, where it could change files outside it: remove the link, or use another --out", links[0])
	}
	return folderError("%s are symbolic links; logz does not write or delete through links in a run folder, where it could change files outside it: remove them, or use another --out", strings.Join(links, ", "))
}

// describeLink is "path (→ target)".
func describeLink(path string) string {
	if t, err := os.Readlink(path); err == nil {
		return fmt.Sprintf("%s (→ %s)", path, t)
	}
	return path
}
