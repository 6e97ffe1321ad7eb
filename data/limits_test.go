package data

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestLoadRefusesNonRegularFiles: npy: and idx: specs naming a directory,
// a named pipe (which would block forever) or /dev/zero (which never ends)
// are refused by path before anything is read.
func TestLoadRefusesNonRegularFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("mkfifo:", err)
	}
	paths := map[string]string{dir: "a directory", fifo: "a named pipe"}
	if _, err := os.Stat("/dev/zero"); err == nil {
		paths["/dev/zero"] = "a character device"
	}
	opt := Options{Binarize: Binarization{Method: Threshold, Threshold: 0.5}}
	for p, kind := range paths {
		for _, scheme := range []string{"npy", "idx"} {
			want := fmt.Sprintf("%s: not a regular file (it is %s); expected a file", p, kind)
			if _, err := Load(scheme+":"+p, opt); err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("%s:%s: got %v, want %q", scheme, p, err, want)
			}
		}
	}
	// An MNIST directory whose image file is a pipe.
	mdir := filepath.Join(dir, "mnist")
	os.Mkdir(mdir, 0o755)
	img := filepath.Join(mdir, "train-images-idx3-ubyte")
	if err := syscall.Mkfifo(img, 0o600); err != nil {
		t.Fatal(err)
	}
	want := "mnist:train: " + img + " is not a regular file (it is a named pipe)"
	if _, err := Load("mnist:train", Options{DataDir: mdir, Binarize: opt.Binarize}); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("pipe in the MNIST directory: got %v, want %q", err, want)
	}
}

// TestNPYHeaderBeyondFile: a .npy header declaring more data than the file
// holds, or more than the element limit, is refused before allocating.
func TestNPYHeaderBeyondFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, dict string, body int) string {
		b := append([]byte("\x93NUMPY\x01\x00"), byte(len(dict)), 0)
		b = append(append(b, dict...), make([]byte, body)...)
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	cases := []struct{ path, want string }{
		{write("lying.npy", "{'descr': '|u1', 'fortran_order': False, 'shape': (100000, 784), }", 10),
			"lying.npy: truncated data: shape [100000 784] of |u1 needs 78400000 bytes, file has 10"},
		{write("huge.npy", "{'descr': '<f8', 'fortran_order': False, 'shape': (1000000000000, 784), }", 10),
			"huge.npy: shape [1000000000000 784] declares more than 134217728 elements, the limit (npyx.MaxElements)"},
	}
	for _, c := range cases {
		if _, err := Load("npy:"+c.path, Options{Binarize: Binarization{Method: Threshold, Threshold: 0.5}}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got %v, want %q", err, c.want)
		}
	}
}

// TestDataDirMustBeADirectory: LOGZ_DATA_DIR (or the option) naming a file
// says so, naming the variable.
func TestDataDirMustBeADirectory(t *testing.T) {
	file := filepath.Join(t.TempDir(), "passwd")
	os.WriteFile(file, []byte("root:x:0:0\n"), 0o644)
	bin := Binarization{Method: Threshold, Threshold: 0.5}
	t.Setenv(EnvDataDir, file)
	want := "mnist:train: LOGZ_DATA_DIR=" + file + " is not a directory (it is a regular file); LOGZ_DATA_DIR must be a directory holding train-images-idx3-ubyte or train-images-idx3-ubyte.gz"
	if _, err := Load("mnist:train", Options{Binarize: bin}); err == nil || err.Error() != want {
		t.Errorf("got  %v\nwant %s", err, want)
	}
	t.Setenv(EnvFashionDir, file)
	want = "fashion-mnist:test: LOGZ_FASHION_DIR=" + file + " is not a directory (it is a regular file); LOGZ_FASHION_DIR must be a directory holding t10k-images-idx3-ubyte"
	if _, err := Load("fashion-mnist:test", Options{Binarize: bin}); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("got  %v\nwant %s", err, want)
	}
	want = "mnist:test: " + file + " (the data directory option) is not a directory (it is a regular file); it must be a directory holding t10k-images-idx3-ubyte"
	if _, err := Load("mnist:test", Options{DataDir: file, Binarize: bin}); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("got  %v\nwant %s", err, want)
	}
}
