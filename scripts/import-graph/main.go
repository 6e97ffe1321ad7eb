// Command import-graph prints the shape of logz's import graph against the
// table of floors (internal/floors, docs/architecture.md): the packages of
// each floor with the module packages they import, the numbers of packages
// and import edges, the longest chain of imports, the sideways imports,
// what data, config and train reach, and anything the table forbids (what
// internal/floors' test fails on). Non-test files, build constraints
// applied.
//
//	go run ./scripts/import-graph [MODULE_DIR]
package main

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/logz-ml/logz/internal/floors"
)

func main() {
	root := "."
	if len(os.Args) > 1 {
		root = os.Args[1]
	}
	pkgs, err := floors.Load(root)
	if err != nil {
		fmt.Fprintln(os.Stderr, "import-graph:", err)
		os.Exit(1)
	}
	imports := map[string][]string{}
	edges := 0
	for _, p := range pkgs {
		imports[p.Path] = p.Imports
		edges += len(p.Imports)
	}
	byFloor := map[int][]floors.Package{}
	for _, p := range pkgs {
		n, ok := floors.FloorOf(p.Path)
		if !ok {
			n = -1
		}
		byFloor[n] = append(byFloor[n], p)
	}
	fmt.Printf("packages %d, import edges %d, floors %d\n", len(pkgs), edges, len(floors.Floors))
	for _, f := range append([]floors.Floor{{N: -1}}, floors.Floors...) {
		if len(byFloor[f.N]) == 0 {
			continue
		}
		if f.N < 0 {
			fmt.Println("\non no floor:")
		} else {
			fmt.Printf("\nfloor %d:\n", f.N)
		}
		for _, p := range byFloor[f.N] {
			fmt.Printf("  %-26s %s\n", p.Path, strings.Join(p.Imports, " "))
		}
	}

	// The longest chain of imports (the depth of the graph).
	depth := map[string]int{}
	var walk func(p string) int
	walk = func(p string) int {
		if d, ok := depth[p]; ok {
			return d
		}
		depth[p] = 1 // a cycle cannot compile; this only stops the recursion
		d := 1
		for _, q := range imports[p] {
			d = max(d, 1+walk(q))
		}
		depth[p] = d
		return d
	}
	top := ""
	for _, p := range pkgs {
		if top == "" || walk(p.Path) > walk(top) {
			top = p.Path
		}
	}
	chain := []string{top}
	for p := top; len(imports[p]) > 0; {
		p = slices.MaxFunc(imports[p], func(a, b string) int { return walk(a) - walk(b) })
		chain = append(chain, p)
	}
	fmt.Printf("\nlongest chain (%d packages): %s\n", len(chain), strings.Join(chain, " → "))

	fmt.Println("\nsideways imports allowed:")
	for _, e := range floors.Sideways {
		fmt.Println("  " + e.String())
	}
	for _, e := range floors.Pending.Edges {
		fmt.Println("  " + e.String() + " (pending: its move has not landed)")
	}

	for _, name := range []string{"data", "config", "train"} {
		seen := map[string]bool{}
		var reach func(p string)
		reach = func(p string) {
			for _, q := range imports[p] {
				if !seen[q] {
					seen[q] = true
					reach(q)
				}
			}
		}
		reach(name)
		var up []string
		for p := range seen {
			if !strings.HasPrefix(p, "internal/") {
				up = append(up, p)
			}
		}
		slices.Sort(up)
		fmt.Printf("%s reaches (internal aside): %s\n", name, strings.Join(up, " "))
	}

	if bad := floors.Check(pkgs); len(bad) > 0 {
		fmt.Printf("\nagainst the table (%d):\n", len(bad))
		for _, b := range bad {
			fmt.Println("  " + b)
		}
		os.Exit(1)
	}
	fmt.Println("\nagainst the table: every import down, or sideways as listed")
}
