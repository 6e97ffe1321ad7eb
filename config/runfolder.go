package config

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"

	"github.com/logz-ml/logz/internal/runlock"
	"gopkg.in/yaml.v3"
)

// Files that `logz run` writes at the top of a run folder. An experiment's
// directory sits beside them, so no experiment may take one of these names.
const (
	ResultsFile  = "results.json"
	ReportFile   = "report.md"
	HTMLFile     = "report.html"
	ResolvedFile = "config.resolved.yaml"
	// SweepFile holds the numbers of report.html's figures across
	// experiments, for a config with a sweep: key.
	SweepFile = "sweep.csv"
)

// RunFiles lists the top-level files of a run folder.
var RunFiles = []string{ResultsFile, ReportFile, HTMLFile, ResolvedFile, SweepFile}

// PartsDir is the folder of a run folder that holds the part files of a
// sharded run (and of logz eval --shard).
const PartsDir = "parts"

// ReservedNames lists every name logz uses for its own files and folders
// at the top of a run folder: the run files, the parts folder and the
// lock file. An experiment's directory sits beside them, so no experiment
// may take one of these names.
var ReservedNames = append(append([]string(nil), RunFiles...), PartsDir, runlock.File)

// reservedName reports why an experiment may not be called name (it would
// collide with a file or folder of the run folder, on case-insensitive
// file systems too, or be a hidden directory), or "" when it may.
func reservedName(name string) string {
	for _, f := range ReservedNames {
		if strings.EqualFold(name, f) {
			return fmt.Sprintf("%q is the name of a file or folder logz writes in the run folder (%s)", name, strings.Join(ReservedNames, ", "))
		}
	}
	if strings.HasPrefix(name, ".") {
		return fmt.Sprintf("%q would be a hidden directory (and logz's temporary files start with '.')", name)
	}
	return ""
}

// DiffResolved compares two resolved configs (the bytes of
// config.resolved.yaml files) and returns one line per difference, each
// naming the key path and both values ("experiments[0].model.hidden: 25 in
// the run folder, 30 now"), at most limit lines (0 = all). Comments and key
// order are ignored. was names the first, now the second.
func DiffResolved(a, b []byte, was, now string, limit int) ([]string, error) {
	var x, y any
	if err := yaml.Unmarshal(a, &x); err != nil {
		return nil, err
	}
	if err := yaml.Unmarshal(b, &y); err != nil {
		return nil, err
	}
	var out []string
	diffValues(&out, "", x, y, was, now)
	// Shallow keys first: a changed seed explains the derived ones below it.
	depth := func(s string) int {
		p, _, _ := strings.Cut(s, ":")
		return strings.Count(p, ".") + strings.Count(p, "[")
	}
	sort.SliceStable(out, func(i, j int) bool { return depth(out[i]) < depth(out[j]) })
	if limit > 0 && len(out) > limit {
		n := len(out) - limit
		out = append(out[:limit], fmt.Sprintf("… and %d more", n))
	}
	return out, nil
}

func diffValues(out *[]string, path string, a, b any, was, now string) {
	at := path
	if at == "" {
		at = "(top level)"
	}
	switch av := a.(type) {
	case map[string]any:
		bv, ok := b.(map[string]any)
		if !ok {
			break
		}
		keys := map[string]bool{}
		for k := range av {
			keys[k] = true
		}
		for k := range bv {
			keys[k] = true
		}
		sorted := make([]string, 0, len(keys))
		for k := range keys {
			sorted = append(sorted, k)
		}
		sort.Strings(sorted)
		for _, k := range sorted {
			p := k
			if path != "" {
				p = path + "." + k
			}
			x, inA := av[k]
			y, inB := bv[k]
			switch {
			case !inA:
				*out = append(*out, fmt.Sprintf("%s: not in %s, %s now", p, was, showValue(y)))
			case !inB:
				*out = append(*out, fmt.Sprintf("%s: %s in %s, not set now", p, showValue(x), was))
			default:
				diffValues(out, p, x, y, was, now)
			}
		}
		return
	case []any:
		bv, ok := b.([]any)
		if !ok {
			break
		}
		if len(av) != len(bv) {
			*out = append(*out, fmt.Sprintf("%s: %d entries in %s, %d now", at, len(av), was, len(bv)))
		}
		for i := range min(len(av), len(bv)) {
			diffValues(out, fmt.Sprintf("%s[%d]", path, i), av[i], bv[i], was, now)
		}
		return
	}
	if !reflect.DeepEqual(a, b) {
		*out = append(*out, fmt.Sprintf("%s: %s in %s, %s now", at, showValue(a), was, showValue(b)))
	}
}

// showValue prints a YAML value on one line, shortened.
func showValue(v any) string {
	var s string
	switch v.(type) {
	case map[string]any, []any:
		b, _ := json.Marshal(v) // one line: [4,4], {"runs":100}
		s = string(b)
	default:
		s = fmt.Sprint(v)
		if str, ok := v.(string); ok {
			s = fmt.Sprintf("%q", str)
		}
	}
	if len(s) > 80 {
		s = s[:77] + "…"
	}
	return s
}
