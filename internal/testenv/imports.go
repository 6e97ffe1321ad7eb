package testenv

import (
	"go/build"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Module is the module path of logz.
const Module = "github.com/logz-ml/logz"

// CheckImports fails t when the package pkg (a path inside the module, e.g.
// "data"), with everything it imports, depends on a package of the module
// that allowed (given paths inside the module) rejects, naming the chain of
// imports that leads to it. The packages are read with go/build from their
// folders (build constraints applied, test files excluded), so this is
// what `go list -deps` reports. The test runs in a folder one level below
// the module root.
func CheckImports(t *testing.T, pkg string, allowed func(path string) bool) {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(root, "go.mod")); err != nil || !strings.HasPrefix(string(b), "module "+Module+"\n") {
		t.Fatalf("%s is not the root of %s: %v", root, Module, err)
	}
	start := Module + "/" + pkg
	seen := map[string]string{start: ""} // package → an importer
	queue := []string{start}
	for len(queue) > 0 {
		path := queue[0]
		queue = queue[1:]
		p, err := build.ImportDir(filepath.Join(root, strings.TrimPrefix(path, Module)), 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range p.Imports {
			if imp != Module && !strings.HasPrefix(imp, Module+"/") {
				continue
			}
			if _, ok := seen[imp]; ok {
				continue
			}
			seen[imp] = path
			if !allowed(strings.TrimPrefix(imp, Module+"/")) {
				chain := imp
				for q := path; q != ""; q = seen[q] {
					chain = q + " → " + chain
				}
				t.Errorf("%s depends on %s: %s", pkg, imp, chain)
				continue
			}
			queue = append(queue, imp)
		}
	}
}
