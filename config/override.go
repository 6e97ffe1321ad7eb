package config

import (
	"fmt"
	"strings"

	"gopkg.in/yaml.v3"
)

// Override is one `--set [NAME:]PATH=VALUE` of the command line: VALUE
// replaces the file's value at the key path PATH of an experiment.
//
// Without NAME the value is set in the file's base: mapping (made if the
// file has none) and replaces the key in every experiment that sets it
// itself, so that every experiment of the file gets it. With NAME it is set
// in that experiment alone, or, when no experiment has that name, in every
// point of the grid written under it (grids are expanded first, so the
// points set their grid's keys themselves). The change is made on the YAML node tree before
// decoding, so the value is checked exactly as if the file held it, and
// every problem with it is reported as the override's (Error.Set), not at a
// line of the file.
type Override struct {
	// Arg is the argument as given (after --set), for messages.
	Arg string
	// Experiment names the one experiment to change; "" = every one.
	Experiment string
	// Path is PATH split at its dots: keys of an experiment, e.g.
	// [data train] or [train epochs].
	Path []string
	// value is VALUE read as YAML: a scalar, or a flow list or mapping.
	value *yaml.Node
}

// String is the override as the command line gives it, without --set.
func (o Override) String() string { return o.Arg }

// ParseOverride reads the argument of one --set: [NAME:]PATH=VALUE, where
// PATH is a dotted key path of an experiment (data.train, train.epochs,
// model.hidden, evaluate.every, seed, ...) and VALUE a YAML scalar or flow
// value ([500], {name: is, samples: 100}); an empty VALUE is YAML's empty
// value. The error explains a malformed argument.
func ParseOverride(arg string) (Override, error) {
	bad := func(format string, a ...any) (Override, error) {
		return Override{}, fmt.Errorf("--set %s: "+format, append([]any{arg}, a...)...)
	}
	lhs, val, ok := strings.Cut(arg, "=")
	if !ok {
		return bad("expected PATH=VALUE, e.g. data.train=npy:train.npy (no '=' in it)")
	}
	o := Override{Arg: arg}
	if name, rest, has := strings.Cut(lhs, ":"); has {
		if !validName(name) {
			return bad("expected NAME:PATH=VALUE with NAME the name of an experiment, got NAME %q", name)
		}
		o.Experiment, lhs = name, rest
	}
	if strings.TrimSpace(lhs) == "" {
		return bad("empty PATH; expected PATH=VALUE, e.g. train.epochs=1")
	}
	for _, k := range strings.Split(lhs, ".") {
		switch {
		case k == "":
			return bad("empty key in PATH %q (keys are separated by single dots, e.g. train.epochs)", lhs)
		case strings.ContainsAny(k, "[]"):
			return bad("PATH %q indexes a list; --set replaces a list whole, e.g. evaluate.final=[{name: is, samples: 100}]", lhs)
		case strings.TrimSpace(k) != k:
			return bad("PATH %q has blanks around a key", lhs)
		}
		o.Path = append(o.Path, k)
	}
	if len(o.Path) == 1 && o.Path[0] == "name" {
		return bad("an experiment's name cannot be overridden (each experiment has its own; --out names the run folder)")
	}
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(val), &doc); err != nil {
		msg := strings.TrimPrefix(err.Error(), "yaml: ")
		msg = strings.TrimPrefix(msg, "line 1: ")
		hint, ok := yamlHints[msg]
		if !ok {
			hint = " (quote text that holds ': ', ' #', or starts with [, {, *, &, !, @ or a quote)"
		}
		return bad("VALUE is not a YAML value: %s%s", msg, hint)
	}
	if len(doc.Content) != 1 || isNull(doc.Content[0]) {
		return bad("VALUE is empty (YAML's null), which sets nothing; write '' for empty text")
	}
	o.value = doc.Content[0]
	return o, nil
}

// overrideLine is the line number that marks the nodes of override k:
// negative, so that errorf can tell them from the file's lines.
func overrideLine(k int) int { return -(k + 1) }

