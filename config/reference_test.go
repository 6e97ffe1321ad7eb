package config

import (
	"strings"
	"testing"
)

// TestReproConfigsHaveReferences checks that every experiment of every
// shipped repro-* config carries the paper's numbers it reproduces
// (reference:), with a source and at least one number, so that the
// reports draw and tabulate them.
func TestReproConfigsHaveReferences(t *testing.T) {
	n := 0
	for name, src := range shippedConfigs(t) {
		if !strings.HasPrefix(name, "repro-") {
			continue
		}
		f := mustParse(t, src, "configs/"+name, Options{})
		if len(f.Experiments) == 0 {
			t.Errorf("%s: no experiments", name)
		}
		for _, e := range f.Experiments {
			n++
			if strings.TrimSpace(e.Reference.Source) == "" {
				t.Errorf("%s: experiment %s: reference has no source", name, e.Name)
			}
			if len(e.Reference.Values()) == 0 {
				t.Errorf("%s: experiment %s: reference has no number", name, e.Name)
			}
		}
	}
	if n == 0 {
		t.Fatal("no repro-* experiments found")
	}
}
