// Package testenv reads the environment of tests and benchmarks that use
// data from outside the repository, and puts the temporary folders of a
// package's tests on a memory file system (Run).
package testenv

import (
	"fmt"
	"os"
	"path/filepath"
)

// MNISTVar names a directory with the original MNIST files for tests and
// benchmarks that use real data (they skip, or use synthetic data, when it
// is unset). A relative path is taken from the module root (the directory
// of go.mod), not from the package directory where go test runs, so that
// `LOGZ_MNIST_DIR=./data/mnist go test ./...` works from a clone.
const MNISTVar = "LOGZ_MNIST_DIR"

// MNISTDir returns the directory MNISTVar names, absolute, or "" when it is
// unset; an error names the variable when the directory cannot be found.
func MNISTDir() (string, error) {
	dir := os.Getenv(MNISTVar)
	if dir == "" {
		return "", nil
	}
	abs, err := FromModuleRoot(dir)
	if err == nil {
		_, err = os.Stat(abs)
	}
	if err != nil {
		return "", fmt.Errorf("$%s=%s: %w", MNISTVar, dir, err)
	}
	return abs, nil
}

// FromModuleRoot returns dir itself when it is absolute, else dir joined to
// the module root: the nearest directory at or above the working directory
// that holds go.mod.
func FromModuleRoot(dir string) (string, error) {
	if filepath.IsAbs(dir) {
		return dir, nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for d := wd; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return filepath.Join(d, dir), nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("a relative path is taken from the module root, but no go.mod is at or above %s", wd)
		}
	}
}

// MemoryDir is the memory file system that Run puts the temporary folders
// of a package's tests on when the machine has it (Linux mounts a tmpfs
// there) with MemoryFree bytes free; a container's default /dev/shm of
// 64 MB is too small for a built logz and its run folders.
const (
	MemoryDir  = "/dev/shm"
	MemoryFree = 1 << 30
)

// Run runs a package's tests (m.Run) with their temporary folders
// (t.TempDir, os.MkdirTemp("", …), and those of the commands they start) in
// a new folder on MemoryDir, which it removes afterwards, and returns m.Run's
// exit code; call it from TestMain as os.Exit(testenv.Run(m)).
//
// The run folders, checkpoints, parts and reports that tests write go
// through internal/atomicfile, which fsyncs every file and its folder: on a
// disk shared with other jobs each fsync waits for the disk, and packages
// that write many small files (cmd/logz, experiment) spent most of their
// time waiting. On a memory file system the same bytes are written through
// the same calls, fsync included, so what the tests check is unchanged.
// A $TMPDIR that the caller set is kept, and without MemoryDir (or when it
// is not writable, or has less than MemoryFree bytes free) the tests use
// the usual temporary folder.
func Run(m interface{ Run() int }) int {
	dir, ok := memoryTempDir()
	if !ok {
		return m.Run()
	}
	defer os.RemoveAll(dir)
	if err := os.Setenv("TMPDIR", dir); err != nil {
		return m.Run()
	}
	defer os.Unsetenv("TMPDIR")
	return m.Run()
}

// memoryTempDir creates a folder for Run on MemoryDir, unless $TMPDIR is
// set or MemoryDir is not a writable folder with MemoryFree bytes free.
func memoryTempDir() (string, bool) {
	if os.Getenv("TMPDIR") != "" {
		return "", false
	}
	if fi, err := os.Stat(MemoryDir); err != nil || !fi.IsDir() || freeBytes(MemoryDir) < MemoryFree {
		return "", false
	}
	dir, err := os.MkdirTemp(MemoryDir, "logz-test-")
	if err != nil {
		return "", false
	}
	return dir, true
}
