package floors

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func moduleRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(root, "go.mod")); err != nil || !strings.HasPrefix(string(b), "module "+Module+"\n") {
		t.Fatalf("%s is not the root of %s: %v", root, Module, err)
	}
	return root
}

// TestFloors: every package of the module is on a floor of the table and
// imports only packages on the floors below its own, or on its own floor
// what Sideways (or, until its move lands, Pending) lists; every allowed
// import and every entry of the table still exists. It replaces
// data/imports_test.go (data reached nothing above models and internal):
// data is on floor 2. Mutation checked: a file importing family/kit/estim
// in family/kit/sampling (up: floor 5 → 7) fails it, naming both packages
// and floors, and so does deleting the family/vae → family/rbm entry of
// Sideways.
func TestFloors(t *testing.T) {
	pkgs, err := Load(moduleRoot(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(pkgs) < 40 {
		t.Fatalf("found %d packages; the module has more than 40", len(pkgs))
	}
	for _, msg := range Check(pkgs) {
		t.Error(msg)
	}
}

// TestCheckNames: Check names the package, the import and both floors of
// an import up, of one sideways, and a package on no floor; it passes an
// import down and a listed sideways one.
func TestCheckNames(t *testing.T) {
	pkgs := []Package{
		{Path: "models", Imports: []string{"internal/nmath", "data"}},
		{Path: "data", Imports: []string{"models"}},
		{Path: "models/modeltest", Imports: []string{"data"}},
		{Path: "family/dbn", Imports: []string{"family/rbm", "family/mob"}},
		{Path: "nowhere"},
	}
	got := strings.Join(Check(pkgs), "\n")
	for _, want := range []string{
		"models (floor 1) imports data (floor 2), above it",
		"models/modeltest imports data sideways, both on floor 2, and Sideways does not list it",
		"family/dbn imports family/mob sideways, both on floor 8",
		"nowhere is on no floor",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("Check says\n%s\nwithout %q", got, want)
		}
	}
	for _, not := range []string{"data (floor 2) imports", "family/dbn imports family/rbm", "models imports internal"} {
		if strings.Contains(got, not) {
			t.Errorf("Check says\n%s\nwith %q", got, not)
		}
	}
}

var (
	floorRow = regexp.MustCompile(`^\|\s*(\d+)\s*\|([^|]*)\|`)
	code     = regexp.MustCompile("`([^`]+)`")
	edgeRow  = regexp.MustCompile("^\\|\\s*`([^`]+)`\\s*\\|\\s*`([^`]+)`\\s*\\|")
)

// TestDocMatches: the floors table and the sideways table of
// docs/architecture.md are this package's, entry for entry (the packages
// of each floor in the second column, in backticks; the sideways imports
// as `from` | `to` rows), pending moves counted as done. Mutation checked:
// moving `eval/report` to floor 3 in the doc fails it.
func TestDocMatches(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(moduleRoot(t), "docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := map[int][]string{}
	var side []Edge
	section := ""
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "## ") {
			section = strings.TrimPrefix(line, "## ")
			continue
		}
		switch section {
		case "The floors":
			if m := floorRow.FindStringSubmatch(line); m != nil {
				n, _ := strconv.Atoi(m[1])
				for _, c := range code.FindAllStringSubmatch(m[2], -1) {
					doc[n] = append(doc[n], c[1])
				}
			}
		case "Sideways imports":
			if m := edgeRow.FindStringSubmatch(line); m != nil {
				side = append(side, Edge{m[1], m[2]})
			}
		}
	}
	if len(doc) == 0 {
		t.Fatal("docs/architecture.md has no floors table under ## The floors")
	}
	for _, f := range Floors {
		want, got := slices.Sorted(slices.Values(f.Packages)), slices.Sorted(slices.Values(doc[f.N]))
		if !slices.Equal(got, want) {
			t.Errorf("floor %d: docs/architecture.md lists %q, the table %q", f.N, got, want)
		}
		delete(doc, f.N)
	}
	for n, ps := range doc {
		t.Errorf("docs/architecture.md has a floor %d (%q) the table has not", n, ps)
	}
	if !slices.Equal(side, Sideways) {
		t.Errorf("docs/architecture.md allows sideways %v, the table %v (in its order)", side, Sideways)
	}
}
