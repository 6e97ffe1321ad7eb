package config_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/logz-ml/logz/config"
	"github.com/logz-ml/logz/family"
	_ "github.com/logz-ml/logz/family/all"
)

// TestEveryKeyHasAMeaning: every key of a config — the top level, an
// experiment, data, evaluate, reference, and every family's model:,
// train: and estimator settings — has a one-line meaning, taken from the
// doc comment of the field that declares it (`logz help config` and
// `logz models` print them).
func TestEveryKeyHasAMeaning(t *testing.T) {
	secs := config.Sections()
	for _, f := range family.All() {
		secs = append(secs, config.FamilySections(f)...)
	}
	n := 0
	for _, s := range secs {
		for _, k := range s.Settings {
			n++
			if k.Doc == "" {
				t.Errorf("%s: key %s has no meaning (give its field a doc comment and run go run ./scripts/genkeydocs)", s.Path, k.Key)
			}
		}
	}
	if n < 200 {
		t.Errorf("only %d keys found", n)
	}
}

// TestKeyDocsUpToDate: config/keydocs_gen.go is what the generator makes
// of the code's doc comments today.
func TestKeyDocsUpToDate(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool")
	}
	cmd := exec.Command(goTool, "run", "./scripts/genkeydocs", "-check")
	cmd.Dir = filepath.Join("..")
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("%v\n%s", err, out)
	}
}
