package config

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/logz-ml/logz/configs"
	"github.com/logz-ml/logz/family"
	"github.com/logz-ml/logz/models"
)

// bottomFrom finds the files a config's dbn experiments take their bottom
// layers from.
var bottomFrom = regexp.MustCompile(`bottom_from:\s*([^\s,}]+)`)

// shippedConfigs returns the configs in configs/ by name. Some of them
// continue an earlier run (repro-2008-table2 stacks on the RBMs that
// repro-2008-table1 trains, through train.bottom_from, which must exist
// when the config is read); for those, the test moves to a temporary
// directory and puts a small rbm at every path named, so the configs parse
// as they do after their first run.
func shippedConfigs(t *testing.T) map[string]string {
	t.Helper()
	entries, err := fs.Glob(configs.FS, "*.yaml")
	if err != nil || len(entries) < 2 {
		t.Fatalf("configs.FS: %v %v", entries, err)
	}
	t.Chdir(t.TempDir())
	out := map[string]string{}
	for _, name := range entries {
		b, err := configs.FS.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		out[name] = string(b)
		for _, m := range bottomFrom.FindAllStringSubmatch(string(b), -1) {
			p := m[1]
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := models.Save(p, &models.Checkpoint{Model: models.NewRBM(4, 3)}, family.Codecs()); err != nil {
				t.Fatal(err)
			}
		}
	}
	return out
}
