package experiment_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/logz-ml/logz/config"
	"github.com/logz-ml/logz/experiment"
	"github.com/logz-ml/logz/internal/runlock"
)

// A run folder has one writer. flock(2) locks belong to an open file, so a
// lock taken here conflicts with the runs below exactly as another
// process's would (internal/runlock tests the cross-process case,
// kill -9 included).

// TestSecondWriterRefused: while a run holds its folder, every other
// writer — run, --resume, --force, merge, plot, a shard — is refused at
// once, naming the holder, and changes nothing; while a shard holds it,
// another shard goes on but a run is refused.
func TestSecondWriterRefused(t *testing.T) {
	done := t.TempDir()
	if _, err := runTiny(t, tiny(t, "1", "3"), experiment.Options{Out: done}); err != nil {
		t.Fatal(err)
	}
	fresh := filepath.Join(t.TempDir(), "new")
	if err := os.Mkdir(fresh, 0o755); err != nil {
		t.Fatal(err)
	}
	writers := []struct {
		name string
		dir  string
		run  func(dir string) error
	}{
		{"run into a new folder", fresh, func(dir string) error {
			_, err := runTiny(t, tiny(t, "1", "3"), experiment.Options{Out: dir})
			return err
		}},
		{"run --resume", done, func(dir string) error {
			_, err := runTiny(t, tiny(t, "1", "3"), experiment.Options{Out: dir, Resume: true})
			return err
		}},
		{"run --force with another config", done, func(dir string) error {
			_, err := runTiny(t, tiny(t, "5", "2"), experiment.Options{Out: dir, Force: true})
			return err
		}},
		{"merge", done, func(dir string) error { return merge(t, dir) }},
		{"plot", done, func(dir string) error {
			release, err := experiment.LockFolder(dir)
			if err == nil {
				release()
			}
			return err
		}},
		{"shard", fresh, func(dir string) error {
			_, err := runShard(t, tiny(t, "1", "3"), dir, 0, 2, experiment.PhaseTrain)
			return err
		}},
	}
	for _, w := range writers {
		t.Run(w.name, func(t *testing.T) {
			before := snapshot(t, w.dir)
			held, err := runlock.Acquire(w.dir, runlock.Exclusive)
			if err != nil {
				t.Fatal(err)
			}
			err = w.run(w.dir)
			held.Release()
			var fe *experiment.FolderError
			want := fmt.Sprintf("%s is in use by logz (pid %d, started ", w.dir, os.Getpid())
			if !errors.As(err, &fe) || !strings.Contains(err.Error(), want) {
				t.Fatalf("got %v, want a FolderError containing %q", err, want)
			}
			unchanged(t, before, snapshot(t, w.dir))
		})
	}

	t.Run("run while a shard holds the folder", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "sharded")
		os.Mkdir(dir, 0o755)
		held, err := runlock.Acquire(dir, runlock.Shared)
		if err != nil {
			t.Fatal(err)
		}
		defer held.Release()
		if _, err := runShard(t, tiny(t, "1", "3"), dir, 1, 2, experiment.PhaseTrain); err != nil {
			t.Fatalf("a shard beside another: %v", err)
		}
		_, err = runTiny(t, tiny(t, "1", "3"), experiment.Options{Out: dir, Resume: true})
		if err == nil || !strings.Contains(err.Error(), "is in use by logz (pid ") {
			t.Fatalf("a run beside a shard: got %v, want it refused", err)
		}
		if err := merge(t, dir); err == nil || !strings.Contains(err.Error(), "is in use by logz (pid ") {
			t.Fatalf("a merge beside a shard: got %v, want it refused", err)
		}
	})
}

// TestFreedByFinishedWriter: the lock goes with the writer; a finished run
// leaves nothing that refuses the next (the lock file stays, ignored: a
// folder holding only it is empty).
func TestFreedByFinishedWriter(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "x")
	os.Mkdir(dir, 0o755)
	l, err := runlock.Acquire(dir, runlock.Exclusive)
	if err != nil {
		t.Fatal(err)
	}
	l.Release()
	if _, err := runTiny(t, tiny(t, "1", "3"), experiment.Options{Out: dir}); err != nil {
		t.Fatalf("a folder holding only a released lock file: %v", err)
	}
	if _, err := runTiny(t, tiny(t, "1", "3"), experiment.Options{Out: dir, Resume: true}); err != nil {
		t.Fatalf("--resume after the run ended: %v", err)
	}
	// A folder of someone else's files gets no lock file.
	stranger := t.TempDir()
	os.WriteFile(filepath.Join(stranger, "notes.txt"), []byte("mine"), 0o644)
	if _, err := runTiny(t, tiny(t, "1", "3"), experiment.Options{Out: stranger}); err == nil {
		t.Fatal("a stranger's folder was accepted")
	}
	if _, err := os.Stat(filepath.Join(stranger, runlock.File)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a lock file was left in a folder that holds no run: %v", err)
	}
	if _, err := runTiny(t, tiny(t, "1", "3"), experiment.Options{Out: ""}); err == nil || !strings.Contains(err.Error(), "empty --out") {
		t.Errorf("empty --out: got %v", err)
	}
}