// overrideOf returns the override whose nodes carry line, if any.
func (p *parser) overrideOf(line int) (Override, bool) {
	if line >= 0 || -line > len(p.opt.Set) {
		return Override{}, false
	}
	return p.opt.Set[-line-1], true
}

// shownPath is the key path of a problem with override o's value as its
// error shows it: relative to the experiment, without the base: or
// experiments[i] the override went into (the value is the same in each,
// and so is the problem: it is reported once), and nothing for PATH itself.
func (o Override) shownPath(path string) string {
	if path == "base" {
		return ""
	}
	path = strings.TrimPrefix(path, "base.")
	if rest, ok := strings.CutPrefix(path, "experiments["); ok {
		if _, after, ok := strings.Cut(rest, "]"); ok {
			path = strings.TrimPrefix(after, ".")
		}
	}
	if path == strings.Join(o.Path, ".") {
		return ""
	}
	return path
}

// applyOverrides changes the document as the --set overrides say, in
// order (a later one wins), before anything is decoded.
func (p *parser) applyOverrides(root *yaml.Node) {
	for k, o := range p.opt.Set {
		line := overrideLine(k)
		var exps *yaml.Node
		for _, e := range lookupPairs(root) {
			if e.key == "experiments" {
				exps = deref(e.val)
			}
		}
		var items []int // the experiments the override changes
		if exps != nil && exps.Kind == yaml.SequenceNode {
			for i := range exps.Content {
				items = append(items, i)
			}
		}
		create := false // set in an experiment only where it sets the key itself
		if o.Experiment != "" {
			items, create = p.named(exps, o, line), true
		}
		for _, leaf := range p.leaves(o.Path, markLines(o.value, line)) {
			if o.Experiment == "" {
				setIn(root, append([]string{"base"}, leaf.path...), leaf.val, line, true)
			}
			for _, i := range items {
				if m := deref(exps.Content[i]); m.Kind == yaml.MappingNode {
					c := copyNode(m)
					if setIn(c, leaf.path, leaf.val, line, create) {
						exps.Content[i] = c
					}
				}
			}
		}
	}
}

// named returns the indices in the experiments list exps of the
// experiment o names, or of every point of the grid of that name (the
// experiments a grid: key made, which record it in grid_point.of),
// reporting a name that is not there.
func (p *parser) named(exps *yaml.Node, o Override, line int) []int {
	var names []string
	var points []int
	if exps != nil && exps.Kind == yaml.SequenceNode {
		for i, item := range exps.Content {
			if m := deref(item); m.Kind == yaml.MappingNode {
				for _, e := range lookupPairs(m) {
					n := deref(e.val)
					switch {
					case e.key == "name" && n.Kind == yaml.ScalarNode:
						if n.Value == o.Experiment {
							return []int{i}
						}
						names = append(names, n.Value)
					case e.key == gridPointKey && n.Kind == yaml.MappingNode:
						if of := child(n, "of"); of != nil && of.Value == o.Experiment {
							points = append(points, i)
						}
					}
				}
			}
		}
	}
	if len(points) > 0 {
		return points
	}
	p.errorf(line, "", "no experiment named %q in the file (its experiments: %s)", o.Experiment, strings.Join(names, ", "))
	return nil
}

// leaf is one value an override sets, at a path of keys.
type leaf struct {
	path []string
	val  *yaml.Node
}

// leaves splits a mapping value into the values of its keys, recursively,
// so that --set data={train: a, test: b} is --set data.train=a --set
// data.test=b: mappings merge key by key, as base: and an experiment do,
// while scalars and lists replace. An empty mapping or value inside it
// would set nothing (or wipe an experiment's own section): it is refused.
func (p *parser) leaves(path []string, v *yaml.Node) []leaf {
	n := deref(v)
	switch {
	case n.Kind == yaml.MappingNode && len(n.Content) == 0, isNull(n):
		p.errorf(n.Line, strings.Join(path, "."), "%s sets nothing; write '' for empty text", describe(n))
		return nil
	case n.Kind != yaml.MappingNode:
		return []leaf{{path, v}}
	}
	var out []leaf
	for _, e := range p.pairs(n, strings.Join(path, ".")) {
		out = append(out, p.leaves(append(append([]string(nil), path...), e.key), e.val)...)
	}
	return out
}

