package config

import (
	"fmt"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// Flatten turns a YAML document (a config.resolved.yaml) into key paths and
// their values, so that two configs can be compared key by key: a mapping's
// keys join with "." (train.epochs), the entries of the top-level
// experiments list are keyed by their name (experiments[cd].train.epochs),
// the items of any other list of mappings by index (evaluate.final[0].name),
// and a list of scalars is one value ([test, train]). Values are written as
// in YAML (strings unquoted).
func Flatten(doc []byte) (map[string]string, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(doc, &root); err != nil {
		return nil, err
	}
	out := map[string]string{}
	if len(root.Content) == 0 {
		return out, nil
	}
	flattenNode(root.Content[0], "", out)
	return out, nil
}

func flattenNode(n *yaml.Node, path string, out map[string]string) {
	join := func(k string) string {
		if path == "" {
			return k
		}
		return path + "." + k
	}
	switch n.Kind {
	case yaml.AliasNode:
		flattenNode(n.Alias, path, out)
	case yaml.MappingNode:
		if len(n.Content) == 0 {
			out[path] = "{}"
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			flattenNode(n.Content[i+1], join(n.Content[i].Value), out)
		}
	case yaml.SequenceNode:
		if scalars(n) {
			vals := make([]string, len(n.Content))
			for i, c := range n.Content {
				vals[i] = c.Value
			}
			out[path] = "[" + strings.Join(vals, ", ") + "]"
			return
		}
		for i, c := range n.Content {
			key := strconv.Itoa(i)
			if path == "experiments" {
				if name := mapValue(c, "name"); name != "" {
					key = name
				}
			}
			flattenNode(c, fmt.Sprintf("%s[%s]", path, key), out)
		}
	default:
		out[path] = n.Value
	}
}

// scalars reports whether every item of a sequence is a scalar.
func scalars(n *yaml.Node) bool {
	for _, c := range n.Content {
		if c.Kind != yaml.ScalarNode {
			return false
		}
	}
	return true
}

// mapValue returns the scalar value of key in mapping n, "" if none.
func mapValue(n *yaml.Node, key string) string {
	if n.Kind != yaml.MappingNode {
		return ""
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key && n.Content[i+1].Kind == yaml.ScalarNode {
			return n.Content[i+1].Value
		}
	}
	return ""
}
