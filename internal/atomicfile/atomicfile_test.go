package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func readString(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// onlyFiles fails the test unless dir holds exactly the named files (no
// temporary file left behind).
func onlyFiles(t *testing.T, dir string, want ...string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range ents {
		got = append(got, e.Name())
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("directory holds %q, want %q", got, want)
	}
}

func TestWriteFileCreatesAndReplaces(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "results.json")
	if err := WriteFile(path, func(w io.Writer) error {
		_, err := io.WriteString(w, "first")
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if got := readString(t, path); got != "first" {
		t.Fatalf("content %q, want %q", got, "first")
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != DefaultPerm {
		t.Fatalf("new file mode %v, want %v", fi.Mode().Perm(), DefaultPerm)
	}
	// An existing file keeps its mode when replaced.
	if err := os.Chmod(path, 0o600); err != nil {
		t.Fatal(err)
	}
	big := strings.Repeat("x", 200<<10) // larger than the write buffer
	if err := WriteFile(path, func(w io.Writer) error {
		_, err := io.WriteString(w, big)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if got := readString(t, path); got != big {
		t.Fatalf("content has %d bytes, want %d", len(got), len(big))
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Fatalf("replaced file mode %v, want 0600", fi.Mode().Perm())
	}
	onlyFiles(t, dir, "results.json")
}

func TestWriteFileFailureKeepsOldFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "results.json")
	if err := os.WriteFile(path, []byte("old content"), 0o644); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	err := WriteFile(path, func(w io.Writer) error {
		io.WriteString(w, strings.Repeat("partial ", 20000)) // some of it reaches the temp file
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("error %v does not wrap the write error", err)
	}
	if !strings.Contains(err.Error(), path) {
		t.Fatalf("error %q does not name the file", err)
	}
	if got := readString(t, path); got != "old content" {
		t.Fatalf("old file changed to %.40q", got)
	}
	onlyFiles(t, dir, "results.json")
}

func TestWriteFilePanicKeepsOldFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.txt")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Fatal("panic in write was swallowed")
			}
		}()
		WriteFile(path, func(w io.Writer) error {
			io.WriteString(w, "new")
			panic("writer bug")
		})
	}()
	if got := readString(t, path); got != "old" {
		t.Fatalf("old file changed to %q", got)
	}
	onlyFiles(t, dir, "f.txt")
}

func TestWriteFileErrors(t *testing.T) {
	dir := t.TempDir()
	ok := func(w io.Writer) error { return nil }
	if err := os.WriteFile(filepath.Join(dir, "file"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{
		"",
		filepath.Join(dir, "file", "f.txt"), // parent is a file
		dir,                                 // a directory
		dir + string(filepath.Separator),
	} {
		err := WriteFile(path, ok)
		if err == nil {
			t.Errorf("WriteFile(%q) succeeded", path)
			continue
		}
		if path != "" && !strings.Contains(err.Error(), strings.TrimSuffix(path, string(filepath.Separator))) {
			t.Errorf("WriteFile(%q): error %q does not name the path", path, err)
		}
	}
	onlyFiles(t, dir, "file")
}

func TestWriteFileCreatesParents(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "runs", "exp", "epochs.csv")
	if err := WriteFile(path, func(w io.Writer) error {
		_, err := io.WriteString(w, "epoch\n")
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if got := readString(t, path); got != "epoch\n" {
		t.Fatalf("content %q", got)
	}
}

func TestWriteFileRelativePath(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	if err := WriteFile("rel.txt", func(w io.Writer) error {
		_, err := io.WriteString(w, "rel")
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if got := readString(t, filepath.Join(dir, "rel.txt")); got != "rel" {
		t.Fatalf("content %q", got)
	}
}
