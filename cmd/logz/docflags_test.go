package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

var updateDocs = flag.Bool("update-docs", false, "rewrite the generated flag reference of docs/reference.md")

// flagCommands are the commands whose flags docs/reference.md lists, in
// its order.
var flagCommands = []string{"run", "eval", "sample", "export", "models", "status", "slurm", "merge", "plot", "configs", "data", "compare"}

type flagDoc struct{ name, value, def, usage string }

var (
	flagHead = regexp.MustCompile(`^  --?([a-z0-9-]+)(?: (.*))?$`)
	// flagAligned is a flag of a hand-written Flags: section (logz data):
	// "  --csv FILE       meaning", the meaning going on in lines indented
	// to its column.
	flagAligned = regexp.MustCompile(`^  --([a-z0-9-]+)(?: ([A-Z]+))? {2,}(\S.*)$`)
	flagGoesOn  = regexp.MustCompile(`^ {8,}(\S.*)$`)
	flagDefRe   = regexp.MustCompile(` \(default ("[^"]*"|[^:()"]*)\)$`)
)

// commandFlags parses the Flags: section of `logz CMD --help`.
func commandFlags(t *testing.T, cmd string) []flagDoc {
	t.Helper()
	var out bytes.Buffer
	if err := run([]string{cmd, "--help"}, &out, &out); err != nil {
		t.Fatalf("logz %s --help: %v", cmd, err)
	}
	_, flags, ok := strings.Cut(out.String(), "\nFlags:\n")
	if !ok {
		return nil
	}
	var docs []flagDoc
	aligned := false
	for _, l := range strings.Split(flags, "\n") {
		if m := flagAligned.FindStringSubmatch(l); m != nil {
			docs = append(docs, flagDoc{name: m[1], value: m[2], usage: m[3]})
			aligned = true
		} else if m := flagGoesOn.FindStringSubmatch(l); m != nil && aligned {
			d := &docs[len(docs)-1]
			d.usage += " " + m[1]
		} else if m := flagHead.FindStringSubmatch(l); m != nil {
			aligned = false
			docs = append(docs, flagDoc{name: m[1], value: m[2]})
		} else if u, ok := strings.CutPrefix(l, "    \t"); ok && len(docs) > 0 {
			d := &docs[len(docs)-1]
			d.usage = strings.TrimSpace(d.usage + " " + u)
		}
	}
	for i := range docs {
		if m := flagDefRe.FindStringSubmatchIndex(docs[i].usage); m != nil {
			docs[i].def = docs[i].usage[m[2]:m[3]]
			docs[i].usage = docs[i].usage[:m[0]]
		}
	}
	return docs
}

// flagReference renders every command's flags as the Markdown of
// docs/reference.md's generated section.
func flagReference(t *testing.T) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("Generated from `logz COMMAND --help`; a test keeps it equal to the flags each command defines\n")
	b.WriteString("(regenerate: `go test ./cmd/logz -run TestDocsFlagReference -update-docs`).\n")
	var none []string
	cell := strings.NewReplacer("|", `\|`).Replace
	for _, c := range flagCommands {
		flags := commandFlags(t, c)
		if len(flags) == 0 {
			none = append(none, "`logz "+c+"`")
			continue
		}
		fmt.Fprintf(&b, "\n#### `logz %s` flags\n\n| flag | value | default | meaning |\n|---|---|---|---|\n", c)
		for _, f := range flags {
			def := ""
			if f.def != "" {
				def = "`" + f.def + "`"
			}
			val := ""
			if f.value != "" {
				val = "`" + f.value + "`"
			}
			fmt.Fprintf(&b, "| `--%s` | %s | %s | %s |\n", f.name, cell(val), cell(def), cell(f.usage))
		}
	}
	if len(none) > 0 {
		fmt.Fprintf(&b, "\n%s take no flags but `--help`; `logz version` and `logz help [COMMAND]` none.\n", strings.Join(none, ", "))
	}
	return b.String()
}

// TestDocsFlagReference keeps the flag tables of docs/reference.md equal
// to the flags every command defines (as its --help prints them): a flag
// added, removed or reworded in the code changes the reference.
func TestDocsFlagReference(t *testing.T) {
	const begin, end = "<!-- BEGIN logz COMMAND --help flags -->\n", "<!-- END flags -->"
	path := filepath.Join(repoRoot, "docs", "reference.md")
	ref := readRepo(t, "docs/reference.md")
	i, j := strings.Index(ref, begin), strings.Index(ref, end)
	if i < 0 || j < i {
		t.Fatalf("docs/reference.md lacks the %q … %q section", begin, end)
	}
	want := flagReference(t)
	if got := ref[i+len(begin) : j]; got != want {
		if *updateDocs {
			if err := os.WriteFile(path, []byte(ref[:i+len(begin)]+want+ref[j:]), 0o644); err != nil {
				t.Fatal(err)
			}
			t.Logf("rewrote the flag reference of %s", path)
			return
		}
		t.Errorf("docs/reference.md's flag reference differs from the commands' flags; regenerate it with\n  go test ./cmd/logz -run TestDocsFlagReference -update-docs\nit should read:\n%s", want)
	}
	// Every command of `logz help` is in flagCommands (or has no flags of
	// its own), so a new command gets its table.
	var help bytes.Buffer
	if err := run([]string{"help"}, &help, &help); err != nil {
		t.Fatal(err)
	}
	for _, m := range regexp.MustCompile(`(?m)^  logz ([a-z-]+)`).FindAllStringSubmatch(help.String(), -1) {
		if c := m[1]; c != "version" && c != "help" && !slices.Contains(flagCommands, c) {
			t.Errorf("logz help lists the command %s, which flagCommands (docflags_test.go) lacks: add it so that docs/reference.md lists its flags", c)
		}
	}
	// Every flag of a command is named in the command's usage line at the
	// top of the reference, and the reference names no flag of a command
	// that the command lacks.
	usage := ref[:i]
	for _, c := range flagCommands {
		for _, f := range commandFlags(t, c) {
			if !regexp.MustCompile(`--` + regexp.QuoteMeta(f.name) + `($|[^a-z0-9-])`).MatchString(usage) {
				t.Errorf("docs/reference.md's Command line section never mentions --%s (of logz %s)", f.name, c)
			}
		}
	}
}
