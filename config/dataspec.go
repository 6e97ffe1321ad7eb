package config

import (
	"fmt"
	"slices"
	"strings"

	"github.com/logz-ml/logz/data"
)

// DataSpec is a parsed data spec such as "mnist:train" or "npy:data/x.npy".
type DataSpec struct {
	// Scheme is one of mnist, fashion-mnist, digits, the published sets
	// (omniglot, caltech-silhouettes, ocr-letters, binarized-mnist), idx,
	// npy, planted.
	Scheme string
	// Part is the split for mnist/fashion-mnist (train, test), digits
	// (train, train-shifted, test) and planted
	// (train, valid, test); "" for idx and npy.
	Part string
	// Path is the file of idx and npy specs; "" otherwise.
	Path string
}

// String formats the spec as it is written in a config.
func (d DataSpec) String() string {
	if d.Path != "" {
		return d.Scheme + ":" + d.Path
	}
	return d.Scheme + ":" + d.Part
}

// dataScheme describes one accepted data scheme.
type dataScheme struct {
	name  string
	parts []string // nil: the rest is a path
	doc   string
}

// dataSchemes is the one list of data schemes the config accepts: the
// published sets come from the data package's table.
var dataSchemes = slices.Concat([]dataScheme{
	{"mnist", []string{"train", "test"}, "MNIST IDX files from data_dir, $LOGZ_DATA_DIR or ./data/mnist"},
	{"fashion-mnist", []string{"train", "test"}, "Fashion-MNIST IDX files from data_dir or /usr/share/datasets/fashion-mnist"},
	{"digits", []string{"train", "train-shifted", "test"}, "UCI digits (8×8) IDX files of logz data get digits from data_dir, $LOGZ_DIGITS_DIR or ./data/digits"},
}, publishedSchemes(), []dataScheme{
	{"idx", nil, "an IDX image file (gzip or not)"},
	{"npy", nil, "an N×D .npy array of 0/1 (bool, integer, float32 or float64 dtype)"},
	{"planted", []string{"train", "valid", "test"}, "samples of the planted synthetic RBM (data.planted)"},
})

// publishedSchemes are the data sets read from their authors' files (logz
// data get NAME).
func publishedSchemes() []dataScheme {
	var out []dataScheme
	for _, p := range data.PublishedSets() {
		out = append(out, dataScheme{p.Scheme, p.Parts, p.Title + " from data_dir, $" + p.Env + " or ./data/" + p.DefaultName + " (logz data get " + p.Scheme + ")"})
	}
	return out
}

func dataSpecForms() string {
	forms := make([]string, len(dataSchemes))
	for i, s := range dataSchemes {
		if s.parts == nil {
			forms[i] = s.name + ":PATH"
		} else {
			forms[i] = s.name + ":" + strings.Join(s.parts, "|")
		}
	}
	return strings.Join(forms, ", ")
}

// ParseDataSpec parses a data spec: mnist:train|test,
// fashion-mnist:train|test, digits:train|train-shifted|test, idx:PATH,
// npy:PATH or planted:train|valid|test.
func ParseDataSpec(s string) (DataSpec, error) {
	scheme, rest, ok := strings.Cut(s, ":")
	if !ok {
		for _, ds := range dataSchemes {
			switch {
			case ds.name != s:
			case ds.parts == nil:
				return DataSpec{}, fmt.Errorf("data spec %q lacks the file; expected %s:PATH", s, s)
			default:
				return DataSpec{}, fmt.Errorf("data spec %q lacks the split: which split? %s:%s", s, s, strings.Join(ds.parts, "|"))
			}
		}
		return DataSpec{}, fmt.Errorf("data spec %q has no scheme (want SCHEME:PART, one of %s)", s, dataSpecForms())
	}
	names := make([]string, len(dataSchemes))
	for i, ds := range dataSchemes {
		names[i] = ds.name
		if ds.name != scheme {
			continue
		}
		if ds.parts == nil {
			if strings.TrimSpace(rest) == "" {
				return DataSpec{}, fmt.Errorf("data spec %q needs a file path after %q", s, scheme+":")
			}
			return DataSpec{Scheme: scheme, Path: rest}, nil
		}
		for _, p := range ds.parts {
			if p == rest {
				return DataSpec{Scheme: scheme, Part: rest}, nil
			}
		}
		return DataSpec{}, fmt.Errorf("data spec %q: unknown part %q%s", s, rest, knownHintAs(rest, ds.parts, scheme+":"+strings.Join(ds.parts, "|")))
	}
	return DataSpec{}, fmt.Errorf("data spec %q: unknown scheme %q%s", s, scheme, knownHintAs(scheme, names, dataSpecForms()))
}