// isNull reports whether n is YAML's empty value.
func isNull(n *yaml.Node) bool {
	n = deref(n)
	return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null"
}

// lookupPairs lists a mapping's entries (merge keys resolved) without
// reporting anything: the decoder reports the file's problems later.
func lookupPairs(m *yaml.Node) []kv {
	return (&parser{}).pairs(m, "")
}

// setIn sets the value at path under the mapping m to v and reports
// whether it did. A key of the path that m has (written or through a merge
// key) is set by an entry of m itself; a missing one, or an empty
// intermediate value ("train:" with nothing under it), is made when create
// is true, and otherwise nothing is set (the experiment keeps what base
// gives it). A value that is not a mapping where the path goes on (a
// number, a text, a list) is replaced by a mapping holding the rest of the
// path, as writing that mapping in the file would: the decoder then refuses
// a mapping where it expects a value, naming the override, instead of the
// override being dropped. Intermediate mappings are copied before they
// change, so that a node shared through an anchor changes nowhere else.
// The key of the value set is a new node on the override's line, so that
// problems with the value are reported as the override's.
func setIn(m *yaml.Node, path []string, v *yaml.Node, line int, create bool) bool {
	key := path[0]
	at := -1 // index of the key in m.Content, if m writes it itself
	for i := 0; i+1 < len(m.Content); i += 2 {
		if k := deref(m.Content[i]); k.Kind == yaml.ScalarNode && k.ShortTag() == "!!str" && k.Value == key {
			at = i
		}
	}
	var cur *yaml.Node
	curLine := line
	if at >= 0 {
		cur, curLine = m.Content[at+1], m.Content[at].Line
	} else {
		for _, e := range lookupPairs(m) {
			if e.key == key {
				cur, curLine = e.val, e.line
			}
		}
	}
	put := func(keyLine int, val *yaml.Node) {
		k := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key, Line: keyLine}
		if at >= 0 {
			m.Content[at], m.Content[at+1] = k, val
		} else {
			m.Content = append(m.Content, k, val)
		}
	}
	if len(path) == 1 {
		if cur == nil && !create {
			return false
		}
		put(line, v)
		return true
	}
	var child *yaml.Node
	switch c := deref(cur); {
	case c == nil || (c.Kind == yaml.ScalarNode && c.ShortTag() == "!!null"):
		if !create {
			return false
		}
		child = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: line}
		if c != nil {
			child.Line = c.Line
		}
	case c.Kind == yaml.MappingNode:
		child = copyNode(c)
	default:
		// The file's value is replaced, so what is under it is made.
		child = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: line}
		create = true
	}
	if !setIn(child, path[1:], v, line, create) {
		return false
	}
	put(curLine, child)
	return true
}

// copyNode is a copy of the node n with its own list of children (the
// children themselves are shared).
func copyNode(n *yaml.Node) *yaml.Node {
	c := *n
	c.Content = append([]*yaml.Node(nil), n.Content...)
	c.Anchor = ""
	return &c
}

// markLines is a deep copy of the value n with every line set to line
// (aliases inside it point to the copies of their anchors).
func markLines(n *yaml.Node, line int) *yaml.Node {
	copies := map[*yaml.Node]*yaml.Node{}
	var walk func(n *yaml.Node) *yaml.Node
	walk = func(n *yaml.Node) *yaml.Node {
		c := *n
		copies[n] = &c
		c.Line, c.Column = line, 0
		c.Content = nil
		for _, x := range n.Content {
			c.Content = append(c.Content, walk(x))
		}
		return &c
	}
	out := walk(n)
	for _, c := range copies {
		if a, ok := copies[c.Alias]; ok && c.Alias != nil {
			c.Alias = a
		}
	}
	return out
}
