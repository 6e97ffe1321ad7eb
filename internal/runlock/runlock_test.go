//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package runlock

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// flock locks belong to an open file, so two Acquire calls in one process
// conflict just as two processes do.

func TestModesConflict(t *testing.T) {
	for _, c := range []struct {
		name        string
		first, then Mode
		busy        bool
	}{
		{"exclusive then exclusive", Exclusive, Exclusive, true},
		{"exclusive then shared", Exclusive, Shared, true},
		{"shared then exclusive", Shared, Exclusive, true},
		{"shared then shared", Shared, Shared, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			a, err := Acquire(dir, c.first)
			if err != nil {
				t.Fatal(err)
			}
			b, err := Acquire(dir, c.then)
			if !c.busy {
				if err != nil {
					t.Fatalf("second lock refused: %v", err)
				}
				b.Release()
				a.Release()
				return
			}
			var be *BusyError
			if !errors.As(err, &be) {
				t.Fatalf("second lock: got %v, want a BusyError", err)
			}
			want := fmt.Sprintf("%s is in use by logz (pid %d, started ", dir, os.Getpid())
			if !strings.HasPrefix(err.Error(), want) {
				t.Errorf("got %q, want it to start with %q", err, want)
			}
			a.Release()
			c, err := Acquire(dir, c.then)
			if err != nil {
				t.Fatalf("after release: %v", err)
			}
			c.Release()
		})
	}
}

func TestSharedHoldersAllNamed(t *testing.T) {
	dir := t.TempDir()
	a, err := Acquire(dir, Shared)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Release()
	b, err := Acquire(dir, Shared)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Release()
	_, err = Acquire(dir, Exclusive)
	var be *BusyError
	if !errors.As(err, &be) || len(be.Holders) != 2 {
		t.Fatalf("got %v, want a BusyError naming the two shards", err)
	}
}

func TestNotesOfDeadHoldersDropped(t *testing.T) {
	dir := t.TempDir()
	// A note left by a process that no longer exists (pid 2^22+1 is beyond
	// Linux's pid_max default) and no lock held: the folder is free, and
	// the stale note is cleared by the next holder.
	if err := os.WriteFile(filepath.Join(dir, File), []byte("4194305\t2026-01-01T00:00:00Z\tlogz run x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := holders(filepath.Join(dir, File)); len(got) != 0 {
		t.Errorf("holders of a dead pid: %q", got)
	}
	l, err := Acquire(dir, Exclusive)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()
	b, _ := os.ReadFile(filepath.Join(dir, File))
	if strings.Contains(string(b), "4194305") || !strings.HasPrefix(string(b), fmt.Sprint(os.Getpid())) {
		t.Errorf("lock file after acquire: %q", b)
	}
}

func TestSymlinkedLockFileRefused(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(t.TempDir(), "user-file")
	if err := os.WriteFile(target, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, filepath.Join(dir, File)); err != nil {
		t.Fatal(err)
	}
	_, err := Acquire(dir, Exclusive)
	if err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Fatalf("got %v, want a symbolic-link error", err)
	}
	if b, _ := os.ReadFile(target); string(b) != "mine" {
		t.Errorf("the link's target was written: %q", b)
	}
}

// TestKilledHolderReleases holds the lock in a child process, kills it with
// SIGKILL and takes the lock: the kernel released it.
func TestKilledHolderReleases(t *testing.T) {
	if dir := os.Getenv("RUNLOCK_HOLD"); dir != "" {
		if _, err := Acquire(dir, Exclusive); err != nil {
			fmt.Println("error:", err)
			os.Exit(1)
		}
		fmt.Println("held")
		time.Sleep(time.Minute)
		os.Exit(0)
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestKilledHolderReleases$")
	cmd.Env = append(os.Environ(), "RUNLOCK_HOLD="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 5)
	if _, err := out.Read(buf); err != nil || string(buf[:4]) != "held" {
		cmd.Process.Kill()
		t.Fatalf("child: %q %v", buf, err)
	}
	_, err = Acquire(dir, Exclusive)
	var be *BusyError
	if !errors.As(err, &be) || !strings.Contains(err.Error(), fmt.Sprintf("pid %d,", cmd.Process.Pid)) {
		cmd.Process.Kill()
		t.Fatalf("while the child holds it: %v", err)
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	l, err := Acquire(dir, Exclusive)
	if err != nil {
		t.Fatalf("after kill -9: %v", err)
	}
	l.Release()
}

func TestWithSetupSerialises(t *testing.T) {
	dir := t.TempDir()
	var in, most atomic.Int32
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			WithSetup(dir, func() error {
				n := in.Add(1)
				for {
					m := most.Load()
					if n <= m || most.CompareAndSwap(m, n) {
						break
					}
				}
				time.Sleep(2 * time.Millisecond)
				in.Add(-1)
				return nil
			})
		}()
	}
	wg.Wait()
	if most.Load() != 1 {
		t.Errorf("%d setups ran at once", most.Load())
	}
}
