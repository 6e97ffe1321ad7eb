package experiment_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/logz-ml/logz/experiment"
	"github.com/logz-ml/logz/family"
	"github.com/logz-ml/logz/models"
)

// TestDrawImagesSaysWhat (issue 25, item 12): DrawImages lists only the
// pictures it drew (an Ising model has no filters: model.npz draws none)
// and, as not redrawn, a picture whose file is gone.
func TestDrawImagesSaysWhat(t *testing.T) {
	for _, c := range []struct {
		name  string
		files []string // besides model.npz of a 2×3 Ising model
		want  string   // Drawn, Stale
	}{
		{"ising model", nil, "[] []"},
		{"ising model, old filters.png", []string{experiment.FiltersPNG}, "[] []"},
		{"samples.png without samples.npy", []string{experiment.SamplesPNG}, "[] [samples.png (no samples.npy)]"},
		{"completion.png without its files", []string{experiment.CompletionName + ".png"}, "[] [completion.png (no completion.npy)]"},
		{"completion.png without completion.json", []string{experiment.CompletionName + ".png", experiment.CompletionName + ".npy"}, "[] [completion.png (no completion.json)]"},
	} {
		dir := t.TempDir()
		if err := models.Save(filepath.Join(dir, "model.npz"), &models.Checkpoint{Model: models.NewIsing(2, 3, models.SpinsPM1)}, family.Codecs()); err != nil {
			t.Fatal(err)
		}
		for _, f := range c.files {
			os.WriteFile(filepath.Join(dir, f), []byte("old"), 0o644)
		}
		r, err := experiment.DrawImages(dir)
		if got := fmt.Sprint(r.Drawn, " ", r.Stale); err != nil || got != c.want {
			t.Errorf("%s: %q, %v; want %q", c.name, got, err, c.want)
		}
		for _, f := range c.files {
			if b, _ := os.ReadFile(filepath.Join(dir, f)); string(b) != "old" {
				t.Errorf("%s: %s was changed", c.name, f)
			}
		}
	}
}
