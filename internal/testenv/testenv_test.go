package testenv

import (
	"os"
	"path/filepath"
	"runtime"
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

// runFunc is a test main whose Run calls a function.
type runFunc func() int

func (f runFunc) Run() int { return f() }

func TestRunInMemory(t *testing.T) {
	if fi, err := os.Stat(MemoryDir); err != nil || !fi.IsDir() || freeBytes(MemoryDir) < MemoryFree {
		t.Skipf("no %s with %d bytes free here", MemoryDir, MemoryFree)
	}
	t.Setenv("TMPDIR", "")
	var inside string
	code := Run(runFunc(func() int {
		inside = os.TempDir()
		if err := os.WriteFile(filepath.Join(inside, "f"), []byte("x"), 0o644); err != nil {
			t.Error(err)
		}
		return 3
	}))
	if code != 3 {
		t.Errorf("exit code %d, want m.Run's 3", code)
	}
	if filepath.Dir(inside) != MemoryDir {
		t.Errorf("temporary folder during the run: %s, want one in %s", inside, MemoryDir)
	}
	if _, err := os.Stat(inside); err == nil {
		t.Errorf("%s is left after the run", inside)
	}
	if d := os.Getenv("TMPDIR"); d != "" {
		t.Errorf("$TMPDIR after the run: %q", d)
	}

	// A $TMPDIR the caller set is kept.
	mine := t.TempDir()
	t.Setenv("TMPDIR", mine)
	Run(runFunc(func() int { inside = os.TempDir(); return 0 }))
	if inside != mine {
		t.Errorf("with $TMPDIR=%s set: the run used %s", mine, inside)
	}
}

// TestFreeBytes: freeBytes reads the free space of a folder's file system
// (the check that keeps Run off a small /dev/shm).
func TestFreeBytes(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("Linux only")
	}
	if b := freeBytes(t.TempDir()); b == 0 {
		t.Errorf("free bytes of a temporary folder: 0")
	}
	if b := freeBytes(filepath.Join(t.TempDir(), "missing")); b != 0 {
		t.Errorf("free bytes of a missing folder: %d", b)
	}
}
