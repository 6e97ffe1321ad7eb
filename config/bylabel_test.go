package config

import (
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// TestByLabelNeedsLabelledData: evaluate.by_label on an evaluated split
// whose data has no labels (planted, npy) is an error naming the key,
// the split and the data; on mnist it is accepted and written back in the
// resolved config; off, it is left out of it. Mutation checked: making
// byLabel return at once fails it.
func TestByLabelNeedsLabelledData(t *testing.T) {
	_, err := Parse([]byte(okExp+"    evaluate: {by_label: true}\n"), "bad.yaml", Options{})
	if err == nil || !strings.Contains(err.Error(), "evaluate.by_label") || !strings.Contains(err.Error(), "comes from data.test (planted:test), which has no labels") {
		t.Errorf("planted data: %v", err)
	}
	src := "experiments:\n  - name: a\n    data: {train: mnist:train, test: mnist:test}\n    model: {hidden: 5}\n    evaluate: {splits: [test], by_label: true}\n"
	f := mustParse(t, src, "ok.yaml", Options{})
	if !f.Experiments[0].Evaluate.ByLabel {
		t.Fatal("by_label not read")
	}
	out, err := f.Experiments[0].Evaluate.MarshalYAML()
	if err != nil {
		t.Fatal(err)
	}
	f.Experiments[0].Evaluate.ByLabel = false
	off, _ := f.Experiments[0].Evaluate.MarshalYAML()
	if s, o := strings.Join(nodeKeys(out), ","), strings.Join(nodeKeys(off), ","); !strings.HasSuffix(s, ",by_label") || strings.Contains(o, "by_label") {
		t.Errorf("resolved keys with by_label %s, without %s", s, o)
	}
}

// nodeKeys returns the keys of a mapping node returned by MarshalYAML.
func nodeKeys(v any) []string {
	n, ok := v.(*yaml.Node)
	if !ok {
		return nil
	}
	var keys []string
	for i := 0; i+1 < len(n.Content); i += 2 {
		keys = append(keys, n.Content[i].Value)
	}
	return keys
}
