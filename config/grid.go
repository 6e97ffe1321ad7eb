package config

import (
	"fmt"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// An experiment's grid: key expands it into one experiment per point of a
// product of settings, before anything is decoded:
//
//	experiments:
//	  - name: rbm
//	    grid: {train.learning_rate: [0.05, 0.01], seed: [1, 2, 3]}
//
// becomes rbm.learning_rate-0.05.seed-1, rbm.learning_rate-0.05.seed-2, …,
// rbm.learning_rate-0.01.seed-3 (the last axis varies fastest), each a copy
// of the experiment with the point's values set at their paths as
// `--set NAME:PATH=VALUE` sets them (setIn), so that they are decoded and
// checked as the file's own values are, at the grid's lines. Each point
// records where it came from in its grid_point: key (GridPoint), which the
// resolved config keeps and the reports group by. docs/grid.md is the
// user's description.

// gridKey is the key of an experiment that holds its grid; gridPointKey
// the key that a point of a grid records its coordinates under.
const (
	gridKey      = "grid"
	gridPointKey = "grid_point"
	selectKey    = "select"
)

// SeedAxis is the grid axis that sets the experiment seed; the reports
// average over it.
const SeedAxis = "seed"

// MaxGridPoints is the most points one grid may expand into.
const MaxGridPoints = 10000

// GridPoint places an experiment made by a grid: the name of the
// experiment the grid was written under, the grid's axes (setting paths,
// in the grid's order) and this point's label on each. Zero for an
// experiment written out by hand.
type GridPoint struct {
	// Of names the experiment whose grid made this one, as the file wrote
	// it (a name template keeps its {PATH} placeholders).
	Of string `yaml:"of" want:"the name of the experiment whose grid made this one"`
	// Axes are the setting paths of the grid, in its order.
	Axes []string `yaml:"axes" want:"a list of setting paths"`
	// At are this point's labels on the axes, one per axis.
	At []string `yaml:"at" want:"a list of labels, one per axis"`
}

// IsZero reports whether the experiment is not a grid point.
func (g GridPoint) IsZero() bool { return g.Of == "" && len(g.Axes) == 0 && len(g.At) == 0 }

// Seed returns the label of the point on the seed axis, if the grid has
// one.
func (g GridPoint) Seed() (string, bool) {
	for i, a := range g.Axes {
		if a == SeedAxis && i < len(g.At) {
			return g.At[i], true
		}
	}
	return "", false
}

// Group names the point without its seed: the grid's experiment name and
// its other coordinates, e.g. "rbm (train.learning_rate=0.05)", or for a
// name template the template with every axis but the seed filled in
// ("cd1-s{seed}-32"); the points of one group differ only in their seed.
func (g GridPoint) Group() string {
	if strings.Contains(g.Of, "{") {
		s := g.Of
		for i, a := range g.Axes {
			if a != SeedAxis && i < len(g.At) {
				s = strings.ReplaceAll(s, "{"+a+"}", g.At[i])
			}
		}
		return s
	}
	if s := g.Setting(); s != "" {
		return g.Of + " (" + s + ")"
	}
	return g.Of
}

// Setting writes the point's coordinates other than its seed,
// "train.learning_rate=0.05, model.hidden=25" ("" for a grid of seeds
// alone).
func (g GridPoint) Setting() string {
	var parts []string
	for i, a := range g.Axes {
		if a != SeedAxis && i < len(g.At) {
			parts = append(parts, a+"="+g.At[i])
		}
	}
	return strings.Join(parts, ", ")
}

// gridAxis is one axis of a grid: a setting path and its values.
type gridAxis struct {
	path   string
	keys   []string
	line   int
	labels []string
	values [][]leaf // per value, the leaves it sets (a mapping sets several)
}

// gridValueLine is a line that holds a value of a grid's axis: a problem
// with the value decoded there is reported under the grid's key path.
type gridValueLine struct {
	prefix, axis string
}

// expandGrids replaces every experiment of the document that has a grid:
// key by the experiments of its points, and records in p.origin each
// experiment's index in the file as written.
func (p *parser) expandGrids(root *yaml.Node) {
	var exps *yaml.Node
	for _, e := range lookupPairs(root) {
		switch e.key {
		case "experiments":
			exps = deref(e.val)
		case "base":
			if b := deref(e.val); b.Kind == yaml.MappingNode {
				for _, be := range lookupPairs(b) {
					switch be.key {
					case gridKey:
						p.errorf(be.line, "base."+be.key, "a grid belongs to an experiment (write grid: under the experiment whose settings it varies), not to base")
					case gridPointKey:
						p.errorf(be.line, "base."+be.key, "grid_point records which grid point an experiment is; base cannot set it")
					case selectKey:
						p.errorf(be.line, "base."+be.key, "select chooses among the points of one grid; write it beside that experiment's grid:, not in base")
					}
				}
			}
		}
	}
	if exps == nil || exps.Kind != yaml.SequenceNode {
		return
	}
	var out []*yaml.Node
	var origin []int
	expanded := false
	for i, item := range exps.Content {
		m := deref(item)
		var g *kv
		if m.Kind == yaml.MappingNode {
			for _, e := range lookupPairs(m) {
				if e.key == gridKey {
					g = &e
				}
			}
		}
		if g == nil {
			out, origin = append(out, item), append(origin, i)
			continue
		}
		expanded = true
		pts := p.gridPoints(m, *g, i)
		for range pts {
			origin = append(origin, i)
		}
		out = append(out, pts...)
	}
	if expanded {
		exps.Content = out
		p.origin = origin
	}
}

// gridPoints returns the experiments of the grid g of the experiment m
// (experiments[index]), or nil after reporting why there are none.
func (p *parser) gridPoints(m *yaml.Node, g kv, index int) []*yaml.Node {
	prefix := fmt.Sprintf("experiments[%d]", index)
	gpath := prefix + "." + gridKey
	direct := false
	for i := 0; i+1 < len(m.Content); i += 2 {
		if k := deref(m.Content[i]); k.Kind == yaml.ScalarNode && k.Value == gridKey {
			direct = true
		}
		if k := deref(m.Content[i]); k.Kind == yaml.ScalarNode && k.Value == gridPointKey {
			p.errorf(k.Line, prefix+"."+gridPointKey, "an experiment with a grid cannot set grid_point (its points record their coordinates there)")
			return nil
		}
	}
	if !direct {
		p.errorf(g.line, gpath, "a grid cannot come through a merge key (<<); write grid: in the experiment itself")
		return nil
	}
	var name string
	nameLine := 0
	for _, e := range lookupPairs(m) {
		if e.key == "name" {
			if n := deref(e.val); n.Kind == yaml.ScalarNode && n.ShortTag() == "!!str" {
				name, nameLine = n.Value, n.Line
			}
		}
	}
	if name == "" {
		p.errorf(m.Line, prefix, "an experiment with a grid needs a name (its points are named after it)")
		return nil
	}
	gv := deref(g.val)
	if gv.Kind != yaml.MappingNode || len(gv.Content) == 0 {
		p.errorf(gv.Line, gpath, "expected a mapping of setting paths to lists of values, e.g. {train.learning_rate: [0.05, 0.01], seed: [1, 2, 3]}, got %s", describe(gv))
		return nil
	}
	var axes []*gridAxis
	ok := true
	for _, e := range p.pairs(gv, gpath) {
		a, good := p.gridAxis(e, gpath)
		if !good {
			ok = false
			continue
		}
		for _, b := range axes {
			if k, clash := sharedKey(a, b); clash {
				p.errorf(e.line, join(gpath, e.key), "overlaps axis %s (line %d): both set %s, and a point can hold one value there", b.path, b.line, k)
				good = false
				break
			}
		}
		if good {
			axes = append(axes, a)
		}
	}
	if !ok || len(axes) == 0 {
		return nil
	}
	total, size := 1, 1.0
	var sizes []string
	for _, a := range axes {
		sizes = append(sizes, fmt.Sprint(len(a.labels)))
		size *= float64(len(a.labels))
		if total <= MaxGridPoints {
			total *= len(a.labels)
		}
	}
	if total > MaxGridPoints {
		p.errorf(g.line, gpath, "the grid has %s = %s points, more than the %s a grid may have; split it into several experiments or drop values",
			strings.Join(sizes, " × "), thousands(size), thousands(MaxGridPoints))
		return nil
	}
	namer, good := p.gridNamer(name, nameLine, prefix, axes)
	if !good {
		return nil
	}
	// Problems with a grid's values are reported under the grid's key.
	for _, a := range axes {
		for _, vals := range a.values {
			for _, lf := range vals {
				p.gridLines[deref(lf.val).Line] = append(p.gridLines[deref(lf.val).Line], gridValueLine{prefix, a.path})
			}
		}
	}
	axisPaths := make([]string, len(axes))
	for i, a := range axes {
		axisPaths[i] = a.path
	}
	var out []*yaml.Node
	at := make([]int, len(axes)) // the odometer: the last axis turns fastest
	for range total {
		c := copyNode(m)
		// Drop the grid key itself.
		for i := 0; i+1 < len(c.Content); i += 2 {
			if k := deref(c.Content[i]); k.Kind == yaml.ScalarNode && k.Value == gridKey {
				c.Content = append(c.Content[:i:i], c.Content[i+2:]...)
				break
			}
		}
		labels := make([]string, len(axes))
		for i, a := range axes {
			labels[i] = a.labels[at[i]]
			for _, lf := range a.values[at[i]] {
				setIn(c, lf.path, lf.val, a.line, true)
			}
		}
		setIn(c, []string{"name"}, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: namer(labels), Line: nameLine}, nameLine, true)
		setIn(c, []string{gridPointKey}, gridPointNode(name, axisPaths, labels, g.line), g.line, true)
		out = append(out, c)
		for i := len(at) - 1; i >= 0; i-- {
			at[i]++
			if at[i] < len(axes[i].labels) {
				break
			}
			at[i] = 0
		}
	}
	return out
}

