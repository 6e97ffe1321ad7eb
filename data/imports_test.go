package data

import (
	"go/build"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestImportsStayLow: data, with everything it imports, needs no package of
// the module above models and internal — no trainer, estimator or family.
// The module's packages are read with go/build from their folders (build
// constraints applied, test files excluded), so this is what
// `go list -deps ./data` reports.
func TestImportsStayLow(t *testing.T) {
	const module = "github.com/logz-ml/logz"
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(root, "go.mod")); err != nil || !strings.HasPrefix(string(b), "module "+module+"\n") {
		t.Fatalf("%s is not the root of %s: %v", root, module, err)
	}
	allowed := func(path string) bool {
		return path == module+"/data" || path == module+"/models" || strings.HasPrefix(path, module+"/models/") || strings.HasPrefix(path, module+"/internal/")
	}
	seen := map[string]string{module + "/data": ""} // package → an importer
	queue := []string{module + "/data"}
	for len(queue) > 0 {
		path := queue[0]
		queue = queue[1:]
		pkg, err := build.ImportDir(filepath.Join(root, strings.TrimPrefix(path, module)), 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range pkg.Imports {
			if imp != module && !strings.HasPrefix(imp, module+"/") {
				continue
			}
			if _, ok := seen[imp]; ok {
				continue
			}
			seen[imp] = path
			if !allowed(imp) {
				chain := imp
				for p := path; p != ""; p = seen[p] {
					chain = p + " → " + chain
				}
				t.Errorf("data depends on %s, above models and internal: %s", imp, chain)
				continue
			}
			queue = append(queue, imp)
		}
	}
}
