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

// shellBlocks returns the lines of a Markdown text's ```sh blocks, one
// slice per block (indented blocks included).
func shellBlocks(text string) [][]string {
	var blocks [][]string
	var cur []string
	in := false
	for _, l := range strings.Split(text, "\n") {
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

// userDocs are the files whose shell examples a user copies: the README,
// the guide, the reference, performance and development notes (methods.md
// and reproductions.md quote commands of record, not examples to paste).
var userDocs = []string{"README.md", "docs/guide.md", "docs/reference.md", "docs/performance.md", "docs/development.md"}

// TestDocCommands: the shell examples of the README and the manual run as
// written from a clone after the README's install step — they call the
// binary it builds (./logz, not a `logz` that need not be on the PATH,
// unless the same example installs it with go install), write nothing
// outside the git-ignored runs/ (or /tmp), and read only .npy files an
// earlier line of the same example wrote.
func TestDocCommands(t *testing.T) {
	out := regexp.MustCompile(`(?:--out |np\.savez?\(f?")([^ "']+)`)
	npy := regexp.MustCompile(`npy:([^ ]+)`)
	total := 0
	for _, doc := range userDocs {
		blocks := shellBlocks(readRepo(t, doc))
		total += len(blocks)
		for _, b := range blocks {
			installed := false
			for _, l := range b {
				if strings.HasPrefix(l, "go install ") {
					installed = true
				}
			}
			written := map[string]bool{}
			for _, l := range b {
				if !installed && (strings.HasPrefix(l, "logz ") || strings.HasPrefix(l, "$ logz ")) {
					t.Errorf("%s: %q calls logz, not the ./logz the README's install step builds", doc, l)
				}
				for _, m := range out.FindAllStringSubmatch(l, -1) {
					if p := m[1]; !strings.HasPrefix(p, "runs/") && !strings.HasPrefix(p, "/tmp/") {
						t.Errorf("%s: %q writes %s into the clone, outside the git-ignored runs/", doc, l, p)
					}
					written[m[1]] = true
				}
				for _, m := range npy.FindAllStringSubmatch(l, -1) {
					if !written[m[1]] {
						t.Errorf("%s: %q reads %s, which no earlier line of the example writes", doc, l, m[1])
					}
				}
				// The sample command's default output, samples.npy in the
				// working directory, would be left untracked in the clone.
				if (strings.HasPrefix(l, "./logz sample ") || strings.HasPrefix(l, "logz sample ")) && !strings.Contains(l, "--out ") && !strings.Contains(l, "--compare") {
					t.Errorf("%s: %q writes samples.npy into the clone; pass --out runs/…", doc, l)
				}
			}
		}
	}
	if total < 10 {
		t.Fatalf("found %d sh blocks in %v", total, userDocs)
	}
}

// TestDocsListEveryConfig: the reference's table of shipped configs has
// one line for every file of configs/ and no line for a file that is not
// there, and every configs/… file the README or docs/ name exists.
func TestDocsListEveryConfig(t *testing.T) {
	readme := readRepo(t, "docs/reference.md")
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
			t.Errorf("docs/reference.md's shipped configs table has no line for configs/%s", w)
		}
	}
	for _, g := range got {
		if !slices.Contains(want, g) {
			t.Errorf("docs/reference.md's shipped configs table lists %s, which is not in configs/", g)
		}
	}
	// Every configs/… path the README and docs/ name exists.
	for _, doc := range docFiles(t) {
		for _, m := range regexp.MustCompile(`configs/([a-z0-9<>-]+\.yaml)`).FindAllStringSubmatch(readRepo(t, doc), -1) {
			if !strings.Contains(m[1], "<") && !slices.Contains(want, m[1]) {
				t.Errorf("%s names configs/%s, which does not exist", doc, m[1])
			}
		}
	}
}

// TestDocsModelTypes: the config reference's model.type row names every
// registered model family.
func TestDocsModelTypes(t *testing.T) {
	readme := readRepo(t, "docs/reference.md")
	row := ""
	for _, l := range strings.Split(readme, "\n") {
		if strings.HasPrefix(l, "| `type` | string |") {
			row = l
		}
	}
	if row == "" {
		t.Fatal("docs/reference.md has no model `type` row")
	}
	for _, name := range family.Names() {
		if !strings.Contains(row, "`"+name+"`") {
			t.Errorf("docs/reference.md's model.type row does not list %s:\n%s", name, row)
		}
	}
}

// TestDocTables: every Markdown table of the README and of docs/*.md is
// whole — a row that follows a paragraph or a blank line (outside code
// blocks) must be a table's header, with the |---| line under it; a stray
// row (a row placed after the paragraphs below its table) would render as
// text.
func TestDocTables(t *testing.T) {
	for _, doc := range docFiles(t) {
		lines := strings.Split(readRepo(t, doc), "\n")
		in := false
		for i, l := range lines {
			if strings.HasPrefix(strings.TrimSpace(l), "```") {
				in = !in
				continue
			}
			if in || !strings.HasPrefix(l, "|") || !strings.HasSuffix(strings.TrimSpace(l), "|") {
				continue // not a row (a line of prose may start with |a|)
			}
			if i > 0 && strings.HasPrefix(lines[i-1], "|") {
				continue
			}
			if i+1 >= len(lines) || !strings.HasPrefix(lines[i+1], "|---") {
				t.Errorf("%s:%d: a table row without a table (no header and |---| line above it): %.80s", doc, i+1, l)
			}
		}
	}
}

// TestREADMETestCommandInCI: the test command the README gives is the one
// .ci/run runs, so CI checks what a newcomer is told to type.
func TestREADMETestCommandInCI(t *testing.T) {
	var cmds []string
	for _, b := range shellBlocks(readRepo(t, "README.md")) {
		for _, l := range b {
			if strings.HasPrefix(l, "go test") {
				cmd, _, _ := strings.Cut(l, "#")
				cmds = append(cmds, strings.TrimSpace(cmd))
			}
		}
	}
	if len(cmds) == 0 {
		t.Fatal("README.md gives no go test command")
	}
	ci := strings.Split(readRepo(t, ".ci/run"), "\n")
	for _, c := range cmds {
		if !slices.Contains(ci, c) {
			t.Errorf("README.md tells users to run %q; .ci/run does not run it", c)
		}
	}
}
