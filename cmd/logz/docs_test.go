package main

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/logz-ml/logz/family"
)

// The repository's documentation is part of what logz ships: these tests
// keep the README and docs/methods.md honest about the files, commands and
// anchors they name.

const repoRoot = "../.."

// readRepo reads a file relative to the module root.
func readRepo(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// repoTextFiles calls f with the path (relative to the module root) and
// contents of every text file of the repository, skipping .git, the
// git-ignored run and data folders, and binary files.
func repoTextFiles(t *testing.T, f func(path, text string)) {
	t.Helper()
	skip := map[string]bool{".git": true, "runs": true, filepath.Join("data", "mnist"): true}
	err := filepath.WalkDir(repoRoot, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(repoRoot, p)
		if d.IsDir() {
			if skip[rel] {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if bytes.IndexByte(b, 0) >= 0 {
			return nil // binary (images, archives)
		}
		f(rel, string(b))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestNoCitationsOfTheDevelopersGuide: no file of the repository cites the
// developers' guide, which is not part of it and which users cannot read;
// the repository's own reference is docs/methods.md.
func TestNoCitationsOfTheDevelopersGuide(t *testing.T) {
	guide := "GUI" + "DE" // not spelled out, so that this file passes too
	repoTextFiles(t, func(path, text string) {
		for i, line := range strings.Split(text, "\n") {
			if strings.Contains(line, guide) {
				t.Errorf("%s:%d cites the developers' guide (cite docs/methods.md#…): %s", path, i+1, strings.TrimSpace(line))
			}
		}
	})
}

// TestMethodsAnchors: every reference to docs/methods.md#… anywhere in
// the repository (code, messages, configs, README), and every #anchor link
// inside docs/methods.md, names an anchor that docs/methods.md defines; and
// no anchor is defined twice.
func TestMethodsAnchors(t *testing.T) {
	methods := readRepo(t, "docs/methods.md")
	defined := map[string]bool{}
	for _, m := range regexp.MustCompile(`<a id="([a-z0-9-]+)"></a>`).FindAllStringSubmatch(methods, -1) {
		if defined[m[1]] {
			t.Errorf("docs/methods.md defines #%s twice", m[1])
		}
		defined[m[1]] = true
	}
	if len(defined) < 20 {
		t.Fatalf("docs/methods.md defines only %d anchors", len(defined))
	}
	for _, m := range regexp.MustCompile(`\]\(#([a-z0-9-]+)\)`).FindAllStringSubmatch(methods, -1) {
		if !defined[m[1]] {
			t.Errorf("docs/methods.md links to #%s, which it does not define", m[1])
		}
	}
	ref := regexp.MustCompile(`methods\.md#([A-Za-z0-9_-]+)`)
	n := 0
	repoTextFiles(t, func(path, text string) {
		for i, line := range strings.Split(text, "\n") {
			for _, m := range ref.FindAllStringSubmatch(line, -1) {
				n++
				if !defined[m[1]] {
					t.Errorf("%s:%d refers to docs/methods.md#%s, which docs/methods.md does not define", path, i+1, m[1])
				}
			}
		}
	})
	if n < 20 {
		t.Errorf("only %d references to docs/methods.md#… in the repository", n)
	}
}

// readmeShellBlocks returns the lines of the README's ```sh blocks, one
// slice per block (indented blocks included).
func readmeShellBlocks(readme string) [][]string {
	var blocks [][]string
	var cur []string
	in := false
	for _, l := range strings.Split(readme, "\n") {
		tl := strings.TrimSpace(l)
		switch {
		case !in && tl == "```sh":
			in, cur = true, nil
		case in && tl == "```":
			in = false
			blocks = append(blocks, cur)
		case in:
			cur = append(cur, tl)
		}
	}
	return blocks
}

// TestREADMECommands: the README's shell examples run as written from a
// clone after the quick start — they call the binary it builds (./logz,
// not a `logz` that need not be on the PATH), write nothing outside the
// git-ignored runs/ (or /tmp), and read only .npy files an earlier line of
// the same example wrote.
func TestREADMECommands(t *testing.T) {
	readme := readRepo(t, "README.md")
	blocks := readmeShellBlocks(readme)
	if len(blocks) < 10 {
		t.Fatalf("found %d sh blocks in README.md", len(blocks))
	}
	out := regexp.MustCompile(`(?:--out |np\.savez?\(f?")([^ "']+)`)
	npy := regexp.MustCompile(`npy:([^ ]+)`)
	for _, b := range blocks {
		written := map[string]bool{}
		for _, l := range b {
			if strings.HasPrefix(l, "logz ") || strings.HasPrefix(l, "$ logz ") {
				t.Errorf("README.md: %q calls logz, not the ./logz the quick start builds", l)
			}
			for _, m := range out.FindAllStringSubmatch(l, -1) {
				if p := m[1]; !strings.HasPrefix(p, "runs/") && !strings.HasPrefix(p, "/tmp/") {
					t.Errorf("README.md: %q writes %s into the clone, outside the git-ignored runs/", l, p)
				}
				written[m[1]] = true
			}
			for _, m := range npy.FindAllStringSubmatch(l, -1) {
				if !written[m[1]] {
					t.Errorf("README.md: %q reads %s, which no earlier line of the example writes", l, m[1])
				}
			}
		}
	}
	// The sample command's default output, samples.npy in the working
	// directory, would be left untracked in the clone.
	for _, b := range blocks {
		for _, l := range b {
			if strings.HasPrefix(l, "./logz sample ") && !strings.Contains(l, "--out ") && !strings.Contains(l, "--compare") {
				t.Errorf("README.md: %q writes samples.npy into the clone; pass --out runs/…", l)
			}
		}
	}
}

// TestREADMEListsEveryConfig: the README's table of shipped configs has
// one line for every file of configs/ and no line for a file that is not
// there.
func TestREADMEListsEveryConfig(t *testing.T) {
	readme := readRepo(t, "README.md")
	files, err := filepath.Glob(filepath.Join(repoRoot, "configs", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("configs/*.yaml: %v (%d files)", err, len(files))
	}
	var want []string
	for _, f := range files {
		want = append(want, filepath.Base(f))
	}
	var got []string
	for _, m := range regexp.MustCompile("(?m)^\\| `([a-z0-9-]+\\.yaml)` \\|").FindAllStringSubmatch(readme, -1) {
		got = append(got, m[1])
	}
	for _, w := range want {
		if !slices.Contains(got, w) {
			t.Errorf("README.md's shipped configs table has no line for configs/%s", w)
		}
	}
	for _, g := range got {
		if !slices.Contains(want, g) {
			t.Errorf("README.md's shipped configs table lists %s, which is not in configs/", g)
		}
	}
	// Every configs/… path the README names exists.
	for _, m := range regexp.MustCompile(`configs/([a-z0-9<>-]+\.yaml)`).FindAllStringSubmatch(readme, -1) {
		if !strings.Contains(m[1], "<") && !slices.Contains(want, m[1]) {
			t.Errorf("README.md names configs/%s, which does not exist", m[1])
		}
	}
}

// TestREADMEModelTypes: the config reference's model.type row names every
// registered model family.
func TestREADMEModelTypes(t *testing.T) {
	readme := readRepo(t, "README.md")
	row := ""
	for _, l := range strings.Split(readme, "\n") {
		if strings.HasPrefix(l, "| `type` | string |") {
			row = l
		}
	}
	if row == "" {
		t.Fatal("README.md has no model `type` row")
	}
	for _, name := range family.Names() {
		if !strings.Contains(row, "`"+name+"`") {
			t.Errorf("README.md's model.type row does not list %s:\n%s", name, row)
		}
	}
}

// TestREADMETables: every Markdown table of the README is whole — a row
// that follows a paragraph or a blank line (outside code blocks) must be a
// table's header, with the |---| line under it; a stray row (as the
// Estimators table's recon row was, placed after the paragraphs below the
// table) would render as text.
func TestREADMETables(t *testing.T) {
	lines := strings.Split(readRepo(t, "README.md"), "\n")
	in := false
	for i, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			in = !in
			continue
		}
		if in || !strings.HasPrefix(l, "|") {
			continue
		}
		if i > 0 && strings.HasPrefix(lines[i-1], "|") {
			continue
		}
		if i+1 >= len(lines) || !strings.HasPrefix(lines[i+1], "|---") {
			t.Errorf("README.md:%d: a table row without a table (no header and |---| line above it): %.80s", i+1, l)
		}
	}
}
