// Package runlock keeps two logz processes from writing one run folder at
// once. A writer holds an advisory lock (flock(2)) on the folder's lock
// file, .logz.lock, for its whole life; the kernel drops the lock when the
// process exits, however it exits, so kill -9 never leaves a stale lock.
//
// Two modes: Exclusive for a writer that owns the folder (a run, a resumed
// or forced run, a merge, a redraw of the report), Shared for the shards of
// a sharded run, which write only their own part files and so never block
// each other but are refused while an exclusive writer is there, and
// refuse it in turn. The holders note their pid, start time and command in
// the lock file, so a refused writer can say who holds the folder.
//
// Setup, the short step in which a shard checks the folder and writes its
// config, is serialised by WithSetup, a lock on the folder itself, so shards
// started together into a new folder see each other's config.
package runlock

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// File is the name of the lock file in a run folder.
const File = ".logz.lock"

// Mode is how a lock is held.
type Mode int

const (
	// Exclusive: the only writer of the folder.
	Exclusive Mode = iota
	// Shared: one of several shards, each writing only its own files.
	Shared
)

// Lock is a held lock; Release drops it (exiting the process does too).
type Lock struct {
	f *os.File
}

// BusyError is returned when another process holds the folder.
type BusyError struct {
	Dir string
	// Holders lists the live processes noted in the lock file, each as
	// "pid N, started T: command"; empty if none could be read.
	Holders []string
}

func (e *BusyError) Error() string {
	who := "another process"
	if len(e.Holders) > 0 {
		who = strings.Join(e.Holders, "; ")
	}
	return fmt.Sprintf("%s is in use by logz (%s); wait for it to finish, or use another folder", e.Dir, who)
}

// Acquire takes the lock on the run folder dir, which must exist, in the
// given mode, without waiting: if another process holds it in a mode that
// conflicts, it returns a *BusyError naming that process. The lock file must
// not be a symbolic link.
func Acquire(dir string, mode Mode) (*Lock, error) {
	path := filepath.Join(dir, File)
	f, err := openNoFollow(path)
	if err != nil {
		return nil, err
	}
	l := &Lock{f: f}
	note := holderLine()
	switch mode {
	case Exclusive:
		if err := tryLock(f, true); err != nil {
			f.Close()
			return nil, busyOr(dir, path, err)
		}
		if err := l.rewrite(note); err != nil {
			l.Release()
			return nil, err
		}
	case Shared:
		// One shard at a time (WithSetup), so that shards never see each
		// other's brief exclusive hold. Alone: clear the notes of earlier
		// holders, then share. Not alone (other shards share it): add this
		// one's note.
		err := WithSetup(dir, func() error {
			if tryLock(f, true) == nil {
				if err := l.rewrite(note); err != nil {
					return err
				}
				return tryLock(f, false)
			}
			if err := tryLock(f, false); err != nil {
				return err
			}
			return l.appendNote(note)
		})
		if err != nil {
			f.Close()
			return nil, busyOr(dir, path, err)
		}
	default:
		f.Close()
		return nil, fmt.Errorf("runlock: unknown mode %d", mode)
	}
	return l, nil
}

// Release drops the lock. The lock file stays (removing it would let two
// processes lock two different files of the same name).
func (l *Lock) Release() error {
	if l == nil || l.f == nil {
		return nil
	}
	err := l.f.Close()
	l.f = nil
	return err
}

// IsLockFile reports whether name is the lock file's name, which folder
// checks ignore (a folder holding only it is empty).
func IsLockFile(name string) bool { return name == File }

func (l *Lock) rewrite(note string) error {
	if err := l.f.Truncate(0); err != nil {
		return fmt.Errorf("runlock: %w", err)
	}
	_, err := l.f.WriteAt([]byte(note), 0)
	if err != nil {
		return fmt.Errorf("runlock: %w", err)
	}
	return nil
}

func (l *Lock) appendNote(note string) error {
	fi, err := l.f.Stat()
	if err != nil {
		return fmt.Errorf("runlock: %w", err)
	}
	if _, err := l.f.WriteAt([]byte(note), fi.Size()); err != nil {
		return fmt.Errorf("runlock: %w", err)
	}
	return nil
}

// holderLine is this process's note: "pid<TAB>start<TAB>command\n".
func holderLine() string {
	cmd := strings.Join(append([]string{filepath.Base(os.Args[0])}, os.Args[1:]...), " ")
	if len(cmd) > 200 {
		cmd = cmd[:200] + "…"
	}
	cmd = strings.NewReplacer("\n", " ", "\t", " ").Replace(cmd)
	return fmt.Sprintf("%d\t%s\t%s\n", os.Getpid(), time.Now().UTC().Format(time.RFC3339), cmd)
}

// busyOr turns a failed lock attempt into a BusyError when the lock was
// held by another process, naming the live holders noted in the file.
func busyOr(dir, path string, err error) error {
	if !errors.Is(err, errBusy) {
		if strings.Contains(err.Error(), path) {
			return err
		}
		return fmt.Errorf("locking %s: %w", path, err)
	}
	return &BusyError{Dir: dir, Holders: holders(path)}
}

// holders reads the notes in the lock file and keeps those of live
// processes.
func holders(path string) []string {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var out []string
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.SplitN(line, "\t", 3)
		if len(f) != 3 {
			continue
		}
		pid, err := strconv.Atoi(f[0])
		if err != nil || !alive(pid) {
			continue
		}
		out = append(out, fmt.Sprintf("pid %d, started %s: %s", pid, f[1], f[2]))
	}
	return out
}

var errBusy = errors.New("held by another process")
