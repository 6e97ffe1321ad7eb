package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/logz-ml/logz/config"
	"github.com/logz-ml/logz/family"
)

// helpConfig is `logz help config [SECTION]`: the keys of a config file,
// each with its default, its meaning and what a value must be. SECTION is
// top, experiment, data, data.planted, evaluate, reference, or a model
// family (its model:, train: and estimator settings).
func helpConfig(args []string, stdout io.Writer) error {
	if len(args) > 1 {
		return usageError{fmt.Sprintf("help config: one section at most, got %q", strings.Join(args, " "))}
	}
	secs := config.Sections()
	if len(args) == 0 {
		fmt.Fprintln(stdout, "A logz config file is YAML: the top level, then a list of experiments, each with")
		fmt.Fprintln(stdout, "data:, model:, train: and evaluate: sections. Every key, its default and meaning:")
		fmt.Fprintln(stdout)
		for _, s := range secs {
			fmt.Fprintln(stdout, config.FormatSection(s))
		}
		fmt.Fprintf(stdout, "model: and train: depend on model.type (%s): 'logz help config FAMILY' lists\nthem and the settings of the family's estimators.\n", strings.Join(family.Names(), ", "))
		return nil
	}
	name := args[0]
	alias := map[string]string{"top": "", "experiment": "experiments[]", "experiments": "experiments[]"}
	if p, ok := alias[name]; ok {
		name = p
	}
	for _, s := range secs {
		if s.Path == name {
			fmt.Fprint(stdout, config.FormatSection(s))
			return nil
		}
	}
	if f, err := family.Lookup(name); err == nil {
		for i, s := range config.FamilySections(f) {
			if i > 0 {
				fmt.Fprintln(stdout)
			}
			fmt.Fprint(stdout, config.FormatSection(s))
		}
		return nil
	}
	known := []string{"top", "experiment", "data", "data.planted", "evaluate", "reference"}
	known = append(known, family.Names()...)
	return usageError{fmt.Sprintf("help config: no section %q%s (sections: %s)", args[0], config.DidYouMean(args[0], known), strings.Join(known, ", "))}
}
