package main

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestResumeFlag: --resume on a folder that holds no run is a usage error
// that says to drop --resume and makes no folder; --resume=auto starts the
// run there and then continues it; any other value is refused.
func TestResumeFlag(t *testing.T) {
	dir := t.TempDir()
	cfg := writeConfig(t, dir, strings.Replace(tinyConfig, "epochs: 4", "epochs: 1", 1))
	out := filepath.Join(dir, "typo")
	_, _, err := runLogz(t, "run", cfg, "--out", out, "--resume")
	var ue usageError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), out+" holds no run to continue") || !strings.Contains(err.Error(), "drop --resume") {
		t.Fatalf("--resume into a new folder: got %v, want a usage error saying to drop --resume", err)
	}
	if _, err := os.Stat(out); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("a refused --resume made %s: %v", out, err)
	}
	if _, _, err := runLogz(t, "run", cfg, "--out", out, "--resume=maybe"); !errors.As(err, &ue) || !strings.Contains(err.Error(), "expected --resume, --resume=auto or --resume=false") {
		t.Fatalf("--resume=maybe: got %v", err)
	}
	_, stderr, err := runLogz(t, "run", cfg, "--out", out, "--resume=auto")
	if err != nil || !strings.Contains(stderr, "holds no run yet; starting one") {
		t.Fatalf("--resume=auto into a new folder: %v\n%s", err, stderr)
	}
	_, stderr, err = runLogz(t, "run", cfg, "--out", out, "--resume=auto")
	if err != nil || !strings.Contains(stderr, "finished before") {
		t.Fatalf("--resume=auto of a finished run: %v\n%s", err, stderr)
	}
	if _, _, err := runLogz(t, "run", cfg, "--out", out, "--resume=auto", "--force"); err == nil || !strings.Contains(err.Error(), "contradict") {
		t.Fatalf("--resume=auto --force: got %v", err)
	}
}

// TestConfigWarningsPrinted: logz run prints the config's warnings (here
// binarize: threshold on planted data, which is 0/1 already) when it reads
// the file, and runs.
func TestConfigWarningsPrinted(t *testing.T) {
	dir := t.TempDir()
	text := strings.Replace(tinyConfig, "epochs: 4", "epochs: 1", 1)
	text = strings.Replace(text, "planted: {train: 400, test: 200}}", "planted: {train: 400, test: 200}, binarize: threshold}", 1)
	cfg := writeConfig(t, dir, text)
	_, stderr, err := runLogz(t, "run", cfg, "--out", filepath.Join(dir, "run"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "logz: warning: " + cfg + ":4: base.data.binarize: threshold has no effect"; !strings.Contains(stderr, want) {
		t.Errorf("stderr lacks %q:\n%s", want, stderr)
	}
}
