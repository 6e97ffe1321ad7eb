// Package testenv reads the environment of tests and benchmarks that use
// data from outside the repository.
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