// sharedKey returns a key path that axes a and b both set (one leaf the
// same as, or under, another), if any: train: {cd: {method: cd}} and
// train.precision do not share one, train: {a: {k: 1}} and train.k do.
func sharedKey(a, b *gridAxis) (string, bool) {
	for _, av := range a.values {
		for _, al := range av {
			for _, bv := range b.values {
				for _, bl := range bv {
					x, y := strings.Join(al.path, "."), strings.Join(bl.path, ".")
					if len(x) > len(y) {
						x, y = y, x
					}
					if x == y || strings.HasPrefix(y, x+".") {
						return x, true
					}
				}
			}
		}
	}
	return "", false
}

// thousands writes a whole number with commas between groups of three
// digits (11,000).
func thousands(x float64) string {
	d := strconv.FormatFloat(x, 'f', 0, 64)
	var b strings.Builder
	for i, c := range d {
		if i > 0 && (len(d)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// gridAxis reads one entry of a grid: a setting path and its values, a
// list of scalars or a mapping from labels to values.
func (p *parser) gridAxis(e kv, gpath string) (*gridAxis, bool) {
	at := join(gpath, e.key)
	a := &gridAxis{path: e.key, line: e.line}
	for _, k := range strings.Split(e.key, ".") {
		switch {
		case k == "":
			p.errorf(e.line, at, "empty key in the path %q (keys are separated by single dots, e.g. train.learning_rate)", e.key)
			return nil, false
		case strings.ContainsAny(k, "[]{}"):
			p.errorf(e.line, at, "the path %q indexes a list; a grid sets a setting whole, e.g. model.layers: {small: [100], large: [500, 500]}", e.key)
			return nil, false
		case strings.TrimSpace(k) != k:
			p.errorf(e.line, at, "the path %q has blanks around a key", e.key)
			return nil, false
		}
		a.keys = append(a.keys, k)
	}
	switch a.keys[0] {
	case "name":
		p.errorf(e.line, at, "a grid cannot set name (each point is named after the experiment and its coordinates)")
		return nil, false
	case gridKey, gridPointKey:
		p.errorf(e.line, at, "a grid cannot set %s", a.keys[0])
		return nil, false
	case selectKey:
		p.errorf(e.line, at, "a grid cannot set select (one select chooses among all the grid's points; write it beside grid:)")
		return nil, false
	}
	v := deref(e.val)
	add := func(label string, val *yaml.Node, line int) bool {
		if isNull(val) {
			p.errorf(line, at, "an empty value sets nothing (write '' for empty text)")
			return false
		}
		if !validName(label) {
			p.errorf(line, at, "the value %q cannot be part of an experiment name (letters, digits, '.', '_' or '-'); give it a label: write the axis as a mapping from labels to values, e.g. {%s: {a: ..., b: ...}}", label, e.key)
			return false
		}
		for _, l := range a.labels {
			if strings.EqualFold(l, label) {
				p.errorf(line, at, "the value %q appears twice (names must differ ignoring case)", label)
				return false
			}
		}
		a.labels = append(a.labels, label)
		a.values = append(a.values, p.leaves(a.keys, val))
		return true
	}
	switch v.Kind {
	case yaml.SequenceNode:
		if len(v.Content) == 0 {
			p.errorf(e.line, at, "expected at least one value, got an empty list")
			return nil, false
		}
		for _, item := range v.Content {
			n := deref(item)
			if n.Kind != yaml.ScalarNode {
				p.errorf(n.Line, at, "%s needs a label to name the experiment: write the axis as a mapping from labels to values, e.g. {%s: {a: ..., b: ...}}", describe(n), e.key)
				return nil, false
			}
			if !add(n.Value, item, n.Line) {
				return nil, false
			}
		}
	case yaml.MappingNode:
		if len(v.Content) == 0 {
			p.errorf(e.line, at, "expected at least one value, got an empty mapping")
			return nil, false
		}
		for _, le := range p.pairs(v, at) {
			if !add(le.key, le.val, le.line) {
				return nil, false
			}
		}
	default:
		p.errorf(v.Line, at, "expected a list of values (write [%s] for one value) or a mapping from labels to values, got %s", v.Value, describe(v))
		return nil, false
	}
	return a, true
}

// gridNamer returns the function that names a grid's point from its
// labels. A name with {PATH} placeholders is a template in which each
// axis's label replaces its placeholder (every axis must appear);
// otherwise the point's name is the experiment's followed by
// ".KEY-LABEL" per axis, KEY the last key of the axis's path (its whole
// path where two axes share the last key, or where it is a seed other than
// the experiment's), e.g.
// rbm.learning_rate-0.05.seed-1: '=' cannot appear in a name, which
// becomes a directory name.
func (p *parser) gridNamer(name string, line int, prefix string, axes []*gridAxis) (func([]string) string, bool) {
	if strings.ContainsAny(name, "{}") {
		var parts []string // literal, axis index, literal, ...
		var idx []int
		used := make([]bool, len(axes))
		rest := name
		for {
			open := strings.IndexByte(rest, '{')
			if open < 0 {
				if strings.IndexByte(rest, '}') >= 0 {
					p.errorf(line, prefix+".name", "unbalanced } in the name template %q (write {PATH} for an axis's value)", name)
					return nil, false
				}
				parts = append(parts, rest)
				break
			}
			end := strings.IndexByte(rest[open:], '}')
			if end < 0 || strings.IndexByte(rest[:open], '}') >= 0 {
				p.errorf(line, prefix+".name", "unbalanced { in the name template %q (write {PATH} for an axis's value)", name)
				return nil, false
			}
			key := rest[open+1 : open+end]
			k := -1
			var known []string
			for i, a := range axes {
				known = append(known, a.path)
				if a.path == key {
					k = i
				}
			}
			if k < 0 {
				p.errorf(line, prefix+".name", "{%s} in the name is not an axis of the grid (its axes: %s)", key, strings.Join(known, ", "))
				return nil, false
			}
			used[k] = true
			parts = append(parts, rest[:open])
			idx = append(idx, k)
			rest = rest[open+end+1:]
		}
		for i, u := range used {
			if !u {
				p.errorf(line, prefix+".name", "the name template %q has no {%s}: every axis must appear in it, or the points' names would repeat", name, axes[i].path)
				return nil, false
			}
		}
		return func(labels []string) string {
			var b strings.Builder
			for i, lit := range parts {
				b.WriteString(lit)
				if i < len(idx) {
					b.WriteString(labels[idx[i]])
				}
			}
			return b.String()
		}, true
	}
	keys := make([]string, len(axes))
	count := map[string]int{}
	for _, a := range axes {
		count[a.keys[len(a.keys)-1]]++
	}
	for i, a := range axes {
		keys[i] = a.keys[len(a.keys)-1]
		// data.planted.seed-0 must not read as the experiment's seed.
		if count[keys[i]] > 1 || (keys[i] == SeedAxis && a.path != SeedAxis) {
			keys[i] = a.path
		}
	}
	return func(labels []string) string {
		var b strings.Builder
		b.WriteString(name)
		for i, l := range labels {
			b.WriteString("." + keys[i] + "-" + l)
		}
		return b.String()
	}, true
}

// gridPointNode is the grid_point: value of a point.
func gridPointNode(of string, axes, labels []string, line int) *yaml.Node {
	str := func(s string) *yaml.Node {
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s, Line: line}
	}
	list := func(s []string) *yaml.Node {
		n := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Line: line, Style: yaml.FlowStyle}
		for _, x := range s {
			n.Content = append(n.Content, str(x))
		}
		return n
	}
	return &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: line, Content: []*yaml.Node{
		str("of"), str(of), str("axes"), list(axes), str("at"), list(labels),
	}}
}

