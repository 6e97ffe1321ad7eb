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
	// Doc is what the key means, from the doc comment of the field that
	// declares it ("" when it has none).
	Doc string `json:"doc,omitempty"`
}

// Describe lists the keys of settings s in file order with their current
// values (for settings fresh from a family, the defaults).
func Describe(s family.Settings) []Setting {
	if s == nil {
		return nil
	}
	return DescribeValue(s)
}

// DescribeValue is Describe for any struct or pointer to struct whose
// fields are config keys (a config section: Data, Evaluate, …).
func DescribeValue(v any) []Setting {
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.Pointer {
		rv = rv.Elem()
	}
	t := rv.Type()
	var out []Setting
	for _, f := range fieldsOf(t).list {
		sf := t.FieldByIndex(f.index)
		out = append(out, Setting{Key: f.key, Default: flowYAML(rv.FieldByIndex(f.index).Interface()), Want: f.want, Flag: sf.Tag.Get("flag"), Doc: keyDoc(t, f.index)})
	}
	return out
}

// keyDoc is the meaning of the key at index in struct type t, by the
// struct type that declares the field (through inline embeds).
func keyDoc(t reflect.Type, index []int) string {
	for _, i := range index[:len(index)-1] {
		t = t.Field(i).Type
	}
	name, _, _ := strings.Cut(t.Name(), "[") // a generic type's name without its arguments
	return keyDocs[t.PkgPath()+"."+name+"."+t.Field(index[len(index)-1]).Name]
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
