package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/logz-ml/logz/family"
	"github.com/logz-ml/logz/internal/npyx"
	"github.com/logz-ml/logz/models"
)

// TestExport: logz export writes a run's model without any state_ array
// or meta train, and logz eval of it reproduces every final number of the
// run bit for bit (its record is kept, so the run's data are read); it
// replaces nothing (an existing --out, the --model itself), and --resume
// refuses a run whose model.npz is such a file, changing nothing.
func TestExport(t *testing.T) {
	cfg, _, part := killedAfterEpoch2(t, t.TempDir(), tinyConfig, "pcd")
	full := filepath.Join(filepath.Dir(part), "full")
	model := filepath.Join(full, "pcd", "model.npz")
	out := filepath.Join(t.TempDir(), "pcd.npz")
	stdout, _, err := runLogz(t, "export", "--model", model, "--out", out)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stdout, "wrote the rbm of "+model+" (epoch 4) without the trainer's state to "+out) {
		t.Errorf("stdout: %q", stdout)
	}
	arrays, err := npyx.ReadNPZ(out)
	if err != nil {
		t.Fatal(err)
	}
	for name := range arrays {
		if strings.HasPrefix(name, models.StatePrefix) {
			t.Errorf("%s holds the trainer's array %s", out, name)
		}
	}
	orig, exported := loadCheckpoint(t, model), loadCheckpoint(t, out)
	if orig.Meta.ModelOnly || !exported.Meta.ModelOnly || len(exported.State)+len(exported.Bytes) > 0 || exported.Meta.Train != nil {
		t.Fatalf("model only: checkpoint %v, exported %v (%d state arrays, %d state bytes, train %s); want false, true (none)",
			orig.Meta.ModelOnly, exported.Meta.ModelOnly, len(exported.State), len(exported.Bytes), exported.Meta.Train)
	}
	if exported.Meta.Epoch != 4 || exported.Meta.Run == nil || exported.Meta.Run.Config != orig.Meta.Run.Config {
		t.Errorf("exported meta: epoch %d, run record %v; want epoch 4 and the run's record", exported.Meta.Epoch, exported.Meta.Run != nil)
	}
	requireSameNumbers(t, finalOf(t, full, "pcd"), evalList(t, "--model", out))

	// Nothing is replaced.
	before, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var ue usageError
	if _, _, err := runLogz(t, "export", "--model", model, "--out", out); !errors.As(err, &ue) || !strings.Contains(err.Error(), out+" exists") {
		t.Errorf("export onto an existing file: got %v, want a usage error saying it exists", err)
	}
	if after, _ := os.ReadFile(out); !bytes.Equal(before, after) {
		t.Error("a refused export changed the existing file")
	}
	if _, _, err := runLogz(t, "export", "--model", out, "--out", out); !errors.As(err, &ue) || !strings.Contains(err.Error(), "is the file --model reads") {
		t.Errorf("export onto the model read: got %v", err)
	}
	for _, args := range [][]string{{"export", "--model", model}, {"export", "--out", out + "2"}, {"export", "--model", model, "--out", out + "2", "extra"}} {
		if _, _, err := runLogz(t, args...); !errors.As(err, &ue) {
			t.Errorf("%q: got %v, want a usage error", args, err)
		}
	}
	if _, _, err := runLogz(t, "export", "--model", filepath.Join(full, "nothing.npz"), "--out", out+"3"); err == nil || !strings.Contains(err.Error(), "nothing.npz") {
		t.Errorf("export of a missing file: got %v, want an error naming it", err)
	}

	// --resume refuses a run whose model.npz is an exported file.
	ckpt := filepath.Join(part, "pcd", "model.npz")
	if err := os.Remove(ckpt); err != nil {
		t.Fatal(err)
	}
	if _, _, err := runLogz(t, "export", "--model", filepath.Join(filepath.Dir(part), "short", "pcd", "model.npz"), "--out", ckpt); err != nil {
		t.Fatal(err)
	}
	results, err := os.ReadFile(filepath.Join(part, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = runLogz(t, "run", cfg, "--out", part, "--resume")
	if err == nil || !strings.Contains(err.Error(), ckpt+" holds the model without the trainer's state") || !strings.Contains(err.Error(), "not resumed") {
		t.Fatalf("--resume from an exported model: got %v, want it refused", err)
	}
	if after, _ := os.ReadFile(filepath.Join(part, "results.json")); !bytes.Equal(results, after) {
		t.Error("the refused --resume changed results.json")
	}
}

func loadCheckpoint(t *testing.T, path string) *models.Checkpoint {
	t.Helper()
	c, err := models.Load(path, family.Codecs())
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestExportKeepsTrackedProposal: a run that tracks a χ² proposal keeps it
// in model.npz (track_2_); logz export keeps it too (and only it), so that
// logz eval of the exported file warm-starts the χ² estimate from the same
// q and gives the numbers of the checkpoint, bit for bit.
func TestExportKeepsTrackedProposal(t *testing.T) {
	dir := t.TempDir()
	run := filepath.Join(dir, "run")
	cfg := writeConfig(t, dir, strings.Replace(chi2Config, "epochs: 4", "epochs: 2", 1))
	if _, errOut, err := runLogz(t, "run", cfg, "--out", run); err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	model := filepath.Join(run, "cd", "model.npz")
	out := filepath.Join(dir, "cd.npz")
	if _, _, err := runLogz(t, "export", "--model", model, "--out", out); err != nil {
		t.Fatal(err)
	}
	orig, exported := loadCheckpoint(t, model), loadCheckpoint(t, out)
	var kept []string
	for k := range exported.State {
		kept = append(kept, k)
	}
	for k := range exported.Bytes {
		kept = append(kept, k)
	}
	sort.Strings(kept)
	if want := "track_2_adam_m track_2_adam_s track_2_kind track_2_params track_2_scalars track_2_shape"; strings.Join(kept, " ") != want {
		t.Errorf("the exported file keeps the state %q, want %q", strings.Join(kept, " "), want)
	}
	if len(orig.State)+len(orig.Bytes) <= len(kept) {
		t.Errorf("the checkpoint holds %d state entries, the exported file %d: nothing of the trainer's was left out", len(orig.State)+len(orig.Bytes), len(kept))
	}
	args := []string{"--data", "planted:test", "--estimator", "chi2", "--components", "6"}
	want := evalList(t, append([]string{"--model", model}, args...)...)
	got := evalList(t, append([]string{"--model", out}, args...)...)
	if len(want) != 1 || len(got) != 1 {
		t.Fatalf("rows: checkpoint %d, exported %d; want 1 each", len(want), len(got))
	}
	if !strings.Contains(strings.Join(want[0].Notes, " "), "started from the q tracked across epochs (track_2_)") {
		t.Fatalf("the checkpoint's chi2 row does not start from the tracked q: %q", want[0].Notes)
	}
	if d := sameBits(want[0], got[0], false); d != "" {
		t.Errorf("exported: %s", d)
	}
}
