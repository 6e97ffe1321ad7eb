package main

import (
	"flag"
	"fmt"
	"regexp"
	"strings"
)

// outputFlags are the flags that name a file or folder logz writes. Given
// explicitly as "" they are refused: `logz run --out ""` used to write to
// runs/<config name> without a word, as if --out had not been given.
var outputFlags = []string{"out", "parts", "png"}

var defaultInUsage = regexp.MustCompile(`\(default ([^)]*)\)`)

// checkEmpty refuses an output flag given as "" (or blanks) and an empty
// positional argument (a file or folder name), naming which and what to do.
func checkEmpty(fs *flag.FlagSet, pos []string) error {
	var err error
	fs.Visit(func(f *flag.Flag) {
		if err != nil || strings.TrimSpace(f.Value.String()) != "" {
			return
		}
		for _, name := range outputFlags {
			if f.Name != name {
				continue
			}
			def := f.DefValue
			if m := defaultInUsage.FindStringSubmatch(f.Usage); def == "" && m != nil {
				def = m[1]
			}
			hint := "give a path"
			if def != "" {
				hint += fmt.Sprintf(", or leave --%s out for the default, %s", name, def)
			}
			err = usageError{fmt.Sprintf("%s: --%s %q names no file or folder; %s", fs.Name(), name, f.Value.String(), hint)}
		}
	})
	if err != nil {
		return err
	}
	for i, p := range pos {
		if strings.TrimSpace(p) == "" {
			return usageError{fmt.Sprintf("%s: argument %d is empty (%q); it should name a file or folder (see 'logz %s --help')", fs.Name(), i+1, p, fs.Name())}
		}
	}
	return nil
}
