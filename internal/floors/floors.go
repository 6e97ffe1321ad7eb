// Package floors is the one table of the house's floors: which floor each
// package of the module is on, the few imports allowed sideways within a
// floor, and the moves under way. Its test reads every package's imports
// (non-test files, build constraints applied) and fails on a package on no
// floor, an import of a package above the importer's floor, or one on its
// own floor that is not listed; it also holds docs/architecture.md to this
// table. `go run ./scripts/import-graph` prints the graph floor by floor.
//
// To move a package, add a floor or allow an import, edit the table here
// and the same table in docs/architecture.md.
package floors

import (
	"fmt"
	"go/build"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Module is the module's path.
const Module = "github.com/logz-ml/logz"

// Floor is one floor of the house.
type Floor struct {
	N int
	// Packages are the import paths of its packages, relative to the
	// module ("eval/report"), or prefixes written "dir/…" (every package
	// under dir/ that no other entry names exactly).
	Packages []string
}

// Edge is an import: From imports To (paths relative to the module).
type Edge struct{ From, To string }

func (e Edge) String() string { return e.From + " → " + e.To }

// Floors is the table, from the ground up: a package imports only packages
// on the floors below its own, and on its own floor only what Sideways
// lists.
var Floors = []Floor{
	{0, []string{"internal/…", "sbn/internal/sigpair", "configs"}},
	{1, []string{"models"}},
	{2, []string{"data", "models/modeltest"}},
	{3, []string{"family", "family/familytest", "inference", "inference/chi2", "internal/datafetch"}},
	{4, []string{"train", "eval", "eval/chi2", "eval/report", "sbn", "config", "inference/chi2/chi2test"}},
	{5, []string{"family/kit/sampling"}},
	{6, []string{"family/kit/evalenv"}},
	{7, []string{"family/kit/estim", "family/kit"}},
	{8, []string{"family/rbm", "family/dbn", "family/dbm", "family/ising", "family/mob", "family/sbn", "family/vae"}},
	{9, []string{"family/all", "experiment"}},
	{10, []string{"cmd/logz", "scripts/…"}},
}

// Sideways are the imports allowed within a floor: the internal
// primitives that build on one another, and the families that build on
// another family's glue.
var Sideways = []Edge{
	{"internal/npyx", "internal/regfile"},
	{"internal/imagegrid", "internal/atomicfile"},
	{"internal/workgroup", "internal/seeds"},
	{"sbn/internal/sigpair", "internal/kernel"},
	{"family/dbn", "family/rbm"},
	{"family/dbm", "family/dbn"},
	{"family/dbm", "family/rbm"},
	{"family/vae", "family/rbm"},
}

// Pending are the moves under way: the table above is the house after
// them, and each entry here is what the code still does until its move
// lands. When a move is done its entries fail the test as stale: delete
// them (nothing else changes).
var Pending = struct {
	// Edges are imports still allowed though the table forbids them.
	Edges []Edge
	// Packages are table entries with no package yet.
	Packages []string
}{}

// Package is one package of the module and the module packages its
// non-test files import.
type Package struct {
	Path    string // relative to the module
	Imports []string
}

// Load lists the module's packages under root (its go.mod folder) with
// the module packages their non-test files import (go/build: build
// constraints of this platform applied), sorted by path. Folders named
// testdata or starting with "." or "_" are skipped, as the go tool does.
func Load(root string) ([]Package, error) {
	var out []Package
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		if n := d.Name(); path != root && (n == "testdata" || strings.HasPrefix(n, ".") || strings.HasPrefix(n, "_")) {
			return filepath.SkipDir
		}
		pkg, err := build.ImportDir(path, 0)
		if _, none := err.(*build.NoGoError); none {
			return nil
		}
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		p := Package{Path: filepath.ToSlash(rel)}
		for _, imp := range pkg.Imports {
			if strings.HasPrefix(imp, Module+"/") {
				p.Imports = append(p.Imports, strings.TrimPrefix(imp, Module+"/"))
			}
		}
		out = append(out, p)
		return nil
	})
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, err
}

// FloorOf returns the floor of package path (relative to the module): the
// floor of the entry naming it exactly, else of the longest prefix entry
// "dir/…" it is under; false when none.
func FloorOf(path string) (int, bool) {
	best, floor := -1, 0
	for _, f := range Floors {
		for _, p := range f.Packages {
			if p == path {
				return f.N, true
			}
			if dir, ok := strings.CutSuffix(p, "/…"); ok && strings.HasPrefix(path, dir+"/") && len(dir) > best {
				best, floor = len(dir), f.N
			}
		}
	}
	return floor, best >= 0
}

// Check returns what is wrong with pkgs against the table, one line each:
// packages on no floor, imports up or sideways that are not allowed,
// allowed imports and table entries that no longer exist (a move that has
// landed leaves its Pending entries stale).
func Check(pkgs []Package) []string {
	var bad []string
	exists := map[string]bool{}
	edges := map[Edge]bool{}
	for _, p := range pkgs {
		exists[p.Path] = true
		for _, imp := range p.Imports {
			edges[Edge{p.Path, imp}] = true
		}
	}
	allowed := map[Edge]string{}
	for _, e := range Sideways {
		allowed[e] = "Sideways"
	}
	for _, e := range Pending.Edges {
		allowed[e] = "Pending.Edges"
	}
	for _, p := range pkgs {
		from, ok := FloorOf(p.Path)
		if !ok {
			bad = append(bad, fmt.Sprintf("%s is on no floor: add it to the table (internal/floors and docs/architecture.md)", p.Path))
			continue
		}
		for _, imp := range p.Imports {
			to, ok := FloorOf(imp)
			switch {
			case !ok:
				// Reported as a package of its own.
			case to > from:
				bad = append(bad, fmt.Sprintf("%s (floor %d) imports %s (floor %d), above it", p.Path, from, imp, to))
			case to == from && allowed[Edge{p.Path, imp}] == "":
				bad = append(bad, fmt.Sprintf("%s imports %s sideways, both on floor %d, and Sideways does not list it", p.Path, imp, from))
			}
		}
	}
	for _, e := range append(append([]Edge(nil), Sideways...), Pending.Edges...) {
		if !edges[e] {
			bad = append(bad, fmt.Sprintf("%s: %s imports it no more; delete it from %s", e, e.From, allowed[e]))
		}
	}
	pending := map[string]bool{}
	for _, p := range Pending.Packages {
		pending[p] = true
		if exists[p] {
			bad = append(bad, fmt.Sprintf("%s exists now; delete it from Pending.Packages", p))
		}
	}
	for _, f := range Floors {
		for _, p := range f.Packages {
			if dir, prefix := strings.CutSuffix(p, "/…"); prefix {
				if !anyUnder(exists, dir) {
					bad = append(bad, fmt.Sprintf("floor %d: no package under %s/", f.N, dir))
				}
			} else if !exists[p] && !pending[p] {
				bad = append(bad, fmt.Sprintf("floor %d: %s is no package of the module", f.N, p))
			}
		}
	}
	return bad
}

func anyUnder(exists map[string]bool, dir string) bool {
	for p := range exists {
		if strings.HasPrefix(p, dir+"/") {
			return true
		}
	}
	return false
}
