package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// The user documentation: the README and every Markdown file of docs/.
func docFiles(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(repoRoot, "docs", "*.md"))
	if err != nil || len(files) == 0 {
		t.Fatalf("docs/*.md: %v (%d files)", err, len(files))
	}
	out := []string{"README.md"}
	for _, f := range files {
		rel, _ := filepath.Rel(repoRoot, f)
		out = append(out, filepath.ToSlash(rel))
	}
	return out
}

// proseLines returns the lines of a Markdown text with the lines of fenced
// code blocks (indented fences included) blanked, so that neither a
// "# comment" of a shell example counts as a heading nor a "](x)" in code
// as a link.
func proseLines(text string) []string {
	lines := strings.Split(text, "\n")
	in := false
	for i, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			in = !in
			lines[i] = ""
			continue
		}
		if in {
			lines[i] = ""
		}
	}
	return lines
}

var (
	headingRe   = regexp.MustCompile(`^#{1,6} +(.*?) *#*$`)
	explicitID  = regexp.MustCompile(`<a id="([^"]+)"></a>`)
	mdLinkRe    = regexp.MustCompile(`\]\(([^()\s]+)\)`)
	inlineLink  = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)
	inlineCodes = regexp.MustCompile("`[^`]*`")
)

// slug is GitHub's anchor for a heading: the text as rendered (links by
// their text, code without its backticks), lower-cased, every character
// that is not a letter, mark, digit, space, hyphen or underscore dropped,
// spaces made hyphens.
func slug(heading string) string {
	h := inlineLink.ReplaceAllString(heading, "$1")
	h = strings.ReplaceAll(h, "`", "")
	var b strings.Builder
	for _, r := range strings.ToLower(h) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsMark(r) || unicode.IsDigit(r) || unicode.Is(unicode.No, r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// anchors returns the anchors a Markdown file defines: its headings' slugs
// (a repeated slug gets -1, -2, … as on GitHub) and its <a id> anchors.
func anchors(text string) map[string]bool {
	defined := map[string]bool{}
	seen := map[string]int{}
	for _, l := range proseLines(text) {
		if m := headingRe.FindStringSubmatch(l); m != nil {
			s := slug(m[1])
			if n := seen[s]; n > 0 {
				defined[fmt.Sprintf("%s-%d", s, n)] = true
			} else {
				defined[s] = true
			}
			seen[s]++
		}
		for _, m := range explicitID.FindAllStringSubmatch(l, -1) {
			defined[m[1]] = true
		}
	}
	return defined
}

func TestSlug(t *testing.T) {
	for h, want := range map[string]string{
		"report.html":             "reporthtml",
		"VAE (`model.type: vae`)": "vae-modeltype-vae",
		"The χ² bound on log Z":   "the-χ²-bound-on-log-z",
		"Evaluation that runs until its bracket closes: `sandwich`": "evaluation-that-runs-until-its-bracket-closes-sandwich",
		"χ² learning of an RBM (`method: chi2`)":                    "χ²-learning-of-an-rbm-method-chi2",
	} {
		if got := slug(h); got != want {
			t.Errorf("slug(%q) = %q, want %q", h, got, want)
		}
	}
}

// TestDocLinks: every relative link of README.md and docs/*.md points at a
// file or folder of the repository, and a link with #anchor to a Markdown
// file names a heading (or <a id>) of that file.
func TestDocLinks(t *testing.T) {
	cache := map[string]map[string]bool{}
	anchorsOf := func(path string) map[string]bool {
		if a, ok := cache[path]; ok {
			return a
		}
		b, err := os.ReadFile(filepath.Join(repoRoot, path))
		if err != nil {
			return nil
		}
		cache[path] = anchors(string(b))
		return cache[path]
	}
	n := 0
	for _, doc := range docFiles(t) {
		for i, l := range proseLines(readRepo(t, doc)) {
			l = inlineCodes.ReplaceAllString(l, "")
			for _, m := range mdLinkRe.FindAllStringSubmatch(l, -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				n++
				file, anchor, _ := strings.Cut(target, "#")
				path := doc
				if file != "" {
					path = filepath.ToSlash(filepath.Clean(filepath.Join(filepath.Dir(doc), file)))
					if strings.HasPrefix(path, "../") {
						t.Errorf("%s:%d: %s points outside the repository", doc, i+1, target)
						continue
					}
					fi, err := os.Stat(filepath.Join(repoRoot, path))
					if err != nil {
						t.Errorf("%s:%d: %s: no file %s", doc, i+1, target, path)
						continue
					}
					if strings.HasPrefix(path, "docs/img/") && fi.Size() > 100<<10 {
						t.Errorf("%s:%d: %s is %d kB; keep the docs' pictures under 100 kB", doc, i+1, path, fi.Size()>>10)
					}
				}
				if anchor == "" || !strings.HasSuffix(path, ".md") {
					continue
				}
				if !anchorsOf(path)[anchor] {
					t.Errorf("%s:%d: %s: %s has no heading or anchor #%s", doc, i+1, target, path, anchor)
				}
			}
		}
	}
	if n < 50 {
		t.Errorf("only %d relative links in README.md and docs/*.md", n)
	}
}

// TestDocsCiteNoHistory: the user documentation describes logz as it is:
// no issue numbers, commit hashes, sessions or fixes. docs/reproductions.md
// is left out: it records which build produced each committed run.
func TestDocsCiteNoHistory(t *testing.T) {
	history := regexp.MustCompile(`(?i)\bissues? #?[0-9]+|\bcommit [0-9a-f]{7,}|\bwas fixed\b|\bsessions?\b|\bPR #?[0-9]+`)
	hash := regexp.MustCompile(`\b[0-9a-f]{7,40}\b`)
	for _, doc := range docFiles(t) {
		if doc == "docs/reproductions.md" {
			continue
		}
		for i, l := range strings.Split(readRepo(t, doc), "\n") {
			if m := history.FindString(l); m != "" {
				t.Errorf("%s:%d cites history (%q): %.100s", doc, i+1, m, strings.TrimSpace(l))
			}
			for _, loc := range hash.FindAllStringIndex(l, -1) {
				h := l[loc[0]:loc[1]]
				if strings.ContainsAny(h, "abcdef") && strings.ContainsAny(h, "0123456789") && !strings.HasSuffix(l[:loc[0]], "sha256 ") {
					t.Errorf("%s:%d names what looks like a commit, %s: %.100s", doc, i+1, h, strings.TrimSpace(l))
				}
			}
		}
	}
}

// markedBlock returns the lines that follow the line holding marker in
// text, up to the first blank line after the block starts; a fenced block
// is returned without its fences.
func markedBlock(t *testing.T, doc, text, marker string) []string {
	t.Helper()
	i := strings.Index(text, marker)
	if i < 0 {
		t.Fatalf("%s has no %q marker", doc, marker)
	}
	lines := strings.Split(text[i:], "\n")[1:]
	var out []string
	fenced := false
	for _, l := range lines {
		if strings.HasPrefix(l, "```") {
			if fenced {
				break
			}
			fenced = true
			continue
		}
		if !fenced && strings.TrimSpace(l) == "" {
			break
		}
		out = append(out, strings.TrimRight(l, " "))
	}
	if len(out) == 0 {
		t.Fatalf("%s: nothing after the %q marker", doc, marker)
	}
	return out
}

// cells splits a table row (Markdown | or the terminal's │) into trimmed cells.
func cells(row, sep string) []string {
	row = strings.TrimSpace(row)
	row = strings.TrimPrefix(strings.TrimSuffix(row, sep), sep)
	parts := strings.Split(row, sep)
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	return parts
}
