package config

import (
	"fmt"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// SweepValue returns the value of the setting at path (keys joined by
// dots, e.g. "data.planted.weight_scale" or "train.learning_rate") in an
// experiment as resolved, which must be a number.
func SweepValue(e Experiment, path string) (float64, error) {
	var n yaml.Node
	if err := n.Encode(e); err != nil {
		return 0, fmt.Errorf("sweep: encoding experiment %s: %w", e.Name, err)
	}
	return numberAt(&n, path)
}

// SweepOf reads a resolved config (File.Resolved, config.resolved.yaml)
// and returns its sweep: setting and each experiment's value of it; ""
// and nil when the file sweeps nothing.
func SweepOf(resolved []byte) (string, map[string]float64, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(resolved, &doc); err != nil {
		return "", nil, fmt.Errorf("sweep: %w", err)
	}
	if len(doc.Content) == 0 {
		return "", nil, nil
	}
	root := doc.Content[0]
	sw := child(root, "sweep")
	if sw == nil || sw.Value == "" {
		return "", nil, nil
	}
	exps := child(root, "experiments")
	if exps == nil || exps.Kind != yaml.SequenceNode {
		return "", nil, fmt.Errorf("sweep: the resolved config has no list of experiments")
	}
	xs := map[string]float64{}
	for _, item := range exps.Content {
		name := child(item, "name")
		if name == nil {
			return "", nil, fmt.Errorf("sweep: an experiment of the resolved config has no name")
		}
		x, err := numberAt(item, sw.Value)
		if err != nil {
			return "", nil, fmt.Errorf("experiment %s: %w", name.Value, err)
		}
		xs[name.Value] = x
	}
	return sw.Value, xs, nil
}

// child returns the value of key in a mapping node (nil if absent).
func child(n *yaml.Node, key string) *yaml.Node {
	if n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		n = n.Content[0]
	}
	if n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

// numberAt walks path through nested mappings and parses the number
// there.
func numberAt(n *yaml.Node, path string) (float64, error) {
	cur := n
	for _, k := range strings.Split(path, ".") {
		next := child(cur, k)
		if next == nil {
			return 0, fmt.Errorf("sweep: %s: no key %q there", path, k)
		}
		cur = next
	}
	if cur.Kind != yaml.ScalarNode {
		return 0, fmt.Errorf("sweep: %s is not a number but a %s", path, describe(cur))
	}
	x, err := strconv.ParseFloat(cur.Value, 64)
	if err != nil {
		return 0, fmt.Errorf("sweep: %s is %q, not a number", path, cur.Value)
	}
	return x, nil
}
