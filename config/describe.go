package config

import (
	"reflect"
	"strings"

	"github.com/logz-ml/logz/family"
	"gopkg.in/yaml.v3"
)

// Setting describes one key of a settings struct, for `logz models`.
type Setting struct {
	Key string `json:"key"`
	// Default is the value the key takes when a file does not set it, as
	// YAML (flow style): 25, base-rate, "2008", {epochs: 0, method: cd}.
	Default string `json:"default"`
	// Want says what a value must be.
	Want string `json:"want,omitempty"`
	// Flag is the `logz eval` flag that sets it, if any.
	Flag string `json:"flag,omitempty"`
}

// Describe lists the keys of settings s in file order with their current
// values (for settings fresh from a family, the defaults).
func Describe(s family.Settings) []Setting {
	if s == nil {
		return nil
	}
	rv := reflect.ValueOf(s).Elem()
	t := rv.Type()
	var out []Setting
	for _, f := range fieldsOf(t).list {
		sf := t.FieldByIndex(f.index)
		out = append(out, Setting{Key: f.key, Default: flowYAML(rv.FieldByIndex(f.index).Interface()), Want: f.want, Flag: sf.Tag.Get("flag")})
	}
	return out
}

// flowYAML renders a value as one line of YAML.
func flowYAML(v any) string {
	var n yaml.Node
	if err := n.Encode(v); err != nil {
		return "?"
	}
	setFlow(&n)
	b, err := yaml.Marshal(&n)
	if err != nil {
		return "?"
	}
	return strings.TrimSpace(string(b))
}

func setFlow(n *yaml.Node) {
	if n.Kind == yaml.MappingNode || n.Kind == yaml.SequenceNode {
		n.Style = yaml.FlowStyle
	}
	for _, c := range n.Content {
		setFlow(c)
	}
}
