package configs

import (
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
)

// Entry is one shipped config as `logz configs` lists it.
type Entry struct {
	// Name is the file name without .yaml: what `logz run NAME` takes.
	Name string
	// Description is the file's description: key.
	Description string
	// Families are the model types its experiments train, in order of
	// first appearance.
	Families []string
	// Data are the data sets it reads (mnist, fashion-mnist, digits,
	// planted, …), in order of first appearance.
	Data []string
	// Time is how long it takes, from the file's "# Time:" header line
	// ("" when it has none).
	Time string
}

// TimePrefix starts the header line that says how long a config takes.
const TimePrefix = "# Time: "

// Lookup returns the embedded config called name (with or without
// .yaml), and its file name.
func Lookup(name string) (file string, data []byte, ok bool) {
	file = strings.TrimSuffix(name, ".yaml") + ".yaml"
	if strings.ContainsAny(file, "/\\") {
		return "", nil, false
	}
	data, err := FS.ReadFile(file)
	if err != nil {
		return "", nil, false
	}
	return file, data, true
}

// Names returns the names of the embedded configs, sorted.
func Names() []string {
	files, _ := fs.Glob(FS, "*.yaml")
	names := make([]string, len(files))
	for i, f := range files {
		names[i] = strings.TrimSuffix(f, ".yaml")
	}
	slices.Sort(names)
	return names
}

// Catalog describes every embedded config, sorted by name.
func Catalog() ([]Entry, error) {
	var out []Entry
	for _, name := range Names() {
		_, data, _ := Lookup(name)
		e, err := describe(name, data)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, nil
}

// describe reads a config's catalog entry: its description, the model
// types and data sets of its experiments (and base:), and its time line.
func describe(name string, data []byte) (Entry, error) {
	var doc struct {
		Description string `yaml:"description"`
		Base        part   `yaml:"base"`
		Experiments []part `yaml:"experiments"`
	}
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return Entry{}, fmt.Errorf("configs: %s.yaml: %w", name, err)
	}
	e := Entry{Name: name, Description: doc.Description}
	add := func(list *[]string, v string) {
		if v != "" && !slices.Contains(*list, v) {
			*list = append(*list, v)
		}
	}
	for _, p := range append([]part{doc.Base}, doc.Experiments...) {
		add(&e.Families, p.Model.Type)
		for _, spec := range []string{p.Data.Train, p.Data.Test} {
			scheme, _, _ := strings.Cut(spec, ":")
			add(&e.Data, scheme)
		}
	}
	if len(e.Families) == 0 {
		e.Families = []string{"rbm"} // the default model type
	}
	for _, l := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(l, TimePrefix) {
			e.Time = strings.TrimSpace(strings.TrimPrefix(l, TimePrefix))
		}
	}
	return e, nil
}

// part is what describe reads of base: and of an experiment.
type part struct {
	Model struct {
		Type string `yaml:"type"`
	} `yaml:"model"`
	Data struct {
		Train string `yaml:"train"`
		Test  string `yaml:"test"`
	} `yaml:"data"`
}
