package config

import (
	"fmt"
	"strings"

	"github.com/logz-ml/logz/family"
)

// Section is one part of a config file as `logz help config` shows it:
// its path in the file, what it holds, and its keys with their defaults
// and meanings.
type Section struct {
	// Path is where the section is written: "" (the top level),
	// "experiments[]" (an experiment), "data", "evaluate", "model" or
	// "train" of a family ("model (rbm)"), an estimator's entry.
	Path string
	// Doc says what the section holds.
	Doc      string
	Settings []Setting
}

// Sections lists the sections of a config that hold no family's settings:
// the top level, an experiment, data, data.planted, evaluate and
// reference, with their defaults.
func Sections() []Section {
	def := Default()
	top := []Setting{{Key: "base", Default: "{}", Want: "a mapping of experiment keys", Doc: "settings every experiment starts from (an experiment's own keys replace them, a mapping merges key by key)"}}
	top = append(DescribeValue(&File{Seed: 1}), top...)
	return []Section{
		{Path: "", Doc: "the top level of a config file", Settings: top},
		{Path: "experiments[]", Doc: "one experiment: a model trained and evaluated end to end", Settings: DescribeValue(&def)},
		{Path: "data", Doc: "the data an experiment trains and evaluates on", Settings: DescribeValue(&def.Data)},
		{Path: "data.planted", Doc: "the synthetic data of planted: specs, drawn from a known model", Settings: DescribeValue(&def.Data.Planted)},
		{Path: "evaluate", Doc: "what is estimated after epochs and at the end", Settings: DescribeValue(&def.Evaluate)},
		{Path: "reference", Doc: "published numbers shown beside the experiment's (never computed)", Settings: DescribeValue(&def.Reference)},
	}
}

// FamilySections lists a family's sections: its model: and train:
// settings and each estimator's, with their defaults.
func FamilySections(f *family.Family) []Section {
	out := []Section{
		{Path: "model (" + f.Name + ")", Doc: f.Doc, Settings: Describe(f.Model())},
		{Path: "train (" + f.Name + ")", Doc: "how a " + f.Name + " is trained; method: " + trainerNames(f), Settings: Describe(f.Train())},
	}
	for _, e := range f.Estimators {
		out = append(out, Section{Path: "evaluate entry {name: " + e.Name + "} (" + f.Name + ")", Doc: e.Doc, Settings: Describe(e.New())})
	}
	return out
}

func trainerNames(f *family.Family) string {
	var names []string
	for _, t := range f.Trainers {
		names = append(names, t.Method)
	}
	return strings.Join(names, ", ")
}

// FormatSection renders a section for the terminal: one key a line with
// its default, then what it means and what a value must be.
func FormatSection(s Section) string {
	var b strings.Builder
	title := s.Path
	if title == "" {
		title = "(top level)"
	}
	fmt.Fprintf(&b, "%s — %s\n", title, s.Doc)
	for _, k := range s.Settings {
		fmt.Fprintf(&b, "  %-24s %s\n", k.Key+": "+k.Default, k.Doc)
		if k.Want != "" || k.Flag != "" {
			extra := "expected: " + k.Want
			if k.Flag != "" {
				extra += "; logz eval --" + k.Flag
			}
			fmt.Fprintf(&b, "  %-24s   (%s)\n", "", extra)
		}
	}
	return b.String()
}