// gridPath rewrites the key path of a problem on line for the grid whose
// value is written there: experiments[0].train.learning_rate becomes
// experiments[0].grid.train.learning_rate.
func (p *parser) gridPath(line int, path string) string {
	for _, g := range p.gridLines[line] {
		full := g.prefix + "." + g.axis
		if path == full || strings.HasPrefix(path, full+".") {
			return g.prefix + "." + gridKey + "." + strings.TrimPrefix(path, g.prefix+".")
		}
	}
	return path
}

// GridEntry is an experiment of a resolved config that a grid made: its
// name, its position in the list, its point and its grid's select:.
type GridEntry struct {
	Name   string
	Index  int
	Point  GridPoint
	Select Select
}

// GridEntries returns the experiments of a resolved config that are grid
// points, in the config's order.
func GridEntries(resolved []byte) ([]GridEntry, error) {
	var doc struct {
		Experiments []struct {
			Name   string    `yaml:"name"`
			Point  GridPoint `yaml:"grid_point"`
			Select Select    `yaml:"select"`
		} `yaml:"experiments"`
	}
	if err := yaml.Unmarshal(resolved, &doc); err != nil {
		return nil, fmt.Errorf("grid: %w", err)
	}
	var out []GridEntry
	for i, e := range doc.Experiments {
		if !e.Point.IsZero() {
			out = append(out, GridEntry{Name: e.Name, Index: i, Point: e.Point, Select: e.Select})
		}
	}
	return out, nil
}

// GridOf reads a resolved config (File.Resolved, config.resolved.yaml)
// and returns the grid point of each experiment that is one.
func GridOf(resolved []byte) (map[string]GridPoint, error) {
	entries, err := GridEntries(resolved)
	if err != nil {
		return nil, err
	}
	out := map[string]GridPoint{}
	for _, e := range entries {
		out[e.Name] = e.Point
	}
	return out, nil
}

// MarshalYAML writes the point on three short lines, its lists in flow
// style: grid_point: {of: rbm, axes: [train.learning_rate, seed], at: ["0.05", "1"]}.
func (g GridPoint) MarshalYAML() (any, error) {
	n := gridPointNode(g.Of, g.Axes, g.At, 0)
	n.Style = yaml.FlowStyle
	return n, nil
}
