// Package atomicfile replaces files atomically: readers of the path see
// either the old content or the complete new content, never a torn file,
// and a failed write leaves the old file untouched.
package atomicfile

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// DefaultPerm is the mode given to a file that did not exist before
// (os.CreateTemp creates 0600; the temporary file is chmod'ed to this).
const DefaultPerm fs.FileMode = 0o644

// WriteFile writes path through write, atomically. write receives a buffered
// writer on a temporary file created in the same directory as path (so the
// final rename cannot cross file systems); when write returns nil the buffer
// is flushed, the file is fsync'ed, given the mode of the file it replaces
// (DefaultPerm for a new file), closed and renamed over path, and the
// directory is fsync'ed (best effort: not every platform supports it).
//
// Missing parent directories are created (mode 0755). If write returns an
// error or panics, or any step fails, the temporary file is removed and path
// keeps its old content. Errors name path.
func WriteFile(path string, write func(io.Writer) error) (err error) {
	if path == "" {
		return errors.New("atomicfile: empty path")
	}
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	if base == "" {
		return fmt.Errorf("atomicfile: %s: path names a directory", path)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("atomicfile: writing %s: %w", path, err)
	}
	perm := DefaultPerm
	if fi, statErr := os.Stat(path); statErr == nil {
		if fi.IsDir() {
			return fmt.Errorf("atomicfile: %s: is a directory", path)
		}
		perm = fi.Mode().Perm()
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return fmt.Errorf("atomicfile: writing %s: %w", path, err)
	}
	tmp := f.Name()
	committed := false
	defer func() {
		// Runs on error and on panic alike: the old file stays intact.
		if !committed {
			f.Close()
			os.Remove(tmp)
		}
	}()

	bw := bufio.NewWriterSize(f, 64<<10)
	if err := write(bw); err != nil {
		return fmt.Errorf("atomicfile: writing %s: %w", path, err)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("atomicfile: writing %s: %w", path, err)
	}
	if err := f.Chmod(perm); err != nil {
		return fmt.Errorf("atomicfile: writing %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("atomicfile: syncing %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("atomicfile: closing %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("atomicfile: replacing %s: %w", path, err)
	}
	committed = true
	syncDir(dir)
	return nil
}

// syncDir makes the rename durable where the platform allows fsync on a
// directory; failures are ignored because the data itself is already synced.
func syncDir(dir string) {
	d, err := os.Open(dir)
	if err != nil {
		return
	}
	d.Sync()
	d.Close()
}
