package main

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
)

// TestHelpListsEveryFlag: `logz help` lists, on the lines of each command
// that does not end in "[flags]", every flag that `logz COMMAND --help`
// documents — so a flag such as run's --force cannot be left out of the
// overview again — and `logz run --help` states no run time it does not
// measure ("under a minute").
func TestHelpListsEveryFlag(t *testing.T) {
	var out bytes.Buffer
	if err := run([]string{"help"}, &out, &out); err != nil {
		t.Fatal(err)
	}
	// The overview's text per command: every line from "  logz CMD" to the
	// next "  logz " line of another command.
	lines := map[string]string{}
	cmd := ""
	for _, l := range strings.Split(out.String(), "\n") {
		if rest, ok := strings.CutPrefix(l, "  logz "); ok {
			cmd, _, _ = strings.Cut(rest, " ")
		} else if !strings.HasPrefix(l, "   ") {
			cmd = ""
		}
		if cmd != "" {
			lines[cmd] += l + "\n"
		}
	}
	flagLine := regexp.MustCompile(`(?m)^  --([a-z-]+)`)
	for _, c := range []string{"run", "merge", "status", "slurm", "plot", "models"} {
		text, ok := lines[c]
		if !ok {
			t.Errorf("logz help has no line for %s:\n%s", c, out.String())
			continue
		}
		if strings.Contains(text, "[flags]") {
			continue
		}
		var help bytes.Buffer
		if err := run([]string{c, "--help"}, &help, &help); err != nil {
			t.Fatal(err)
		}
		for _, m := range flagLine.FindAllStringSubmatch(help.String(), -1) {
			if !strings.Contains(text, "--"+m[1]) {
				t.Errorf("logz help does not list --%s of %s (logz %s --help documents it):\n%s", m[1], c, c, text)
			}
		}
	}
	var help bytes.Buffer
	if err := run([]string{"run", "--help"}, &help, &help); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(help.String(), "under a minute") {
		t.Errorf("logz run --help promises the quickstart in under a minute:\n%s", help.String())
	}
}

// TestHelpFlagsTwoDashes: every command's --help spells its flags with two
// dashes (--out), as the usage lines and the docs do, not as Go's flag
// package prints them (-out).
func TestHelpFlagsTwoDashes(t *testing.T) {
	one := regexp.MustCompile(`(?m)^  -[a-z]`)
	two := regexp.MustCompile(`(?m)^  --[a-z]`)
	for _, c := range []string{"run", "eval", "sample", "status", "slurm", "models"} { // merge has no flags
		var help bytes.Buffer
		if err := run([]string{c, "--help"}, &help, &help); err != nil {
			t.Fatal(err)
		}
		if one.MatchString(help.String()) || !two.MatchString(help.String()) {
			t.Errorf("logz %s --help spells a flag with one dash, or lists none:\n%s", c, help.String())
		}
	}
}
