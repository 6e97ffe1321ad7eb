package testenv

import (
	"os"
	"path/filepath"
	"testing"
)

func TestFromModuleRoot(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Dir(filepath.Dir(wd)) // go test runs in internal/testenv
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("expected go.mod two levels above the package directory: %v", err)
	}
	for in, want := range map[string]string{
		"./data/mnist": filepath.Join(root, "data", "mnist"),
		"data/mnist":   filepath.Join(root, "data", "mnist"),
		"/abs/mnist":   "/abs/mnist",
		"../elsewhere": filepath.Join(filepath.Dir(root), "elsewhere"),
	} {
		if got, err := FromModuleRoot(in); err != nil || got != want {
			t.Errorf("FromModuleRoot(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}

func TestMNISTDir(t *testing.T) {
	t.Setenv(MNISTVar, "")
	if d, err := MNISTDir(); d != "" || err != nil {
		t.Errorf("unset: %q, %v", d, err)
	}
	t.Setenv(MNISTVar, "no/such/dir")
	if _, err := MNISTDir(); err == nil {
		t.Error("a missing directory is not an error")
	}
	t.Setenv(MNISTVar, ".")
	if d, err := MNISTDir(); err != nil || filepath.Join(d, "go.mod") == "" {
		t.Errorf("module root: %q, %v", d, err)
	}
}
