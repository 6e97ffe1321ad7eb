package main

import (
	"strings"

	"github.com/logz-ml/logz/config"
)

// setFlags collects the --set [NAME:]PATH=VALUE arguments of a command, in
// order (the flag may be repeated).
type setFlags []string

func (s *setFlags) String() string { return strings.Join(*s, " ") }

func (s *setFlags) Set(v string) error {
	*s = append(*s, v)
	return nil
}

// setUsage is the help of --set, for every command that reads a config.
const setUsage = "override a value of the config, `[NAME:]PATH=VALUE`, e.g. data.train=npy:train.npy or train.epochs=1 (repeatable; see 'logz run --help')"

// overrides parses the arguments; a malformed one is a usage error of
// command cmd.
func (s setFlags) overrides(cmd string) ([]config.Override, error) {
	out := make([]config.Override, 0, len(s))
	for _, a := range s {
		o, err := config.ParseOverride(a)
		if err != nil {
			return nil, usageError{cmd + ": " + err.Error()}
		}
		out = append(out, o)
	}
	return out, nil
}

// args is the arguments again as a command line's ("--set", "a=1", ...),
// for the commands logz prints or writes into job scripts.
func (s setFlags) args() []string {
	var out []string
	for _, a := range s {
		out = append(out, "--set", a)
	}
	return out
}

// commandLine is "logz CMD ARGS..." with each argument quoted for a shell
// where it needs it (a --set value with blanks or brackets), as report.md
// records it and the interrupt message prints it.
func commandLine(cmd string, args []string) string {
	q := []string{"logz", cmd}
	for _, a := range args {
		q = append(q, shellQuote(a))
	}
	return strings.Join(q, " ")
}