// TestSymlinksRefused: a run never writes or deletes through a symbolic
// link in its folder (an experiment folder, a run file, a file in an
// experiment folder, the parts folder), with --force, --resume or neither;
// the user's files behind the link are untouched. The run folder itself
// may be a link.
func TestSymlinksRefused(t *testing.T) {
	done := t.TempDir()
	if _, err := runTiny(t, tiny(t, "1", "3"), experiment.Options{Out: done}); err != nil {
		t.Fatal(err)
	}
	mine := t.TempDir() // the user's own folder
	for _, n := range []string{"model.npz", "epochs.csv", "results.json"} {
		os.WriteFile(filepath.Join(mine, n), []byte("the user's "+n), 0o644)
	}
	cases := []struct {
		name  string
		setup func(t *testing.T, dir string) // dir: a copy of a finished run
		link  string
		opt   experiment.Options
	}{
		{"experiment folder, --force", func(t *testing.T, dir string) {
			os.RemoveAll(filepath.Join(dir, "a"))
			os.Symlink(mine, filepath.Join(dir, "a"))
		}, "a", experiment.Options{Force: true}},
		{"experiment folder, --resume", func(t *testing.T, dir string) {
			os.RemoveAll(filepath.Join(dir, "a"))
			os.Symlink(mine, filepath.Join(dir, "a"))
		}, "a", experiment.Options{Resume: true}},
		{"experiment folder of the old run only, --force", func(t *testing.T, dir string) {
			// b is not an experiment of the forcing config (one experiment a)
			os.RemoveAll(filepath.Join(dir, "b"))
			os.Symlink(mine, filepath.Join(dir, "b"))
		}, "b", experiment.Options{Force: true}},
		{"results.json, --force", func(t *testing.T, dir string) {
			os.Remove(filepath.Join(dir, "results.json"))
			os.Symlink(filepath.Join(mine, "results.json"), filepath.Join(dir, "results.json"))
		}, "results.json", experiment.Options{Force: true}},
		{"model.npz in an experiment folder, --resume", func(t *testing.T, dir string) {
			os.Remove(filepath.Join(dir, "a", "model.npz"))
			os.Symlink(filepath.Join(mine, "model.npz"), filepath.Join(dir, "a", "model.npz"))
		}, filepath.Join("a", "model.npz"), experiment.Options{Resume: true}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			copyDir(t, done, dir)
			c.setup(t, dir)
			before := snapshot(t, mine)
			c.opt.Out = dir
			f := tiny(t, "1", "3")
			if c.opt.Force {
				f.Experiments = f.Experiments[:1]
			}
			_, err := runTiny(t, f, c.opt)
			link := filepath.Join(dir, c.link)
			var fe *experiment.FolderError
			if !errors.As(err, &fe) || !strings.Contains(err.Error(), link+" (→ ") || !strings.Contains(err.Error(), "is a symbolic link") {
				t.Fatalf("got %v, want a FolderError naming %s as a symbolic link", err, link)
			}
			unchanged(t, before, snapshot(t, mine))
			if _, err := os.Lstat(link); err != nil {
				t.Errorf("the link was removed: %v", err)
			}
		})
	}
	t.Run("the run folder itself a link", func(t *testing.T) {
		real := t.TempDir()
		link := filepath.Join(t.TempDir(), "out")
		os.Symlink(real, link)
		if _, err := runTiny(t, tiny(t, "1", "3"), experiment.Options{Out: link}); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(filepath.Join(real, config.ResultsFile)); err != nil {
			t.Error(err)
		}
	})
}

// TestShardsStartedTogether: 8 shards started at once into a new folder
// all succeed, 20 times over: the first writes the config, the others find
// it. Two things make it so, each enough alone (mutations: this test fails
// only with both undone): shards set the folder up one at a time, and a
// folder holding only a temporary file of a config being written counts as
// empty. And a shard setting up while another trains must not take a
// checkpoint for a run made without --shard: the trainer writes its part
// before its first checkpoint, and the check looks for the model before
// the part (with either undone this failed about once in 10-15 runs of the
// test on a loaded machine, `-count=25`; with both, 25 of 25 passed).
func TestShardsStartedTogether(t *testing.T) {
	f := tiny(t, "1", "3")
	root := t.TempDir()
	for trial := range 20 {
		dir := filepath.Join(root, fmt.Sprint(trial))
		var wg sync.WaitGroup
		errs := make([]error, 8)
		for i := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, errs[i] = runShard(t, f, dir, i, 8, experiment.PhaseTrain)
			}()
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Fatalf("trial %d, shard %d/8: %v", trial, i, err)
			}
		}
	}
}
